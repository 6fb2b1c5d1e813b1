//! Each adapter's stream decoder on arbitrary event sequences (names and data, in any order):
//! events or an error, never a panic, and after a successful finish the calls told finished are
//! the answer's, each told once.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (adapter, events) = skyl_fuzz::stream_events(data);
    skyl_fuzz::decode_stream(&*adapter, &events);
});
