//! Where the Messages API lives and how it is reached: the URL, the key header, the version
//! header, the SDK's environment variables and its error body's transient types.

use super::{Anthropic, tool_prompt};
use crate::provider::{Request, author::Api};

/// The `anthropic-version` header every Messages request carries.
const VERSION: &str = "2023-06-01";

/// `POST {base}/v1/messages`; the key in `x-api-key`, and `anthropic-version: 2023-06-01`; the
/// SDK's `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`.
impl Api for Anthropic {
    fn default_base_url(&self) -> Option<&'static str> {
        Some("https://api.anthropic.com")
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &["ANTHROPIC_API_KEY"]
    }

    fn base_url_variable(&self) -> Option<&'static str> {
        Some("ANTHROPIC_BASE_URL")
    }

    fn url(&self, base: &str, _model: &str, _stream: bool) -> String {
        format!("{base}/v1/messages")
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        let mut headers = vec![("anthropic-version", VERSION.to_owned())];
        headers.extend(key.map(|key| ("x-api-key", key.to_owned())));
        headers
    }

    /// The tool-use system prompt Anthropic adds to a request with tools (346 tokens for Claude 4
    /// models with `auto`), by model and tool choice as its docs list it.
    fn added_input_tokens(&self, request: &Request<'_>) -> u64 {
        tool_prompt::tokens(request)
    }

    /// Anthropic's `overloaded_error` (its 529), `api_error` (its 500) and `rate_limit_error`.
    fn is_transient(&self, error_type: &str) -> bool {
        matches!(
            error_type,
            "overloaded_error" | "api_error" | "rate_limit_error"
        )
    }
}
