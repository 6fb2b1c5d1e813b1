//! [`HttpModel`]: the [`Model`] that sends a request to a provider over HTTP and reads its
//! answer, whole or streamed.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::Value;
use tokio::time::Instant;

use crate::http::builder::HttpModelBuilder;
use crate::http::config_error::ConfigError;
use crate::http::failure::{
    not_a_stream, request_id, scrub, status_error, stream_error, transport_error,
};
use crate::http::retry::RetryPolicy;
use crate::model::{BoxFuture, EventSink, Model, ModelError, ModelErrorKind};
use crate::provider::{
    Request, Response,
    author::{Api, Framing},
    stream::{FeedError, JsonLinesParser, SseParser, StreamDecoder, StreamEvent},
};

/// A [`Model`] that talks to a provider's API over HTTP: Anthropic, OpenAI Chat Completions (and
/// every OpenAI-compatible server), OpenAI Responses, Gemini, OpenAI on Azure, or any provider
/// of your own, as its [`Api`] says.
///
/// [`complete`](Model::complete) sends the request and decodes the whole answer;
/// [`stream`](Model::stream) asks for a stream, reads it as it arrives and passes each
/// [`StreamEvent`] on at once. Both retry what may pass ([`RetryPolicy`]), and stop at the
/// connect, total and (for streams) idle timeouts. Dropping the future cancels the request and
/// closes its connection.
///
/// It runs on Tokio (reqwest does): call it from within a Tokio runtime with its timers enabled.
///
/// ```no_run
/// use skyl::model::Model;
/// use skyl::http::HttpModel;
/// use skyl::provider::{Anthropic, Request, stream::StreamEvent};
/// use skyl::Message;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// // Reads ANTHROPIC_API_KEY, and ANTHROPIC_BASE_URL when set.
/// let model = HttpModel::from_env(Anthropic)?;
/// let request = Request::new("claude-sonnet-4-5", vec![Message::user("Say hello.")]);
/// let response = model
///     .stream(&request, &mut |event| {
///         if let StreamEvent::TextDelta(text) = event {
///             print!("{text}");
///         }
///     })
///     .await?;
/// println!("\n[{:?}, {} tokens out]", response.stop_reason, response.usage.output_tokens);
/// # Ok(())
/// # }
/// ```
///
/// Cloning it is cheap: a clone shares the configuration and the connection pool (an [`Arc`]),
/// so one model can serve many runs and tasks at once.
#[derive(Clone)]
pub struct HttpModel {
    pub(super) shared: Arc<Shared>,
}

/// What every clone of an [`HttpModel`] shares.
pub(super) struct Shared {
    pub(super) api: Box<dyn Api>,
    pub(super) base_url: String,
    pub(super) key: Option<String>,
    /// Sent with every request: content type, auth (marked sensitive), custom headers.
    pub(super) headers: HeaderMap,
    pub(super) client: reqwest::Client,
    pub(super) retry: RetryPolicy,
    pub(super) timeout: Duration,
    pub(super) idle_timeout: Duration,
    /// The most bytes of a whole response body read.
    pub(super) max_response_bytes: usize,
    /// The most bytes of one streamed event read.
    pub(super) max_event_bytes: usize,
}

impl fmt::Debug for HttpModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpModel")
            .field("api", &self.shared.api)
            .field("base_url", &self.shared.base_url)
            .field("api_key", &self.shared.key.as_ref().map(|_| "<redacted>"))
            .field("headers", &self.shared.headers.keys().collect::<Vec<_>>())
            .field("retry", &self.shared.retry)
            .field("timeout", &self.shared.timeout)
            .field("idle_timeout", &self.shared.idle_timeout)
            .field("max_response_bytes", &self.shared.max_response_bytes)
            .field("max_event_bytes", &self.shared.max_event_bytes)
            .finish_non_exhaustive()
    }
}

impl HttpModel {
    /// A model for `api`, configured from the environment variables its official SDK reads (see
    /// [`HttpModelBuilder::with_env`]).
    pub fn from_env(api: impl Api + 'static) -> Result<HttpModel, ConfigError> {
        Self::builder(api).with_env().build()
    }

    /// A builder for a model of `api`, with nothing read from the environment until
    /// [`with_env`](HttpModelBuilder::with_env).
    ///
    /// `api` is any [`Api`]: a built-in adapter, one of your own, or a `Box<dyn Api>` chosen at
    /// run time.
    pub fn builder(api: impl Api + 'static) -> HttpModelBuilder {
        HttpModelBuilder::new(Box::new(api))
    }

    /// The API it talks to.
    pub fn api(&self) -> &dyn Api {
        &*self.shared.api
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        &self.shared.base_url
    }

