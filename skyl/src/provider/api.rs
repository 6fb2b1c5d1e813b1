//! What a transport needs to know of a provider's HTTP API beside its bodies: where to POST, how
//! to authenticate, how to ask for a stream and how the stream is framed, which environment
//! variables the official SDKs read, and how the provider says what went wrong.
//!
//! These are facts about the provider, so they live with its adapter and need no HTTP client:
//! the transport (`skyl::http::HttpModel`, feature `http`) reads them through [`Api`].

use std::fmt;

use serde_json::Value;

use super::stream::Streaming;
use super::{DecodeError, Request};

/// How a provider frames the events of a streamed answer in the response body.
///
/// Non-exhaustive: a provider may frame its stream another way, and skyl may learn it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Framing {
    /// Server-sent events (`text/event-stream`): each event's name and data go to
    /// [`StreamDecoder::push`](crate::provider::stream::StreamDecoder::push) as they are. Anthropic, both OpenAI
    /// APIs and Gemini.
    Sse,
    /// One JSON document a line (`application/x-ndjson`): each non-empty line goes to
    /// [`StreamDecoder::push`](crate::provider::stream::StreamDecoder::push) as the data of an event named
    /// `"message"`. Ollama's own API.
    JsonLines,
}

impl Framing {
    /// The media type a request for a stream of this framing accepts.
    pub fn media_type(self) -> &'static str {
        match self {
            Framing::Sse => "text/event-stream",
            Framing::JsonLines => "application/x-ndjson",
        }
    }
}

/// A provider's HTTP API: an adapter that can stream, and the facts a transport needs to send it
/// requests.
///
/// The built-in adapters implement it ([`Anthropic`](super::Anthropic),
/// [`OpenAiChat`](super::OpenAiChat), [`OpenAiResponses`](super::OpenAiResponses),
/// [`Gemini`](super::Gemini), and [`AzureOpenAi`](super::AzureOpenAi) for OpenAI's two APIs on
/// Azure); a provider of your own implements it to be given to `HttpModel::builder`. The
/// required methods say where the API lives and how to authenticate; the others have defaults
/// that fit an API that streams by server-sent events and answers errors with a body its
/// adapter's [`decode`](super::Adapter::decode) reads.
///
/// Object-safe: a transport holds a `Box<dyn Api>` (and shows it in its `Debug`, which must not
/// show a secret).
///
/// ```
/// use skyl::provider::{Anthropic, Gemini, author::{Api, Framing}};
///
/// let api: Box<dyn Api> = Box::new(Gemini::default());
/// assert_eq!(
///     api.url("https://generativelanguage.googleapis.com", "gemini-2.5-flash", true),
///     "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
/// );
/// assert_eq!(api.framing(), Framing::Sse);
/// assert_eq!(Anthropic.auth_headers(Some("k")), [("anthropic-version", "2023-06-01".to_owned()), ("x-api-key", "k".to_owned())]);
/// ```
pub trait Api: Streaming + fmt::Debug {
    /// Where the provider's own API lives, when no base URL is given
    /// (`https://api.anthropic.com`); `None` when it has no address of its own (Azure: every
    /// resource has its endpoint), so that a base URL must be given.
    fn default_base_url(&self) -> Option<&'static str>;

