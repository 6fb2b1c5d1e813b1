//! Building an [`HttpModel`]: from the environment the official SDKs read, or piece by piece.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use crate::http::config_error::{ConfigError, ConfigErrorKind};
use crate::http::model::{HttpModel, Shared};
use crate::http::retry::RetryPolicy;
use crate::provider::author::Api;

/// Everything an [`HttpModel`] needs, given piece by piece; from
/// [`HttpModel::builder`](super::HttpModel::builder).
///
/// ```
/// use std::time::Duration;
/// use skyl::http::HttpModel;
/// use skyl::provider::OpenAiChat;
///
/// // An OpenAI-compatible server on this machine (Ollama here) needs no key.
/// let local = HttpModel::builder(OpenAiChat::default())
///     .base_url("http://localhost:11434/v1")
///     .max_retries(0)
///     .idle_timeout(Duration::from_secs(60))
///     .build()
///     .unwrap();
/// assert_eq!(local.base_url(), "http://localhost:11434/v1");
/// ```
#[must_use = "a builder does nothing until built"]
pub struct HttpModelBuilder {
    api: Box<dyn Api>,
    key: Option<String>,
    base_url: Option<String>,
    headers: Vec<(String, String)>,
    retry: RetryPolicy,
    connect_timeout: Duration,
    timeout: Duration,
    idle_timeout: Duration,
    max_response_bytes: usize,
    max_event_bytes: usize,
}

impl fmt::Debug for HttpModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpModelBuilder")
            .field("api", &self.api)
            .field("api_key", &self.key.as_ref().map(|_| "<redacted>"))
            .field("base_url", &self.base_url)
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>(),
            )
            .field("retry", &self.retry)
            .field("connect_timeout", &self.connect_timeout)
            .field("timeout", &self.timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("max_event_bytes", &self.max_event_bytes)
            .finish()
    }
}

impl HttpModelBuilder {
    /// The connect timeout when none is given.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// The total timeout of one attempt when none is given: the SDKs' ten minutes.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
    /// The longest silence between two events of a stream when none is given. Generous, because a
    /// reasoning model on Chat Completions sends nothing while it thinks.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
    /// The longest whole response body read when no limit is given: 16 MiB, far above any
    /// answer (images a model draws included) and far below a machine's memory.
    pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

    pub(super) fn new(api: Box<dyn Api>) -> Self {
        HttpModelBuilder {
            api,
            key: None,
            base_url: None,
            headers: Vec::new(),
            retry: RetryPolicy::default(),
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            timeout: Self::DEFAULT_TIMEOUT,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            max_response_bytes: Self::DEFAULT_MAX_RESPONSE_BYTES,
            max_event_bytes: crate::provider::stream::SseParser::DEFAULT_MAX_EVENT_BYTES,
        }
    }

