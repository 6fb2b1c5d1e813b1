//! The HTTP transport against a real HTTP server on 127.0.0.1 (`http_server.rs`): what each
//! provider is sent, whole and streamed answers, retries, and the failures of a real network.
//!
//! Whole agent runs over this transport, streamed and not, are in `agent_http.rs`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};
use skyl::http::{ConfigErrorKind, HttpModel, RetryPolicy};
use skyl::model::{Model, ModelError, ModelErrorKind};
use skyl::provider::author::Api;
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request, Response, Usage,
    stream::{StreamEvent, Streaming},
};
use skyl::{Message, ToolDefinition};

use crate::support;
use crate::support::http_server::{self, End, Recorded, Reply, Server};

const KEY: &str = "sk-test-0123456789abcdef";

fn fixture(provider: &str, name: &str, extension: &str) -> Vec<u8> {
    support::fixture(&format!("{provider}/{name}.{extension}"))
}

fn stream_fixture(provider: &str, name: &str) -> Vec<u8> {
    fixture(&format!("stream/{provider}"), name, "sse")
}

fn unstreamed(provider: &str, name: &str) -> Value {
    serde_json::from_slice(&fixture(&format!("stream/{provider}"), name, "json")).unwrap()
}

fn request(model: &str) -> Request<'static> {
    Request::new(model.to_owned(), vec![Message::user("Weather in Paris?")])
        .with_system("You are terse.")
        .with_tools(vec![ToolDefinition::new(
            "get_weather",
            "Current weather in a city.",
            json!({
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": false
            }),
        )])
        .with_max_tokens(256)
}

/// A model of `api` at `server`, quick to give up: retries wait a millisecond.
fn model(api: impl Api + 'static, server: &Server) -> HttpModel {
    HttpModel::builder(api)
        .api_key(KEY)
        .base_url(&server.url)
        .retry(
            RetryPolicy::default()
                .with_max_retries(2)
                .with_initial_delay(Duration::from_millis(1))
                .with_max_delay(Duration::from_millis(5)),
        )
        .build()
        .unwrap()
}

/// The causes of `error`, below it, as `a: b: c`.
fn causes(error: &dyn std::error::Error) -> String {
    let mut text = Vec::new();
    let mut cause = error.source();
    while let Some(error) = cause {
        text.push(error.to_string());
        cause = error.source();
    }
    text.join(": ")
}

fn headers(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

/// The case of each provider: its API, the model name, where it posts (whole, streamed), the
/// headers it sends (without `accept`), and a recorded answer.
struct Case {
    provider: &'static str,
    api: fn() -> Box<dyn Api>,
    model: &'static str,
    path: &'static str,
    stream_path: &'static str,
    auth: Vec<(&'static str, String)>,
    fixture: &'static str,
}

/// The one request a case's server should have received: `body`, posted to `path`, asking for
/// `accept`.
fn posted(case: &Case, path: &str, accept: &str, body: Value) -> Vec<Recorded> {
    vec![Recorded {
        method: "POST".into(),
        path: path.into(),
        headers: expected_headers(case, accept),
        body,
    }]
}

/// `model`'s stream of `request`, and every event it told on the way.
async fn streamed(
    model: &HttpModel,
    request: &Request<'_>,
) -> (Result<Response, ModelError>, Vec<StreamEvent>) {
    let mut told = Vec::new();
    let result = model.stream(request, &mut |event| told.push(event)).await;
    (result, told)
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            provider: "anthropic",
            api: || Box::new(Anthropic),
            model: "claude-sonnet-4-5",
            path: "/v1/messages",
            stream_path: "/v1/messages",
            auth: vec![
                ("x-api-key", KEY.to_owned()),
                ("anthropic-version", "2023-06-01".to_owned()),
            ],
            fixture: "parallel_calls",
        },
        Case {
            provider: "openai_chat",
            // The loopback server is a compatible server, as HttpModel takes any host but OpenAI's.
            api: || Box::new(OpenAiChat::default().with_compatible(true)),
            model: "gpt-4o",
            path: "/chat/completions",
            stream_path: "/chat/completions",
            auth: vec![("authorization", format!("Bearer {KEY}"))],
            fixture: "parallel_calls",
        },
        Case {
            provider: "openai_responses",
            api: || Box::new(OpenAiResponses::default()),
            model: "gpt-4.1",
            path: "/responses",
            stream_path: "/responses",
            auth: vec![("authorization", format!("Bearer {KEY}"))],
            fixture: "parallel_calls",
        },
        Case {
            provider: "gemini",
            api: || Box::new(Gemini::default()),
            model: "gemini-2.5-flash",
            path: "/v1beta/models/gemini-2.5-flash:generateContent",
            stream_path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            auth: vec![("x-goog-api-key", KEY.to_owned())],
            fixture: "parallel_calls_without_ids",
        },
    ]
}

