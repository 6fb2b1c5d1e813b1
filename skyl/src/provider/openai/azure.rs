//! OpenAI's two APIs on Azure: the same bodies as [`OpenAiChat`] and [`OpenAiResponses`], other
//! URLs and another auth header.

use serde_json::Value;

use crate::provider::api::path_segment;
use crate::provider::{
    Adapter, DecodeError, EncodeError, OpenAiChat, OpenAiResponses, Provider, Request, Response,
    author::Api,
    stream::{StreamDecoder, Streaming},
};

/// OpenAI Chat Completions or Responses on Azure (Azure OpenAI, Azure AI Foundry): the bodies of
/// [`OpenAiChat`] or [`OpenAiResponses`], unchanged, sent where an Azure resource takes them.
///
/// - **URLs.** With an API version ([`with_api_version`](Self::with_api_version), or
///   `OPENAI_API_VERSION`), the deployment form the official SDKs use: Chat Completions at
///   `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version={version}`, the
///   deployment being [`Request::model`]; Responses, which is not per deployment, at
///   `{endpoint}/openai/responses?api-version={version}`. (The versions `preview` and `latest`
///   are not per deployment either: `{endpoint}/openai/chat/completions?api-version=preview`.)
///   Without a version, the v1 API: `{endpoint}/openai/v1/chat/completions` and
///   `{endpoint}/openai/v1/responses`, the deployment named in the body's `model`.
/// - **Auth.** The key in an `api-key` header, or, for a Microsoft Entra ID token
///   ([`with_token`](Self::with_token), or `AZURE_OPENAI_AD_TOKEN`), `Authorization: Bearer`.
/// - **Environment**, as the official SDKs read it: `AZURE_OPENAI_API_KEY` (or
///   `AZURE_OPENAI_AD_TOKEN`, which wins when set, as in the SDKs), `AZURE_OPENAI_ENDPOINT`
///   (`https://{resource}.openai.azure.com`), `OPENAI_API_VERSION`, `OPENAI_ORG_ID`,
///   `OPENAI_PROJECT_ID`. There is no default endpoint: give one.
///
/// Answers are OpenAI's, so the adapter's [`Provider`] is the wrapped one's, and a transcript
/// moves between OpenAI and Azure with its provider data.
///
/// ```
/// use skyl::provider::{AzureOpenAi, OpenAiChat, OpenAiResponses, author::Api};
///
/// let base = "https://my-resource.openai.azure.com";
/// let chat = AzureOpenAi::chat(OpenAiChat::default()).with_api_version("2024-10-21");
/// assert_eq!(
///     chat.url(base, "gpt-4o-prod", false),
///     "https://my-resource.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21"
/// );
/// let responses = AzureOpenAi::responses(OpenAiResponses::default());
/// assert_eq!(responses.url(base, "gpt-4.1", true), "https://my-resource.openai.azure.com/openai/v1/responses");
/// assert_eq!(responses.auth_headers(Some("k")), [("api-key", "k".to_owned())]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AzureOpenAi {
    wire: Wire,
    api_version: Option<String>,
    token: bool,
}

/// Which of OpenAI's APIs, with its adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wire {
    Chat(OpenAiChat),
    Responses(OpenAiResponses),
}

impl AzureOpenAi {
    /// Chat Completions on Azure, its bodies as `adapter` writes and reads them.
    pub fn chat(adapter: OpenAiChat) -> Self {
        Self::new(Wire::Chat(adapter))
    }

    /// Responses on Azure, its bodies as `adapter` writes and reads them.
    pub fn responses(adapter: OpenAiResponses) -> Self {
        Self::new(Wire::Responses(adapter))
    }

    fn new(wire: Wire) -> Self {
        AzureOpenAi {
            wire,
            api_version: None,
            token: false,
        }
    }

