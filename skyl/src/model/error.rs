//! Why a model request failed, and whether trying again can help.

use std::error::Error;
use std::fmt;

use crate::provider::{DecodeError, EncodeError, Provider};

/// What kind of failure a [`ModelError`] is.
///
/// Non-exhaustive: transports may learn new ways to fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelErrorKind {
    /// The request was not sent: the adapter refused the transcript or the tools
    /// ([`EncodeError`]). Fix the request; retrying the same one cannot help.
    Encode,
    /// The request did not reach the provider, or the connection broke before the answer was
    /// complete.
    Connection,
    /// No answer (or, for a stream, no next event) came in time.
    Timeout,
    /// The provider answered with an error: an HTTP error status, or an error event in a stream.
    Provider,
    /// The answer came but could not be read ([`DecodeError`]).
    Decode,
    /// Anything else, such as a scripted model with no answer left.
    Other,
}

/// A model request that failed: what failed, whether a retry can help, and what the provider
/// said.
///
/// Transports fill in what they know: the HTTP status, the provider's error type and message
/// (verbatim), the request id the provider gave (quote it to the provider's support), and how
/// many times the request was retried before giving up.
///
/// ```
/// use skyl::model::{ModelError, ModelErrorKind};
/// use skyl::provider::Provider;
///
/// let error = ModelError::provider(429, "Rate limit exceeded, retry in 20s")
///     .with_provider(Provider::Anthropic)
///     .with_error_type("rate_limit_error")
///     .with_request_id("req_011")
///     .with_retries(3);
/// assert_eq!(error.kind(), ModelErrorKind::Provider);
/// assert!(error.is_retryable());
/// assert_eq!(
///     error.to_string(),
///     "Anthropic answered HTTP 429 (rate_limit_error): Rate limit exceeded, retry in 20s \
///      [request id req_011; gave up after 3 retries]"
/// );
/// ```
///
/// It is one pointer wide (what it knows is boxed), so a `Result<T, ModelError>` stays small.
#[derive(Debug)]
pub struct ModelError(Box<Inner>);

/// What a [`ModelError`] knows.
#[derive(Debug)]
struct Inner {
    kind: ModelErrorKind,
    message: String,
    provider: Option<Provider>,
    status: Option<u16>,
    error_type: Option<String>,
    request_id: Option<String>,
    retryable: bool,
    retries: u32,
    source: Option<Box<dyn Error + Send + Sync>>,
    /// The models a [`Failover`](super::Failover) tried before the one that failed with this
    /// error, each with its own error, in the order they were tried.
    failed_over: Vec<(String, ModelError)>,
}

impl ModelError {
    /// A failure of `kind`, described by `message`. It is retryable when the kind usually is
    /// (a connection that broke, a timeout); change that with
    /// [`with_retryable`](Self::with_retryable).
    pub fn new(kind: ModelErrorKind, message: impl Into<String>) -> Self {
        ModelError(Box::new(Inner {
            kind,
            message: message.into(),
            provider: None,
            status: None,
            error_type: None,
            request_id: None,
            retryable: matches!(kind, ModelErrorKind::Connection | ModelErrorKind::Timeout),
            retries: 0,
            source: None,
            failed_over: Vec::new(),
        }))
    }

    /// The provider answered with HTTP `status` and `message` (its own words, verbatim).
    /// Retryable for the statuses providers document as passing: 408, 409, 429, 5xx and
    /// Anthropic's 529; but not a 500 whose words refuse the request itself, which the server
    /// would refuse again (see [`is_retryable`](Self::is_retryable)).
    pub fn provider(status: u16, message: impl Into<String>) -> Self {
        let mut error = ModelError::new(ModelErrorKind::Provider, message);
        error.0.status = Some(status);
        error.0.retryable =
            is_retryable_status(status) && !refuses_request(status, &error.0.message);
        error
    }

    /// Names the provider (an adapter's [`provider`](crate::provider::Adapter::provider)).
    pub fn with_provider(mut self, provider: Provider) -> Self {
        self.0.provider = Some(provider);
        self
    }

