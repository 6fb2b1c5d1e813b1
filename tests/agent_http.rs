//! Whole agent runs over the HTTP transport, against a real HTTP server on 127.0.0.1
//! (`http_server.rs`), for each provider, streamed and not: the model calls tools in step 1 and
//! answers from their results in step 2, with answers recorded from each provider's API.
//!
//! What this proves beyond `http.rs` and `agent.rs` alone: every call of a real answer gets one
//! result, and the request of each step is exactly what the adapter encodes for the transcript
//! so far, tool results included, sent the way the provider wants it (streamed or whole).

#[allow(dead_code, reason = "shared with http.rs, which uses all of it")]
use std::future::IntoFuture;
use std::time::Duration;

use serde_json::Value;
use skyl::agent::{Agent, Event, Stop};
use skyl::http::{HttpModel, RetryPolicy};
use skyl::provider::author::Api;
use skyl::provider::{
    Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request, ToolChoice, stream::StreamEvent,
};
use skyl::{Message, Part, Role, Toolbox};

use crate::support;
use crate::support::http_server::{self, End, Reply, Server};

/// Get the current weather for a city.
#[skyl::tool]
fn get_weather(
    /// The city.
    city: String,
    /// How many days ahead.
    days: Option<u8>,
) -> String {
    format!("{city}: 18C and cloudy for {} day(s)", days.unwrap_or(1))
}

/// Get the current time.
#[skyl::tool]
fn get_time() -> &'static str {
    "14:05"
}

/// One provider's run: its API, where it is asked, and the recorded answers of the two steps
/// (`tests/fixtures/stream/<provider>/<name>.sse`, and `.json` for the same answer whole).
struct Case {
    provider: &'static str,
    api: fn() -> Box<dyn Api>,
    /// The path of each request, whole and streamed.
    path: &'static str,
    stream_path: &'static str,
    calls: &'static str,
    answer: &'static str,
}

fn cases() -> [Case; 4] {
    [
        Case {
            provider: "anthropic",
            api: || Box::new(Anthropic),
            path: "/v1/messages",
            stream_path: "/v1/messages",
            calls: "parallel_calls",
            answer: "text_after_result",
        },
        Case {
            provider: "openai_chat",
            // The loopback server is a compatible server, as HttpModel takes any host but OpenAI's.
            api: || Box::new(OpenAiChat::default().with_compatible(true)),
            path: "/chat/completions",
            stream_path: "/chat/completions",
            calls: "one_call",
            answer: "answer_after_result",
        },
        Case {
            provider: "openai_responses",
            api: || Box::new(OpenAiResponses::default()),
            path: "/responses",
            stream_path: "/responses",
            calls: "parallel_calls",
            answer: "text",
        },
        Case {
            provider: "gemini",
            api: || Box::new(Gemini::default()),
            path: "/v1beta/models/test-model:generateContent",
            stream_path: "/v1beta/models/test-model:streamGenerateContent?alt=sse",
            calls: "call_with_id",
            answer: "text_after_result",
        },
    ]
}

fn fixture(provider: &str, name: &str, extension: &str) -> Vec<u8> {
    support::fixture(&format!("stream/{provider}/{name}.{extension}"))
}

fn reply(case: &Case, name: &str, streamed: bool) -> Reply {
    if streamed {
        Reply::stream(&fixture(case.provider, name, "sse"), End::Close)
    } else {
        Reply::json(
            200,
            String::from_utf8(fixture(case.provider, name, "json")).unwrap(),
        )
    }
}

