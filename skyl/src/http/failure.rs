//! Turning what went wrong on the wire into a [`ModelError`]: the status, the provider's error
//! type and message as it wrote them, the request id, and whether a retry can help.

use std::time::Duration;

use reqwest::header::HeaderMap;

use crate::http::retry::should_retry;
use crate::model::{ModelError, ModelErrorKind};
use crate::provider::{DecodeError, author::Api};

/// The longest piece of a non-JSON error body kept in a message (an HTML error page from a proxy
/// says what it needs to in its first lines).
const MAX_BODY_TEXT: usize = 2000;

/// The headers the providers put their request id in: Anthropic's `request-id`, OpenAI's (and
/// most compatible servers') `x-request-id`.
pub(crate) fn request_id(headers: &HeaderMap) -> Option<String> {
    ["request-id", "x-request-id"]
        .iter()
        .find_map(|name| headers.get(*name)?.to_str().ok())
        .map(str::to_owned)
}

/// The error for an HTTP error status: the provider's own words when the body is its error
/// object, the body itself otherwise.
pub(crate) fn status_error(
    api: &dyn Api,
    status: u16,
    headers: &HeaderMap,
    body: &str,
    key: Option<&str>,
) -> ModelError {
    let (error_type, message) = match provider_words(api, body) {
        Some(words) => words,
        None => (None, body_text(body, status)),
    };
    let mut error =
        ModelError::provider(status, scrub(&message, key)).with_provider(api.provider());
    if let Some(error_type) = error_type {
        error = error.with_error_type(error_type);
    }
    if let Some(id) = request_id(headers) {
        error = error.with_request_id(id);
    }
    if let Some(retry) = should_retry(headers) {
        error = error.with_retryable(retry);
    }
    error
}

/// The type and message of a provider's error body, as its [`Api::error_words`] reads them.
fn provider_words(api: &dyn Api, body: &str) -> Option<(Option<String>, String)> {
    api.error_words(&serde_json::from_str(body).ok()?)
}

/// A body that is not the provider's error object, cut to a readable length; the status's
/// name when there is no body.
fn body_text(body: &str, status: u16) -> String {
    let body = body.trim();
    if body.is_empty() {
        return reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|status| status.canonical_reason())
            .unwrap_or("no body")
            .to_owned();
    }
    match body.char_indices().nth(MAX_BODY_TEXT) {
        Some((cut, _)) => format!("{}… ({} more bytes)", &body[..cut], body.len() - cut),
        None => body.to_owned(),
    }
}

/// The error for a 200 whose body holds no event of a stream (a server that failed after it
/// sent its status, llama-cpp-python's among them, writes its reason as plain text or as its
/// error object instead): the provider's words when the body is its error object, the body's
/// text otherwise, so that the caller reads what the server said.
pub(crate) fn not_a_stream(api: &dyn Api, body: &[u8], key: Option<&str>) -> ModelError {
    let body = String::from_utf8_lossy(body);
    let (error_type, words) = match provider_words(api, &body) {
        Some(words) => words,
        None => (None, body_text(&body, 200)),
    };
    let mut error = ModelError::new(
        ModelErrorKind::Provider,
        format!(
            "the server accepted the request (200) and sent a body that is not a stream of events: {}",
            scrub(&words, key)
        ),
    )
    .with_provider(api.provider());
    if let Some(error_type) = error_type {
        error = error.with_error_type(error_type);
    }
    error
}

/// A failure to send the request or read the answer: a timeout says how long was waited, and
/// what failed below is the cause (`source()`: reqwest's error, then hyper's or the system's).
pub(crate) fn transport_error(
    api: &dyn Api,
    error: reqwest::Error,
    timeout: Duration,
) -> ModelError {
    let (kind, message) = if error.is_timeout() {
        (
            ModelErrorKind::Timeout,
            format!("no complete answer within {timeout:?}"),
        )
    } else {
        (ModelErrorKind::Connection, String::new())
    };
    ModelError::new(kind, message)
        .with_provider(api.provider())
        .with_source(error)
}

/// A provider's error inside a stream (Anthropic `event: error`, OpenAI `response.failed`):
/// retryable when its type says the provider was overloaded or failed on its side
/// ([`Api::is_transient`]).
pub(crate) fn stream_error(api: &dyn Api, error: DecodeError) -> ModelError {
    let passing = matches!(
        &error,
        DecodeError::Provider { kind: Some(kind), .. } if api.is_transient(kind)
    );
    let error = ModelError::from(error).with_provider(api.provider());
    if passing {
        error.with_retryable(true)
    } else {
        error
    }
}

/// `text` without the API key, should a server or a library have echoed it.
pub(crate) fn scrub(text: &str, key: Option<&str>) -> String {
    match key {
        Some(key) if key.len() >= 8 && text.contains(key) => text.replace(key, "<redacted>"),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Anthropic, Gemini, OpenAiChat};

    #[test]
    fn an_error_body_gives_the_providers_type_and_message_verbatim() {
        let mut headers = HeaderMap::new();
        headers.insert("request-id", "req_011CQ".parse().unwrap());
        let error = status_error(
            &Anthropic,
            400,
            &headers,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: `tool_use` ids must be unique"}}"#,
            None,
        );
        assert_eq!(
            error.to_string(),
            "Anthropic answered HTTP 400 (invalid_request_error): messages.1: `tool_use` ids must be unique [request id req_011CQ]"
        );
        assert!(!error.is_retryable());

        let gemini = status_error(
            &Gemini::default(),
            429,
            &HeaderMap::new(),
            r#"[{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}]"#,
            None,
        );
        assert_eq!(
            gemini.to_string(),
            "Gemini answered HTTP 429 (RESOURCE_EXHAUSTED): Resource has been exhausted (e.g. check quota)."
        );
        assert!(gemini.is_retryable());
    }

    #[test]
    fn a_body_that_is_not_an_error_object_is_the_message() {
        let api = OpenAiChat::default();
        let cases = [
            ("<html>Bad gateway</html>", "<html>Bad gateway</html>"),
            ("", "Bad Gateway"),
        ];
        for (body, message) in cases {
            let error = status_error(&api, 502, &HeaderMap::new(), body, None);
            assert_eq!(error.message(), message);
        }
        let long = "x".repeat(MAX_BODY_TEXT + 10);
        let error = status_error(&api, 502, &HeaderMap::new(), &long, None);
        assert_eq!(
            error.message(),
            format!("{}… (10 more bytes)", "x".repeat(MAX_BODY_TEXT))
        );
    }

    #[test]
    fn x_should_retry_overrides_the_status() {
        let mut headers = HeaderMap::new();
        headers.insert("x-should-retry", "false".parse().unwrap());
        let error = status_error(&Anthropic, 529, &headers, "", None);
        assert!(!error.is_retryable());
    }

    #[test]
    fn an_echoed_key_is_redacted() {
        let error = status_error(
            &OpenAiChat::default(),
            401,
            &HeaderMap::new(),
            r#"{"error":{"message":"Incorrect API key provided: sk-test-1234567890.","type":"invalid_request_error"}}"#,
            Some("sk-test-1234567890"),
        );
        assert_eq!(error.message(), "Incorrect API key provided: <redacted>.");
    }
}
