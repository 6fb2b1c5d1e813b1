//! What the transport knows of each provider's HTTP API beside its adapter: where to POST, how to
//! authenticate, how to ask for a stream, and which environment variables the official SDKs read.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::provider::{
    Anthropic, DecodeError, EncodeError, Gemini, OpenAiChat, OpenAiResponses, Provider, Request,
    Response, StreamDecoder, Streaming,
};

/// The provider API an [`HttpModel`](super::HttpModel) talks to, with the adapter that writes and
/// reads its bodies.
///
/// Build one from an adapter: every adapter converts into it, so
/// `HttpModel::builder(OpenAiChat::default())` works, and so does an adapter configured first
/// (`Gemini::default().with_error_key(true)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Api {
    /// Anthropic Messages: `POST {base}/v1/messages`, `x-api-key` and `anthropic-version`.
    Anthropic(Anthropic),
    /// OpenAI Chat Completions: `POST {base}/chat/completions`, `Authorization: Bearer`. The API
    /// of every OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq,
    /// Gemini's OpenAI endpoint): point the base URL at it.
    OpenAiChat(OpenAiChat),
    /// OpenAI Responses: `POST {base}/responses`, `Authorization: Bearer`.
    OpenAiResponses(OpenAiResponses),
    /// Gemini: `POST {base}/v1beta/models/{model}:generateContent` (`:streamGenerateContent?alt=sse`
    /// to stream), `x-goog-api-key`.
    Gemini(Gemini),
}

impl From<Anthropic> for Api {
    fn from(adapter: Anthropic) -> Self {
        Api::Anthropic(adapter)
    }
}

impl From<OpenAiChat> for Api {
    fn from(adapter: OpenAiChat) -> Self {
        Api::OpenAiChat(adapter)
    }
}

impl From<OpenAiResponses> for Api {
    fn from(adapter: OpenAiResponses) -> Self {
        Api::OpenAiResponses(adapter)
    }
}

impl From<Gemini> for Api {
    fn from(adapter: Gemini) -> Self {
        Api::Gemini(adapter)
    }
}

/// The `anthropic-version` header every Messages request carries.
pub(crate) const ANTHROPIC_VERSION: &str = "2023-06-01";

impl Api {
    /// The adapter.
    pub fn adapter(&self) -> &dyn Streaming {
        match self {
            Api::Anthropic(adapter) => adapter,
            Api::OpenAiChat(adapter) => adapter,
            Api::OpenAiResponses(adapter) => adapter,
            Api::Gemini(adapter) => adapter,
        }
    }

    /// The provider whose API this is ([`Adapter::provider`](crate::provider::Adapter::provider)).
    pub fn provider(&self) -> Provider {
        self.adapter().provider()
    }

