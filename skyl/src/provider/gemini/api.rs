//! Where `generateContent` lives and how it is reached: the URL per model (and its streaming
//! twin), the key header, the SDK's environment variables and its error body.

use serde_json::Value;

use super::Gemini;
use crate::provider::api::path_segment;
use crate::provider::author::Api;

/// `POST {base}/v1beta/models/{model}:generateContent` (`:streamGenerateContent?alt=sse` to
/// stream: the body does not change); the key in `x-goog-api-key`; the SDK's `GOOGLE_API_KEY`
/// or `GEMINI_API_KEY` and `GOOGLE_GEMINI_BASE_URL`.
impl Api for Gemini {
    fn default_base_url(&self) -> Option<&'static str> {
        Some("https://generativelanguage.googleapis.com")
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &["GOOGLE_API_KEY", "GEMINI_API_KEY"]
    }

    fn base_url_variable(&self) -> Option<&'static str> {
        Some("GOOGLE_GEMINI_BASE_URL")
    }

    fn url(&self, base: &str, model: &str, stream: bool) -> String {
        let model = model.strip_prefix("models/").unwrap_or(model);
        let method = if stream {
            "streamGenerateContent?alt=sse"
        } else {
            "generateContent"
        };
        format!("{base}/v1beta/models/{}:{method}", path_segment(model))
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        key.map(|key| ("x-goog-api-key", key.to_owned()))
            .into_iter()
            .collect()
    }

    fn stream_body(&self, _body: &mut Value) {}

    /// Gemini's stream has no end marker: it is read to its end.
    fn ends_at_completion(&self) -> bool {
        false
    }

    /// Gemini answers some errors as a one-element array of its error object.
    fn error_words(&self, body: &Value) -> Option<(Option<String>, String)> {
        let body = match body {
            Value::Array(items) if items.len() == 1 => &items[0],
            body => body,
        };
        crate::provider::api::decoded_error_words(self, body)
    }

    /// Google's `UNAVAILABLE` (503), `RESOURCE_EXHAUSTED` (429) and `INTERNAL` (500).
    fn is_transient(&self, error_type: &str) -> bool {
        matches!(
            error_type,
            "UNAVAILABLE" | "RESOURCE_EXHAUSTED" | "INTERNAL"
        )
    }
}
