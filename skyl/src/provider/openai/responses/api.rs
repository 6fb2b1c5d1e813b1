//! Where the Responses API lives and how it is reached: the URL, bearer auth, the SDK's
//! environment variables.

use super::OpenAiResponses;
use crate::provider::Api;
use crate::provider::api::bearer;
use crate::provider::openai;

/// `POST {base}/responses`, `Authorization: Bearer`; the SDK's `OPENAI_API_KEY`,
/// `OPENAI_BASE_URL`, `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`.
impl Api for OpenAiResponses {
    fn default_base_url(&self) -> Option<&'static str> {
        Some(openai::BASE_URL)
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &[openai::KEY_VARIABLE]
    }

    fn base_url_variable(&self) -> Option<&'static str> {
        Some(openai::BASE_URL_VARIABLE)
    }

    fn header_variables(&self) -> &'static [(&'static str, &'static str)] {
        openai::HEADER_VARIABLES
    }

    fn url(&self, base: &str, _model: &str, _stream: bool) -> String {
        format!("{base}/responses")
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        bearer(key)
    }

    fn is_transient(&self, error_type: &str) -> bool {
        openai::is_transient(error_type)
    }
}
