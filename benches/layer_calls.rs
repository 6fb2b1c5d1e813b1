//! One row of a layer's bench run alone, for `count-layer-instructions.sh`: callgrind then counts
//! the instructions of that row and no other.

/// When `SKYL_LAYER_CALLS="<provider> floor|skyl <calls>"` is set, runs that row `calls` times
/// through `run(provider, row)` and says so; otherwise does nothing.
pub fn run_counted(run: impl Fn(&str, &str)) -> bool {
    let Ok(spec) = std::env::var("SKYL_LAYER_CALLS") else {
        return false;
    };
    let [provider, row, calls] = spec.split(' ').collect::<Vec<_>>()[..] else {
        panic!("SKYL_LAYER_CALLS is \"<provider> floor|skyl <calls>\", not {spec:?}");
    };
    assert!(
        matches!(row, "floor" | "skyl"),
        "a row is floor or skyl, not {row:?}"
    );
    let calls: usize = calls.parse().expect("a number of calls");
    for _ in 0..calls {
        run(provider, row);
    }
    true
}
