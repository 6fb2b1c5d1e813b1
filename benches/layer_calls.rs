//! One row of a layer's bench run alone, for `count-layer-instructions.sh`: callgrind then counts
//! the instructions of that row and no other.

/// When `SKYL_LAYER_CALLS="<provider> floor|skyl <calls>"` is set, runs that row `calls` times,
/// `floor` or `skyl` given the provider's position in `providers`, and says so; otherwise does
/// nothing.
pub fn run_counted(providers: &[&str], floor: impl Fn(usize), skyl: impl Fn(usize)) -> bool {
    let Ok(spec) = std::env::var("SKYL_LAYER_CALLS") else {
        return false;
    };
    let [provider, row, calls] = spec.split(' ').collect::<Vec<_>>()[..] else {
        panic!("SKYL_LAYER_CALLS is \"<provider> floor|skyl <calls>\", not {spec:?}");
    };
    let provider = providers
        .iter()
        .position(|known| *known == provider)
        .unwrap_or_else(|| panic!("{provider:?} is not one of {providers:?}"));
    let row: &dyn Fn(usize) = match row {
        "floor" => &floor,
        "skyl" => &skyl,
        other => panic!("a row is floor or skyl, not {other:?}"),
    };
    let calls: usize = calls.parse().expect("a number of calls");
    for _ in 0..calls {
        row(provider);
    }
    true
}
