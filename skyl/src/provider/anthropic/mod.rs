//! The Anthropic Messages API (`POST /v1/messages`).

use super::Provider;
#[cfg(doc)]
use super::Request;
#[cfg(doc)]
use crate::message::{Role, ToolResult};

mod api;
mod decode;
mod encode;
mod stream;
mod tool_prompt;

const PROVIDER: Provider = Provider::Anthropic;

/// The user turn put first when the transcript opens with the assistant (trimmed history, a
/// greeting): the API wants the first message from the user and rejects empty text.
const OPENING_TEXT: &str = "(continued)";

/// The Anthropic Messages API.
///
/// Encoding:
///
/// - [`Request::system`] and the text of every [`Role::System`] message, in that order, are
///   joined with a blank line into the top-level `system` (the Messages API has no system role;
///   a system message's position in the transcript is not kept).
/// - User and tool messages become `user` messages, assistant messages `assistant` ones;
///   consecutive messages of the same role are merged, so the results of one assistant turn all
///   arrive in one `user` message, and within a `user` message every `tool_result` block comes
///   before any text ("tool_result blocks must come FIRST in the content array").
/// - A [`ToolResult`] is a `tool_result` block with a real `is_error` boolean, sent as `true` or
///   `false` on every result, as in recorded traffic the API accepted. An empty content is left
///   out (the documented shape of an empty result) rather than sent as `""`.
/// - A result with [content](crate::Content) beside it has a list of blocks as its `content`:
///   its prose as a `text` block, then an `image` block (base64 or URL source) per image, a
///   `document` block per PDF, and a `text` block for each other part. Audio, which Anthropic
///   does not take, and an image over its 5 MB, are a line of text saying what was left out.
/// - Empty text is dropped (the API rejects empty text blocks), and so is a message left empty.
///   Should the transcript then open with the assistant, a user message holding the text
///   `(continued)` is put first (the API answers "first message must use the \"user\" role").
/// - Call ids are made to match `^[a-zA-Z0-9_-]+$` (ids from other providers may not), the same
///   way on the call and on its result. Every call of the request gets an id no other call has
///   (Anthropic wants `tool_use` ids unique): an id that a cleaned id or an earlier turn already
///   took gets a `_2`, `_3`, ... suffix, on the call and on its result.
/// - Thinking and other blocks decoded from a response are sent back in place, verbatim.
/// - With extended thinking on (a `thinking` field in [`Request::extra`], not `disabled`), a
///   final assistant message of calls that does not open with a thinking block (another
///   provider's, or Anthropic's without thinking: a handoff, a failover) has its calls, and
///   their results, sent as text blocks saying what was called with what and what came back:
///   the API refuses it otherwise ("Expected `thinking` or `redacted_thinking`, but found
///   `tool_use`").
/// - `max_tokens` is required by the API: [`Request::max_tokens`] or
///   [`DEFAULT_MAX_TOKENS`](Self::DEFAULT_MAX_TOKENS).
/// - Prompt caching ([`Request::caching`], see [`Caching`](crate::provider::caching::Caching)): by default a
///   `cache_control: {"type": "ephemeral"}` breakpoint on the last tool (the tools are sent sorted
///   by name), on the system prompt (then sent as one `text` block, since a breakpoint goes on a
///   block), and on the last block of each of the two newest `user` messages: four, the API's
///   limit. A thinking block never carries one; the block before it does.
///
/// ```
/// use skyl::provider::{Adapter, Anthropic, Request};
///
/// let body = Anthropic
///     .encode(&Request::new("claude-sonnet-4-5", vec![skyl::Message::user("Hi")]))
///     .unwrap();
/// assert_eq!(body["max_tokens"], 4096);
/// assert_eq!(body["messages"][0]["content"][0]["text"], "Hi");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Anthropic;

impl Anthropic {
    /// The `max_tokens` sent when [`Request::max_tokens`] is `None`: the API requires one. 4096 is
    /// what pydantic-ai sends in the recorded traffic, and within every current model's limit.
    pub const DEFAULT_MAX_TOKENS: u32 = 4096;
}