    /// The environment variables the official SDK reads for the key, in the order it prefers
    /// them (Google's SDK takes `GOOGLE_API_KEY` over `GEMINI_API_KEY`).
    fn key_variables(&self) -> &'static [&'static str];

    /// The environment variable the official SDK reads for the base URL, if any.
    fn base_url_variable(&self) -> Option<&'static str>;

    /// The URL to POST a request for `model` to, under `base` (which has no trailing `/`):
    /// for the whole answer, or for a stream when `stream` is true.
    fn url(&self, base: &str, model: &str, stream: bool) -> String;

    /// The headers that authenticate a request with `key` (none when there is no key) and name
    /// the API's version, as (lower-case name, value). The transport marks every value
    /// sensitive, so none is ever shown.
    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)>;

    /// Headers the official SDK reads from the environment besides the key, as (variable,
    /// header): OpenAI's organization and project.
    fn header_variables(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// Reads settings of the provider's own from the environment (through `lookup`, which sees
    /// an empty variable as unset), before the key and the base URL are read: Azure's
    /// `OPENAI_API_VERSION`. Does nothing by default.
    fn read_env(&mut self, lookup: &dyn Fn(&str) -> Option<String>) {
        let _ = lookup;
    }

    /// Adjusts the adapter to the server at `host`, the base URL's host, once the base URL is
    /// known: an OpenAI-compatible server whose fields are kept under its own name. Does nothing
    /// by default.
    fn adapt_to_host(&mut self, host: &str) {
        let _ = host;
    }

    /// Whether a request to `base_url` cannot go without a key: by default, when it is the
    /// provider's own host (a server at another base URL may need none).
    fn needs_key(&self, base_url: &str) -> bool {
        self.default_base_url() == Some(base_url)
    }

    /// Turns an encoded body into a streaming request's body (`"stream": true` by default; an
    /// API that streams through its URL changes nothing).
    fn stream_body(&self, body: &mut Value) {
        if let Value::Object(body) = body {
            body.insert("stream".into(), Value::Bool(true));
        }
    }

    /// How the events of a stream are framed: server-sent events by default.
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    /// Whether nothing follows the event that completes an answer, so the transport can stop
    /// reading there. True by default; an API without an end marker (Gemini) is read to the end.
    fn ends_at_completion(&self) -> bool {
        true
    }

    /// The provider's error type and message in an error `body` (of an HTTP error status), or
    /// `None` when the body is not the provider's error object. By default, what the adapter's
    /// [`decode`](super::Adapter::decode) reads as the provider's error.
    fn error_words(&self, body: &Value) -> Option<(Option<String>, String)> {
        decoded_error_words(self, body)
    }

    /// Whether an error of `error_type`, sent inside a stream, says the provider was overloaded
    /// or failed on its side, so that the same request may pass later. None is by default.
    fn is_transient(&self, error_type: &str) -> bool {
        let _ = error_type;
        false
    }

    /// The input tokens the provider adds to `request` that its body does not hold, as its
    /// documentation gives them: Anthropic's tool-use system prompt. A budget counts them in a
    /// request's input bound ([`Model::added_input_tokens`](crate::model::Model::added_input_tokens)).
    /// None by default: OpenAI and Gemini document no fixed number (OpenAI says its count
    /// includes formatting tokens for roles and message boundaries, fewer than the bytes the
    /// body's JSON spends on them; both offer an endpoint that counts a request exactly).
    fn added_input_tokens(&self, request: &Request<'_>) -> u64 {
        let _ = request;
        0
    }
}

/// A boxed API is one: `HttpModel::builder` takes a `Box<dyn Api>` chosen at run time.
impl<A: Api + ?Sized> Api for Box<A> {
    fn default_base_url(&self) -> Option<&'static str> {
        (**self).default_base_url()
    }

    fn key_variables(&self) -> &'static [&'static str] {
        (**self).key_variables()
    }

    fn base_url_variable(&self) -> Option<&'static str> {
        (**self).base_url_variable()
    }

    fn url(&self, base: &str, model: &str, stream: bool) -> String {
        (**self).url(base, model, stream)
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        (**self).auth_headers(key)
    }

    fn header_variables(&self) -> &'static [(&'static str, &'static str)] {
        (**self).header_variables()
    }

    fn read_env(&mut self, lookup: &dyn Fn(&str) -> Option<String>) {
        (**self).read_env(lookup)
    }

    fn adapt_to_host(&mut self, host: &str) {
        (**self).adapt_to_host(host)
    }

    fn needs_key(&self, base_url: &str) -> bool {
        (**self).needs_key(base_url)
    }

    fn stream_body(&self, body: &mut Value) {
        (**self).stream_body(body)
    }

    fn framing(&self) -> Framing {
        (**self).framing()
    }

    fn ends_at_completion(&self) -> bool {
        (**self).ends_at_completion()
    }

    fn error_words(&self, body: &Value) -> Option<(Option<String>, String)> {
        (**self).error_words(body)
    }

    fn is_transient(&self, error_type: &str) -> bool {
        (**self).is_transient(error_type)
    }

    fn added_input_tokens(&self, request: &Request<'_>) -> u64 {
        (**self).added_input_tokens(request)
    }
}

