//! What an adapter decodes: a [`Response`].

use serde::{Deserialize, Serialize};

use crate::message::{Message, Part, Role, ToolCall};

/// An answer decoded from a response body.
///
/// Non-exhaustive, so that what an answer reports can grow: build one with
/// [`Response::new`], [`text`](Response::text) or [`calls`](Response::calls) and the `with_`
/// methods.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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
    /// Which of several models answered: the name of the [`Member`](crate::model::Member) of a
    /// [`Failover`](crate::model::Failover) whose answer this is. `None` from a single model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// The model name the request that got this answer asked for, when a model made of several
    /// asked for its own: the [`Member::model_name`](crate::model::Member::model_name) of the
    /// [`Failover`](crate::model::Failover) member that answered. `None` when it was the
    /// request's [`model`](super::Request::model). A run prices the answer by this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_model: Option<String>,
}

impl Response {
    /// An answer whose message is `text`, ending the model's turn; no tokens counted, no id.
    ///
    /// What a [`Model`](crate::model::Model) of your own, or a scripted one, answers with:
    ///
    /// ```
    /// use skyl::Message;
    /// use skyl::provider::{Response, StopReason};
    ///
    /// let response = Response::text("22C and sunny.");
    /// assert_eq!(response.message, Message::assistant("22C and sunny."));
    /// assert_eq!(response.stop_reason, StopReason::EndTurn);
    /// ```
    pub fn text(text: impl Into<String>) -> Response {
        Response::new(Message::assistant(text), StopReason::EndTurn)
    }

    /// An answer whose message holds `calls`, waiting for their results; no tokens counted, no
    /// id.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::ToolCall;
    /// use skyl::provider::{Response, StopReason};
    ///
    /// let response = Response::calls([ToolCall::new("c1", "get_weather", json!({"city": "Kampala"}))]);
    /// assert_eq!(response.message.tool_calls().count(), 1);
    /// assert_eq!(response.stop_reason, StopReason::ToolUse);
    /// ```
    pub fn calls(calls: impl IntoIterator<Item = ToolCall>) -> Response {
        let message = Message {
            role: Role::Assistant,
            parts: calls.into_iter().map(Part::ToolCall).collect(),
        };
        Response::new(message, StopReason::ToolUse)
    }

    /// An answer of `message`, stopped for `stop_reason`; no tokens counted, no id or model
    /// (set them with [`with_usage`](Self::with_usage), [`with_id`](Self::with_id) and
    /// [`with_model`](Self::with_model)).
    pub fn new(message: Message, stop_reason: StopReason) -> Response {
        Response {
            message,
            stop_reason,
            usage: Usage::default(),
            id: None,
            model: None,
            answered_by: None,
            requested_model: None,
        }
    }

    /// The same answer with `usage` counted.
    pub fn with_usage(mut self, usage: Usage) -> Response {
        self.usage = usage;
        self
    }

    /// The same answer with the provider's id for it.
    pub fn with_id(mut self, id: impl Into<String>) -> Response {
        self.id = Some(id.into());
        self
    }

    /// The same answer with the name of the model that gave it.
    pub fn with_model(mut self, model: impl Into<String>) -> Response {
        self.model = Some(model.into());
        self
    }
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

/// Tokens a request used. Counts the provider did not report are zero or `None`, and
/// [`unreported`](Self::unreported) says when it reported none at all.
///
/// Every adapter reads the same meaning into the same field: `input_tokens` is the whole input,
/// the part read from the cache ([`cached_input_tokens`](Self::cached_input_tokens)) and the
/// part written to it ([`cache_write_tokens`](Self::cache_write_tokens)) included; and
/// `output_tokens` is everything generated, reasoning included. Where each count comes from:
///
/// | field | Anthropic | OpenAI Chat | OpenAI Responses | Gemini |
/// |---|---|---|---|---|
/// | `input_tokens` | `input_tokens` + `cache_read_input_tokens` + `cache_creation_input_tokens` | `prompt_tokens` | `input_tokens` | `promptTokenCount` |
/// | `output_tokens` | `output_tokens` | `completion_tokens` | `output_tokens` | `candidatesTokenCount` + `thoughtsTokenCount` |
/// | `cached_input_tokens` | `cache_read_input_tokens` | `prompt_tokens_details.cached_tokens` | `input_tokens_details.cached_tokens` | `cachedContentTokenCount` |
/// | `cache_write_tokens` | `cache_creation_input_tokens` | — | — | — |
/// | `reasoning_tokens` | — | `completion_tokens_details.reasoning_tokens` | `output_tokens_details.reasoning_tokens` | `thoughtsTokenCount` |
///
/// Non-exhaustive, so that new counts (audio) can be added: build one with
/// [`Usage::new`], [`Usage::unreported_usage`] and the `with_` methods, or from
/// [`Usage::default`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Tokens read, including cached ones.
    pub input_tokens: u64,
    /// Tokens generated, reasoning tokens included (Gemini counts its thoughts apart, and the
    /// adapter adds them, as Gemini bills them as output).
    pub output_tokens: u64,
    /// Input tokens served from the provider's cache (billed at its cache-read price), when
    /// reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Input tokens written to the provider's cache (billed at its cache-write price, above the
    /// input price on Anthropic), when reported: only Anthropic reports them; OpenAI and Gemini
    /// write their caches without charge or count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
    /// Reasoning ("thinking") tokens, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// The provider reported no usage for the answer (a stream whose server sends no usage
    /// chunk, a compatible server that leaves the block out): the counts are zero because they
    /// are unknown, not because nothing was used. In a run's total, some answer's usage was
    /// unreported, so the counts miss what it used.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unreported: bool,
}

impl Usage {
    /// `input_tokens` read and `output_tokens` generated; nothing else reported.
    ///
    /// ```
    /// let usage = skyl::provider::Usage::new(40, 6).with_cached_input_tokens(32);
    /// assert_eq!((usage.input_tokens, usage.output_tokens, usage.cached_input_tokens), (40, 6, Some(32)));
    /// ```
    pub fn new(input_tokens: u64, output_tokens: u64) -> Usage {
        Usage {
            input_tokens,
            output_tokens,
            cached_input_tokens: None,
            cache_write_tokens: None,
            reasoning_tokens: None,
            unreported: false,
        }
    }

    /// A usage the provider did not report: zero counts, [`unreported`](Self::unreported).
    pub fn unreported_usage() -> Usage {
        Usage {
            unreported: true,
            ..Usage::default()
        }
    }

    /// The same usage with `tokens` of the input served from the provider's cache.
    pub fn with_cached_input_tokens(mut self, tokens: u64) -> Usage {
        self.cached_input_tokens = Some(tokens);
        self
    }

    /// The same usage with `tokens` of the input written to the provider's cache.
    pub fn with_cache_write_tokens(mut self, tokens: u64) -> Usage {
        self.cache_write_tokens = Some(tokens);
        self
    }

    /// The same usage with `tokens` of reasoning.
    pub fn with_reasoning_tokens(mut self, tokens: u64) -> Usage {
        self.reasoning_tokens = Some(tokens);
        self
    }
}
