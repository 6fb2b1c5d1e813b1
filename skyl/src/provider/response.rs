//! What an adapter decodes: a [`Response`].

use serde::{Deserialize, Serialize};

use crate::message::Message;

/// An answer decoded from a response body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The assistant's turn: text, tool calls, and the provider data to send back with it.
    /// Append it to the transcript as it is.
    pub message: Message,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Tokens used.
    pub usage: Usage,
    /// The provider's id for the response, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The model that answered, as the provider names it, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Why the model stopped, normalised across providers.
///
/// Non-exhaustive: a reason skyl does not name yet arrives as [`Other`](Self::Other), and may get
/// its own variant later; match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It called tools and waits for their results. Every adapter decodes an answer that holds
    /// calls as this, also when the server gave an ordinary end (`"stop"`, `"end_turn"`,
    /// `"STOP"`, `""`) or no reason at all, as some do when a call was forced.
    ToolUse,
    /// It hit the token limit; the answer (or a tool call) may be cut off.
    MaxTokens,
    /// It produced one of the request's stop sequences.
    StopSequence,
    /// The provider's content filter stopped it.
    ContentFilter,
    /// The model refused to answer.
    Refusal,
    /// Another reason, as the provider spelled it (for example Anthropic `pause_turn` or Gemini
    /// `MALFORMED_FUNCTION_CALL`); empty when the provider gave none.
    Other(String),
}

/// Tokens a request used. Counts the provider did not report are zero or `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read, including cached ones.
    pub input_tokens: u64,
    /// Tokens generated, excluding reasoning tokens where the provider counts them apart (Gemini).
    pub output_tokens: u64,
    /// Input tokens served from the provider's cache, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Reasoning ("thinking") tokens, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}
