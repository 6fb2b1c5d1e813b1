#!/usr/bin/env bash
# Compile time of 100 tools: the same crate written with #[skyl::tool] and by hand (derived
# Deserialize + JsonSchema argument structs, a definition per tool, a match dispatcher), with the
# dependencies already built. Prints the median of five runs of each (wall time and CPU time, the
# two crates taking turns) and the ratios, then the number of syn versions in skyl's tree.
#
# Two kinds of run: "from scratch" compiles the crate whole (CARGO_INCREMENTAL=0), which is what
# the generated code costs; "touched" rebuilds it after `touch` with incremental compilation on,
# where rustc expands the macros again but reuses most later work, since the text is unchanged.
#
#     benches/compile/compile-time.sh [TOOLS]       (ROUNDS=n for another number of runs)
#
# benches/compile/analyze.sh says where the difference goes.
set -euo pipefail
# shellcheck source=generated.sh
source "$(dirname "$0")/generated.sh"

# One target directory for both crates: the dependencies are built once and shared.
export CARGO_TARGET_DIR="$work/target"
for crate in macro hand; do
  cargo build --quiet --manifest-path "$work/$crate/Cargo.toml"
  cargo check --quiet --manifest-path "$work/$crate/Cargo.toml"
done

# One run: seconds of wall time and of CPU time (user + sys of cargo and rustc), the crate alone.
run() { # crate, cargo command, CARGO_INCREMENTAL
  touch "$work/$1/src/lib.rs"
  CARGO_INCREMENTAL=$3 /usr/bin/time -f '%e %U %S' -o "$work/time" \
    cargo "$2" --quiet --manifest-path "$work/$1/Cargo.toml"
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The two crates take turns, round by round, so that a change in the machine's load falls on both.
rounds=${ROUNDS:-5}
for kind in "from scratch:0" "touched:1"; do
  for command in build check; do
    : >"$work/macro.times"
    : >"$work/hand.times"
    for _ in $(seq "$rounds"); do
      run macro "$command" "${kind#*:}" >>"$work/macro.times"
      run hand "$command" "${kind#*:}" >>"$work/hand.times"
    done
    macro_wall=$(cut -d' ' -f1 "$work/macro.times" | median)
    hand_wall=$(cut -d' ' -f1 "$work/hand.times" | median)
    macro_cpu=$(cut -d' ' -f2 "$work/macro.times" | median)
    hand_cpu=$(cut -d' ' -f2 "$work/hand.times" | median)
    printf 'cargo %-5s %d tools, %-13s wall #[tool] %5.2fs, by hand %5.2fs, %.2fx | cpu %5.2fs, %5.2fs, %.2fx\n' \
      "$command" "$tools" "${kind%:*}:" "$macro_wall" "$hand_wall" "$(echo "$macro_wall / $hand_wall" | bc -l)" \
      "$macro_cpu" "$hand_cpu" "$(echo "$macro_cpu / $hand_cpu" | bc -l)"
  done
done

syns=$(cd "$skyl/.." && cargo tree -p skyl -e normal,build,dev --prefix none 2>/dev/null |
  grep -E '^syn v' | cut -d' ' -f1-2 | sort -u)
printf 'syn versions in the skyl tree: %d (%s)\n' "$(echo "$syns" | grep -c .)" "$(echo "$syns" | tr '\n' ' ')"
