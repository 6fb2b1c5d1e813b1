//! Response bodies from a hostile or buggy server: every fixture, mutated at every place (each
//! value replaced by one of another type, each member and item removed), must decode or give a
//! `DecodeError` that names the provider and the path; never a panic.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::{Value, json};
use skyl::provider::{Adapter, Anthropic, DecodeError, Gemini, OpenAiChat, OpenAiResponses};

use super::support::fixture;

const FIXTURES: &[(&str, &[&str])] = &[
    ("anthropic", &["end_turn", "parallel_calls", "thinking"]),
    (
        "openai_chat",
        &["compatible_without_ids", "content_array", "parallel_calls"],
    ),
    (
        "openai_responses",
        &["incomplete", "reasoning_call", "text_and_calls"],
    ),
    (
        "gemini",
        &[
            "blocked",
            "no_response_id",
            "parallel_without_ids",
            "safety_stop",
            "text_thought_and_ids",
        ],
    ),
];

fn adapter(provider: &str) -> Box<dyn Adapter> {
    match provider {
        "anthropic" => Box::new(Anthropic),
        "openai_chat" => Box::new(OpenAiChat::default()),
        "openai_responses" => Box::new(OpenAiResponses::default()),
        _ => Box::new(Gemini::default()),
    }
}

fn label(provider: &str) -> &'static str {
    match provider {
        "anthropic" => "Anthropic",
        "openai_chat" => "OpenAI Chat",
        "openai_responses" => "OpenAI Responses",
        _ => "Gemini",
    }
}

/// A value nested `depth` arrays deep.
fn nested(depth: usize) -> Value {
    (0..depth).fold(json!({"type": "text"}), |inner, _| json!([inner]))
}

/// Every JSON pointer in `value`, the root included.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                pointers(
                    item,
                    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// `body` with the value at `pointer` removed from its parent.
fn without(body: &Value, pointer: &str) -> Option<Value> {
    let (parent, last) = pointer.rsplit_once('/')?;
    let mut body = body.clone();
    match body.pointer_mut(parent)? {
        Value::Object(map) => {
            map.shift_remove(&last.replace("~1", "/").replace("~0", "~"));
        }
        Value::Array(items) => {
            items.remove(last.parse::<usize>().ok()?);
        }
        _ => return None,
    }
    Some(body)
}

fn check(provider: &str, name: &str, what: &str, body: &Value) {
    let outcome = catch_unwind(AssertUnwindSafe(|| adapter(provider).decode(body)));
    let Ok(result) = outcome else {
        panic!("{provider}/{name}: decoding panicked with {what}");
    };
    let Err(error) = result else { return };
    let text = error.to_string();
    assert!(
        text.contains(label(provider)),
        "{provider}/{name} with {what}: the error does not name the provider: {text}"
    );
    if let DecodeError::Shape { path, .. } = &error {
        assert!(
            !path.is_empty() && text.contains(path.as_str()),
            "{provider}/{name} with {what}: the error does not give the path: {text}"
        );
    }
}

#[test]
fn mutated_bodies_never_panic_and_errors_name_provider_and_path() {
    let replacements = [
        json!(null),
        json!(true),
        json!(7),
        json!(-1),
        json!(1.5),
        json!(18446744073709551615u64),
        json!("x"),
        json!(""),
        json!([]),
        json!({}),
        json!([null]),
        json!({"type": "function_call"}),
        nested(100),
    ];
    let mut checked = 0;
    for (provider, names) in FIXTURES {
        for name in *names {
            let body = fixture(provider, name);
            let mut places = Vec::new();
            pointers(&body, String::new(), &mut places);
            for place in &places {
                for replacement in &replacements {
                    let mut mutated = body.clone();
                    *mutated.pointer_mut(place).unwrap() = replacement.clone();
                    check(
                        provider,
                        name,
                        &format!("{place} = {replacement}"),
                        &mutated,
                    );
                    checked += 1;
                }
                if let Some(mutated) = without(&body, place) {
                    check(provider, name, &format!("{place} removed"), &mutated);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} mutations");
}

/// A tool call's arguments must be an object on the formats that send an object; anything else
/// is the server's mistake, reported at its path rather than passed on to the tool.
#[test]
fn arguments_that_are_not_an_object_are_a_shape_error() {
    let anthropic = Anthropic
        .decode(&json!({
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": "{\"a\":1}"}],
            "stop_reason": "tool_use"
        }))
        .unwrap_err();
    assert_eq!(
        anthropic.to_string(),
        "cannot read the Anthropic response: content[0].input: expected an object, found a string; is this body from the Anthropic API?"
    );
    let gemini = Gemini::default()
        .decode(&json!({
            "candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "f", "args": [1]}}]}}]
        }))
        .unwrap_err();
    assert_eq!(
        gemini.to_string(),
        "cannot read the Gemini response: candidates[0].content.parts[0].functionCall.args: expected an object, found an array; is this body from the Gemini API?"
    );
}

/// Gemini allows a candidate without content (a safety stop), which made a candidate or content
/// of the wrong type, or a body that is no object at all, pass as an empty answer or a blocked
/// prompt.
#[test]
fn a_gemini_candidate_of_the_wrong_shape_is_an_error_not_an_empty_answer() {
    let cases = [
        (
            json!({"candidates": [7]}),
            "candidates[0]: expected an object, found a number",
        ),
        (
            json!({"candidates": [{"content": "hi", "finishReason": "STOP"}]}),
            "candidates[0].content: expected an object, found a string",
        ),
        (
            json!([]),
            "the body: expected an object, found an empty array",
        ),
    ];
    for (body, place) in cases {
        let error = Gemini::default().decode(&body).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("cannot read the Gemini response: {place}; is this body from the Gemini API?")
        );
    }
}
