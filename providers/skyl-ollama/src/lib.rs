//! Ollama's own chat API (`POST /api/chat`) as a skyl provider, written the way any crate outside
//! skyl writes one: through skyl's public provider API only.
//!
//! It is the worked example of `skyl::provider`'s guide. A provider is one type, five trait
//! impls written by hand (four on the type, [`StreamSteps`](skyl::provider::stream::StreamSteps) on its
//! stream's state), each in the file of its step, and one line that makes the type an adapter:
//!
//! | file | what it holds | skyl trait |
//! |---|---|---|
//! | `lib.rs` | the type, its [`Provider`] identity, and the line that makes it an adapter of its steps | [`Adapter`](skyl::provider::Adapter), by [`adapter!`](skyl::provider::author::adapter) |
//! | `encode.rs` | the request body's steps | [`Encoder`](skyl::provider::author::Encoder) |
//! | `decode.rs` | the response body's steps | [`Decoder`](skyl::provider::author::Decoder) |
//! | `stream.rs` | how one line of a stream grows the answer | [`Streaming`](skyl::provider::stream::Streaming), [`StreamSteps`](skyl::provider::stream::StreamSteps) |
//! | `api.rs` | the HTTP part: URL, auth, environment, framing | [`Api`](skyl::provider::author::Api) |
//!
//! Ollama's API differs from OpenAI's Chat Completions (which Ollama also serves, under `/v1`,
//! for [`OpenAiChat`](skyl::provider::OpenAiChat)): a call's arguments are a JSON object, not
//! text; calls carry no ids (the decoder mints them); a tool result names its tool
//! (`tool_name`), not a call id; the model's thinking comes apart (`thinking`); the token limit
//! is an option (`options.num_predict`); a stream is one JSON object a line, not server-sent
//! events, and it streams unless a request says `"stream": false`.
//!
//! ```
//! use serde_json::json;
//! use skyl::provider::{Adapter, Request};
//! use skyl::Message;
//! use skyl_ollama::Ollama;
//!
//! let request = Request::new("qwen3", vec![Message::user("Hi")]).with_system("You are terse.");
//! let body = Ollama.encode(&request)?;
//! assert_eq!(body, json!({
//!     "model": "qwen3",
//!     "messages": [
//!         {"role": "system", "content": "You are terse."},
//!         {"role": "user", "content": "Hi"}
//!     ],
//!     "stream": false
//! }));
//! # Ok::<(), skyl::provider::EncodeError>(())
//! ```
//!
//! Over HTTP (skyl's `http` feature), as any other provider:
//!
//! ```no_run
//! # fn main() -> Result<(), skyl::http::ConfigError> {
//! // http://localhost:11434, no key needed.
//! let model = skyl::http::HttpModel::builder(skyl_ollama::Ollama).build()?;
//! # Ok(())
//! # }
//! ```

use skyl::provider::{Provider, ProviderInfo};

mod api;
mod decode;
mod encode;
mod stream;

/// Ollama's provider: its id names its [`ProviderData`](skyl::transcript::ProviderData) (the model's
/// thinking, sent back with the turn it came in).
pub const PROVIDER: Provider = Provider::new(&ProviderInfo::new("ollama", "Ollama"));

/// Ollama's own chat API, `POST {base}/api/chat`.
///
/// Encoding: the system prompt ([`Request::system`](skyl::provider::Request::system) and every system message) is one `system`
/// message first; a user message's text is its `content`; an assistant turn's text is its
/// `content`, its calls `tool_calls` (`{"function": {"name", "arguments"}}`, the arguments an
/// object), and thinking it came with goes back as `thinking`; each tool result is a `tool`
/// message with the result as `content` and its call's tool as `tool_name`. The PNG and JPEG
/// images of a result's content (a blob resource of those types included) go in the message's
/// `images`; every other part is a line of its `content`, written by skyl's
/// [`ResultLowering`](skyl::provider::author::ResultLowering) as the built-in adapters write it (a PDF,
/// audio, an image at a URL: a line saying it was not sent and why). Ollama has no error flag on
/// a result: an error's content is sent prefixed with `"error: "`. Ollama has no tool
/// choice: with [`ToolChoice::None`](skyl::provider::ToolChoice::None) the tools are not sent,
/// and any other choice sends them all. [`Request::max_tokens`](skyl::provider::Request::max_tokens) is `options.num_predict`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ollama;

skyl::provider::author::adapter!(Ollama);