    /// Records the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.0.status = Some(status);
        self
    }

    /// Records the provider's error type (`rate_limit_error`, `RESOURCE_EXHAUSTED`).
    pub fn with_error_type(mut self, error_type: impl Into<String>) -> Self {
        self.0.error_type = Some(error_type.into());
        self
    }

    /// Records the provider's id for the request (`request-id`, `x-request-id`).
    pub fn with_request_id(mut self, request_id: impl Into<String>) -> Self {
        self.0.request_id = Some(request_id.into());
        self
    }

    /// Says whether sending the same request again can help.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.0.retryable = retryable;
        self
    }

    /// Records how many times the request was retried before this error was final.
    pub fn with_retries(mut self, retries: u32) -> Self {
        self.0.retries = retries;
        self
    }

    /// Keeps the lower-level error that caused this one.
    pub fn with_source(mut self, source: impl Error + Send + Sync + 'static) -> Self {
        self.0.source = Some(Box::new(source));
        self
    }

    /// Records the models tried before the one that failed with this error, each named and with
    /// its own error, in the order they were tried: a [`Failover`](super::Failover) whose every
    /// model failed gives the last one's error with the others here.
    pub(crate) fn with_failed_over(mut self, failed_over: Vec<(String, ModelError)>) -> Self {
        self.0.failed_over = failed_over;
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ModelErrorKind {
        self.0.kind
    }

    /// What failed, in words (for a provider error, the provider's message verbatim).
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The provider, when known.
    pub fn provider_id(&self) -> Option<Provider> {
        self.0.provider
    }

    /// The HTTP status, when there was one.
    pub fn status(&self) -> Option<u16> {
        self.0.status
    }

    /// The provider's error type, when it gave one.
    pub fn error_type(&self) -> Option<&str> {
        self.0.error_type.as_deref()
    }

    /// The provider's request id, when it gave one.
    pub fn request_id(&self) -> Option<&str> {
        self.0.request_id.as_deref()
    }

    /// Whether sending the same request again can help.
    ///
    /// A provider's error is not, whatever its status, when it refuses what was asked: a 4xx
    /// but 408, 409 and 429 (a parameter or format the provider does not take, a request it
    /// finds invalid), and a 500 whose words say the request is refused. Servers built on
    /// llama.cpp answer their request checks with a 500: llama-cpp-python's with FastAPI's
    /// validation error (`1 validation error: {'type': 'literal_error', 'loc': ('body',
    /// 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", ...}`) or
    /// "Automatic streaming tool choice is not supported", llama.cpp's own server with
    /// `response_format type must be one of "text" or "json_object"`. Such a 500 is told
    /// apart by its words ("validation error", "input should be", "must be one of", "not
    /// supported", "unsupported"), and only a 500: a 502, 503, 504 or 529 is the server's
    /// state, and passes.
    pub fn is_retryable(&self) -> bool {
        self.0.retryable
    }

    /// How many times the request was retried before this error was final.
    pub fn retries(&self) -> u32 {
        self.0.retries
    }

    /// The models a [`Failover`](super::Failover) tried before the one that failed with this
    /// error: each one's name and its own error, in the order they were tried. Empty for an error
    /// that did not come through a failover, or when the first model's error was not one to fail
    /// over on.
    ///
    /// ```
    /// use skyl::agent::Agent;
    /// use skyl::model::{Failover, Member, ModelError};
    /// use skyl::testing::ScriptedModel;
    /// use skyl::{Message, Toolbox};
    ///
    /// let model = Failover::new([
    ///     Member::new(ScriptedModel::new().fail(ModelError::provider(503, "down"))).named("primary"),
    ///     Member::new(ScriptedModel::new().fail(ModelError::provider(529, "overloaded")))
    ///         .named("secondary"),
    /// ]);
    /// let agent = Agent::new(model, Toolbox::new(), "m");
    /// let failed = agent.run(vec![Message::user("Hi")]).blocking().unwrap_err();
    /// let error = failed.model_error();
    /// assert_eq!(error.status(), Some(529), "the last model's error");
    /// let before: Vec<_> = error.failed_over().map(|(name, error)| (name, error.status())).collect();
    /// assert_eq!(before, [("primary", Some(503))]);
    /// assert_eq!(
    ///     error.to_string(),
    ///     "the model answered HTTP 529: overloaded [after failing over from primary]"
    /// );
    /// ```
    pub fn failed_over(&self) -> impl ExactSizeIterator<Item = (&str, &ModelError)> {
        self.0
            .failed_over
            .iter()
            .map(|(name, error)| (name.as_str(), error))
    }
}

