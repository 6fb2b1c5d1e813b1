#!/usr/bin/env bash
# Installs the Restate server for running the skyl-restate example by hand (README, "Beyond one
# machine"); the tests install the same version into the target directory themselves
# (skyl-restate/tests/support/local.rs: keep the two versions equal). npm's
# @restatedev/restate-server ships the Linux binary inside the package. It goes into
# skyl-restate/restate-server/ (gitignored); a second run with the binary in place does nothing.
#
#   scripts/install-restate-server.sh
#
# The binary ends up at skyl-restate/restate-server/bin/restate-server (a link into node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."

version="1.7.12"
dir="skyl-restate/restate-server"
binary="$dir/bin/restate-server"

if [[ -x "$binary" ]] && "$binary" --version 2>/dev/null | grep -q "$version"; then
  exit 0
fi
mkdir -p "$dir"
echo "==> installing @restatedev/restate-server@$version into $dir"
SCARF_ANALYTICS=false npm install --silent --no-audit --no-fund --no-save --prefix "$dir" "@restatedev/restate-server@$version"
found="$(find "$dir/node_modules/@restatedev" -type f -name restate-server -perm -u+x | head -1)"
if [[ -z "$found" ]]; then
  echo "the package installed, but no restate-server binary is inside $dir/node_modules/@restatedev" >&2
  exit 1
fi
mkdir -p "$dir/bin"
ln -sf "../${found#"$dir/"}" "$binary"
"$binary" --version