    /// Sends `api-version={version}` with every request, in the deployment URLs of the official
    /// SDKs (`2024-10-21`, `2025-04-01-preview`, ...). An empty version is none: the v1 API.
    pub fn with_api_version(mut self, version: impl Into<String>) -> Self {
        let version = version.into();
        self.api_version = (!version.is_empty()).then_some(version);
        self
    }

    /// Whether the key is a Microsoft Entra ID token, sent as `Authorization: Bearer`, rather
    /// than a resource key, sent as `api-key`.
    pub fn with_token(mut self, token: bool) -> Self {
        self.token = token;
        self
    }

    /// The API version requests name, `None` for the v1 API.
    pub fn api_version(&self) -> Option<&str> {
        self.api_version.as_deref()
    }

    fn adapter(&self) -> &dyn Streaming {
        match &self.wire {
            Wire::Chat(adapter) => adapter,
            Wire::Responses(adapter) => adapter,
        }
    }

    fn api(&self) -> &dyn Api {
        match &self.wire {
            Wire::Chat(adapter) => adapter,
            Wire::Responses(adapter) => adapter,
        }
    }
}

impl Adapter for AzureOpenAi {
    fn provider(&self) -> Provider {
        self.adapter().provider()
    }

    fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError> {
        self.adapter().encode(request)
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        self.adapter().decode(body)
    }
}

impl Streaming for AzureOpenAi {
    fn stream_decoder(&self) -> StreamDecoder {
        self.adapter().stream_decoder()
    }
}

/// The variable of a resource key, and of an Entra ID token.
const KEY_VARIABLE: &str = "AZURE_OPENAI_API_KEY";
const TOKEN_VARIABLE: &str = "AZURE_OPENAI_AD_TOKEN";

impl Api for AzureOpenAi {
    fn default_base_url(&self) -> Option<&'static str> {
        None
    }

    fn key_variables(&self) -> &'static [&'static str] {
        if self.token {
            &[TOKEN_VARIABLE]
        } else {
            &[KEY_VARIABLE]
        }
    }

    fn base_url_variable(&self) -> Option<&'static str> {
        Some("AZURE_OPENAI_ENDPOINT")
    }

    fn header_variables(&self) -> &'static [(&'static str, &'static str)] {
        super::HEADER_VARIABLES
    }

    /// `OPENAI_API_VERSION` when no version was given, and `AZURE_OPENAI_AD_TOKEN`, which makes
    /// the key a token (the SDKs send a token rather than a key when both are set).
    fn read_env(&mut self, lookup: &dyn Fn(&str) -> Option<String>) {
        if self.api_version.is_none() {
            self.api_version = lookup("OPENAI_API_VERSION");
        }
        if lookup(TOKEN_VARIABLE).is_some() {
            self.token = true;
        }
    }

    /// Every Azure resource wants a key or a token.
    fn needs_key(&self, _base_url: &str) -> bool {
        true
    }

    fn url(&self, base: &str, model: &str, _stream: bool) -> String {
        let path = match self.wire {
            Wire::Chat(_) => "chat/completions",
            Wire::Responses(_) => "responses",
        };
        let Some(version) = &self.api_version else {
            return format!("{base}/openai/v1/{path}");
        };
        // Outside the unreserved characters, percent-encoded: a version cannot add a parameter.
        let version = path_segment(version);
        let per_deployment = matches!(self.wire, Wire::Chat(_))
            && !version.eq_ignore_ascii_case("preview")
            && !version.eq_ignore_ascii_case("latest");
        if per_deployment {
            let deployment = path_segment(model);
            format!("{base}/openai/deployments/{deployment}/{path}?api-version={version}")
        } else {
            format!("{base}/openai/{path}?api-version={version}")
        }
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        match key {
            Some(key) if self.token => vec![("authorization", format!("Bearer {key}"))],
            Some(key) => vec![("api-key", key.to_owned())],
            None => Vec::new(),
        }
    }

    fn stream_body(&self, body: &mut Value) {
        self.api().stream_body(body);
    }

    fn is_transient(&self, error_type: &str) -> bool {
        super::is_transient(error_type)
    }
}