    /// Sends `body` to `url` until it is answered with a success or a failure that a retry
    /// cannot help, and returns the response with the number of retries it took.
    async fn send(
        &self,
        url: &str,
        body: &Value,
        stream: bool,
    ) -> Result<(reqwest::Response, u32), ModelError> {
        let payload = serde_json::to_vec(body).map_err(|error| {
            ModelError::new(ModelErrorKind::Encode, error.to_string())
                .with_provider(self.shared.api.provider())
        })?;
        let mut headers = self.shared.headers.clone();
        if stream {
            headers.insert(
                ACCEPT,
                HeaderValue::from_static(self.shared.api.framing().media_type()),
            );
        }
        let mut retries = 0;
        loop {
            let attempt = self
                .shared
                .client
                .post(url)
                .headers(headers.clone())
                .body(payload.clone())
                .timeout(self.shared.timeout)
                .send()
                .await;
            let (error, wait) = match attempt {
                Ok(response) if response.status().is_success() => return Ok((response, retries)),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let response_headers = response.headers().clone();
                    // An error body is read as far as the limit: enough to quote it.
                    let text = match self.read_body(response).await {
                        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                        Err(_) => String::new(),
                    };
                    let error = status_error(
                        &*self.shared.api,
                        status,
                        &response_headers,
                        &text,
                        self.shared.key.as_deref(),
                    );
                    let wait = self.shared.retry.delay(retries, Some(&response_headers));
                    (error, wait)
                }
                Err(error) => (
                    transport_error(&*self.shared.api, error, self.shared.timeout),
                    self.shared.retry.delay(retries, None),
                ),
            };
            if !error.is_retryable() || retries >= self.shared.retry.max_retries {
                return Err(error.with_retries(retries));
            }
            tokio::time::sleep(wait).await;
            retries += 1;
        }
    }

    async fn complete_inner(&self, request: &Request<'_>) -> Result<Response, ModelError> {
        let body = self.encode(request)?;
        let url = self
            .shared
            .api
            .url(&self.shared.base_url, &request.model, false);
        let (response, retries) = self.send(&url, &body, false).await?;
        let id = request_id(response.headers());
        let bytes = self
            .read_body(response)
            .await
            .map_err(|error| self.annotate(error, &id, retries))?;
        let result = self.decode_body(&bytes);
        result.map_err(|error| self.annotate(error, &id, retries))
    }

    async fn stream_inner(
        &self,
        request: &Request<'_>,
        events: &mut EventSink<'_>,
    ) -> Result<Response, ModelError> {
        let mut body = self.encode(request)?;
        self.shared.api.stream_body(&mut body);
        let url = self
            .shared
            .api
            .url(&self.shared.base_url, &request.model, true);
        let (mut response, retries) = self.send(&url, &body, true).await?;
        let id = request_id(response.headers());

        // A server that ignored the request for a stream and answered whole.
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/json"));
        if is_json {
            let bytes = self
                .read_body(response)
                .await
                .map_err(|error| self.annotate(error, &id, retries))?;
            let answer = self
                .decode_body(&bytes)
                .map_err(|error| self.annotate(error, &id, retries))?;
            for event in StreamEvent::replay(&answer) {
                events(event);
            }
            return Ok(answer);
        }

        let mut frames = Frames::new(self.shared.api.framing(), self.shared.max_event_bytes);
        let mut decoder = self.shared.api.stream_decoder();
        let mut deadline = Instant::now() + self.shared.idle_timeout;
        // The start of a body that has yet to give an event, to quote should it give none.
        let mut head = Vec::new();
        loop {
            let chunk = match tokio::time::timeout_at(deadline, response.chunk()).await {
                Err(_) => {
                    let error = self.idle_error(decoder.events_read());
                    return Err(self.annotate(error, &id, retries));
                }
                Ok(Ok(Some(chunk))) => chunk,
                Ok(Ok(None)) => {
                    frames
                        .finish(|event, data| decoder.push(event, data, &mut *events))
                        .map_err(|error| {
                            self.annotate(stream_error(&*self.shared.api, error), &id, retries)
                        })?;
                    break;
                }
                // The connection broke after the answer was complete: nothing was lost.
                Ok(Err(_)) if decoder.is_complete() => break,
                Ok(Err(error)) => {
                    let error = self.broken_error(decoder.events_read(), error);
                    return Err(self.annotate(error, &id, retries));
                }
            };
            let before = decoder.events_read();
            if before == 0 && head.len() < MAX_QUOTED_BYTES {
                let room = MAX_QUOTED_BYTES - head.len();
                head.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            frames
                .feed(&chunk, |event, data| {
                    decoder.push(event, data, &mut *events)
                })
                .map_err(|error| {
                    let error = match error {
                        FeedError::Event(error) => stream_error(&*self.shared.api, error),
                        FeedError::TooLarge(error) => {
                            ModelError::new(ModelErrorKind::Decode, error.to_string())
                                .with_provider(self.shared.api.provider())
                        }
                    };
                    self.annotate(error, &id, retries)
                })?;
            if decoder.events_read() > before {
                deadline = Instant::now() + self.shared.idle_timeout;
            }
            if decoder.is_complete() && self.shared.api.ends_at_completion() {
                break;
            }
        }
        if decoder.events_read() == 0 && said(&head).trim_ascii().is_empty() {
            // Accepted (200), then nothing: a server that cannot stream what was asked (an
            // OpenAI-compatible one, with tools) may answer it whole. Asked again once so; its
            // failure is the answer's.
            events(StreamEvent::AskedWhole {
                reason: EMPTY_STREAM.to_owned(),
            });
            let answer = self.complete_inner(request).await?;
            for event in StreamEvent::replay(&answer) {
                events(event);
            }
            return Ok(answer);
        }
        let decoder = match self.checked_end(decoder, &head) {
            Ok(decoder) => decoder,
            Err(error) => return Err(self.annotate(error, &id, retries)),
        };
        decoder
            .finish(&mut *events)
            .map_err(|error| self.annotate(stream_error(&*self.shared.api, error), &id, retries))
    }

    /// The stream sent no event within the idle timeout, after `events` events.
    fn idle_error(&self, events: usize) -> ModelError {
        ModelError::new(
            ModelErrorKind::Timeout,
            format!(
                "the stream sent no event for {:?}, after {}; raise the idle timeout (HttpModelBuilder::idle_timeout) if the model thinks for longer",
                self.shared.idle_timeout,
                count_events(events)
            ),
        )
        .with_provider(self.shared.api.provider())
    }

    /// The connection broke after `events` events.
    fn broken_error(&self, events: usize, error: reqwest::Error) -> ModelError {
        let kind = if error.is_timeout() {
            ModelErrorKind::Timeout
        } else {
            ModelErrorKind::Connection
        };
        ModelError::new(
            kind,
            format!("the stream broke after {}", count_events(events)),
        )
        .with_provider(self.shared.api.provider())
        .with_source(error)
    }

    /// The decoder of a stream that ended, handed back when the answer it read is whole; else
    /// why the stream failed: it gave no event (a body of another kind: an empty one is asked
    /// again whole before this), or stopped before the answer was whole. `head` is the start of
    /// the body, to quote.
    fn checked_end(
        &self,
        decoder: StreamDecoder,
        head: &[u8],
    ) -> Result<StreamDecoder, ModelError> {
        if decoder.events_read() == 0 {
            return Err(not_a_stream(
                &*self.shared.api,
                &said(head),
                self.shared.key.as_deref(),
            ));
        }
        if decoder.can_end() {
            return Ok(decoder);
        }
        let mut error = ModelError::new(
            ModelErrorKind::Connection,
            format!(
                "the stream ended after {}, before the answer was complete",
                count_events(decoder.events_read())
            ),
        )
        .with_provider(self.shared.api.provider());
        // What the answer lacked is the decoder's to say.
        if let Err(cause) = decoder.finish(&mut |_| {}) {
            error = error.with_source(cause);
        }
        Err(error)
    }

    /// The whole body of `response`, read as it arrives up to the limit: a server that sends
    /// more (or says it will) is cut off with an error naming the limit, rather than read into
    /// memory for as long as it sends.
    async fn read_body(&self, mut response: reqwest::Response) -> Result<Vec<u8>, ModelError> {
        let limit = self.shared.max_response_bytes;
        let too_large = || {
            ModelError::new(
                ModelErrorKind::Decode,
                format!(
                    "the body is longer than {limit} bytes, the most this HttpModel reads of one answer; if the provider's answers are this large, raise the limit (HttpModelBuilder::max_response_bytes)"
                ),
            )
            .with_provider(self.shared.api.provider())
        };
        let announced = response.content_length().unwrap_or(0);
        if announced > limit as u64 {
            return Err(too_large());
        }
        let mut body = Vec::with_capacity(announced as usize);
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > limit {
                        return Err(too_large());
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(body),
                Err(error) => {
                    return Err(transport_error(
                        &*self.shared.api,
                        error,
                        self.shared.timeout,
                    ));
                }
            }
        }
    }

    fn encode(&self, request: &Request<'_>) -> Result<Value, ModelError> {
        self.shared
            .api
            .encode(request)
            .map_err(|error| ModelError::from(error).with_provider(self.shared.api.provider()))
    }

    /// The answer in a whole response body.
    fn decode_body(&self, bytes: &[u8]) -> Result<Response, ModelError> {
        let body: Value = serde_json::from_slice(bytes).map_err(|error| {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
            ModelError::new(
                ModelErrorKind::Decode,
                format!(
                    "the body is not JSON; it starts with {:?}",
                    scrub(&text, self.shared.key.as_deref())
                ),
            )
            .with_provider(self.shared.api.provider())
            .with_source(error)
        })?;
        self.shared
            .api
            .decode(&body)
            .map_err(|error| ModelError::from(error).with_provider(self.shared.api.provider()))
    }

    fn annotate(&self, error: ModelError, id: &Option<String>, retries: u32) -> ModelError {
        let error = error.with_retries(retries);
        match id {
            Some(id) => error.with_request_id(id.clone()),
            None => error,
        }
    }
}

