//! A tool call's arguments parsed as they stream, on arbitrary text cut at arbitrary places:
//! every view on the way is part of what serde_json reads of the whole, and the end is exactly
//! serde_json's value, or an error where serde_json has one.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skyl_fuzz::partial_arguments(data);
});