fn expected_headers(case: &Case, accept: &str) -> BTreeMap<String, String> {
    let mut expected = headers(&[
        ("accept", accept),
        ("content-type", "application/json"),
        ("user-agent", concat!("skyl/", env!("CARGO_PKG_VERSION"))),
    ]);
    for (name, value) in &case.auth {
        expected.insert((*name).to_owned(), value.clone());
    }
    expected
}

fn adapter(api: &dyn Api) -> &dyn Streaming {
    api
}

#[tokio::test]
async fn complete_posts_the_encoded_body_with_each_providers_headers() {
    for case in cases() {
        let body = unstreamed(case.provider, case.fixture);
        let server = Server::start(vec![Reply::json(200, body.to_string())]).await;
        let model = model((case.api)(), &server);
        let request = request(case.model);

        let response = model.complete(&request).await.unwrap();

        assert_eq!(
            response,
            adapter(&(case.api)()).decode(&body).unwrap(),
            "{}",
            case.provider
        );
        assert_eq!(
            server.requests(),
            posted(
                &case,
                case.path,
                "application/json",
                adapter(&(case.api)()).encode(&request).unwrap()
            ),
            "{}",
            case.provider
        );
    }
}

#[tokio::test]
async fn stream_asks_for_a_stream_and_passes_each_event_on() {
    for case in cases() {
        let server = Server::start(vec![Reply::stream(
            &stream_fixture(case.provider, case.fixture),
            End::Close,
        )])
        .await;
        let model = model((case.api)(), &server);
        let request = request(case.model);

        let (response, told) = streamed(&model, &request).await;

        let response = response.unwrap();

        let expected = adapter(&(case.api)())
            .decode(&unstreamed(case.provider, case.fixture))
            .unwrap();
        assert_eq!(response, expected, "{}", case.provider);
        assert_eq!(told, decoded_events(&case), "{}", case.provider);

        let body = http_server::streamed(
            case.provider,
            adapter(&(case.api)()).encode(&request).unwrap(),
        );
        assert_eq!(
            server.requests(),
            posted(&case, case.stream_path, "text/event-stream", body),
            "{}",
            case.provider
        );
    }
}

/// The events the stream decoder tells for the case's fixture, fed without a network.
fn decoded_events(case: &Case) -> Vec<StreamEvent> {
    let mut parser = skyl::provider::stream::SseParser::new();
    let mut decoder = adapter(&(case.api)()).stream_decoder();
    let mut told = Vec::new();
    parser
        .feed(&stream_fixture(case.provider, case.fixture), |event| {
            decoder
                .push(&event.event, &event.data, &mut |e| told.push(e))
                .unwrap();
        })
        .unwrap();
    decoder.finish(&mut |e| told.push(e)).unwrap();
    told
}

fn anthropic_text_answer() -> String {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Sunny."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 2}
    })
    .to_string()
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_then_succeeds() {
    let server = Server::start(vec![
        Reply::json(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit."}}"#,
        )
        .with_header("retry-after", "0"),
        Reply::json(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit."}}"#,
        )
        .with_header("retry-after-ms", "5"),
        Reply::json(200, anthropic_text_answer()),
    ])
    .await;
    let model = model(Anthropic, &server);

    let response = model.complete(&request("claude-sonnet-4-5")).await.unwrap();

    assert_eq!(response.message.text_content(), "Sunny.");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests.iter().all(|r| r == &requests[0]),
        "a retry sends the same request"
    );
}