/// The most bytes of a body that is not a stream kept to quote in its error: a server's reason
/// (or an HTML error page) says what it needs to in its first lines.
const MAX_QUOTED_BYTES: usize = 4096;

/// What [`StreamEvent::AskedWhole`] says of a stream that ended empty.
const EMPTY_STREAM: &str = "the server accepted the request (200) and ended the stream without a single event; the request was sent again unstreamed";

/// The lines of `head` that are not comments of a stream (`: ping`), which say nothing.
fn said(head: &[u8]) -> Vec<u8> {
    let mut said = Vec::with_capacity(head.len());
    for line in head.split_inclusive(|&byte| byte == b'\n') {
        if !line.starts_with(b":") {
            said.extend_from_slice(line);
        }
    }
    said
}

/// The events of a stream, as its API frames them.
enum Frames {
    Sse(SseParser),
    JsonLines(JsonLinesParser),
}

impl Frames {
    /// The parser for `framing`; a server-sent event may be at most `max_event_bytes` long.
    fn new(framing: Framing, max_event_bytes: usize) -> Frames {
        match framing {
            Framing::JsonLines => Frames::JsonLines(JsonLinesParser::new()),
            _ => Frames::Sse(SseParser::new().with_max_event_bytes(max_event_bytes)),
        }
    }