    /// The API key. It is sent only in the provider's auth header, and never shown by a `Debug`
    /// or `Display` of anything skyl makes.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Where the API lives instead of the provider's own host, for a proxy, a gateway or an
    /// OpenAI-compatible server: `http://localhost:11434/v1` for Ollama through
    /// [`OpenAiChat`](crate::provider::OpenAiChat), as in the SDKs' `*_BASE_URL`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// A header sent with every request (OpenRouter's `HTTP-Referer`, a gateway's own key). Its
    /// value is treated as a secret: never shown.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// When and how patiently to retry; see [`RetryPolicy`].
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Retries after the first attempt (0 to never retry).
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        self.retry.max_retries = max_retries;
        self
    }

    /// The longest wait for a connection to the server.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The longest one attempt may take, from sending the request to the end of the answer
    /// (streamed or not).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The longest silence allowed between two events of a stream.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// The most bytes of a whole response body read (an answer asked for whole, an error body);
    /// a longer body fails the request with an error that names the limit.
    /// [`DEFAULT_MAX_RESPONSE_BYTES`](Self::DEFAULT_MAX_RESPONSE_BYTES) unless set.
    pub fn max_response_bytes(mut self, max: usize) -> Self {
        self.max_response_bytes = max;
        self
    }

    /// The most bytes of one event of a streamed answer read (a stream as a whole may be any
    /// length); a longer event fails the request with an error that names the limit.
    /// [`SseParser::DEFAULT_MAX_EVENT_BYTES`](crate::provider::stream::SseParser::DEFAULT_MAX_EVENT_BYTES)
    /// unless set.
    pub fn max_event_bytes(mut self, max: usize) -> Self {
        self.max_event_bytes = max;
        self
    }

    /// Fills what is not given yet from the environment variables the provider's official SDK
    /// reads ([`Api::key_variables`], [`Api::base_url_variable`], [`Api::header_variables`],
    /// [`Api::read_env`]): the key (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `GOOGLE_API_KEY` or
    /// `GEMINI_API_KEY`, `AZURE_OPENAI_API_KEY`), the base URL (`ANTHROPIC_BASE_URL`,
    /// `OPENAI_BASE_URL`, `GOOGLE_GEMINI_BASE_URL`, `AZURE_OPENAI_ENDPOINT`), OpenAI's
    /// `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`, and what a provider reads of its own (Azure's
    /// `OPENAI_API_VERSION`). An empty variable counts as unset.
    pub fn with_env(self) -> Self {
        self.with_vars(|name| std::env::var(name).ok())
    }

    /// [`with_env`](Self::with_env), reading the variables from `lookup` instead of the process
    /// environment (for tests, or settings kept elsewhere).
    ///
    /// ```
    /// use skyl::http::HttpModel;
    /// use skyl::provider::Gemini;
    ///
    /// let model = HttpModel::builder(Gemini::default())
    ///     .with_vars(|name| (name == "GEMINI_API_KEY").then(|| "test-key".to_owned()))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(model.base_url(), "https://generativelanguage.googleapis.com");
    /// ```
    pub fn with_vars(mut self, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let lookup = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        self.api.read_env(&lookup);
        if self.key.is_none() {
            self.key = self
                .api
                .key_variables()
                .iter()
                .find_map(|name| lookup(name));
        }
        if self.base_url.is_none() {
            self.base_url = self.api.base_url_variable().and_then(lookup);
        }
        for (variable, header) in self.api.header_variables() {
            let given = self
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case(header));
            if let (false, Some(value)) = (given, lookup(variable)) {
                self.headers.push(((*header).to_owned(), value));
            }
        }
        self
    }

    /// The model, or why it cannot be built: no key for the provider's own host, a base URL
    /// that is not an `http` or `https` URL, a header that cannot be sent, or no CA certificates
    /// on this system for HTTPS.
    ///
    /// The adapter is told the base URL's host ([`Api::adapt_to_host`]): an
    /// [`OpenAiChat`](crate::provider::OpenAiChat) adapter without a server name, pointed at a
    /// compatible server whose fields skyl sends back ([`OpenAiChat::with_server`](crate::provider::OpenAiChat::with_server)),
    /// is named for it: `api.deepseek.com` is `deepseek`,
    /// `generativelanguage.googleapis.com` is `gemini`, `openrouter.ai` is `openrouter`. A name
    /// given by hand stays.
    pub fn build(mut self) -> Result<HttpModel, ConfigError> {
        let name = self.api.provider();
        let example = || match self.api.default_base_url() {
            Some(url) => format!("give one such as {url}"),
            None => "give the one of your deployment".to_owned(),
        };
        let base_url = match (self.base_url.clone(), self.api.default_base_url()) {
            (Some(url), _) => url,
            (None, Some(url)) => url.to_owned(),
            (None, None) => {
                let variable = match self.api.base_url_variable() {
                    Some(variable) => format!("set {variable}, or "),
                    None => String::new(),
                };
                return Err(ConfigError::new(
                    ConfigErrorKind::NoBaseUrl,
                    format!(
                        "no base URL for {name}, which has none of its own: {variable}give one with HttpModelBuilder::base_url"
                    ),
                ));
            }
        };
        let base_url = base_url.trim_end_matches('/').to_owned();
        let parsed = reqwest::Url::parse(&base_url).map_err(|error| {
            ConfigError::new(
                ConfigErrorKind::BadBaseUrl,
                format!(
                    "the base URL \"{base_url}\" for {name} is not a URL; {}",
                    example()
                ),
            )
            .with_source(error)
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ConfigError::new(
                ConfigErrorKind::BadBaseUrl,
                format!(
                    "the base URL \"{base_url}\" for {name} is not an http or https URL; {}",
                    example()
                ),
            ));
        }
        if let Some(host) = parsed.host_str() {
            self.api.adapt_to_host(host);
        }
        if self.key.is_none() && self.api.needs_key(&base_url) {
            return Err(ConfigError::new(
                ConfigErrorKind::NoKey,
                format!(
                    "no API key for {name}: set {}, or give one with HttpModelBuilder::api_key (a server at another base URL may need none)",
                    self.api.key_variables().join(" or ")
                ),
            ));
        }

        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        for (header, value) in self.api.auth_headers(self.key.as_deref()) {
            let mut value = HeaderValue::try_from(value).map_err(|_| {
                ConfigError::new(ConfigErrorKind::BadHeader, format!(
                    "the API key for {name} cannot be sent in a header: it holds a character headers cannot carry, such as a line break; check {}",
                    self.api.key_variables().join(" or ")
                ))
            })?;
            value.set_sensitive(true);
            let header = HeaderName::try_from(header).map_err(|_| {
                ConfigError::new(ConfigErrorKind::BadHeader, format!(
                    "the {name} API names an auth header \"{header}\" that is not a valid HTTP header name"
                ))
            })?;
            headers.insert(header, value);
        }
        for (name, value) in &self.headers {
            let header_name = HeaderName::try_from(name.as_str()).map_err(|_| {
                ConfigError::new(
                    ConfigErrorKind::BadHeader,
                    format!("\"{name}\" is not a valid HTTP header name"),
                )
            })?;
            let mut header_value = HeaderValue::try_from(value.as_str()).map_err(|_| {
                ConfigError::new(ConfigErrorKind::BadHeader, format!(
                    "the value of the header \"{name}\" holds a character headers cannot carry, such as a line break"
                ))
            })?;
            header_value.set_sensitive(true);
            headers.insert(header_name, header_value);
        }

        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls_config(parsed.scheme() == "https")?)
            .connect_timeout(self.connect_timeout)
            .user_agent(concat!("skyl/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| {
                ConfigError::new(ConfigErrorKind::Client, "cannot set up the HTTP client")
                    .with_source(error)
            })?;
        Ok(HttpModel {
            shared: Arc::new(Shared {
                api: self.api,
                base_url,
                key: self.key,
                headers,
                client,
                retry: self.retry,
                timeout: self.timeout,
                idle_timeout: self.idle_timeout,
                max_response_bytes: self.max_response_bytes,
                max_event_bytes: self.max_event_bytes,
            }),
        })
    }
}

/// The TLS of every client skyl builds (`tls.rs`), its failure as a [`ConfigError`].
fn tls_config(https: bool) -> Result<rustls::ClientConfig, ConfigError> {
    crate::tls::config(https).map_err(|error| {
        ConfigError::new(ConfigErrorKind::Tls, error.what).with_source(error.source)
    })
}