#[tokio::test]
async fn a_529_that_lasts_gives_up_after_the_retries_with_what_anthropic_said() {
    let overloaded = || {
        Reply::json(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
        .with_header("request-id", "req_011CQ3x")
    };
    let server = Server::start(vec![overloaded(), overloaded(), overloaded()]).await;
    let model = model(Anthropic, &server);

    let error = model
        .complete(&request("claude-sonnet-4-5"))
        .await
        .unwrap_err();

    assert_eq!(
        (
            error.kind(),
            error.status(),
            error.error_type(),
            error.retries(),
            error.is_retryable()
        ),
        (
            ModelErrorKind::Provider,
            Some(529),
            Some("overloaded_error"),
            2,
            true
        )
    );
    assert_eq!(
        error.to_string(),
        "Anthropic answered HTTP 529 (overloaded_error): Overloaded [request id req_011CQ3x; gave up after 2 retries]"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_400_reaches_the_caller_in_the_providers_words_without_a_retry() {
    let cases: Vec<(Box<dyn Api>, &str, &str, &str)> = vec![
        (
            Box::new(OpenAiChat::default()),
            r#"{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.","type":"invalid_request_error","param":"messages.[2].role","code":null}}"#,
            "x-request-id",
            "OpenAI Chat answered HTTP 400 (invalid_request_error): Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. [request id req_abc]",
        ),
        (
            Box::new(Gemini::default()),
            r#"{"error":{"code":400,"message":"Please ensure that function response turn comes immediately after a function call turn.","status":"INVALID_ARGUMENT"}}"#,
            "x-request-id",
            "Gemini answered HTTP 400 (INVALID_ARGUMENT): Please ensure that function response turn comes immediately after a function call turn. [request id req_abc]",
        ),
    ];
    for (api, body, id_header, text) in cases {
        let reply = || Reply::json(400, body).with_header(id_header, "req_abc");
        let server = Server::start(vec![reply(), reply()]).await;
        let model = model(api, &server);

        let whole = model.complete(&request("m")).await.unwrap_err();
        assert_eq!(server.requests().len(), 1, "a 400 is not retried");
        let streamed = model.stream(&request("m"), &mut |_| {}).await.unwrap_err();

        for error in [whole, streamed] {
            assert_eq!(error.to_string(), text);
            assert!(!error.is_retryable());
        }
    }
}

#[tokio::test]
async fn a_connection_dropped_mid_stream_is_a_connection_error_after_the_events_so_far() {
    let bytes = stream_fixture("anthropic", "parallel_calls");
    let cut = String::from_utf8_lossy(&bytes)
        .find("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}")
        .unwrap();
    let server = Server::start(vec![Reply::stream(&bytes[..cut], End::Drop)]).await;
    let model = model(Anthropic, &server);

    let (error, told) = streamed(&model, &request("claude-sonnet-4-5")).await;

    let error = error.unwrap_err();

    assert_eq!(error.kind(), ModelErrorKind::Connection);
    assert!(error.is_retryable());
    assert_eq!(error.message(), "the stream broke after 10 events");
    assert!(
        causes(&error).ends_with("unexpected EOF during chunk size line"),
        "{}",
        causes(&error)
    );
    // The first call was streamed but never finished: nothing half-built was passed on as done.
    assert!(told.contains(&StreamEvent::ToolCallStarted {
        index: 0,
        id: "toolu_01A09q90qw90lq917835lq9".into(),
        name: "get_weather".into()
    }));
    assert!(
        !told
            .iter()
            .any(|event| matches!(event, StreamEvent::ToolCallFinished { .. }))
    );
}

#[tokio::test]
async fn a_stream_cut_before_its_finish_reason_is_a_connection_error() {
    let bytes = stream_fixture("openai_chat", "text");
    let cut = String::from_utf8_lossy(&bytes)
        .find("\"finish_reason\":\"stop\"")
        .unwrap();
    // The body ends cleanly, at the start of the chunk that would have ended the answer.
    let text = String::from_utf8_lossy(&bytes[..cut]);
    let cut = text.rfind("data: ").unwrap();
    let server = Server::start(vec![Reply::stream(&bytes[..cut], End::Close)]).await;
    let model = model(OpenAiChat::default(), &server);

    let error = model
        .stream(&request("gpt-4o"), &mut |_| {})
        .await
        .unwrap_err();

    assert_eq!(error.kind(), ModelErrorKind::Connection);
    assert_eq!(
        error.message(),
        "the stream ended after 9 events, before the answer was complete"
    );
    assert_eq!(
        causes(&error),
        "cannot read the OpenAI Chat response: the stream, after event 9 (message): expected data: [DONE], found the end of the stream; is this body from the OpenAI Chat API?"
    );
}

/// A compatible server (llama-cpp-python's, for one) may end the body after the chunk with the
/// `finish_reason` and the usage, without `data: [DONE]`: the answer is whole, as the official
/// SDKs read it.
#[tokio::test]
async fn a_stream_that_ends_cleanly_after_its_finish_reason_is_a_whole_answer() {
    let bytes = stream_fixture("openai_chat", "text");
    let cut = String::from_utf8_lossy(&bytes)
        .find("data: [DONE]")
        .unwrap();
    let server = Server::start(vec![Reply::stream(&bytes[..cut], End::Close)]).await;
    let model = model(OpenAiChat::default(), &server);

    let (response, told) = streamed(&model, &request("gpt-4o")).await;

    let response = response.unwrap();

    let whole = OpenAiChat::default()
        .decode(&unstreamed("openai_chat", "text"))
        .unwrap();
    assert_eq!(response, whole);
    assert_eq!(
        told.last(),
        Some(&StreamEvent::Done {
            stop_reason: whole.stop_reason.clone()
        })
    );
}

/// llama-cpp-python 0.3.x's server, asked for a stream with tools, accepts it (200) and ends
/// the stream without a single event (issue #17): the same request is asked again unstreamed,
/// once, which it answers; the caller is told so before the answer's events.
#[tokio::test]
async fn a_stream_without_a_single_event_is_asked_again_whole_once_and_says_so() {
    let whole = unstreamed("openai_chat", "parallel_calls");
    let server = Server::start(vec![
        Reply::stream(b"", End::Close),
        Reply::json(200, whole.to_string()),
    ])
    .await;
    let api = || OpenAiChat::default().with_compatible(true);
    let model = model(api(), &server);
    let request = request("smollm2");

    let (response, told) = streamed(&model, &request).await;

    let response = response.unwrap();

    let answer = api().decode(&whole).unwrap();
    assert_eq!(response, answer);
    let mut expected = vec![StreamEvent::AskedWhole {
        reason: "the server accepted the request (200) and ended the stream without a single event; the request was sent again unstreamed".into(),
    }];
    expected.extend(StreamEvent::replay(&answer));
    assert_eq!(told, expected);
    let mut streamed = api().encode(&request).unwrap();
    api().stream_body(&mut streamed);
    let headers = |accept: &str| {
        headers(&[
            ("accept", accept),
            ("authorization", &format!("Bearer {KEY}")),
            ("content-type", "application/json"),
            ("user-agent", concat!("skyl/", env!("CARGO_PKG_VERSION"))),
        ])
    };
    assert_eq!(
        server.requests(),
        vec![
            Recorded {
                method: "POST".into(),
                path: "/chat/completions".into(),
                headers: headers("text/event-stream"),
                body: streamed,
            },
            Recorded {
                method: "POST".into(),
                path: "/chat/completions".into(),
                headers: headers("application/json"),
                body: api().encode(&request).unwrap(),
            },
        ]
    );
}

/// Asked again whole, a server that fails says why: that failure is the error.
#[tokio::test]
async fn a_stream_without_a_single_event_asked_again_whole_fails_with_the_whole_answers_error() {
    let server = Server::start(vec![
        Reply::stream(b"", End::Close),
        Reply::json(
            400,
            r#"{"error": {"message": "tools are not supported", "type": "invalid_request_error"}}"#,
        ),
    ])
    .await;
    let model = model(OpenAiChat::default().with_compatible(true), &server);

    let (error, told) = streamed(&model, &request("smollm2")).await;

    let error = error.unwrap_err();

    assert_eq!(error.status(), Some(400));
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        told,
        [StreamEvent::AskedWhole {
            reason: "the server accepted the request (200) and ended the stream without a single event; the request was sent again unstreamed".into(),
        }]
    );
}

/// llama-cpp-python's server sends no usage chunk: the usage is unknown, not zero.
#[tokio::test]
async fn a_stream_without_usage_says_its_usage_is_unreported() {
    let stream = concat!(
        "data: {\"id\":\"chatcmpl-1\",\"model\":\"smollm2\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Sunny.\"},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"model\":\"smollm2\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    );
    let server = Server::start(vec![Reply::stream(stream.as_bytes(), End::Close)]).await;
    let model = model(OpenAiChat::default(), &server);

    let response = model.stream(&request("gpt-4o"), &mut |_| {}).await.unwrap();

    assert_eq!(response.message.text_content(), "Sunny.");
    assert_eq!(response.usage, Usage::unreported_usage());
}

#[tokio::test]
async fn a_body_or_an_event_over_its_limit_is_cut_off_with_an_error_naming_it() {
    let body = unstreamed("openai_chat", "text").to_string();
    let server = Server::start(vec![Reply::json(200, body.clone())]).await;
    let model = HttpModel::builder(OpenAiChat::default())
        .api_key(KEY)
        .base_url(&server.url)
        .max_retries(0)
        .max_response_bytes(64)
        .build()
        .unwrap();
    let error = model.complete(&request("gpt-4o")).await.unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::Decode);
    assert_eq!(
        error.to_string(),
        "the answer from OpenAI Chat could not be read: the body is longer than 64 bytes, the most this HttpModel reads of one answer; if the provider's answers are this large, raise the limit (HttpModelBuilder::max_response_bytes)"
    );

    // One event that never ends.
    let endless = format!("data: {}", "x".repeat(4096));
    let server = Server::start(vec![Reply::stream(endless.as_bytes(), End::Close)]).await;
    let model = HttpModel::builder(OpenAiChat::default())
        .api_key(KEY)
        .base_url(&server.url)
        .max_retries(0)
        .max_event_bytes(1024)
        .build()
        .unwrap();
    let error = model
        .stream(&request("gpt-4o"), &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the answer from OpenAI Chat could not be read: one server-sent event is longer than 1024 bytes, the most this stream reads of one event; if the provider's events are this large, raise the limit (SseParser::with_max_event_bytes, HttpModelBuilder::max_event_bytes)"
    );
}

#[tokio::test]
async fn an_idle_stream_times_out_and_comments_do_not_keep_it_alive() {
    let bytes = stream_fixture("anthropic", "parallel_calls");
    let cut = String::from_utf8_lossy(&bytes)
        .find("event: content_block_start")
        .unwrap();
    let (closed, was_closed) = tokio::sync::oneshot::channel();
    let server = Server::start(vec![Reply::stream(&bytes[..cut], End::Hang { closed })]).await;
    let model = HttpModel::builder(Anthropic)
        .api_key(KEY)
        .base_url(&server.url)
        .idle_timeout(Duration::from_millis(200))
        .build()
        .unwrap();

    let error = model
        .stream(&request("claude-sonnet-4-5"), &mut |_| {})
        .await
        .unwrap_err();

    assert_eq!(error.kind(), ModelErrorKind::Timeout);
    assert_eq!(
        error.to_string(),
        "Anthropic did not answer in time: the stream sent no event for 200ms, after 1 event; raise the idle timeout (HttpModelBuilder::idle_timeout) if the model thinks for longer"
    );
    // The transport let go of the connection.
    tokio::time::timeout(Duration::from_secs(10), was_closed)
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn dropping_the_future_cancels_the_request_and_closes_the_connection() {
    let bytes = stream_fixture("anthropic", "parallel_calls");
    let cut = String::from_utf8_lossy(&bytes)
        .find("event: content_block_stop")
        .unwrap();
    let (closed, was_closed) = tokio::sync::oneshot::channel();
    let server = Server::start(vec![Reply::stream(&bytes[..cut], End::Hang { closed })]).await;
    let model = model(Anthropic, &server);
    let request = request("claude-sonnet-4-5");

    let (first, got_first) = tokio::sync::oneshot::channel();
    let mut first = Some(first);
    let mut sink = |event: StreamEvent| {
        if let (Some(first), StreamEvent::TextDelta(_)) = (first.take(), &event) {
            let _ = first.send(());
        }
    };
    let stream = model.stream(&request, &mut sink);
    tokio::select! {
        _ = stream => panic!("the stream cannot end: the server never ends it"),
        _ = got_first => {}
    }
    // `stream` is dropped here, mid-answer.
    tokio::time::timeout(Duration::from_secs(10), was_closed)
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_total_timeout_stops_a_server_that_never_answers() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // Accepts the connection and never answers.
    let silent = tokio::spawn(async move {
        let (_socket, _) = listener.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(10)).await;
    });
    let model = HttpModel::builder(OpenAiChat::default())
        .base_url(&url)
        .timeout(Duration::from_millis(200))
        .max_retries(0)
        .build()
        .unwrap();

    let error = model.complete(&request("m")).await.unwrap_err();

    assert_eq!(error.kind(), ModelErrorKind::Timeout);
    assert_eq!(error.message(), "no complete answer within 200ms");
    assert!(std::error::Error::source(&error).is_some());
    silent.abort();
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_reported() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let model = HttpModel::builder(OpenAiChat::default())
        .base_url(&url)
        .retry(
            RetryPolicy::default()
                .with_max_retries(1)
                .with_initial_delay(Duration::from_millis(1))
                .with_max_delay(Duration::from_millis(1)),
        )
        .build()
        .unwrap();

    let error = model.complete(&request("m")).await.unwrap_err();

    assert_eq!(
        (error.kind(), error.retries()),
        (ModelErrorKind::Connection, 1)
    );
    assert_eq!(
        error.to_string(),
        "the connection to OpenAI Chat failed [gave up after 1 retry]"
    );
    assert!(
        causes(&error).starts_with(&format!(
            "error sending request for url ({url}/chat/completions)"
        )),
        "{}",
        causes(&error)
    );
}

#[tokio::test]
async fn an_error_event_mid_stream_is_the_providers_and_marked_retryable_when_it_passes() {
    let server = Server::start(vec![
        Reply::stream(
            &stream_fixture("anthropic", "overloaded_mid_stream"),
            End::Close,
        )
        .with_header("request-id", "req_9"),
    ])
    .await;
    let model = model(Anthropic, &server);

    let (error, told) = streamed(&model, &request("claude-sonnet-4-5")).await;

    let error = error.unwrap_err();

    assert_eq!(
        error.to_string(),
        "Anthropic answered with an error (overloaded_error): Overloaded [request id req_9]"
    );
    assert!(error.is_retryable());
    assert_eq!(told, vec![StreamEvent::TextDelta("Let me".into())]);
    assert_eq!(server.requests().len(), 1, "a stream is not retried");
}

#[tokio::test]
async fn a_server_that_answers_a_stream_request_whole_is_read_whole() {
    let body = unstreamed("openai_chat", "parallel_calls");
    let server = Server::start(vec![Reply::json(200, body.to_string())]).await;
    let model = model(OpenAiChat::default(), &server);

    let (response, told) = streamed(&model, &request("gpt-4o")).await;

    let response = response.unwrap();

    let expected = OpenAiChat::default().decode(&body).unwrap();
    assert_eq!(told, StreamEvent::replay(&expected));
    assert_eq!(response, expected);
}

fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name| {
        pairs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

#[tokio::test]
async fn the_environment_gives_the_key_the_base_url_and_openais_headers() {
    let server = Server::start(vec![
        Reply::json(200, unstreamed("gemini", "call_with_id").to_string()),
        Reply::json(200, unstreamed("openai_chat", "text").to_string()),
    ])
    .await;
    let url: &'static str = Box::leak(server.url.clone().into_boxed_str());
    let gemini_vars: &'static [(&str, &str)] = Box::leak(Box::new([
        ("GEMINI_API_KEY", "gemini-key"),
        ("GOOGLE_API_KEY", "google-key"),
        ("GOOGLE_GEMINI_BASE_URL", url),
    ]));
    let gemini = HttpModel::builder(Gemini::default())
        .with_vars(vars(gemini_vars))
        .build()
        .unwrap();
    gemini.complete(&request("gemini-2.5-flash")).await.unwrap();

    let openai_vars: &'static [(&str, &str)] = Box::leak(Box::new([
        ("OPENAI_API_KEY", "sk-openai"),
        ("OPENAI_BASE_URL", url),
        ("OPENAI_ORG_ID", "org-7"),
        ("OPENAI_PROJECT_ID", ""),
    ]));
    let openai = HttpModel::builder(OpenAiChat::default())
        .with_vars(vars(openai_vars))
        .build()
        .unwrap();
    openai.complete(&request("gpt-4o")).await.unwrap();

    let requests = server.requests();
    // Google's SDK prefers GOOGLE_API_KEY; an empty variable is unset.
    assert_eq!(requests[0].headers["x-goog-api-key"], "google-key");
    assert_eq!(requests[1].headers["authorization"], "Bearer sk-openai");
    assert_eq!(requests[1].headers["openai-organization"], "org-7");
    assert!(!requests[1].headers.contains_key("openai-project"));
}

