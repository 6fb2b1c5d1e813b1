//! Counts instructions instead of time: `valgrind --tool=callgrind` gives the same count on every
//! run, whatever else the machine is doing. `count-instructions.sh` runs it.
//!
//! Usage: `instructions floor|skyl|method|unlimited N` dispatches the workload's call N times
//! (`unlimited`: the function tool in a toolbox with `Limits::none()`, which skips the walk of
//! the arguments).

use std::hint::black_box;

use skyl::{Limits, ToolResult, Toolbox};

mod workload;
use workload::{GetWeather, Stations, hand_written, weather_call};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(which), Some(count)) = (
        args.next(),
        args.next().and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: instructions floor|skyl|method|unlimited N");
        std::process::exit(2);
    };
    let call = weather_call();
    let toolbox = Toolbox::new().with(GetWeather);
    let methods = Toolbox::new().with_set(Stations);
    let unlimited = Toolbox::new().with(GetWeather).with_limits(Limits::none());
    // The variant is chosen once, outside the loop, so that every loop is the same code around a
    // different dispatcher.
    let bytes = match which.as_str() {
        "floor" => repeat(count, || hand_written(black_box(&call))),
        "skyl" => repeat(count, || toolbox.dispatch_blocking(black_box(&call))),
        "method" => repeat(count, || methods.dispatch_blocking(black_box(&call))),
        "unlimited" => repeat(count, || unlimited.dispatch_blocking(black_box(&call))),
        other => panic!("unknown variant {other}; use floor, skyl, method or unlimited"),
    };
    println!("{bytes}");
}

fn repeat(count: usize, mut dispatch: impl FnMut() -> ToolResult) -> usize {
    let mut bytes = 0;
    for _ in 0..count {
        bytes += dispatch().content.len();
    }
    bytes
}