fn model(api: Box<dyn Api>, server: &Server) -> HttpModel {
    HttpModel::builder(api)
        .api_key("sk-test")
        .base_url(&server.url)
        .retry(
            RetryPolicy::default()
                .with_max_retries(0)
                .with_initial_delay(Duration::from_millis(1))
                .with_max_delay(Duration::from_millis(1)),
        )
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// The body the adapter encodes for `messages`, as the agent asks, made a streaming request's
/// body when `streamed`.
fn expected_body(case: &Case, toolbox: &Toolbox, messages: &[Message], streamed: bool) -> Value {
    let api = (case.api)();
    let request = Request::new("test-model", messages)
        .with_system("You are terse.")
        .with_tools(toolbox.definitions())
        .with_tool_choice(ToolChoice::Auto)
        .with_max_tokens(512);
    let body = api.encode(&request).unwrap();
    if streamed {
        http_server::streamed(case.provider, body)
    } else {
        body
    }
}

async fn run_case(case: &Case, streamed: bool) {
    let context = format!(
        "{} ({})",
        case.provider,
        if streamed { "streamed" } else { "whole" }
    );
    let server = Server::start(vec![
        reply(case, case.calls, streamed),
        reply(case, case.answer, streamed),
    ])
    .await;
    let toolbox = Toolbox::new().with(GetTime).with(GetWeather);
    let agent = Agent::new(
        model((case.api)(), &server),
        Toolbox::new().with(GetTime).with(GetWeather),
        "test-model",
    )
    .with_system("You are terse.")
    .with_max_tokens(512)
    .with_max_steps(4);

    let messages = vec![Message::user("Weather and time in Paris?")];
    let mut events = Vec::new();
    let run = if streamed {
        agent
            .run(messages)
            .on_event(|event| events.push(event))
            .into_future()
            .await
    } else {
        agent.run(messages).await
    }
    .unwrap_or_else(|error| panic!("{context}: {error}"));

    // Step 1's calls each got exactly one result, in call order, then the model answered.
    assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 2), "{context}");
    let transcript = run.transcript();
    assert_eq!(transcript.len(), 4, "{context}: {transcript:#?}");
    let calls: Vec<_> = transcript[1].tool_calls().collect();
    assert!(!calls.is_empty(), "{context}: step 1 called no tool");
    assert_eq!(transcript[2].role, Role::Tool, "{context}");
    let results: Vec<_> = transcript[2]
        .parts
        .iter()
        .map(|part| match part {
            Part::ToolResult(result) => result,
            other => panic!("{context}: {other:?} in the tool message"),
        })
        .collect();
    assert_eq!(
        results.iter().map(|r| &r.call_id).collect::<Vec<_>>(),
        calls.iter().map(|c| &c.id).collect::<Vec<_>>(),
        "{context}"
    );
    for (call, result) in calls.iter().zip(&results) {
        let expected = match call.name.as_str() {
            "get_time" => "14:05".to_owned(),
            _ => GetWeather::call_text(&call.arguments),
        };
        assert_eq!(
            (result.content.as_str(), result.is_error),
            (expected.as_str(), false),
            "{context}"
        );
    }
    let answer = (case.api)()
        .decode(&serde_json::from_slice(&fixture(case.provider, case.answer, "json")).unwrap())
        .unwrap();
    assert_eq!(transcript[3], answer.message, "{context}");
    assert_eq!(run.text(), answer.message.text_content(), "{context}");

    // Each request is what the adapter encodes for the transcript so far.
    let requests = server.requests();
    let path = if streamed {
        case.stream_path
    } else {
        case.path
    };
    assert_eq!(
        requests
            .iter()
            .map(|request| request.path.as_str())
            .collect::<Vec<_>>(),
        [path, path],
        "{context}"
    );
    assert_eq!(
        requests[0].body,
        expected_body(case, &toolbox, &transcript[..1], streamed),
        "{context}: step 1"
    );
    assert_eq!(
        requests[1].body,
        expected_body(case, &toolbox, &transcript[..3], streamed),
        "{context}: step 2"
    );

    // A streamed run told the text and each call as the model wrote them.
    if streamed {
        let finished: Vec<_> = events
            .iter()
            .filter_map(|event| match event {
                Event::Model(StreamEvent::ToolCallFinished { call, .. }) => Some(call),
                _ => None,
            })
            .collect();
        assert_eq!(finished, calls, "{context}");
        let text: String = events
            .iter()
            .filter_map(|event| match event {
                Event::Model(StreamEvent::TextDelta(text)) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            text,
            format!(
                "{}{}",
                transcript[1].text_content(),
                transcript[3].text_content()
            ),
            "{context}"
        );
    } else {
        assert!(events.is_empty(), "{context}");
    }
}