#[test]
fn configuration_errors_say_what_to_set() {
    let cases = [
        (
            HttpModel::builder(Anthropic).with_vars(|_| None).build(),
            "no API key for Anthropic: set ANTHROPIC_API_KEY, or give one with HttpModelBuilder::api_key (a server at another base URL may need none)",
        ),
        (
            HttpModel::builder(Gemini::default()).build(),
            "no API key for Gemini: set GOOGLE_API_KEY or GEMINI_API_KEY, or give one with HttpModelBuilder::api_key (a server at another base URL may need none)",
        ),
        (
            HttpModel::builder(OpenAiChat::default())
                .base_url("localhost:11434")
                .build(),
            "the base URL \"localhost:11434\" for OpenAI Chat is not an http or https URL; give one such as https://api.openai.com/v1",
        ),
        (
            HttpModel::builder(OpenAiChat::default())
                .base_url("not a url")
                .build(),
            "the base URL \"not a url\" for OpenAI Chat is not a URL; give one such as https://api.openai.com/v1",
        ),
        (
            HttpModel::builder(Anthropic).api_key("line\nbreak").build(),
            "the API key for Anthropic cannot be sent in a header: it holds a character headers cannot carry, such as a line break; check ANTHROPIC_API_KEY",
        ),
    ];
    let mut kinds = Vec::new();
    for (result, text) in cases {
        let error = result.unwrap_err();
        assert_eq!(error.to_string(), text);
        kinds.push(error.kind());
    }
    assert_eq!(
        kinds,
        [
            ConfigErrorKind::NoKey,
            ConfigErrorKind::NoKey,
            ConfigErrorKind::BadBaseUrl,
            ConfigErrorKind::BadBaseUrl,
            ConfigErrorKind::BadHeader
        ]
    );
    // The URL parser's own words are the cause, not a part of the message.
    let error = HttpModel::builder(OpenAiChat::default())
        .base_url("not a url")
        .build()
        .unwrap_err();
    assert_eq!(
        std::error::Error::source(&error).map(ToString::to_string),
        Some("relative URL without a base".to_owned())
    );
}