    /// Where the provider's own API lives, when no base URL is given.
    pub fn default_base_url(&self) -> &'static str {
        match self {
            Api::Anthropic(_) => "https://api.anthropic.com",
            Api::OpenAiChat(_) | Api::OpenAiResponses(_) => "https://api.openai.com/v1",
            Api::Gemini(_) => "https://generativelanguage.googleapis.com",
        }
    }

    /// The environment variables the official SDK reads for the key, in the order it prefers
    /// them (Google's SDK takes `GOOGLE_API_KEY` over `GEMINI_API_KEY`).
    pub fn key_variables(&self) -> &'static [&'static str] {
        match self {
            Api::Anthropic(_) => &["ANTHROPIC_API_KEY"],
            Api::OpenAiChat(_) | Api::OpenAiResponses(_) => &["OPENAI_API_KEY"],
            Api::Gemini(_) => &["GOOGLE_API_KEY", "GEMINI_API_KEY"],
        }
    }

    /// The environment variable the official SDK reads for the base URL.
    pub fn base_url_variable(&self) -> &'static str {
        match self {
            Api::Anthropic(_) => "ANTHROPIC_BASE_URL",
            Api::OpenAiChat(_) | Api::OpenAiResponses(_) => "OPENAI_BASE_URL",
            Api::Gemini(_) => "GOOGLE_GEMINI_BASE_URL",
        }
    }

    /// Headers the official SDK reads from the environment besides the key: OpenAI's
    /// organization and project.
    pub(crate) fn header_variables(&self) -> &'static [(&'static str, &'static str)] {
        match self {
            Api::OpenAiChat(_) | Api::OpenAiResponses(_) => &[
                ("OPENAI_ORG_ID", "openai-organization"),
                ("OPENAI_PROJECT_ID", "openai-project"),
            ],
            Api::Anthropic(_) | Api::Gemini(_) => &[],
        }
    }

    pub(crate) fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError> {
        self.adapter().encode(request)
    }

    pub(crate) fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        self.adapter().decode(body)
    }

    pub(crate) fn stream_decoder(&self) -> StreamDecoder {
        self.adapter().stream_decoder()
    }

    /// The URL to POST `model`'s request to.
    pub(crate) fn url(&self, base: &str, model: &str, stream: bool) -> String {
        let base = base.trim_end_matches('/');
        match self {
            Api::Anthropic(_) => format!("{base}/v1/messages"),
            Api::OpenAiChat(_) => format!("{base}/chat/completions"),
            Api::OpenAiResponses(_) => format!("{base}/responses"),
            Api::Gemini(_) => {
                let model = model.strip_prefix("models/").unwrap_or(model);
                let method = if stream {
                    "streamGenerateContent?alt=sse"
                } else {
                    "generateContent"
                };
                format!("{base}/v1beta/models/{}:{method}", path_segment(model))
            }
        }
    }

    /// The headers that authenticate a request with `key` and name the API version.
    pub(crate) fn auth_headers(
        &self,
        key: Option<&str>,
        headers: &mut HeaderMap,
    ) -> Result<(), reqwest::header::InvalidHeaderValue> {
        if let Api::Anthropic(_) = self {
            headers.insert(
                HeaderName::from_static("anthropic-version"),
                HeaderValue::from_static(ANTHROPIC_VERSION),
            );
        }
        let Some(key) = key else {
            return Ok(());
        };
        let (name, value) = match self {
            Api::Anthropic(_) => (HeaderName::from_static("x-api-key"), key.to_owned()),
            Api::OpenAiChat(_) | Api::OpenAiResponses(_) => {
                (reqwest::header::AUTHORIZATION, format!("Bearer {key}"))
            }
            Api::Gemini(_) => (HeaderName::from_static("x-goog-api-key"), key.to_owned()),
        };
        let mut value = HeaderValue::try_from(value)?;
        value.set_sensitive(true);
        headers.insert(name, value);
        Ok(())
    }

    /// Turns an encoded body into a streaming request's body. Gemini streams through its URL.
    pub(crate) fn stream_body(&self, body: &mut Value) {
        let Value::Object(body) = body else {
            return;
        };
        match self {
            Api::Anthropic(_) | Api::OpenAiResponses(_) => {
                body.insert("stream".into(), json!(true));
            }
            Api::OpenAiChat(_) => {
                body.insert("stream".into(), json!(true));
                // Without it the stream carries no token counts; a caller's own choice stays.
                body.entry("stream_options")
                    .or_insert_with(|| json!({"include_usage": true}));
            }
            Api::Gemini(_) => {}
        }
    }

    /// Whether nothing follows the event that completes an answer, so the transport can stop
    /// reading there (Gemini has no end marker: its stream is read to the end).
    pub(crate) fn ends_at_completion(&self) -> bool {
        !matches!(self, Api::Gemini(_))
    }
}

/// `text` as one URL path segment: everything outside the unreserved characters
/// percent-encoded, so a model name cannot reach another path or query.
fn path_segment(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_api_posts_where_its_sdk_does() {
        let cases = [
            (
                Api::from(Anthropic),
                "https://api.anthropic.com/",
                "https://api.anthropic.com/v1/messages",
            ),
            (
                Api::from(OpenAiChat::default()),
                "http://localhost:11434/v1",
                "http://localhost:11434/v1/chat/completions",
            ),
            (
                Api::from(OpenAiResponses::default()),
                "https://api.openai.com/v1",
                "https://api.openai.com/v1/responses",
            ),
            (
                Api::from(Gemini::default()),
                "https://generativelanguage.googleapis.com",
                "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            ),
        ];
        for (api, base, url) in cases {
            assert_eq!(api.url(base, "models/gemini-2.5-flash", true), url);
        }
        assert_eq!(
            Api::from(Gemini::default()).url("http://h", "a/b?c", false),
            "http://h/v1beta/models/a%2Fb%3Fc:generateContent"
        );
    }
}
