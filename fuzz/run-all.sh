#!/usr/bin/env bash
# Runs every fuzz target for N minutes each (default 10), one after another, starting from the
# corpus kept in fuzz/corpus/<target>/; a decode_<provider> target also starts from the response
# bodies in tests/fixtures/<provider>/, its seeds (read, never written: new inputs go to the corpus
# folder). A crash stops the run and leaves its input in fuzz/artifacts/<target>/: copy it to
# fuzz/regressions/<target>/ before fixing it, where tests/fuzz_regressions.rs (and
# tests/mcp/fuzz_inputs.rs, for mcp_serve) replays it.
#
#     fuzz/run-all.sh [MINUTES] [TARGET...]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and a nightly toolchain; on a stable toolchain
# without nightly, RUSTC_BOOTSTRAP=1 lets cargo-fuzz use the flags it needs.
set -euo pipefail
cd "$(dirname "$0")"
minutes=${1:-10}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  toolchain=(+nightly)
else
  export RUSTC_BOOTSTRAP=1
fi
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target"
  seeds=()
  if [[ $target == decode_* ]]; then
    seeds=("../tests/fixtures/${target#decode_}")
  fi
  echo "==> $target for $minutes minute(s)"
  cargo "${toolchain[@]}" fuzz run "$target" "corpus/$target" ${seeds[@]+"${seeds[@]}"} -- \
    -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 2>&1 |
    grep -E '^(#[0-9]+ +DONE|stat::|==|SUMMARY|Done )' || true
  if [ -n "$(ls -A "artifacts/$target" 2>/dev/null)" ]; then
    echo "crash found in $target: see fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
echo "fuzzing done: ${#targets[@]} target(s), $minutes minute(s) each, no crash"