impl GetWeather {
    /// What `get_weather` returns for a call's arguments.
    fn call_text(arguments: &Value) -> String {
        let city = arguments["city"].as_str().unwrap();
        let days = arguments["days"].as_u64().unwrap_or(1);
        format!("{city}: 18C and cloudy for {days} day(s)")
    }
}

#[tokio::test]
async fn a_run_over_http_answers_every_call_and_sends_each_step_as_encoded() {
    for case in cases() {
        run_case(&case, false).await;
    }
}

#[tokio::test]
async fn a_streamed_run_over_http_answers_every_call_and_tells_each_event() {
    for case in cases() {
        run_case(&case, true).await;
    }
}

/// The error of a run and each cause below it, one a line: what the examples print.
fn chain(error: &dyn std::error::Error) -> Vec<String> {
    let mut lines = vec![error.to_string()];
    let mut cause = error.source();
    while let Some(error) = cause {
        lines.push(error.to_string());
        cause = error.source();
    }
    lines
}

/// llama-cpp-python's server answers a streamed request with tools 200 and then refuses it
/// inside the stream, or sends a 200 whose body is no stream at all: the run's error chain says
/// what the server said.
#[tokio::test]
async fn a_stream_refused_after_its_200_says_the_servers_words_in_the_runs_error_chain() {
    let refusal = r#"{"error": {"message": "Automatic streaming tool choice is not supported", "type": "internal_server_error"}}"#;
    let step_failed = "the model request of step 1 failed; the run so far is kept in this error: resume it with Agent::resume(error.into_run())";
    let cases = [
        (
            "a data line of an error object",
            Reply::stream(format!("data: {refusal}\n\n").as_bytes(), End::Close),
            "OpenAI Chat answered with an error (internal_server_error): Automatic streaming tool choice is not supported",
        ),
        (
            "an error event",
            Reply::stream(
                br#"event: error
data: {"message": "Automatic streaming tool choice is not supported"}

"#,
                End::Close,
            ),
            "OpenAI Chat answered with an error: Automatic streaming tool choice is not supported",
        ),
        (
            "an error event of plain text",
            Reply::stream(
                b"event: error\ndata: Automatic streaming tool choice is not supported\n\n",
                End::Close,
            ),
            "OpenAI Chat answered with an error: Automatic streaming tool choice is not supported",
        ),
        (
            "an error object that is not a stream",
            Reply::stream(refusal.as_bytes(), End::Close),
            "OpenAI Chat answered with an error (internal_server_error): the server accepted the request (200) and sent a body that is not a stream of events: Automatic streaming tool choice is not supported",
        ),
        (
            "plain text that is not a stream",
            Reply::Body {
                status: 200,
                headers: vec![("content-type", "text/plain".into())],
                body: ": ping\nInternal Server Error: tool choice auto cannot stream\n".into(),
            },
            "OpenAI Chat answered with an error: the server accepted the request (200) and sent a body that is not a stream of events: Internal Server Error: tool choice auto cannot stream",
        ),
    ];
    for (case, reply, said) in cases {
        let server = Server::start(vec![reply]).await;
        let agent = Agent::new(
            model(Box::new(OpenAiChat::default()), &server),
            Toolbox::new().with(GetWeather),
            "test-model",
        );
        let error = agent
            .run(vec![Message::user("Weather in Gulu?")])
            .on_event(|_| {})
            .into_future()
            .await
            .expect_err(case);
        assert_eq!(chain(&error), [step_failed, said], "{case}");
    }
}
