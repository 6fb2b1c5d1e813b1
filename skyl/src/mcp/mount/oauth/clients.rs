//! The transport's HTTP client with OAuth: its requests carry the session's token and lead to
//! authorization when the server refuses them.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use crate::mcp::mount::oauth::session::{Refusal, Session, Step};

/// The transport's HTTP client with OAuth around it: each request carries the current token, and
/// one the server refuses (401, or 403 for a scope) leads to authorization and is sent again.
#[derive(Clone)]
pub(in crate::mcp) struct Authorized {
    http: reqwest::Client,
    session: Arc<Session>,
}

type Answer<T> = Result<T, StreamableHttpError<reqwest::Error>>;

type SseStream =
    Pin<Box<dyn futures_core::Stream<Item = Result<sse_stream::Sse, SseError>> + Send>>;

impl Authorized {
    pub(in crate::mcp) fn new(http: reqwest::Client, session: Arc<Session>) -> Self {
        Authorized { http, session }
    }

    async fn send<T, F, Fut>(&self, request: F) -> Answer<T>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Answer<T>>,
    {
        let session = &self.session;
        let limit = session.oauth.max_authorizations;
        let mut authorizations = 0;
        loop {
            let (token, generation) = session.token().await;
            let refusal = match request(token.clone()).await {
                Err(StreamableHttpError::AuthRequired(refused)) => {
                    if token.is_some() && authorizations > 0 {
                        return Err(session.fail(session.refused(Step::TokenRefused)));
                    }
                    Refusal::Unauthorized(refused.www_authenticate_header)
                }
                Err(StreamableHttpError::InsufficientScope(refused)) => {
                    Refusal::Forbidden(refused.www_authenticate_header)
                }
                answer => return answer,
            };
            if authorizations == limit {
                return Err(session.fail(session.refused(Step::TooMany(limit))));
            }
            authorizations += 1;
            session
                .authorize(generation, refusal)
                .await
                .map_err(|failure| session.fail(failure))?;
        }
    }
}

/// Writes the trait's methods, each of which sends through [`Authorized::send`]: the transport's
/// own client gets a clone of each argument, with the session's token in place of the header the
/// transport would have set. The arguments after `;` come after the custom headers, and are `Copy`.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*$(; $($after:ident: $after_ty:ty),*)?) -> $out:ty;)*) => {
        $(
            async fn $method(
                &self,
                $($arg: $ty,)*
                _auth_header: Option<String>,
                custom_headers: HashMap<HeaderName, HeaderValue>,
                $($($after: $after_ty,)*)?
            ) -> Answer<$out> {
                self.send(|token| {
                    self.http.$method(
                        $($arg.clone(),)*
                        token,
                        custom_headers.clone(),
                        $($($after,)*)?
                    )
                })
                .await
            }
        )*
    };
}

// The transport sends through `post_message_with_response_limits` and
// `get_stream_with_max_sse_event_size`; the others are the trait's required methods. Each passes
// the limits on to the transport's own client, which enforces them.
impl StreamableHttpClient for Authorized {
    type Error = reqwest::Error;

    forward! {
        post_message(uri: Arc<str>, message: ClientJsonRpcMessage, session_id: Option<Arc<str>>)
            -> StreamableHttpPostResponse;
        post_message_with_response_limits(
            uri: Arc<str>,
            message: ClientJsonRpcMessage,
            session_id: Option<Arc<str>>;
            limits: StreamableHttpResponseLimits
        ) -> StreamableHttpPostResponse;
        delete_session(uri: Arc<str>, session_id: Arc<str>) -> ();
        get_stream(uri: Arc<str>, session_id: Option<Arc<str>>, last_event_id: Option<String>)
            -> SseStream;
        get_stream_with_max_sse_event_size(
            uri: Arc<str>,
            session_id: Option<Arc<str>>,
            last_event_id: Option<String>;
            max_sse_event_size: usize
        ) -> SseStream;
    }
}
