//! A typed answer's schema on each provider's structured-output field, in whole request bodies:
//! OpenAI Chat `response_format`, Responses `text.format`, Gemini `generationConfig` (both
//! schema fields) and Anthropic `output_config`; and a schema a dialect cannot take, refused
//! before anything is sent.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skyl::Message;
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, OutputMode, OutputSchema, Request,
};

/// A verdict on a claim.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Verdict {
    /// Whether the claim holds.
    holds: bool,
    /// How sure, from 1 to 5.
    confidence: u8,
    /// A source, when there is one.
    source: Option<String>,
}

/// The answer's schema in OpenAI's strict dialect: closed, every property required, the optional
/// one nullable.
fn verdict_strict() -> Value {
    json!({
        "type": "object",
        "properties": {
            "holds": {"type": "boolean", "description": "Whether the claim holds."},
            "confidence": {"type": "integer", "description": "How sure, from 1 to 5.", "minimum": 0, "maximum": 255},
            "source": {"type": ["string", "null"], "description": "A source, when there is one."}
        },
        "required": ["holds", "confidence", "source"],
        "description": "A verdict on a claim.",
        "additionalProperties": false
    })
}

fn body(adapter: &dyn Adapter, output: &OutputSchema) -> Value {
    adapter
        .encode(
            &Request::new("m", vec![Message::user("Is water wet?")])
                .with_output(Cow::Borrowed(output)),
        )
        .unwrap()
}

#[test]
fn the_canonical_schema_of_the_answer() {
    assert_eq!(
        OutputSchema::of::<Verdict>().schema,
        json!({
            "type": "object",
            "properties": {
                "holds": {"type": "boolean", "description": "Whether the claim holds."},
                "confidence": {"type": "integer", "description": "How sure, from 1 to 5.", "minimum": 0, "maximum": 255},
                "source": {"type": ["string", "null"], "description": "A source, when there is one."}
            },
            "required": ["holds", "confidence"],
            "description": "A verdict on a claim."
        })
    );
}

#[test]
fn openai_chat_puts_a_strict_json_schema_in_response_format() {
    assert_eq!(
        body(&OpenAiChat::default(), &OutputSchema::of::<Verdict>()),
        json!({
            "model": "m",
            "messages": [{"role": "user", "content": "Is water wet?"}],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "Verdict", "schema": verdict_strict(), "strict": true}
            }
        })
    );
}

#[test]
fn openai_responses_puts_a_strict_json_schema_in_text_format() {
    assert_eq!(
        body(&OpenAiResponses::default(), &OutputSchema::of::<Verdict>()),
        json!({
            "model": "m",
            "input": [{"role": "user", "content": "Is water wet?"}],
            "text": {
                "format": {"type": "json_schema", "name": "Verdict", "schema": verdict_strict(), "strict": true}
            }
        })
    );
}

#[test]
fn gemini_puts_the_schema_in_generation_config() {
    let output = OutputSchema::of::<Verdict>();
    let request = Request::new("m", vec![Message::user("Is water wet?")])
        .with_output(Cow::Borrowed(&output))
        .with_max_tokens(100);
    // With a token limit, the schema joins it in the one `generationConfig`.
    assert_eq!(
        Gemini::default().encode(&request).unwrap(),
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Is water wet?"}]}],
            "generationConfig": {
                "maxOutputTokens": 100,
                "responseMimeType": "application/json",
                "responseJsonSchema": output.schema
            }
        })
    );
    // The legacy dialect: `responseSchema`, in Gemini's OpenAPI subset.
    assert_eq!(
        body(&Gemini::default().with_legacy_parameters(true), &output),
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Is water wet?"}]}],
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseSchema": {
                    "type": "object",
                    "properties": {
                        "holds": {"type": "boolean", "description": "Whether the claim holds."},
                        "confidence": {"type": "integer", "description": "How sure, from 1 to 5.", "minimum": 0, "maximum": 255},
                        "source": {"type": "string", "nullable": true, "description": "A source, when there is one."}
                    },
                    "required": ["holds", "confidence"],
                    "description": "A verdict on a claim."
                }
            }
        })
    );
}

#[test]
fn anthropic_puts_the_schema_in_output_config() {
    assert_eq!(
        body(&Anthropic, &OutputSchema::of::<Verdict>()),
        json!({
            "model": "m",
            "max_tokens": 4096,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Is water wet?", "cache_control": {"type": "ephemeral"}}]}],
            "output_config": {
                "format": {
                    "type": "json_schema",
                    "schema": {
                        "type": "object",
                        "properties": {
                            "holds": {"type": "boolean", "description": "Whether the claim holds."},
                            "confidence": {"type": "integer", "description": "How sure, from 1 to 5.\n\n{minimum: 0, maximum: 255}"},
                            "source": {"type": ["string", "null"], "description": "A source, when there is one."}
                        },
                        "required": ["holds", "confidence", "source"],
                        "description": "A verdict on a claim.",
                        "additionalProperties": false
                    }
                }
            }
        })
    );
}

/// Scores by name: a map, whose keys strict mode cannot declare in advance.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Scores {
    by_name: BTreeMap<String, u32>,
}

#[test]
fn an_answer_schema_a_dialect_cannot_take_is_refused_before_sending() {
    let output = OutputSchema::of::<Scores>();
    let request =
        Request::new("m", vec![Message::user("Scores?")]).with_output(Cow::Borrowed(&output));
    let error = OpenAiChat::default().encode(&request).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot encode the OpenAI Chat request: the schema \"Scores\" of the answer, at `by_name`: a map (an object whose `additionalProperties` is not false, such as a HashMap) cannot be strict; strict mode needs every key declared in advance; use a struct with named fields (or a list of {key, value} objects)"
    );
}

/// JSON mode ([`OutputMode::JsonObject`], what a typed run falls back to on a server that
/// refuses the schema): each provider's request for any JSON answer, no schema sent; Anthropic,
/// without a JSON mode, sends nothing.
#[test]
fn json_mode_asks_each_provider_for_json_without_the_schema() {
    let output = OutputSchema::of::<Verdict>().with_mode(OutputMode::JsonObject);
    let messages = json!([{"role": "user", "content": "Is water wet?"}]);
    assert_eq!(
        body(&OpenAiChat::default(), &output),
        json!({
            "model": "m",
            "messages": messages,
            "response_format": {"type": "json_object"}
        })
    );
    assert_eq!(
        body(&OpenAiResponses::default(), &output),
        json!({
            "model": "m",
            "input": [{"role": "user", "content": "Is water wet?"}],
            "text": {"format": {"type": "json_object"}}
        })
    );
    assert_eq!(
        body(&Gemini::default(), &output),
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Is water wet?"}]}],
            "generationConfig": {"responseMimeType": "application/json"}
        })
    );
    assert_eq!(
        body(&Anthropic, &output),
        json!({
            "model": "m",
            "max_tokens": 4096,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Is water wet?", "cache_control": {"type": "ephemeral"}}]}]
        })
    );
    assert_eq!(
        serde_json::to_value(&output).unwrap()["mode"],
        json!("json_object")
    );
}
