//! Where Chat Completions lives and how it is reached, at OpenAI and at the servers that speak
//! its wire: the URL, bearer auth, the SDK's environment variables, the stream's usage option.

use serde_json::Value;

use super::OpenAiChat;
use crate::provider::author::Api;
use crate::provider::encode::object;

/// `POST {base}/chat/completions`, `Authorization: Bearer`; the SDK's `OPENAI_API_KEY`,
/// `OPENAI_BASE_URL`, `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`. A stream asks for its usage
/// (`stream_options.include_usage`) unless the request says otherwise.
impl Api for OpenAiChat {
    openai_api!();

    fn url(&self, base: &str, _model: &str, _stream: bool) -> String {
        format!("{base}/chat/completions")
    }

    /// Names the compatible servers whose fields go back to them by their host:
    /// `api.deepseek.com` is `deepseek`, `generativelanguage.googleapis.com` is `gemini`,
    /// `openrouter.ai` is `openrouter`; a name given by hand stays.
    fn adapt_to_host(&mut self, host: &str) {
        if self.server.is_none()
            && let Some(server) = compatible_server(host)
        {
            *self = self.with_server(server);
        }
        if !is_openai(host) {
            *self = self.with_compatible(true);
        }
    }

    fn stream_body(&self, body: &mut Value) {
        if let Value::Object(body) = body {
            body.insert("stream".into(), Value::Bool(true));
            // Without it the stream carries no token counts; a caller's own choice stays.
            body.entry("stream_options")
                .or_insert_with(|| object([("include_usage", Value::Bool(true))]));
        }
    }
}

/// Whether `host` serves OpenAI's own API (its own, or Azure's deployment of it), which reads
/// OpenAI's current field names; every other host is a compatible server.
fn is_openai(host: &str) -> bool {
    host == "api.openai.com" || host.ends_with(".openai.azure.com")
}

/// The name an OpenAI-compatible server's fields are kept under, from the host of its API; `None`
/// for OpenAI itself and for servers with nothing to send back (Groq returns `reasoning` but
/// refuses it in a request).
fn compatible_server(host: &str) -> Option<&'static str> {
    match host {
        "api.deepseek.com" => Some("deepseek"),
        "generativelanguage.googleapis.com" => Some("gemini"),
        "openrouter.ai" => Some("openrouter"),
        _ => None,
    }
}
