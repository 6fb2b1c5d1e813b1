//! The HTTP client of rmcp's OAuth exchanges (metadata, registration, tokens).

use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRedirectPolicy, OAuthHttpRequest,
};

use crate::mcp::error::Cause;

/// The largest answer skyl reads from an authorization server (metadata, registration, token).
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The HTTP client of rmcp's OAuth exchanges (metadata, registration, tokens), built as the
/// transport's is: rmcp's own builds a reqwest client that panics when the `http` feature has
/// turned on rustls without a process-wide crypto provider.
#[derive(Clone)]
pub(in crate::mcp) struct OAuthHttp {
    follow: reqwest::Client,
    stop: reqwest::Client,
}

impl OAuthHttp {
    pub(in crate::mcp) fn new(
        builder: impl Fn() -> Result<reqwest::ClientBuilder, Cause>,
    ) -> Result<Self, Cause> {
        Ok(OAuthHttp {
            follow: builder()?.build()?,
            stop: builder()?
                .redirect(reqwest::redirect::Policy::none())
                .build()?,
        })
    }
}

impl OAuthHttpClient for OAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        let client = match request.redirect_policy {
            OAuthHttpRedirectPolicy::Stop => &self.stop,
            _ => &self.follow,
        };
        let timeout = request.timeout;
        let (head, body) = request.request.into_parts();
        let mut outgoing = client
            .request(head.method, head.uri.to_string())
            .headers(head.headers)
            .body(body);
        if let Some(timeout) = timeout {
            outgoing = outgoing.timeout(timeout);
        }
        Box::pin(async move {
            let mut response = outgoing.send().await?;
            let mut answer = http::Response::builder().status(response.status());
            for (name, value) in response.headers() {
                answer = answer.header(name, value);
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                    return Err(format!(
                        "the answer of {} is longer than {MAX_ANSWER_BYTES} bytes",
                        response.url()
                    )
                    .into());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(answer.body(body)?)
        })
    }
}
