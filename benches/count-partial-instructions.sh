#!/usr/bin/env bash
# Instructions of the linear rows of partial.rs (a call's arguments read after every 10-byte delta,
# read only at the end, and one serde_json::from_str of the whole), by callgrind (needs valgrind):
# a count the machine's load does not move. Each row runs alone twice, with 1 and 11 parses; the
# difference over 10 is the cost of one, free of start-up work.
#
#     benches/count-partial-instructions.sh [SIZE...]     # default: 1000 10000 100000
set -euo pipefail
cd "$(dirname "$0")"
bin=$(cargo bench --bench partial --no-run --message-format=json 2>/dev/null |
  grep -o '"executable":"[^"]*/partial-[^"]*"' | cut -d'"' -f4)
count() { # row, size, calls
  SKYL_PARTIAL_CALLS="$1 $2 $3" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" 2>&1 |
    sed -n 's/.*Collected : //p'
}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 10000 100000)
for size in "${sizes[@]}"; do
  declare -A per_parse=()
  for row in from_str incremental incremental_unread; do
    a=$(count "$row" "$size" 1)
    b=$(count "$row" "$size" 11)
    per_parse[$row]=$(( (b - a) / 10 ))
  done
  awk -v size="$size" -v f="${per_parse[from_str]}" -v r="${per_parse[incremental]}" \
    -v u="${per_parse[incremental_unread]}" 'BEGIN {
      printf "%7d bytes: from_str %9d, incremental %9d (%.2fx), unread %9d (%.2fx) instructions\n",
        size, f, r, r / f, u, u / f }'
done
