#!/usr/bin/env bash
# Where the compile time of 100 #[tool] functions goes, against the same tools by hand (the crates
# compile-time.sh times). Needs a nightly toolchain for the -Z flags, and c++filt.
#
#   1. the expanded source (-Zunpretty=expanded): lines and bytes per tool;
#   2. what each macro generates (-Zmacro-stats), for the #[tool] crate;
#   3. the LLVM IR of a debug build (one codegen unit), by what the functions are for;
#   4. rustc's passes in a debug build from scratch (-Ztime-passes), the ones that differ.
#
#     benches/compile/analyze.sh [TOOLS]
set -euo pipefail
# shellcheck source=generated.sh
source "$(dirname "$0")/generated.sh"
export CARGO_TARGET_DIR="$work/target" CARGO_INCREMENTAL=0
rustc_lib() { # crate, flags... -> rustc's output, for the crate alone
  local crate=$1
  shift
  touch "$work/$crate/src/lib.rs"
  cargo +nightly rustc --quiet --lib --manifest-path "$work/$crate/Cargo.toml" -- "$@" 2>&1
}
for crate in macro hand; do
  cargo +nightly build --quiet --manifest-path "$work/$crate/Cargo.toml"
done

echo "== 1. expanded source, per tool"
for crate in macro hand; do
  rustc_lib "$crate" -Zunpretty=expanded >"$work/$crate.expanded.rs"
  awk -v crate="$crate" -v tools="$tools" '{ bytes += length($0) + 1 } END {
    printf "%-5s %6.0f lines %7.0f bytes\n", crate, NR / tools, bytes / tools }' "$work/$crate.expanded.rs"
done

echo "== 2. what each macro generates in the #[tool] crate"
rustc_lib macro -Zmacro-stats | sed -n 's/^macro-stats //p' | sed -n '3,12p'

echo "== 3. LLVM IR of a debug build, by what the functions are for"
for crate in macro hand; do
  rustc_lib "$crate" --emit=llvm-ir -Ccodegen-units=1 >/dev/null
  python3 "$here/ir_buckets.py" "$crate" "$tools" "$CARGO_TARGET_DIR"/debug/deps/compile_"$crate"-*.ll
  rm -f "$CARGO_TARGET_DIR"/debug/deps/compile_"$crate"-*.ll
done

echo "== 4. rustc passes of a debug build from scratch, seconds (#[tool] / by hand)"
for crate in macro hand; do
  rustc_lib "$crate" -Ztime-passes | awk '{ print $NF, $2 }' | tr -d ';' | sort >"$work/$crate.passes"
done
join "$work/macro.passes" "$work/hand.passes" | awk '
  $1 ~ /^(total|macro_expand_crate|resolve_crate|type_check_crate|MIR_borrow_checking|monomorphization_collector_graph_walk|codegen_to_LLVM_IR|LLVM_passes|link)$/ {
    printf "%-40s %6.2f %6.2f\n", $1, $2, $3 }'
