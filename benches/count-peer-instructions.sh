#!/usr/bin/env bash
# Instructions per call of every row of peers.rs, by callgrind (needs valgrind): a count the
# machine's load does not move. Each row runs twice, with 100 and 1,100 calls; the difference over
# 1,000 is the per-call cost, free of start-up work.
#
#     benches/count-peer-instructions.sh
set -euo pipefail
cd "$(dirname "$0")"
binary=$(cargo bench --bench peers --no-run --message-format=json 2>/dev/null |
  grep -o '"executable":"[^"]*/peers-[^"]*"' | cut -d'"' -f4)
count() { # row, tools, calls
  SKYL_PEER_CALLS="$1 $2 $3" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" 2>&1 |
    sed -n 's/.*Collected : //p'
}
for tools in 1 101; do
  declare -A per_call=()
  for row in by_hand skyl skyl_blocking rmcp_router_field rmcp_server_handler rig_toolset llm_tool_registry; do
    small=$(count "$row" "$tools" 100)
    large=$(count "$row" "$tools" 1100)
    per_call[$row]=$(( (large - small) / 1000 ))
    awk -v row="$row" -v tools="$tools" -v n="${per_call[$row]}" -v floor="${per_call[by_hand]}" \
      -v skyl="${per_call[skyl]:-0}" 'BEGIN {
        printf "%-20s %3d tools: %9d instructions per call, %7.2fx the floor", row, tools, n, n / floor
        if (skyl > 0) printf ", %7.2fx skyl", n / skyl
        printf "\n"
      }'
  done
done
