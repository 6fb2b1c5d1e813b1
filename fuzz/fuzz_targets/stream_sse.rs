//! Arbitrary bytes through an SseParser in arbitrary pieces, then through each adapter's stream
//! decoder: the pieces change nothing, and the decoder keeps the promises of the `stream` target.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (adapter, pieces) = skyl_fuzz::sse_pieces(data);
    let events = skyl_fuzz::parse_sse(&pieces);
    skyl_fuzz::decode_stream(&*adapter, &events);
});
