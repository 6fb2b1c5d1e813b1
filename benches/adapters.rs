//! The four adapters by the provider names the encode and decode benches give their rows.

use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses};

/// The adapter of `provider`: `anthropic`, `openai_chat`, `openai_responses`, else Gemini's.
pub fn adapter(provider: &str) -> Box<dyn Adapter> {
    match provider {
        "anthropic" => Box::new(Anthropic),
        "openai_chat" => Box::new(OpenAiChat::default()),
        "openai_responses" => Box::new(OpenAiResponses::default()),
        _ => Box::new(Gemini::default()),
    }
}
