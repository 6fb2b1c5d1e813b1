//! Typed answers of every root type (a struct, an enum, a list, a list of structs, a number, a
//! string, a `bool`) on
//! all four wires: the request body each adapter encodes for `answer_as::<T>()`, compared whole
//! with its snapshot (`tests/golden/typed_answers/<provider>.json`), and the answer read back
//! through a typed run from each provider's response (`tests/fixtures/<provider>/typed_answers.json`,
//! one body per root type). An answer that is not an object travels as `{"answer": ...}`.

use std::fmt::Debug;
use std::future::ready;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use skyl::agent::Agent;
use skyl::model::{BoxFuture, Model, ModelError};
use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request, Response};
use skyl::testing::ScriptedModel;
use skyl::{Message, Toolbox};

use super::support::{assert_golden, fixture};

/// A verdict on a claim.
#[derive(Debug, PartialEq, serde::Deserialize, JsonSchema)]
struct Verdict {
    /// Whether the claim holds.
    holds: bool,
    /// Why.
    reason: String,
}

/// How the sea is.
#[derive(Debug, PartialEq, serde::Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Sea {
    Calm,
    Stormy,
}

/// A model that checks each request with its adapter, which must accept it, and answers with
/// the adapter's reading of a recorded-shape response body.
struct Wire {
    adapter: Box<dyn Adapter>,
    response: Value,
    /// The body the adapter encoded for the last request.
    sent: std::sync::Mutex<Option<Value>>,
}

impl Model for Wire {
    fn complete<'a>(
        &'a self,
        request: &'a Request<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        let answer = self
            .adapter
            .encode(request)
            .map_err(ModelError::from)
            .and_then(|body| {
                *self.sent.lock().unwrap() = Some(body);
                self.adapter
                    .decode(&self.response)
                    .map_err(ModelError::from)
            });
        Box::pin(ready(answer))
    }
}

/// Makes a provider's adapter.
type MakeAdapter = fn() -> Box<dyn Adapter>;

/// Runs a typed run of `T` against `adapter` answering with the fixture's `root` body: the value
/// must be `expected`; the encoded body goes into `bodies` under `root`.
fn answer<T: DeserializeOwned + JsonSchema + PartialEq + Debug + Send + 'static>(
    provider: &str,
    adapter: MakeAdapter,
    root: &str,
    expected: T,
    bodies: &mut Map<String, Value>,
) {
    let model = std::sync::Arc::new(Wire {
        adapter: adapter(),
        response: fixture(provider, "typed_answers")[root].clone(),
        sent: std::sync::Mutex::new(None),
    });
    let agent = Agent::new(std::sync::Arc::clone(&model), Toolbox::new(), "m");
    let answer = agent
        .run(vec![Message::user("Answer.")])
        .answer_as::<T>()
        .blocking()
        .unwrap_or_else(|error| panic!("{provider} {root}: {error}"));
    assert_eq!(answer.value, expected, "{provider} {root}");
    let sent = model
        .sent
        .lock()
        .unwrap()
        .take()
        .expect("a request was sent");
    bodies.insert(root.to_owned(), sent);
}

#[test]
fn every_root_type_is_sent_as_each_provider_takes_it_and_read_back() {
    let providers: [(&str, MakeAdapter); 4] = [
        ("anthropic", || Box::new(Anthropic)),
        ("openai_chat", || Box::new(OpenAiChat::default())),
        ("openai_responses", || Box::new(OpenAiResponses::default())),
        ("gemini", || Box::new(Gemini::default())),
    ];
    for (provider, adapter) in providers {
        let mut bodies = Map::new();
        let verdict = Verdict {
            holds: true,
            reason: "water wets things".into(),
        };
        answer(provider, adapter, "struct", verdict, &mut bodies);
        answer(provider, adapter, "enum", Sea::Stormy, &mut bodies);
        let list = vec!["rain".to_owned(), "wind".to_owned()];
        answer(provider, adapter, "list", list, &mut bodies);
        let verdicts = vec![Verdict {
            holds: false,
            reason: "fire is dry".into(),
        }];
        answer(provider, adapter, "list_of_structs", verdicts, &mut bodies);
        answer(provider, adapter, "number", 7_u32, &mut bodies);
        answer(
            provider,
            adapter,
            "string",
            "Kampala".to_owned(),
            &mut bodies,
        );
        answer(provider, adapter, "bool", true, &mut bodies);
        assert_golden(&format!("typed_answers/{provider}"), &Value::Object(bodies));
    }
}

/// A scripted test sees the refusal a provider would give: a map is no strict schema.
#[test]
fn a_scripted_model_refuses_an_answer_schema_an_adapter_would_refuse() {
    let model = ScriptedModel::new().reply_text(r#"{"a": 1}"#);
    let agent = Agent::new(model, Toolbox::new(), "m");
    let error = agent
        .run(vec![Message::user("Scores?")])
        .answer_as::<std::collections::BTreeMap<String, u32>>()
        .blocking()
        .unwrap_err();
    let mut chain = vec![error.to_string()];
    let mut cause = std::error::Error::source(&error);
    while let Some(error) = cause {
        chain.push(error.to_string());
        cause = error.source();
    }
    assert_eq!(
        chain,
        [
            "the typed run failed before its final answer",
            "the model request of step 1 failed; the run so far is kept in this error: resume it with Agent::resume(error.into_run())",
            "the request to the model was not sent: request 1 would be refused by Anthropic: its answer's schema cannot be sent there",
            "cannot encode the Anthropic request: the schema \"Map_of_uint32\" of the answer: a map (an object whose `additionalProperties` is not false, such as a HashMap) cannot be strict; strict mode needs every key declared in advance; use a struct with named fields (or a list of {key, value} objects)",
        ]
    );
}
