#!/usr/bin/env bash
# Packages every publishable crate of the workspace as `cargo publish` would, unpacks each
# package, and runs its tests and doctests from the unpacked trees alone: a temporary workspace
# whose members are the unpacked packages, each pointed at its siblings' packages (not at the
# repository) by `[patch.crates-io]`. A file a test or a doc reads from outside its package, or a
# feature switched on only by the repository, fails here. Nothing is published.
#
#   scripts/package-check.sh
#
# It builds in the workspace's target directory, so the dependencies the workspace's tests built
# (same versions, same features) are not built again; only the unpacked crates are.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
target="$repo/target"
out="$target/package-check"
started=$SECONDS

step() { printf '\n--> %s\n' "$*"; }

# The packages to publish: the workspace's members without `publish = false`.
mapfile -t crates < <(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for package in json.load(sys.stdin)["packages"]:
    if package.get("publish") != []:
        print(package["name"], package["version"])
')
[[ ${#crates[@]} -gt 0 ]] || { echo "no publishable crate in the workspace" >&2; exit 1; }

step "cargo package: ${crates[*]// /@}"
args=()
for crate in "${crates[@]}"; do
  args+=(-p "${crate% *}")
done
# Packaged together, the crates resolve one another (skyl-macros is not on crates.io yet) from a
# registry cargo makes of the packages. --no-verify: the tests below are the verification, from
# the same packages. --allow-dirty: a working tree's changes are checked before they are committed.
rm -rf "$target/package"
cargo package "${args[@]}" --no-verify --allow-dirty --quiet

step "unpacked into $out"
rm -rf "$out"
mkdir -p "$out"
members=""
patches=""
for crate in "${crates[@]}"; do
  name="${crate% *}"
  dir="$name-${crate#* }"
  tar -xzf "$target/package/$dir.crate" -C "$out"
  printf '    %-24s %3s files\n' "$dir" "$(find "$out/$dir" -type f | wc -l)"
  members+="\"$dir\", "
  patches+="$name = { path = \"$dir\" }"$'\n'
done
cat >"$out/Cargo.toml" <<TOML
# Made by scripts/package-check.sh: the unpacked packages, each depending on its siblings' packages.
[workspace]
resolver = "3"
members = [${members%, }]

[patch.crates-io]
$patches
TOML
# The repository's lockfile, so that the packages are tested on the versions the workspace is.
cp Cargo.lock "$out/Cargo.lock"

# The Restate server skyl-restate's tests run: the one the workspace's tests installed, if any
# (else the package's tests install it with npm, as for a user).
server="$(find "$target/tmp" -path '*restate-server-*/node_modules/*' -name restate-server -type f 2>/dev/null | head -1)"
if [[ -n "$server" && -z "${SKYL_RESTATE_SERVER:-}" ]]; then
  export SKYL_RESTATE_SERVER="$server"
fi

cd "$out"
for crate in "${crates[@]}"; do
  name="${crate% *}"
  step "cargo test -p $name --all-features, from its package (tests and doctests)"
  log="$out/test-$name.log"
  if CARGO_TARGET_DIR="$target" cargo test -p "$name" --all-features >"$log" 2>&1; then
    grep -E '^ *(Running|Doc-tests)|^test result' "$log" | sed -E 's/ \(.*target\/debug\/deps\/[^)]*\)//; s/; finished in .*//'
  else
    tail -60 "$log" >&2
    echo "the tests of the $name package fail from its unpacked tree (log: $log); again:" >&2
    echo "  cd $out && CARGO_TARGET_DIR=$target cargo test -p $name --all-features" >&2
    exit 1
  fi
done

step "every package built and passed its tests from its own files ($((SECONDS - started)) s)"
