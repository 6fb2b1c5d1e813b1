//! `encode` of arbitrary transcripts on every adapter: a body only for a valid transcript, an
//! error otherwise, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses};

fuzz_target!(|data: &[u8]| {
    let messages = skyl_fuzz::transcript(&mut skyl_fuzz::Bytes::new(data));
    let adapters: [&dyn Adapter; 4] = [
        &Anthropic,
        &OpenAiChat::default(),
        &OpenAiResponses::default(),
        &Gemini::default(),
    ];
    for adapter in adapters {
        skyl_fuzz::encode(adapter, &messages);
    }
});
