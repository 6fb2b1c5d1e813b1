//! The OpenAiChat adapter's `decode` on arbitrary bytes parsed as JSON: an answer or an error, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skyl::provider::OpenAiChat;

fuzz_target!(|data: &[u8]| skyl_fuzz::decode(&OpenAiChat::default(), data));
