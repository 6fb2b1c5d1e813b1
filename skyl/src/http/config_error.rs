//! Why an HTTP model could not be built, said in one error type for every setting.

use std::fmt;

/// Why an [`HttpModel`](crate::http::HttpModel) could not be built: its [`kind`](Self::kind),
/// what to set, and the lower-level error when there is one
/// ([`source`](std::error::Error::source)).
///
/// ```
/// use skyl::http::{ConfigErrorKind, HttpModel};
/// use skyl::provider::Anthropic;
///
/// let error = HttpModel::builder(Anthropic).with_vars(|_| None).build().unwrap_err();
/// assert_eq!(error.kind(), ConfigErrorKind::NoKey);
/// ```
#[derive(Debug)]
pub struct ConfigError {
    kind: ConfigErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What kind of configuration a [`ConfigError`] is about.
///
/// Non-exhaustive: a transport may learn new ways to be misconfigured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// No API key, where the provider needs one.
    NoKey,
    /// No base URL, where the provider has none of its own (Azure's endpoint).
    NoBaseUrl,
    /// The base URL is not an `http` or `https` URL.
    BadBaseUrl,
    /// A header (the key's, or one given by hand) cannot be sent.
    BadHeader,
    /// TLS cannot be set up: no CA certificates on this system, for one.
    Tls,
    /// The HTTP client cannot be set up.
    Client,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

impl ConfigError {
    pub(in crate::http) fn new(kind: ConfigErrorKind, message: impl Into<String>) -> Self {
        ConfigError {
            kind,
            message: message.into(),
            source: None,
        }
    }

    pub(in crate::http) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// What the error is about.
    pub fn kind(&self) -> ConfigErrorKind {
        self.kind
    }
}
