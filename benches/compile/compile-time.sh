#!/usr/bin/env bash
# Compile time of 100 tools: the same crate written with #[skyl::tool] and by hand (derived
# Deserialize + JsonSchema argument structs, a definition per tool, a match dispatcher), with the
# dependencies already built. Prints the median of three runs of each and the ratio, then the
# number of syn versions in skyl's tree.
#
# Two kinds of run: "from scratch" compiles the crate whole (CARGO_INCREMENTAL=0), which is what
# the generated code costs; "touched" rebuilds it after `touch` with incremental compilation on,
# where rustc expands the macros again but reuses most later work, since the text is unchanged.
#
#     benches/compile/compile-time.sh [TOOLS]
#
# benches/compile/analyze.sh says where the difference goes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
skyl=$(cd "$here/../../skyl" && pwd)
tools=${1:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$here/generate.py" "$work" "$skyl" "$tools"

# One target directory for both crates: the dependencies are built once and shared.
export CARGO_TARGET_DIR="$work/target"
for crate in macro hand; do
  cargo build --quiet --manifest-path "$work/$crate/Cargo.toml"
  cargo check --quiet --manifest-path "$work/$crate/Cargo.toml"
done

measure() { # crate, cargo command, CARGO_INCREMENTAL -> seconds of the crate's own build, median of three
  local crate=$1 command=$2 incremental=$3 times=()
  for _ in 1 2 3; do
    touch "$work/$crate/src/lib.rs"
    local start end
    start=$(date +%s.%N)
    CARGO_INCREMENTAL=$incremental cargo "$command" --quiet --manifest-path "$work/$crate/Cargo.toml"
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}

for kind in "from scratch:0" "touched:1"; do
  for command in build check; do
    macro=$(measure macro "$command" "${kind#*:}")
    hand=$(measure hand "$command" "${kind#*:}")
    printf 'cargo %-5s %d tools, %-12s #[tool] %5.2fs, by hand %5.2fs, ratio %.2fx\n' \
      "$command" "$tools" "${kind%:*}:" "$macro" "$hand" "$(echo "$macro / $hand" | bc -l)"
  done
done

syns=$(cd "$skyl/.." && cargo tree -p skyl -e normal,build,dev --prefix none 2>/dev/null |
  grep -E '^syn v' | cut -d' ' -f1-2 | sort -u)
printf 'syn versions in the skyl tree: %d (%s)\n' "$(echo "$syns" | grep -c .)" "$(echo "$syns" | tr '\n' ' ')"
