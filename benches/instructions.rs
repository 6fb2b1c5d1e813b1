//! Counts instructions instead of time: `valgrind --tool=callgrind` gives the same count on every
//! run, whatever else the machine is doing. `count-instructions.sh` runs it.
//!
//! Usage: `instructions floor|skyl|method N` dispatches the workload's call N times.

use std::hint::black_box;

use skyl::Toolbox;

mod workload;
use workload::{GetWeather, Stations, hand_written, weather_call};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(which), Some(count)) = (
        args.next(),
        args.next().and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: instructions floor|skyl|method N");
        std::process::exit(2);
    };
    let call = weather_call();
    let toolbox = Toolbox::new().with(GetWeather);
    let methods = Toolbox::new().with_set(Stations);
    let mut bytes = 0;
    for _ in 0..count {
        let result = match which.as_str() {
            "floor" => hand_written(black_box(&call)),
            "skyl" => toolbox.dispatch_blocking(black_box(&call)),
            "method" => methods.dispatch_blocking(black_box(&call)),
            other => panic!("unknown variant {other}; use floor, skyl or method"),
        };
        bytes += result.content.len();
    }
    println!("{bytes}");
}
