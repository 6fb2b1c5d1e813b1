//! Transcripts generated at random, from a fixed seed so that a failure reproduces: every valid
//! one encodes on every adapter with each result on the wire exactly once and in place, and every
//! broken one is refused by every adapter with the transcript check's own error.

use crate::support::adapters;
use crate::support::rng::Rng;
use serde_json::{Value, json};
use skyl::provider::{Adapter, EncodeError, Request};
use skyl::{Message, Part, Role, ToolCall, ToolDefinition, ToolResult, transcript};

/// A valid transcript: user turns, assistant turns with zero to three calls, and their results
/// shuffled and split over one or more tool messages, some failed, some empty.
fn valid_transcript(rng: &mut Rng) -> Vec<Message> {
    let mut messages = vec![Message::user("Weather, please.")];
    let mut next_id = 0;
    for _ in 0..=rng.below(4) {
        let calls = rng.below(4);
        let mut parts = Vec::new();
        if calls == 0 || rng.chance(50) {
            parts.push(Part::Text("Let me see.".into()));
        }
        let mut ids = Vec::new();
        for _ in 0..calls {
            next_id += 1;
            // Some ids are not valid on Anthropic, which must map them consistently.
            let id = if rng.chance(20) {
                format!("call.{next_id}:x")
            } else {
                format!("call_{next_id}")
            };
            parts.push(Part::ToolCall(ToolCall::new(
                &id,
                "get_weather",
                json!({"city": format!("C{next_id}")}),
            )));
            ids.push(id);
        }
        messages.push(Message {
            role: Role::Assistant,
            parts,
        });
        for i in (1..ids.len()).rev() {
            ids.swap(i, rng.below(i + 1));
        }
        let mut batch = Vec::new();
        for id in ids {
            let content = if rng.chance(15) {
                String::new()
            } else {
                format!("result for {id}")
            };
            batch.push(Part::ToolResult(ToolResult {
                call_id: id,
                content,
                is_error: rng.chance(30),
            }));
            if rng.chance(40) {
                messages.push(Message {
                    role: Role::Tool,
                    parts: std::mem::take(&mut batch),
                });
            }
        }
        if !batch.is_empty() {
            messages.push(Message {
                role: Role::Tool,
                parts: batch,
            });
        }
        if rng.chance(60) {
            messages.push(Message::user("And then?"));
        }
    }
    if messages.last().is_some_and(|m| m.role == Role::Assistant) {
        messages.push(Message::user("Thanks."));
    }
    messages
}

