//! OpenAI Chat Completions (`POST /v1/chat/completions`), also spoken by most OpenAI-compatible
//! servers (vLLM, Ollama's `/v1`, Groq, OpenRouter, Gemini's compatibility endpoint, ...).

use serde_json::{Map, Value};

use crate::message::ProviderData;
use crate::provider::Provider;
#[cfg(doc)]
use crate::provider::{EncodeError, Request, StopReason};

mod api;
mod decode;
mod encode;
mod stream;

const PROVIDER: Provider = Provider::OpenAiChat;

/// OpenAI Chat Completions and the OpenAI-compatible servers.
///
/// Encoding:
///
/// - [`Request::system`] is the first message, `role: "system"`; [`Role::System`](crate::Role::System) messages of
///   the transcript stay in place as `system` messages.
/// - A call is an entry of the assistant message's `tool_calls`, its arguments a JSON string; a
///   [`ToolResult`](crate::ToolResult) is a `role: "tool"` message right after it. There is no
///   error flag on this wire and skyl never sends an `is_error` key (Fireworks and Groq reject
///   unknown keys): a failed result's content is prefixed with `"error: "`, and a failure with
///   empty content is sent as `""`, its flag lost. Write failures as sentences.
/// - Text in a tool message is sent as a `user` message after the tool messages.
/// - A tool message holds text only, so a result's [content](crate::Content) is lowered: text,
///   links, resources and JSON are lines after the prose in the tool message; images
///   (`image_url`), PDFs given as bytes (`file`) and, with
///   [`with_audio_input(true)`](Self::with_audio_input), WAV and MP3 audio (`input_audio`) go
///   in that `user` message after the tool messages, each run introduced by a line naming the
///   call it belongs to. What Chat cannot take (audio by default, a PDF at a URL) is a line
///   saying it was left out. The model sees the media as the user's, not the tool's: that is
///   the loss.
/// - With [`with_strict(true)`](Self::with_strict) tools carry `"strict": true` and their schema
///   is lowered with [`dialect::openai_strict`](crate::provider::dialect::openai_strict); a schema that cannot be strict is an
///   [`EncodeError::Schema`].
/// - An assistant turn that only calls tools has `"content": ""`. OpenAI takes a missing, `null`
///   or empty `content` there, and the official SDKs send whatever they are given, but
///   compatible servers do not all agree: llama-cpp-python's server answers a missing `content`
///   and `null` with a 500 and takes `""`, which is also what the AI SDK sends every compatible
///   server. `""` is the one value every server tried takes.
/// - [`Request::max_tokens`] is sent as `max_completion_tokens` to OpenAI (its current name;
///   reasoning models reject `max_tokens`), and as `max_tokens` to a compatible server
///   ([`with_compatible`](Self::with_compatible), or a named [`server`](Self::server)): the name
///   every compatible server reads, where several (llama-cpp-python, older vLLM and Ollama) ignore
///   the new one and answer without a limit.
///
/// Decoding keeps an `arguments` string that is not valid JSON as a string (dispatching the call
/// then tells the model) and mints ids for calls a server sent without one (`call_<key>_<n>`, the
/// key being the response `id` or a hash of the body). It reads compatible servers as they really
/// answer: an empty `refusal` is no refusal, empty `content` next to calls is no text, an empty
/// `id` is no id, and calls with an empty, missing or `"stop"` `finish_reason` (OpenAI's own, when
/// `tool_choice` forces a call) stop for [`StopReason::ToolUse`].
///
/// # Compatible servers and what goes back to them
///
/// Some compatible servers put fields of their own on the assistant message and need them back on
/// the next request: Gemini's endpoint its thought signatures under `extra_content` (on the
/// message and on each call), DeepSeek in thinking mode its `reasoning_content` (a 400 without it
/// once the model has called a tool), vLLM and OpenRouter their `reasoning` or
/// `reasoning_details`. OpenAI's own request types forbid every one of them. Decoding keeps them as
/// [`ProviderData`] labelled with the adapter's [`server`](Self::server), and encoding sends them
/// back only to an adapter with the same label:
///
/// - [`OpenAiChat::default()`] talks to OpenAI itself. It sends nothing OpenAI does not define, so
///   a transcript from any compatible server can be continued on OpenAI.
/// - [`with_server("deepseek")`](Self::with_server) talks to a compatible server named
///   `"deepseek"`: what that server returned, decoded by an adapter of the same name, goes back
///   verbatim; another server's fields do not.
///
/// Name the server when it needs its fields back (DeepSeek, Gemini's endpoint, vLLM serving a
/// reasoning model). Leave Groq unnamed: it answers with `reasoning` but refuses that field (and
/// every field it does not list) in a request.
///
/// ```
/// use skyl::provider::{Adapter, OpenAiChat, Request};
/// use skyl::Message;
/// use serde_json::json;
///
/// let deepseek = OpenAiChat::default().with_server("deepseek");
/// let answer = deepseek.decode(&json!({
///     "choices": [{"finish_reason": "stop", "message": {
///         "role": "assistant", "content": "42.", "reasoning_content": "6 times 7."
///     }}]
/// }))?;
/// let request = Request::new("deepseek-chat", vec![Message::user("6 × 7?"), answer.message, Message::user("Sure?")]);
/// let to_deepseek = deepseek.encode(&request)?;
/// assert_eq!(to_deepseek["messages"][1]["reasoning_content"], "6 times 7.");
/// let to_openai = OpenAiChat::default().encode(&request)?;
/// assert_eq!(to_openai["messages"][1], json!({"role": "assistant", "content": "42."}));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenAiChat {
    strict: bool,
    server: Option<&'static str>,
    compatible: bool,
    audio_input: bool,
}

