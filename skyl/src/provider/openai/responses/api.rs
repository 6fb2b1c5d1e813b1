//! Where the Responses API lives and how it is reached: the URL, bearer auth, the SDK's
//! environment variables.

use super::OpenAiResponses;
use crate::provider::author::Api;

/// `POST {base}/responses`, `Authorization: Bearer`; the SDK's `OPENAI_API_KEY`,
/// `OPENAI_BASE_URL`, `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`.
impl Api for OpenAiResponses {
    openai_api!();

    fn url(&self, base: &str, _model: &str, _stream: bool) -> String {
        format!("{base}/responses")
    }
}