fn request(messages: Vec<Message>) -> Request<'static> {
    Request::new("some-model", messages).with_tools(vec![ToolDefinition::new(
        "get_weather",
        "Current weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )])
}

/// The ids of the calls on the wire, turn by turn, and the ids of the results right after each.
fn wire_turns(provider: &str, body: &Value) -> Vec<(Vec<String>, Vec<String>)> {
    let strings = |values: Vec<&Value>| -> Vec<String> {
        values
            .into_iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let mut turns = Vec::new();
    match provider {
        "anthropic" => {
            let messages = body["messages"].as_array().unwrap();
            for (i, message) in messages.iter().enumerate() {
                let blocks = |m: &Value, kind: &str, key: &str| -> Vec<String> {
                    strings(
                        m["content"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter(|b| b["type"] == kind)
                            .map(|b| &b[key])
                            .collect(),
                    )
                };
                let calls = blocks(message, "tool_use", "id");
                if !calls.is_empty() {
                    let next = messages.get(i + 1).cloned().unwrap_or(Value::Null);
                    let results = blocks(&next, "tool_result", "tool_use_id");
                    // Results first in their user message.
                    let leading = next["content"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .take_while(|b| b["type"] == "tool_result")
                        .count();
                    assert_eq!(leading, results.len(), "tool_result blocks come first");
                    turns.push((calls, results));
                }
            }
        }
        "openai_chat" => {
            let messages = body["messages"].as_array().unwrap();
            for (i, message) in messages.iter().enumerate() {
                let calls = strings(
                    message["tool_calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| &c["id"])
                        .collect(),
                );
                if !calls.is_empty() {
                    let results = strings(
                        messages[i + 1..]
                            .iter()
                            .take_while(|m| m["role"] == "tool")
                            .map(|m| &m["tool_call_id"])
                            .collect(),
                    );
                    turns.push((calls, results));
                }
            }
        }
        "openai_responses" => {
            let items = body["input"].as_array().unwrap();
            let mut i = 0;
            while i < items.len() {
                if items[i]["type"] == "function_call" {
                    let calls: Vec<String> = strings(
                        items[i..]
                            .iter()
                            .take_while(|item| item["type"] != "function_call_output")
                            .filter(|item| item["type"] == "function_call")
                            .map(|item| &item["call_id"])
                            .collect(),
                    );
                    let start = i + items[i..]
                        .iter()
                        .position(|item| item["type"] == "function_call_output")
                        .unwrap();
                    let results = strings(
                        items[start..]
                            .iter()
                            .take_while(|item| item["type"] == "function_call_output")
                            .map(|item| &item["call_id"])
                            .collect(),
                    );
                    i = start + results.len();
                    turns.push((calls, results));
                } else {
                    i += 1;
                }
            }
        }
        "gemini" => {
            let contents = body["contents"].as_array().unwrap();
            let ids = |c: &Value, key: &str| -> Vec<String> {
                strings(
                    c["parts"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|p| p.get(key))
                        .map(|f| &f["id"])
                        .collect(),
                )
            };
            for (i, content) in contents.iter().enumerate() {
                let calls = ids(content, "functionCall");
                if !calls.is_empty() {
                    let next = &contents[i + 1];
                    assert_eq!(next["role"], "user");
                    let results = ids(next, "functionResponse");
                    assert_eq!(calls, results, "Gemini needs the responses in call order");
                    turns.push((calls, results));
                }
            }
        }
        other => panic!("no wire reader for {other}"),
    }
    turns
}

#[test]
fn every_valid_transcript_encodes_with_every_result_in_place() {
    let mut rng = Rng(0x5eed_cafe_f00d_0001);
    let mut total_calls = 0;
    for round in 0..300 {
        let messages = valid_transcript(&mut rng);
        transcript::validate_complete(&messages)
            .unwrap_or_else(|e| panic!("round {round}: generator made an invalid transcript: {e}"));
        let calls: usize = messages.iter().map(|m| m.tool_calls().count()).sum();
        total_calls += calls;
        for adapter in adapters() {
            let body = adapter
                .encode(&request(messages.clone()))
                .unwrap_or_else(|e| {
                    panic!(
                        "round {round}, {}: {e}\n{messages:#?}",
                        adapter.provider().as_str()
                    )
                });
            let turns = wire_turns(adapter.provider().as_str(), &body);
            let on_wire: usize = turns.iter().map(|(calls, _)| calls.len()).sum();
            assert_eq!(
                on_wire,
                calls,
                "round {round}, {}: every call is sent",
                adapter.provider().as_str()
            );
            for (calls, mut results) in turns {
                let mut calls = calls;
                calls.sort();
                results.sort();
                assert_eq!(
                    calls,
                    results,
                    "round {round}, {}: each call's result right after it",
                    adapter.provider().as_str()
                );
            }
        }
    }
    assert!(total_calls > 600, "only {total_calls} calls were generated");
}

#[test]
fn every_broken_transcript_is_refused_with_the_transcript_error() {
    let mut rng = Rng(0x5eed_cafe_f00d_0002);
    let mut refused = 0;
    for round in 0..300 {
        let mut messages = valid_transcript(&mut rng);
        let tool_messages: Vec<usize> = (0..messages.len())
            .filter(|&i| messages[i].role == Role::Tool)
            .collect();
        if tool_messages.is_empty() {
            continue;
        }
        let at = tool_messages[rng.below(tool_messages.len())];
        match rng.below(3) {
            // A result goes missing.
            0 => {
                let part = rng.below(messages[at].parts.len());
                messages[at].parts.remove(part);
                if messages[at].parts.is_empty() {
                    messages.remove(at);
                }
            }
            // A result is sent twice.
            1 => {
                let part = messages[at].parts[0].clone();
                messages[at].parts.push(part);
            }
            // Results come before their call.
            _ => {
                let results = messages.remove(at);
                let assistant = (0..at)
                    .rev()
                    .find(|&i| messages[i].role == Role::Assistant)
                    .unwrap();
                messages.insert(assistant, results);
            }
        }
        let expected =
            transcript::validate_complete(&messages).expect_err("the mutation breaks a rule");
        for adapter in adapters() {
            match adapter.encode(&request(messages.clone())) {
                Err(EncodeError::Transcript { provider, error }) => {
                    assert_eq!(
                        (provider, &error),
                        (adapter.provider(), &expected),
                        "round {round}"
                    );
                }
                other => panic!(
                    "round {round}, {}: expected the transcript error {expected}, got {other:?}",
                    adapter.provider().as_str()
                ),
            }
        }
        refused += 1;
    }
    assert!(
        refused > 200,
        "only {refused} broken transcripts were tried"
    );
}