/// The statuses the providers document as passing (timeouts, conflicts, rate limits, overload).
pub(crate) fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500..=599)
}

/// The words of a 500 that refuses the request itself (see [`ModelError::is_retryable`]),
/// lowercase.
const REFUSALS: [&str; 5] = [
    "validation error",
    "input should be",
    "must be one of",
    "not supported",
    "unsupported",
];

/// Whether `status` and `message` refuse the request itself, so that sending it again would be
/// refused again: a 500 (only: the servers that answer their checks so answer 500) saying one
/// of [`REFUSALS`].
fn refuses_request(status: u16, message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    status == 500 && REFUSALS.iter().any(|words| message.contains(words))
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // People read this: the provider's name as its documentation writes it.
        let who = self
            .0
            .provider
            .map_or_else(|| "the model".to_owned(), |provider| provider.to_string());
        match (self.0.kind, self.0.status) {
            (ModelErrorKind::Provider, Some(status)) => write!(f, "{who} answered HTTP {status}")?,
            (ModelErrorKind::Provider, None) => write!(f, "{who} answered with an error")?,
            (ModelErrorKind::Encode, _) => write!(f, "the request to {who} was not sent")?,
            (ModelErrorKind::Connection, _) => write!(f, "the connection to {who} failed")?,
            (ModelErrorKind::Timeout, _) => write!(f, "{who} did not answer in time")?,
            (ModelErrorKind::Decode, _) => write!(f, "the answer from {who} could not be read")?,
            (ModelErrorKind::Other, _) => write!(f, "{who} failed")?,
        }
        if let Some(error_type) = &self.0.error_type {
            write!(f, " ({error_type})")?;
        }
        // An error that only wraps its cause has no words of its own: the cause is `source()`.
        if !self.0.message.is_empty() {
            write!(f, ": {}", self.0.message)?;
        }
        let mut notes = Vec::new();
        if let Some(id) = &self.0.request_id {
            notes.push(format!("request id {id}"));
        }
        if self.0.retries > 0 {
            let plural = if self.0.retries == 1 {
                "retry"
            } else {
                "retries"
            };
            notes.push(format!("gave up after {} {plural}", self.0.retries));
        }
        if !self.0.failed_over.is_empty() {
            let names: Vec<&str> = self
                .0
                .failed_over
                .iter()
                .map(|(name, _)| name.as_str())
                .collect();
            notes.push(format!("after failing over from {}", names.join(", ")));
        }
        if !notes.is_empty() {
            write!(f, " [{}]", notes.join("; "))?;
        }
        Ok(())
    }
}

impl Error for ModelError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0
            .source
            .as_deref()
            .map(|source| source as &(dyn Error + 'static))
    }
}

impl From<EncodeError> for ModelError {
    /// A [`ModelErrorKind::Encode`] error whose cause ([`source`](Error::source)) is `error`.
    fn from(error: EncodeError) -> Self {
        ModelError::new(ModelErrorKind::Encode, "")
            .with_provider(error.provider())
            .with_source(error)
    }
}

