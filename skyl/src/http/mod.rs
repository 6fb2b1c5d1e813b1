//! Talking to the providers over HTTP (feature `http`): [`HttpModel`], a
//! [`Model`](crate::model::Model) for each adapter.
//!
//! ```no_run
//! use skyl::http::HttpModel;
//! use skyl::provider::{Anthropic, Gemini, OpenAiChat, OpenAiResponses};
//!
//! # fn main() -> Result<(), skyl::http::ConfigError> {
//! // The official SDKs' variables: ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, OPENAI_API_KEY /
//! // OPENAI_BASE_URL, GOOGLE_API_KEY or GEMINI_API_KEY / GOOGLE_GEMINI_BASE_URL.
//! let claude = HttpModel::from_env(Anthropic)?;
//! let gpt = HttpModel::from_env(OpenAiResponses::default())?;
//! let gemini = HttpModel::from_env(Gemini::default())?;
//!
//! // Any OpenAI-compatible server, through Chat Completions.
//! let ollama = HttpModel::builder(OpenAiChat::default())
//!     .base_url("http://localhost:11434/v1")
//!     .build()?;
//!
//! // OpenAI on Azure: AZURE_OPENAI_API_KEY (or AZURE_OPENAI_AD_TOKEN), AZURE_OPENAI_ENDPOINT,
//! // and OPENAI_API_VERSION for the deployment URLs (without it, the v1 API).
//! let azure = HttpModel::from_env(skyl::provider::AzureOpenAi::chat(OpenAiChat::default()))?;
//! # Ok(())
//! # }
//! ```
//!
//! | API | endpoint | auth |
//! |---|---|---|
//! | [`Anthropic`](crate::provider::Anthropic) | `POST {base}/v1/messages` | `x-api-key`, `anthropic-version: 2023-06-01` |
//! | [`OpenAiChat`](crate::provider::OpenAiChat) | `POST {base}/chat/completions` | `Authorization: Bearer` |
//! | [`OpenAiResponses`](crate::provider::OpenAiResponses) | `POST {base}/responses` | `Authorization: Bearer` |
//! | [`Gemini`](crate::provider::Gemini) | `POST {base}/v1beta/models/{model}:generateContent` (`:streamGenerateContent?alt=sse`) | `x-goog-api-key` |
//! | [`AzureOpenAi`](crate::provider::AzureOpenAi) | `POST {endpoint}/openai/deployments/{model}/chat/completions?api-version=…`, `{endpoint}/openai/responses?api-version=…`, or `{endpoint}/openai/v1/…` | `api-key`, or `Authorization: Bearer` for an Entra ID token |
//! | your own [`Api`](crate::provider::author::Api) | its [`url`](crate::provider::author::Api::url) | its [`auth_headers`](crate::provider::author::Api::auth_headers) |
//!
//! What a failure becomes ([`ModelError`](crate::model::ModelError)):
//!
//! - an HTTP error status: the status, the provider's error type and message as its body wrote
//!   them, the request id (`request-id`, `x-request-id`), and how many retries were spent;
//! - 408, 409, 429 and 5xx (Anthropic's 529 among them), a refused connection or a timeout are
//!   retried first, with backoff and jitter, honouring `retry-after-ms` and `retry-after`
//!   ([`RetryPolicy`]);
//! - an error the provider sends inside a stream: its type and message, never retried by the
//!   transport (events were already passed on), but marked retryable when its type says the
//!   provider was overloaded;
//! - a connection that breaks mid-stream, or a stream that ends before the provider said the
//!   answer was complete: [`ModelErrorKind::Connection`](crate::model::ModelErrorKind::Connection),
//!   and the events already passed on stay valid (no half-built call was reported finished);
//! - no event for the idle timeout: [`ModelErrorKind::Timeout`](crate::model::ModelErrorKind::Timeout).
//!
//! The API key goes only into the auth header, marked sensitive; no `Debug` or `Display` of a
//! model, a builder or an error shows it, and an error message that echoes it has it replaced.
//!
//! ## Why reqwest, rustls and aws-lc-rs
//!
//! reqwest is the best-kept HTTP client in Rust and reads a body incrementally, as streaming
//! needs. It is built without default features: HTTP/1.1 only (every provider streams over it),
//! TLS by rustls (no OpenSSL to find or link) with aws-lc-rs as its cryptography (rustls's
//! default provider, with post-quantum key exchange; rustls 0.23.48 deprecated its ring
//! provider, which has none; aws-lc-rs compiles AWS-LC from C, with the C compiler ring needed
//! too), and the system's CA certificates through rustls-platform-verifier. No process-wide TLS state is set, so an application's own rustls
//! setup is untouched. Tokio comes with reqwest; skyl adds only its timers, for the idle timeout
//! and the waits between retries.

mod builder;
mod config_error;
mod failure;
mod model;
mod retry;

pub use builder::HttpModelBuilder;
pub use config_error::{ConfigError, ConfigErrorKind};
pub use model::HttpModel;
pub use retry::RetryPolicy;
