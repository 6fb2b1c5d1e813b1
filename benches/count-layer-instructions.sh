#!/usr/bin/env bash
# Instructions per call of the floor and skyl rows of encode.rs, decode.rs and stream.rs, by
# callgrind (needs valgrind): a count the machine's load does not move. Each row runs alone twice,
# with 2 and 12 calls (encode: a 1,000-message transcript), 100 and 1,100 (decode: one response)
# or 10 and 110 (stream: one recorded stream, `decode` against parsing its payloads); the
# difference is the per-call cost, free of start-up work. Where a bench counts allocations (encode,
# decode), both rows pay the same counting allocator.
#
#     benches/count-layer-instructions.sh
set -euo pipefail
cd "$(dirname "$0")"
binary() {
  cargo bench --bench "$1" --no-run --message-format=json 2>/dev/null |
    grep -o "\"executable\":\"[^\"]*/$1-[^\"]*\"" | cut -d'"' -f4
}
count() { # binary, provider, row, calls
  SKYL_LAYER_CALLS="$2 $3 $4" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" 2>&1 |
    sed -n 's/.*Collected : //p'
}
for layer in encode decode stream; do
  bin=$(binary "$layer")
  case $layer in
    encode) small=2 large=12 ;;
    decode) small=100 large=1100 ;;
    stream) small=10 large=110 ;;
  esac
  providers="anthropic openai_chat openai_responses gemini"
  # Gemini's usual answer, calls without ids, is a decode row of its own.
  [ "$layer" = decode ] && providers="$providers gemini_without_ids"
  for provider in $providers; do
    declare -A per_call=()
    for row in floor skyl; do
      a=$(count "$bin" "$provider" "$row" "$small")
      b=$(count "$bin" "$provider" "$row" "$large")
      per_call[$row]=$(( (b - a) / (large - small) ))
    done
    awk -v layer="$layer" -v provider="$provider" -v f="${per_call[floor]}" -v s="${per_call[skyl]}" \
      'BEGIN { printf "%-6s %-16s floor %10d, skyl %10d instructions per call: %.3fx\n", layer, provider, f, s, s / f }'
  done
done