impl From<DecodeError> for ModelError {
    /// An error object in the body (the provider's own error) is a [`ModelErrorKind::Provider`]
    /// error with the provider's type and message, which say all there is; any other decode
    /// error is [`ModelErrorKind::Decode`], its cause ([`source`](Error::source)) `error`.
    fn from(error: DecodeError) -> Self {
        match error {
            DecodeError::Provider {
                provider,
                kind,
                message,
            } => {
                let mut model_error =
                    ModelError::new(ModelErrorKind::Provider, message).with_provider(provider);
                model_error.0.error_type = kind;
                model_error
            }
            error => ModelError::new(ModelErrorKind::Decode, "")
                .with_provider(error.provider())
                .with_source(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passing_statuses_are_retryable_and_others_are_not() {
        for status in [408, 409, 429, 500, 503, 529] {
            assert!(ModelError::provider(status, "x").is_retryable(), "{status}");
        }
        for status in [400, 401, 403, 404, 422] {
            assert!(
                !ModelError::provider(status, "x").is_retryable(),
                "{status}"
            );
        }
    }

    #[test]
    fn a_500_that_refuses_the_request_is_not_retryable_and_other_500s_are() {
        let refusals = [
            // llama-cpp-python 0.3.x, FastAPI's validation error of the request's body.
            r#"1 validation error:
  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': 'json_schema', 'ctx': {'expected': "'text' or 'json_object'"}}"#,
            "Automatic streaming tool choice is not supported",
            // llama.cpp's own server before it took `json_schema`.
            r#"response_format type must be one of "text" or "json_object", but got: json_schema"#,
            "Unsupported response_format type: json_schema",
        ];
        for message in refusals {
            assert!(
                !ModelError::provider(500, message).is_retryable(),
                "{message}"
            );
            for status in [502, 503, 529] {
                assert!(
                    ModelError::provider(status, message).is_retryable(),
                    "{status}"
                );
            }
        }
        for message in ["Internal Server Error", "llama_decode returned -3", ""] {
            assert!(
                ModelError::provider(500, message).is_retryable(),
                "{message}"
            );
        }
    }

    #[test]
    fn each_kind_says_what_failed() {
        let cases = [
            (
                ModelError::new(ModelErrorKind::Connection, "connection reset by peer")
                    .with_provider(Provider::OpenAiChat),
                "the connection to OpenAI Chat failed: connection reset by peer",
            ),
            (
                ModelError::new(ModelErrorKind::Timeout, "no event for 30s"),
                "the model did not answer in time: no event for 30s",
            ),
            (
                ModelError::provider(400, "messages.1: tool_use ids must be unique")
                    .with_provider(Provider::Anthropic)
                    .with_error_type("invalid_request_error")
                    .with_retries(1),
                "Anthropic answered HTTP 400 (invalid_request_error): messages.1: tool_use ids must be unique [gave up after 1 retry]",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    #[test]
    fn a_provider_error_body_keeps_its_type_and_message() {
        let error = ModelError::from(DecodeError::Provider {
            provider: Provider::Gemini,
            kind: Some("RESOURCE_EXHAUSTED".into()),
            message: "Quota exceeded".into(),
        });
        assert_eq!(
            (
                error.kind(),
                error.provider_id(),
                error.error_type(),
                error.message()
            ),
            (
                ModelErrorKind::Provider,
                Some(Provider::Gemini),
                Some("RESOURCE_EXHAUSTED"),
                "Quota exceeded"
            )
        );
        // The provider's words are this error's own: nothing is repeated below it.
        assert!(error.source().is_none());
    }

    #[test]
    fn an_error_that_wraps_its_cause_says_its_own_level_only() {
        let error = ModelError::from(EncodeError::NoMessages {
            provider: Provider::Anthropic,
        });
        assert_eq!(error.to_string(), "the request to Anthropic was not sent");
        assert_eq!(
            error.source().map(ToString::to_string),
            Some("cannot encode the Anthropic request: there is no message to send once system messages are moved out and empty messages dropped; add a user message".to_owned())
        );
        assert_eq!(
            std::mem::size_of::<ModelError>(),
            std::mem::size_of::<usize>()
        );
    }
}