#[tokio::test]
async fn the_key_never_shows_in_debug_or_display() {
    let server = Server::start(vec![Reply::json(
        401,
        format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#),
    )])
    .await;
    let builder = HttpModel::builder(OpenAiChat::default())
        .api_key(KEY)
        .header("x-gateway-key", KEY)
        .base_url(&server.url);
    let builder_debug = format!("{builder:?}");
    let model = builder.build().unwrap();
    let error: ModelError = model.complete(&request("m")).await.unwrap_err();

    for text in [
        builder_debug,
        format!("{model:?}"),
        format!("{error}"),
        format!("{error:?}"),
    ] {
        assert!(!text.contains(KEY), "{text}");
    }
    assert_eq!(error.message(), "Incorrect API key provided: <redacted>.");
}

#[tokio::test]
async fn https_base_urls_build_with_the_systems_certificates() {
    let model = HttpModel::builder(Anthropic).api_key(KEY).build().unwrap();
    assert_eq!(model.base_url(), "https://api.anthropic.com");
    assert_eq!(format!("{:?}", model.api()), format!("{Anthropic:?}"));
}

#[tokio::test]
async fn a_compatible_servers_host_names_the_server_its_fields_go_back_to() {
    // The adapter as the model holds it, by its Debug (an Api is a trait object there).
    let api = |base_url: &str, adapter: OpenAiChat| {
        let model = HttpModel::builder(adapter)
            .api_key(KEY)
            .base_url(base_url)
            .build()
            .unwrap();
        format!("{:?}", model.api())
    };
    let named = |server: &'static str| {
        format!(
            "{:?}",
            OpenAiChat::default()
                .with_server(server)
                .with_compatible(true)
        )
    };
    assert_eq!(
        api("https://api.deepseek.com", OpenAiChat::default()),
        named("deepseek")
    );
    assert_eq!(
        api(
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            OpenAiChat::default()
        ),
        named("gemini")
    );
    assert_eq!(
        api("https://openrouter.ai/api/v1", OpenAiChat::default()),
        named("openrouter")
    );
    // Groq (which refuses its own `reasoning` back) and a local server: no name, but compatible,
    // so that they get the token limit as `max_tokens`, the name they read.
    for base_url in [
        "https://api.groq.com/openai/v1",
        "http://localhost:11434/v1",
        "http://127.0.0.1:8765/v1",
    ] {
        assert_eq!(
            api(base_url, OpenAiChat::default()),
            format!("{:?}", OpenAiChat::default().with_compatible(true)),
            "{base_url}"
        );
    }
    // OpenAI itself, and Azure's deployment of it: OpenAI's current names.
    for base_url in [
        "https://api.openai.com/v1",
        "https://my-resource.openai.azure.com/openai/v1",
    ] {
        assert_eq!(
            api(base_url, OpenAiChat::default()),
            format!("{:?}", OpenAiChat::default()),
            "{base_url}"
        );
    }
    // A name given by hand stays.
    assert_eq!(
        api(
            "https://api.deepseek.com",
            OpenAiChat::default().with_server("my-proxy")
        ),
        named("my-proxy")
    );
}

