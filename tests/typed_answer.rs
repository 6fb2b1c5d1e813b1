//! Typed final answers with a scripted model: each request carries the answer's schema, an
//! answer that does not read is sent back with what was wrong, and one that never reads ends the
//! run with an error that keeps the run.

use serde::Deserialize;
use serde_json::json;
use skyl::agent::Agent;
use skyl::provider::OutputSchema;
use skyl::testing::ScriptedModel;
use skyl::{Message, Role, Toolbox};

/// A verdict on a claim.
#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
struct Verdict {
    /// Whether the claim holds.
    holds: bool,
    /// Why.
    reason: String,
}

/// The message a wrong answer gets back, as skyl words it.
fn correction(reason: &str) -> String {
    let schema = OutputSchema::of::<Verdict>().schema;
    format!(
        "ERROR: your final answer could not be read as Verdict: {reason}. Answer again with only a JSON value that follows this schema, with nothing before or after it: {schema}"
    )
}

#[test]
fn a_wrong_answer_is_sent_back_once_and_the_right_one_is_the_value() {
    let model = ScriptedModel::new()
        .reply_text(r#"{"holds": "yes"}"#)
        .reply_text(r#"{"holds": true, "reason": "water wets things"}"#);
    let agent = Agent::new(model.clone(), Toolbox::new(), "m");
    let answer = agent
        .run(vec![Message::user("Is water wet?")])
        .answer_as::<Verdict>()
        .blocking()
        .unwrap();
    assert_eq!(
        answer.value,
        Verdict {
            holds: true,
            reason: "water wets things".into()
        }
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(
            request.output.as_deref(),
            Some(&OutputSchema::of::<Verdict>())
        );
    }
    let transcript = answer.run.transcript();
    assert_eq!(transcript.len(), 4);
    assert_eq!(transcript[2].role, Role::User);
    assert_eq!(
        transcript[2].text_content(),
        correction(
            "at `holds`: invalid type: string \"yes\", expected a boolean at line 1 column 15"
        )
    );
    assert_eq!(requests[1].messages.len(), 3);
}

#[test]
fn an_answer_that_never_reads_ends_with_the_error_and_keeps_the_run() {
    let model = ScriptedModel::new()
        .reply_text("It is wet.")
        .reply_text("Yes.")
        .reply_text(r#"{"holds": true}"#);
    let agent = Agent::new(model.clone(), Toolbox::new(), "m");
    let error = agent
        .run(vec![Message::user("Is water wet?")])
        .answer_as::<Verdict>()
        .with_corrections(2)
        .blocking()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model's final answer is not a Verdict after 2 correction(s): missing field `reason` at line 1 column 15; the run is kept (AnswerError::into_run): read its transcript, or resume it with a clearer prompt or more corrections"
    );
    assert_eq!(model.remaining(), 0);
    let run = error.into_run();
    // Every answer and correction is in the transcript, and the run saves whole.
    let texts: Vec<String> = run.transcript().iter().map(Message::text_content).collect();
    assert_eq!(texts.len(), 6);
    assert_eq!(texts[1], "It is wet.");
    assert!(texts[2].starts_with("ERROR: your final answer could not be read as Verdict: expected value at line 1 column 1."), "{}", texts[2]);
    assert_eq!(texts[5], r#"{"holds": true}"#);
    let saved = serde_json::to_value(&run).unwrap();
    let loaded: skyl::agent::Run = serde_json::from_value(saved.clone()).unwrap();
    assert_eq!(serde_json::to_value(&loaded).unwrap(), saved);
    let _ = json!(null);
}

#[test]
fn an_answer_that_is_not_an_object_travels_wrapped_and_reads_back() {
    let model = ScriptedModel::new().reply_text(r#"{"answer": ["Gulu", "Lira"]}"#);
    let agent = Agent::new(model.clone(), Toolbox::new(), "m");
    let answer = agent
        .run(vec![Message::user("Two cities in the north?")])
        .answer_as::<Vec<String>>()
        .blocking()
        .unwrap();
    assert_eq!(answer.value, ["Gulu", "Lira"]);
    assert_eq!(
        model.requests()[0]
            .output
            .as_deref()
            .map(|output| &output.schema),
        Some(&json!({
            "type": "object",
            "properties": {"answer": {"type": "array", "items": {"type": "string"}}},
            "required": ["answer"]
        }))
    );
}
