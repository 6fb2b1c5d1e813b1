# Sourced by compile-time.sh and analyze.sh, with their first argument: the crates generate.py
# writes, of TOOLS tools (100 by default), in a temporary directory `$work`, removed on exit.
# Sets `here` (this folder), `skyl` (the crate), `tools` and `work`.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
skyl=$(cd "$here/../../skyl" && pwd)
tools=${1:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$here/generate.py" "$work" "$skyl" "$tools"
