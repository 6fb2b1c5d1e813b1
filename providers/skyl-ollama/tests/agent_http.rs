//! An `Agent` on Ollama's own API over HTTP, against a server on 127.0.0.1: a step that calls a
//! tool, then the answer, whole and streamed (one JSON object a line). The provider is this
//! package's, written outside skyl; the transport, the loop and the toolbox are skyl's.

mod server;

use std::future::IntoFuture;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use skyl::agent::{Agent, Event, Stop};
use skyl::http::{HttpModel, RetryPolicy};
use skyl::provider::stream::StreamEvent;
use skyl::{Message, Part, Role, Toolbox};
use skyl_ollama::Ollama;

use server::{Reply, Server};

/// Get the current weather in a city.
#[skyl::tool]
fn get_weather(
    /// The city.
    city: String,
) -> String {
    format!("22C and sunny in {city}")
}

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn reply(name: &str, streamed: bool) -> Reply {
    if streamed {
        Reply {
            content_type: "application/x-ndjson",
            body: fixture(&format!("{name}.ndjson")),
        }
    } else {
        Reply {
            content_type: "application/json; charset=utf-8",
            body: fixture(&format!("{name}.json")),
        }
    }
}

/// The request body of each step, as Ollama documents `/api/chat`.
fn expected_bodies(parameters: &Value, streamed: bool) -> [Value; 2] {
    let system = json!({"role": "system", "content": "You are terse."});
    let user = json!({"role": "user", "content": "Weather in Paris?"});
    let tools = json!([{
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city.",
            "parameters": parameters,
        }
    }]);
    let body = |messages: Value| {
        json!({
            "model": "qwen3",
            "messages": messages,
            "tools": tools,
            "stream": streamed,
            "options": {"num_predict": 512},
        })
    };
    // Streamed, the thinking came in two lines; whole, in one: the same text either way.
    let assistant = json!({
        "role": "assistant",
        "content": "",
        "thinking": "The user wants the weather in Paris.",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
    });
    let result =
        json!({"role": "tool", "content": "22C and sunny in Paris", "tool_name": "get_weather"});
    [
        body(json!([system, user])),
        body(json!([system, user, assistant, result])),
    ]
}

async fn run(streamed: bool) {
    let context = if streamed { "streamed" } else { "whole" };
    let server = Server::start(vec![reply("calls", streamed), reply("answer", streamed)]).await;
    let model = HttpModel::builder(Ollama)
        .base_url(&server.url)
        .retry(
            RetryPolicy::default()
                .with_max_retries(0)
                .with_initial_delay(Duration::from_millis(1))
                .with_max_delay(Duration::from_millis(1)),
        )
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let toolbox = Toolbox::new().with(GetWeather);
    let parameters = toolbox.definitions()[0].parameters.clone();
    let agent = Agent::new(model, toolbox, "qwen3")
        .with_system("You are terse.")
        .with_max_tokens(512)
        .with_max_steps(4);

    let messages = vec![Message::user("Weather in Paris?")];
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

    assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 2), "{context}");
    let transcript = run.transcript();
    assert_eq!(transcript.len(), 4, "{context}: {transcript:#?}");
    let calls: Vec<_> = transcript[1].tool_calls().collect();
    assert_eq!(calls.len(), 1, "{context}");
    assert_eq!(
        (calls[0].name.as_str(), &calls[0].arguments),
        ("get_weather", &json!({"city": "Paris"})),
        "{context}"
    );
    assert!(
        calls[0].id.starts_with("call_"),
        "{context}: {}",
        calls[0].id
    );
    assert_eq!(transcript[2].role, Role::Tool, "{context}");
    let results: Vec<_> = transcript[2].tool_results().collect();
    assert_eq!(results.len(), 1, "{context}");
    assert_eq!(
        (
            results[0].call_id.as_str(),
            results[0].content.as_str(),
            results[0].is_error
        ),
        (calls[0].id.as_str(), "22C and sunny in Paris", false),
        "{context}"
    );
    assert_eq!(
        transcript[3],
        Message::assistant("It is 22C and sunny in Paris."),
        "{context}"
    );
    assert_eq!(run.usage().input_tokens, 122 + 160, "{context}");
    assert_eq!(run.usage().output_tokens, 33 + 11, "{context}");
    // The thinking is kept with the turn it came in, for Ollama only.
    assert!(
        matches!(&transcript[1].parts[0], Part::Provider(data) if data.provider_id() == "ollama"),
        "{context}: {:?}",
        transcript[1].parts
    );

    let requests = server.requests();
    let accept = if streamed {
        "application/x-ndjson"
    } else {
        "application/json"
    };
    let bodies = expected_bodies(&parameters, streamed);
    assert_eq!(requests.len(), 2, "{context}");
    for (request, body) in requests.iter().zip(bodies) {
        assert_eq!(request.line, "POST /api/chat HTTP/1.1", "{context}");
        assert_eq!(request.accept, accept, "{context}");
        assert_eq!(request.body, body, "{context}");
    }

    if streamed {
        let deltas = |pick: fn(&StreamEvent) -> Option<&str>| -> String {
            events
                .iter()
                .filter_map(|event| match event {
                    Event::Model(event) => pick(event),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            deltas(|event| match event {
                StreamEvent::TextDelta(text) => Some(text),
                _ => None,
            }),
            "It is 22C and sunny in Paris."
        );
        assert_eq!(
            deltas(|event| match event {
                StreamEvent::ReasoningDelta(text) => Some(text),
                _ => None,
            }),
            "The user wants the weather in Paris."
        );
        let finished: Vec<_> = events
            .iter()
            .filter_map(|event| match event {
                Event::Model(StreamEvent::ToolCallFinished { call, .. }) => Some(call),
                _ => None,
            })
            .collect();
        assert_eq!(finished, [calls[0]], "the call is told with its minted id");
    }
}

#[tokio::test]
async fn an_agent_runs_on_ollamas_own_api_with_whole_answers() {
    run(false).await;
}

#[tokio::test]
async fn an_agent_runs_on_ollamas_own_api_with_streamed_answers() {
    run(true).await;
}