    /// Passes each event `bytes` completes to `on_event`, as its name and data.
    fn feed<E>(
        &mut self,
        bytes: &[u8],
        mut on_event: impl FnMut(&str, &str) -> Result<(), E>,
    ) -> Result<(), FeedError<E>> {
        match self {
            Frames::Sse(parser) => {
                parser.try_feed(bytes, |event| on_event(&event.event, &event.data))
            }
            Frames::JsonLines(parser) => parser
                .try_feed(bytes, |line| on_event("message", line))
                .map_err(FeedError::Event),
        }
    }

    /// Passes on what the body left unfinished: a last line without its line break (an
    /// unfinished server-sent event is not an event).
    fn finish<E>(
        &mut self,
        mut on_event: impl FnMut(&str, &str) -> Result<(), E>,
    ) -> Result<(), E> {
        match self {
            Frames::Sse(_) => Ok(()),
            Frames::JsonLines(parser) => parser.try_finish(|line| on_event("message", line)),
        }
    }
}

/// `"1 event"`, `"2 events"`.
fn count_events(count: usize) -> String {
    if count == 1 {
        "1 event".to_owned()
    } else {
        format!("{count} events")
    }
}

impl Model for HttpModel {
    fn complete<'a>(
        &'a self,
        request: &'a Request<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(self.complete_inner(request))
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request<'_>,
        events: &'a mut EventSink<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(self.stream_inner(request, events))
    }

    /// The size of the body as the adapter encodes it (a streamed request adds a few bytes of
    /// stream options); `None` when the request does not encode, which sending it will report.
    fn encoded_len(&self, request: &Request<'_>) -> Option<usize> {
        let body = self.encode(request).ok()?;
        serde_json::to_vec(&body).ok().map(|bytes| bytes.len())
    }

    /// What the provider adds that the body does not hold, as its [`Api`] says.
    fn added_input_tokens(&self, request: &Request<'_>) -> u64 {
        self.shared.api.added_input_tokens(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Adapter, Anthropic};

    #[test]
    fn a_clone_shares_the_client_and_the_configuration() {
        let model = HttpModel::builder(Anthropic)
            .api_key("k")
            .base_url("http://127.0.0.1:9")
            .build()
            .unwrap();
        let clone = model.clone();
        assert!(Arc::ptr_eq(&model.shared, &clone.shared));
        assert_eq!(clone.base_url(), "http://127.0.0.1:9");
    }

    #[test]
    fn the_encoded_length_is_the_size_of_the_body_the_adapter_writes() {
        let model = HttpModel::builder(Anthropic)
            .api_key("k")
            .base_url("http://127.0.0.1:9")
            .build()
            .unwrap();
        let request = Request {
            model: "claude-sonnet-4-5".into(),
            messages: vec![crate::Message::user("Hi")].into(),
            ..Default::default()
        };
        let body = Anthropic.encode(&request).unwrap();
        assert_eq!(
            model.encoded_len(&request),
            Some(serde_json::to_vec(&body).unwrap().len())
        );
    }
}
