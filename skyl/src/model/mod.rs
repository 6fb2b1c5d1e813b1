//! The model layer: the one seam between whatever asks a model ([`Agent`](crate::agent::Agent),
//! your own code) and whatever answers (the HTTP transport, a
//! [`ScriptedModel`](crate::testing::ScriptedModel), your own client).
//!
//! - [`Model`]: a [`Request`] in, a [`Response`] out, whole or streamed as [`StreamEvent`]s.
//! - [`ModelError`] and its [`ModelErrorKind`]: why a request failed, and whether trying again
//!   can help.
//! - [`BoxFuture`] and [`EventSink`]: what [`Model`]'s methods return and send events to.
//! - [`Failover`]: a model made of several, of any providers, which moves to the next
//!   [`Member`] when one fails in a way that may pass.
//! - [`Prices`], [`Price`] and [`Cost`]: what a model's tokens cost, as the user prices them.
//!
//! The agent loop, the HTTP transport and the testing tools all depend on this module, and it on
//! none of them. (The same names are re-exported from [`agent`](crate::agent), where they lived
//! before this module existed.)

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

mod error;
mod failover;
mod price;

// The wire's names a model speaks in; their one public path is `skyl::provider`.
use crate::provider::{Request, Response, stream::StreamEvent};
pub use error::{ModelError, ModelErrorKind};
pub use failover::{Failover, Member};
pub use price::{Cost, Price, Prices};

/// A boxed future that can move between threads, as [`Model`]'s methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a streaming [`Model`] sends each [`StreamEvent`] as it arrives.
pub type EventSink<'a> = dyn FnMut(StreamEvent) + Send + 'a;

/// A language model behind some transport: it takes a [`Request`] and answers with a
/// [`Response`].
///
/// The agent loop knows models only through this trait, so the loop does no I/O of its own: the
/// HTTP transport (feature `http`), a scripted model in tests, or your own client all plug in
/// here. It is object-safe, so `Box<dyn Model>` and `Arc<dyn Model>` work, and an application can
/// choose its model at run time.
///
/// Implement [`complete`](Model::complete); [`stream`](Model::stream) has a default built on it,
/// which sends the whole answer's events at once when it arrives.
///
/// ```
/// use skyl::model::{BoxFuture, Model, ModelError};
/// use skyl::provider::{Request, Response};
/// use skyl::Message;
///
/// /// Answers every request with the last user message, reversed.
/// struct Mirror;
///
/// impl Model for Mirror {
///     fn complete<'a>(&'a self, request: &'a Request<'_>) -> BoxFuture<'a, Result<Response, ModelError>> {
///         Box::pin(async move {
///             let last = request.messages.last().map(Message::text_content).unwrap_or_default();
///             Ok(Response::text(last.chars().rev().collect::<String>()))
///         })
///     }
/// }
///
/// // Any executor drives it; a model that only completes still streams.
/// async fn ask(model: &dyn Model) -> Result<Response, ModelError> {
///     let request = Request::new(String::new(), vec![Message::user("abc")]);
///     let mut seen = Vec::new();
///     let response = model.stream(&request, &mut |event| seen.push(event)).await?;
///     assert_eq!(seen.len(), 3, "the text, the usage and the end");
///     Ok(response)
/// }
/// let _: Box<dyn Model> = Box::new(Mirror);
/// ```
pub trait Model: Send + Sync {
    /// Sends `request` and returns the whole answer.
    fn complete<'a>(
        &'a self,
        request: &'a Request<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>>;

    /// Sends `request`, passes each [`StreamEvent`] to `events` as it arrives, and returns the
    /// whole answer: the same [`Response`] that [`complete`](Model::complete) would give.
    ///
    /// The default calls `complete` and then replays the answer as events
    /// ([`StreamEvent::replay`]), so a model that cannot stream still serves a streaming caller.
    fn stream<'a>(
        &'a self,
        request: &'a Request<'_>,
        events: &'a mut EventSink<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move {
            let response = self.complete(request).await?;
            for event in StreamEvent::replay(&response) {
                events(event);
            }
            Ok(response)
        })
    }

    /// The size in bytes of the body this model would send for `request`, when it can tell;
    /// `None` (the default) when it cannot.
    ///
    /// A run's budget ([`Budget`](crate::agent::Budget)) bounds the input tokens of its next
    /// request by this size, and by the size of the request's JSON when it is `None`. The HTTP
    /// transport encodes the request with its provider's adapter and gives the body's size.
    fn encoded_len(&self, request: &Request<'_>) -> Option<usize> {
        let _ = request;
        None
    }

    /// The input tokens the provider adds to `request` that its body does not hold (Anthropic's
    /// tool-use system prompt), which a run's [`Budget`](crate::agent::Budget) counts in the
    /// request's input bound; none (the default) when the model cannot tell. The HTTP transport
    /// gives its provider's ([`Api::added_input_tokens`](crate::provider::author::Api::added_input_tokens)).
    fn added_input_tokens(&self, request: &Request<'_>) -> u64 {
        let _ = request;
        0
    }

    /// The model names `request` may be answered under, as [`Request::model`] names them: the
    /// request's own (the default), or for a [`Failover`] each member's. A run prices each answer
    /// at the name it was asked under ([`Response::requested_model`]), and a budget bounds the
    /// next request at the dearest of these.
    fn model_names(&self, request: &Request<'_>) -> Vec<String> {
        vec![request.model.to_string()]
    }
}

macro_rules! forward_model {
    ($($pointer:ty),*) => {$(
        impl<M: Model + ?Sized> Model for $pointer {
            fn complete<'a>(
                &'a self,
                request: &'a Request<'_>,
            ) -> BoxFuture<'a, Result<Response, ModelError>> {
                (**self).complete(request)
            }

            fn stream<'a>(
                &'a self,
                request: &'a Request<'_>,
                events: &'a mut EventSink<'_>,
            ) -> BoxFuture<'a, Result<Response, ModelError>> {
                (**self).stream(request, events)
            }

            fn encoded_len(&self, request: &Request<'_>) -> Option<usize> {
                (**self).encoded_len(request)
            }

            fn model_names(&self, request: &Request<'_>) -> Vec<String> {
                (**self).model_names(request)
            }

            fn added_input_tokens(&self, request: &Request<'_>) -> u64 {
                (**self).added_input_tokens(request)
            }
        }
    )*};
}

forward_model!(&M, Box<M>, Arc<M>);