impl OpenAiChat {
    /// Turns OpenAI strict mode on or off for every tool (off by default, as on the API).
    ///
    /// ```
    /// use skyl::provider::{Adapter, OpenAiChat};
    ///
    /// let strict = OpenAiChat::default().with_strict(true);
    /// assert_eq!(strict.provider(), skyl::provider::Provider::OpenAiChat);
    /// ```
    pub fn with_strict(self, strict: bool) -> Self {
        OpenAiChat { strict, ..self }
    }

    /// Names the OpenAI-compatible server this adapter talks to (`"deepseek"`, `"gemini"`,
    /// `"vllm"`, ...), so that the fields that server returned for itself go back to it; see
    /// [Compatible servers](Self#compatible-servers-and-what-goes-back-to-them). The name is a
    /// label of your choosing: answers decoded under one name go back only to an adapter of the
    /// same name. An empty name is no name: OpenAI itself.
    ///
    /// ```
    /// use skyl::provider::OpenAiChat;
    ///
    /// let gemini = OpenAiChat::default().with_server("gemini");
    /// assert_eq!(gemini.server(), Some("gemini"));
    /// assert_eq!(OpenAiChat::default().server(), None);
    /// ```
    pub fn with_server(self, server: &'static str) -> Self {
        OpenAiChat {
            server: (!server.is_empty()).then_some(server),
            ..self
        }
    }

    /// The compatible server this adapter talks to, `None` for OpenAI itself (or a compatible
    /// server without a name).
    pub fn server(&self) -> Option<&'static str> {
        self.server
    }

    /// Says whether this adapter talks to an OpenAI-compatible server rather than OpenAI itself,
    /// for the fields the two name differently: a compatible server gets the token limit as
    /// `max_tokens`. A named [`server`](Self::server) is compatible already. An
    /// `HttpModel` (feature `http`) whose base URL is not OpenAI's sets it.
    ///
    /// ```
    /// use skyl::provider::{Adapter, OpenAiChat, Request};
    ///
    /// let request = Request::new("smollm2", vec![skyl::Message::user("Hi.")]).with_max_tokens(5);
    /// let local = OpenAiChat::default().with_compatible(true).encode(&request).unwrap();
    /// assert_eq!(local["max_tokens"], 5);
    /// let openai = OpenAiChat::default().encode(&request).unwrap();
    /// assert_eq!(openai["max_completion_tokens"], 5);
    /// ```
    pub fn with_compatible(self, compatible: bool) -> Self {
        OpenAiChat { compatible, ..self }
    }

    /// Sends audio a tool returned (WAV and MP3) to the model as `input_audio`, in the `user`
    /// message after the tool messages (off by default). Only OpenAI's audio models take audio
    /// input, and any other answers the request with a 400; so by default a clip is a line
    /// saying it was left out. Turn it on when the model takes audio.
    ///
    /// ```
    /// use skyl::provider::OpenAiChat;
    ///
    /// let audio = OpenAiChat::default().with_audio_input(true);
    /// assert!(audio.takes_audio());
    /// assert!(!OpenAiChat::default().takes_audio());
    /// ```
    pub fn with_audio_input(self, audio_input: bool) -> Self {
        OpenAiChat {
            audio_input,
            ..self
        }
    }

    /// Whether audio a tool returned is sent to the model (see
    /// [`with_audio_input`](Self::with_audio_input)).
    pub fn takes_audio(&self) -> bool {
        self.audio_input
    }

    /// Whether this adapter talks to an OpenAI-compatible server (see
    /// [`with_compatible`](Self::with_compatible)).
    pub fn is_compatible(&self) -> bool {
        self.compatible || self.server.is_some()
    }

    /// The fields `data` holds for the message or call it came with, when they were returned by
    /// the server this adapter talks to.
    fn returned<'d>(&self, data: &'d ProviderData) -> Option<&'d Map<String, Value>> {
        let server = self.server?;
        let data = data.of(PROVIDER)?;
        if data.get(SERVER)?.as_str()? != server {
            return None;
        }
        data.get(FIELDS)?.as_object()
    }

    /// `fields` as provider data labelled with this adapter's server.
    fn keep(&self, fields: Map<String, Value>) -> ProviderData {
        let mut data = Map::with_capacity(2);
        if let Some(server) = self.server {
            data.insert(SERVER.into(), server.into());
        }
        data.insert(FIELDS.into(), Value::Object(fields));
        ProviderData::new(PROVIDER, Value::Object(data))
    }
}

/// The key of the provider data naming the server that returned it.
const SERVER: &str = "server";
/// The key of the provider data holding the fields to send back.
const FIELDS: &str = "fields";

/// The fields a compatible server adds to an assistant message and may need back: Gemini's
/// `extra_content` (thought signatures), DeepSeek's (Moonshot's, older vLLM's)
/// `reasoning_content`, vLLM's, Groq's and OpenRouter's `reasoning`, OpenRouter's
/// `reasoning_details`.
const MESSAGE_FIELDS: [&str; 4] = [
    "extra_content",
    "reasoning_content",
    "reasoning",
    "reasoning_details",
];

/// The fields a compatible server adds to a call and may need back: Gemini's `extra_content`.
const CALL_FIELDS: [&str; 1] = ["extra_content"];
