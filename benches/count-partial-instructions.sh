#!/usr/bin/env bash
# Instructions of the linear rows of partial.rs (a call's arguments read after every 10-byte delta,
# read only at the end, and one serde_json::from_str of the whole), on the ASCII text and on the
# real text (`real_text`: outside ASCII, `\u` escapes, deltas cut inside characters), by callgrind
# (needs valgrind): a count the machine's load does not move. Each row runs alone twice, with 1 and
# 11 parses; the difference over 10 is the cost of one, free of start-up work.
#
#     benches/count-partial-instructions.sh [SIZE...]     # default: 1000 10000 100000
#
# SKYL_PARTIAL_BIN=<a copy of the partial bench binary> counts that build instead of building one:
# two builds (before and after a change) counted in one session.
set -euo pipefail
cd "$(dirname "$0")"
bin=${SKYL_PARTIAL_BIN:-$(cargo bench --bench partial --no-run --message-format=json 2>/dev/null |
  grep -o '"executable":"[^"]*/partial-[^"]*"' | cut -d'"' -f4)}
count() { # row, size, calls
  SKYL_PARTIAL_CALLS="$1 $2 $3" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" 2>&1 |
    sed -n 's/.*Collected : //p'
}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 10000 100000)
for text in "" real_text::; do
  for size in "${sizes[@]}"; do
    declare -A per_parse=([incremental_str]=0)
    rows=(from_str incremental incremental_unread)
    # The real text also as providers deliver it, `&str` deltas through `push`.
    [ -n "$text" ] && rows+=(incremental_str)
    for row in "${rows[@]}"; do
      a=$(count "$text$row" "$size" 1)
      b=$(count "$text$row" "$size" 11)
      per_parse[$row]=$(((b - a) / 10))
    done
    awk -v text="${text:-ascii::}" -v size="$size" -v f="${per_parse[from_str]}" \
      -v r="${per_parse[incremental]}" -v u="${per_parse[incremental_unread]}" \
      -v s="${per_parse[incremental_str]}" 'BEGIN {
        printf "%-11s %7d bytes: from_str %9d, incremental %9d (%.2fx), unread %9d (%.2fx)",
          text, size, f, r, r / f, u, u / f
        if (s > 0) printf ", str deltas %9d (%.2fx)", s, s / f
        printf " instructions\n" }'
  done
done