/// Native tool search is generally available on the two wires that have it: Anthropic's
/// `tool_search_tool_bm25_20251119` is a tool of the Messages API itself (the SDK types it
/// outside its beta namespace), and OpenAI's `tool_search` a tool of the Responses API. So its
/// request goes to the same path with the same headers as any other: no `anthropic-beta`
/// header, no `?beta=true`.
#[tokio::test]
async fn a_request_with_native_tool_search_goes_where_any_request_goes_with_the_same_headers() {
    for case in cases()
        .into_iter()
        .filter(|case| matches!(case.provider, "anthropic" | "openai_responses"))
    {
        let body = unstreamed(case.provider, case.fixture);
        let server = Server::start(vec![Reply::json(200, body.to_string())]).await;
        let model = model((case.api)(), &server);
        let request = request(case.model)
            .with_deferred_tools(vec!["get_weather".to_owned()])
            .with_caching(skyl::provider::caching::Caching::off());
        model.complete(&request).await.unwrap();

        let search = match case.provider {
            "anthropic" => {
                json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
            }
            _ => json!({"type": "tool_search"}),
        };
        let sent = adapter(&(case.api)()).encode(&request).unwrap();
        assert_eq!(sent["tools"][1], search, "{}", case.provider);
        assert_eq!(sent["tools"][0]["defer_loading"], true, "{}", case.provider);
        assert_eq!(
            server.requests(),
            posted(&case, case.path, "application/json", sent),
            "{}",
            case.provider
        );
    }
}
