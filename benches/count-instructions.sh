#!/usr/bin/env bash
# Instructions per dispatch, skyl (a function tool, a method tool, and the function tool without
# limits) against the hand-written floor, by callgrind (needs valgrind).
# Each variant runs twice, with 1,000 and 101,000 calls; the difference over 100,000 is the
# per-call cost, free of start-up work.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --quiet --bin instructions
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/instructions "$1" "$2" 2>&1 \
    | sed -n 's/.*Collected : //p'
}
declare -A per_call
for variant in floor skyl method unlimited; do
  small=$(count "$variant" 1000)
  large=$(count "$variant" 101000)
  per_call[$variant]=$(( (large - small) / 100000 ))
  echo "$variant: ${per_call[$variant]} instructions per call"
done
awk -v s="${per_call[skyl]}" -v f="${per_call[floor]}" 'BEGIN { printf "skyl / floor: %.3f\n", s / f }'
awk -v m="${per_call[method]}" -v f="${per_call[floor]}" 'BEGIN { printf "method / floor: %.3f\n", m / f }'
awk -v u="${per_call[unlimited]}" -v f="${per_call[floor]}" 'BEGIN { printf "unlimited / floor: %.3f\n", u / f }'