/// `text` as one URL path segment (or query value): everything outside the unreserved characters
/// percent-encoded, so a model name cannot reach another path or query.
pub(crate) fn path_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `Authorization: Bearer {key}`, the header of both OpenAI APIs and most others.
pub(crate) fn bearer(key: Option<&str>) -> Vec<(&'static str, String)> {
    key.map(|key| ("authorization", format!("Bearer {key}")))
        .into_iter()
        .collect()
}

/// The provider's error type and message as `api`'s adapter decodes them from `body`: what
/// [`Api::error_words`] reads by default, for an override that reshapes the body first.
pub(crate) fn decoded_error_words<A: Api + ?Sized>(
    api: &A,
    body: &Value,
) -> Option<(Option<String>, String)> {
    match api.decode(body) {
        Err(DecodeError::Provider { kind, message, .. }) if !message.is_empty() => {
            Some((kind, message))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Anthropic, Gemini, OpenAiChat, OpenAiResponses};

    #[test]
    fn each_api_posts_where_its_sdk_does() {
        let cases: [(&dyn Api, &str, &str); 4] = [
            (
                &Anthropic,
                "https://api.anthropic.com",
                "https://api.anthropic.com/v1/messages",
            ),
            (
                &OpenAiChat::default(),
                "http://localhost:11434/v1",
                "http://localhost:11434/v1/chat/completions",
            ),
            (
                &OpenAiResponses::default(),
                "https://api.openai.com/v1",
                "https://api.openai.com/v1/responses",
            ),
            (
                &Gemini::default(),
                "https://generativelanguage.googleapis.com",
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            ),
        ];
        for (api, base, url) in cases {
            assert_eq!(api.url(base, "models/gemini-2.5-flash", true), url);
        }
        assert_eq!(
            Gemini::default().url("http://h", "a/b?c", false),
            "http://h/v1beta/models/a%2Fb%3Fc:generateContent"
        );
    }

    #[test]
    fn a_stream_error_is_transient_only_in_its_own_providers_words() {
        assert!(Anthropic.is_transient("overloaded_error"));
        assert!(!Anthropic.is_transient("UNAVAILABLE"));
        assert!(Gemini::default().is_transient("UNAVAILABLE"));
        assert!(OpenAiResponses::default().is_transient("server_error"));
        assert!(!OpenAiChat::default().is_transient("invalid_request_error"));
    }

    #[test]
    fn the_chat_stream_asks_for_its_usage_unless_the_request_says_otherwise() {
        let mut body = serde_json::json!({"model": "m"});
        OpenAiChat::default().stream_body(&mut body);
        assert_eq!(
            body,
            serde_json::json!({"model": "m", "stream": true, "stream_options": {"include_usage": true}})
        );
        let mut body = serde_json::json!({"stream_options": {"include_usage": false}});
        OpenAiChat::default().stream_body(&mut body);
        assert_eq!(
            body,
            serde_json::json!({"stream_options": {"include_usage": false}, "stream": true})
        );
        let mut body = serde_json::json!({"contents": []});
        Gemini::default().stream_body(&mut body);
        assert_eq!(body, serde_json::json!({"contents": []}));
    }
}
