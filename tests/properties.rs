//! skyl's promise, searched for counterexamples by proptest instead of shown by examples:
//!
//! - the transcript check accepts exactly the transcripts that follow the ordering rules, and every
//!   adapter encodes exactly those (accept ⇔ valid, in both directions), judged against a second,
//!   independent statement of the rules written here;
//! - whatever name and arguments a model sends, dispatch returns one result with the call's id,
//!   and a failure is prose that names the tool;
//! - decoding any JSON body never panics, on any adapter;
//! - a call's arguments parsed as they stream, cut anywhere, show only what the whole says and end
//!   as `serde_json` reads the whole (the checks of the `partial_arguments` fuzz target).
//!
//! The case counts are bounded so that CI stays fast; `PROPTEST_CASES=100000 cargo test -p
//! skyl-tests --test properties` searches longer.

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Map, Value, json};
use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request};
use skyl::{Message, Part, Role, ToolCall, ToolDefinition, ToolResult, Toolbox, transcript};

#[allow(dead_code, unreachable_pub)]
#[path = "../fuzz/src/lib.rs"]
mod skyl_fuzz;

fn config(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

fn adapters() -> [Box<dyn Adapter>; 4] {
    [
        Box::new(Anthropic),
        Box::new(OpenAiChat::default()),
        Box::new(OpenAiResponses::default()),
        Box::new(Gemini::default()),
    ]
}

// ---------------------------------------------------------------------------------------------
// Transcripts: accept ⇔ valid.

/// The ordering rules, stated a second time and independently of `transcript.rs`: a call lives
/// in an assistant message and has a non-empty id unique in its turn; a result lives in a tool
/// message, has a non-empty id, and answers a call of the assistant turn right before the run of
/// tool messages it is in, once; every call of a turn is answered before the next non-tool
/// message or the end.
fn follows_the_rules(messages: &[Message]) -> bool {
    struct Window {
        calls: HashSet<String>,
        answered: HashSet<String>,
    }
    let mut window: Option<Window> = None;
    for message in messages {
        for part in &message.parts {
            match part {
                Part::ToolCall(call) if message.role != Role::Assistant || call.id.is_empty() => {
                    return false;
                }
                Part::ToolResult(result)
                    if message.role != Role::Tool || result.call_id.is_empty() =>
                {
                    return false;
                }
                _ => {}
            }
        }
        if message.role == Role::Tool {
            for result in message.tool_results() {
                let Some(open) = window.as_mut() else {
                    return false;
                };
                if !open.calls.contains(&result.call_id)
                    || !open.answered.insert(result.call_id.clone())
                {
                    return false;
                }
            }
            continue;
        }
        if window
            .take()
            .is_some_and(|open| open.answered.len() != open.calls.len())
        {
            return false;
        }
        if message.role == Role::Assistant {
            let mut calls = HashSet::new();
            for call in message.tool_calls() {
                if !calls.insert(call.id.clone()) {
                    return false;
                }
            }
            if !calls.is_empty() {
                window = Some(Window {
                    calls,
                    answered: HashSet::new(),
                });
            }
        }
    }
    window.is_none_or(|open| open.answered.len() == open.calls.len())
}

/// Whether a message other than a system message holds text, a call or a result.
fn has_something_to_send(messages: &[Message]) -> bool {
    messages
        .iter()
        .filter(|message| message.role != Role::System)
        .any(|message| {
            message.parts.iter().any(|part| match part {
                Part::Text(text) | Part::ProviderText { text, .. } => !text.is_empty(),
                Part::ToolCall(_) | Part::ToolResult(_) => true,
                _ => false,
            })
        })
}

/// A valid transcript: a user turn, then assistant turns with zero to three calls, each answered
/// in one or two tool messages (in any order), some turns followed by a user turn.
fn valid_transcript() -> impl Strategy<Value = Vec<Message>> {
    let turn = (
        0usize..4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<u8>(),
    );
    prop::collection::vec(turn, 1..5).prop_map(|turns| {
        let mut messages = vec![Message::user("Weather, please.")];
        let mut next = 0;
        for (calls, text, split, user_after, order) in turns {
            let mut parts = Vec::new();
            if text || calls == 0 {
                parts.push(Part::Text("Let me look.".into()));
            }
            let mut ids = Vec::new();
            for _ in 0..calls {
                next += 1;
                let id = format!("call_{next}");
                parts.push(Part::ToolCall(ToolCall::new(
                    &id,
                    "get_weather",
                    json!({"city": "Kampala"}),
                )));
                ids.push(id);
            }
            messages.push(Message {
                role: Role::Assistant,
                parts,
            });
            if !ids.is_empty() {
                let turn = usize::from(order) % ids.len();
                ids.rotate_left(turn);
                let results: Vec<Part> = ids
                    .iter()
                    .enumerate()
                    .map(|(i, id)| {
                        Part::ToolResult(if (i + usize::from(order)) % 3 == 0 {
                            ToolResult::error(id, "ERROR: get_weather failed: offline.")
                        } else {
                            ToolResult::success(id, "22C")
                        })
                    })
                    .collect();
                let cut = if split { results.len() / 2 } else { 0 };
                let (first, second) = results.split_at(cut);
                for chunk in [first, second] {
                    if !chunk.is_empty() {
                        messages.push(Message {
                            role: Role::Tool,
                            parts: chunk.to_vec(),
                        });
                    }
                }
            }
            if user_after {
                messages.push(Message::user("And tomorrow?"));
            }
        }
        messages
    })
}

/// One small change that may or may not break the rules.
#[derive(Clone, Debug)]
enum Mutation {
    /// Removes a part.
    DropPart(usize, usize),
    /// Copies a part into another message.
    CopyPart(usize, usize, usize),
    /// Swaps two messages.
    Swap(usize, usize),
    /// Gives a message another role.
    Role(usize, u8),
    /// Changes the id of a call or result to one of a few (possibly empty) ids.
    Id(usize, usize, u8),
    /// Removes a message.
    DropMessage(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let i = any::<prop::sample::Index>().prop_map(|i| i.index(1 << 16));
    prop_oneof![
        (i.clone(), i.clone()).prop_map(|(m, p)| Mutation::DropPart(m, p)),
        (i.clone(), i.clone(), i.clone()).prop_map(|(m, p, to)| Mutation::CopyPart(m, p, to)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (i.clone(), any::<u8>()).prop_map(|(m, r)| Mutation::Role(m, r)),
        (i.clone(), i.clone(), any::<u8>()).prop_map(|(m, p, id)| Mutation::Id(m, p, id)),
        i.prop_map(Mutation::DropMessage),
    ]
}

fn apply(messages: &mut Vec<Message>, mutation: &Mutation) {
    let len = messages.len();
    if len == 0 {
        return;
    }
    match *mutation {
        Mutation::DropPart(m, p) => {
            let parts = &mut messages[m % len].parts;
            if !parts.is_empty() {
                let p = p % parts.len();
                parts.remove(p);
            }
        }
        Mutation::CopyPart(m, p, to) => {
            let parts = &messages[m % len].parts;
            if !parts.is_empty() {
                let part = parts[p % parts.len()].clone();
                messages[to % len].parts.push(part);
            }
        }
        Mutation::Swap(a, b) => messages.swap(a % len, b % len),
        Mutation::Role(m, r) => {
            messages[m % len].role =
                [Role::User, Role::Assistant, Role::Tool, Role::System][usize::from(r) % 4];
        }
        Mutation::Id(m, p, id) => {
            let id = ["call_1", "call_2", "", "call_9"][usize::from(id) % 4];
            let parts = &mut messages[m % len].parts;
            if !parts.is_empty() {
                let p = p % parts.len();
                match &mut parts[p] {
                    Part::ToolCall(call) => call.id = id.into(),
                    Part::ToolResult(result) => result.call_id = id.into(),
                    _ => {}
                }
            }
        }
        Mutation::DropMessage(m) => {
            // Keep the opening user message: a request needs something to send.
            if len > 1 {
                messages.remove(1 + m % (len - 1));
            }
        }
    }
}

fn mutated_transcript() -> impl Strategy<Value = Vec<Message>> {
    (valid_transcript(), prop::collection::vec(mutation(), 0..3)).prop_map(
        |(mut messages, mutations)| {
            for mutation in &mutations {
                apply(&mut messages, mutation);
            }
            messages
        },
    )
}

fn weather_tool() -> ToolDefinition {
    ToolDefinition::new(
        "get_weather",
        "Current weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn the_check_and_every_adapter_accept_exactly_the_valid_transcripts(messages in mutated_transcript()) {
        let valid = follows_the_rules(&messages);
        let checked = transcript::validate_complete(&messages);
        prop_assert_eq!(checked.is_ok(), valid, "validate_complete said {:?}", checked);
        let tools = [weather_tool()];
        let request = Request::new("m", messages.as_slice()).with_tools(tools.as_slice());
        // Nothing invalid is encoded, and everything valid is, unless it holds nothing but a
        // system prompt: the providers that take the system prompt apart from the messages
        // refuse a request without messages, and skyl refuses it before they do.
        let sendable = valid && has_something_to_send(&messages);
        for adapter in adapters() {
            let encoded = adapter.encode(&request);
            if encoded.is_ok() {
                prop_assert!(valid, "{} encoded a transcript that breaks the rules", adapter.provider());
            }
            if sendable {
                prop_assert!(encoded.is_ok(), "{} refused a valid transcript: {:?}", adapter.provider(), encoded.err());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Dispatch: one result per call, whatever the model sends.

/// Adds two numbers.
#[skyl::tool]
fn add(a: i64, b: i64) -> i64 {
    a.saturating_add(b)
}

/// Greets someone.
#[skyl::tool]
fn greet(
    /// Who to greet.
    name: String,
    /// Shout it.
    #[serde(default)]
    loud: bool,
    /// How many times.
    times: Option<u8>,
) -> String {
    let greeting = format!("hello {name}").repeat(usize::from(times.unwrap_or(1)));
    if loud {
        greeting.to_uppercase()
    } else {
        greeting
    }
}

/// Always fails, with the reason it is given.
#[skyl::tool]
fn refuse(reason: String) -> Result<String, String> {
    Err(reason)
}

/// Sums a list, and crashes on an empty one.
#[skyl::tool]
fn total(values: Vec<u32>) -> u64 {
    assert!(!values.is_empty(), "an empty list");
    values.iter().map(|&v| u64::from(v)).sum()
}

const TOOL_NAMES: [&str; 4] = ["add", "greet", "refuse", "total"];

/// JSON whose object keys are often the tools' parameter names, so that many calls get past the
/// first missing field and reach deeper checks (and the tools themselves).
fn arguments() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        prop::sample::select(vec!["a", "b", "name", "loud", "times", "reason", "values"])
            .prop_map(str::to_owned),
        "[a-z]{0,4}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-300i64..300).prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(TOOL_NAMES.to_vec()).prop_map(str::to_owned),
        1 => ".{0,16}",
    ]
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn every_call_gets_one_result_with_its_id_and_failures_name_the_tool(
        id in "[a-zA-Z0-9_]{1,12}",
        name in tool_name(),
        arguments in arguments(),
    ) {
        silence_panics();
        let toolbox = Toolbox::new().with(Add).with(Greet).with(Refuse).with(Total);
        let call = ToolCall::new(&id, &name, arguments);
        let result = toolbox.dispatch_blocking(&call);
        prop_assert_eq!(&result.call_id, &id);
        if result.is_error {
            prop_assert!(result.content.starts_with("ERROR: "), "{}", result.content);
            if TOOL_NAMES.contains(&name.as_str()) {
                prop_assert!(result.content.contains(name.as_str()), "{}", result.content);
            } else {
                let quoted = format!("there is no tool named \"{name}\"");
                prop_assert!(result.content.contains(&quoted), "{}", result.content);
            }
        }
    }

    #[test]
    fn a_whole_turn_gets_one_result_per_call_in_call_order(
        calls in prop::collection::vec((tool_name(), arguments()), 0..8),
    ) {
        silence_panics();
        let toolbox = Toolbox::new().with(Add).with(Greet).with(Refuse).with(Total);
        let turn = Message {
            role: Role::Assistant,
            parts: calls
                .into_iter()
                .enumerate()
                .map(|(i, (name, arguments))| Part::ToolCall(ToolCall::new(format!("c{i}"), name, arguments)))
                .collect(),
        };
        let answer = toolbox.answer_blocking(&turn);
        prop_assert_eq!(answer.role, Role::Tool);
        let ids: Vec<&str> = answer.tool_results().map(|r| r.call_id.as_str()).collect();
        let expected: Vec<&str> = turn.tool_calls().map(|c| c.id.as_str()).collect();
        prop_assert_eq!(ids, expected);
    }
}

/// The JSON text of `value` as a model might write it: compact, pretty, or with every character
/// outside ASCII escaped (a surrogate pair for one beyond the basic plane).
fn written(value: &Value, how: u8) -> String {
    match how % 3 {
        0 => value.to_string(),
        1 => serde_json::to_string_pretty(value).unwrap(),
        _ => {
            let mut text = String::new();
            for character in value.to_string().chars() {
                if character.is_ascii() {
                    text.push(character);
                } else {
                    for unit in character.encode_utf16(&mut [0; 2]) {
                        text.push_str(&format!("\\u{unit:04x}"));
                    }
                }
            }
            text
        }
    }
}

/// Byte offsets into a text of `len` bytes, ascending.
fn cut_points(indexes: &[prop::sample::Index], len: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = indexes.iter().map(|index| index.index(len + 1)).collect();
    cuts.sort_unstable();
    cuts
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn streamed_arguments_show_what_the_whole_says_and_end_as_serde_json_reads_it(
        value in arguments(),
        how in any::<u8>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..16),
    ) {
        let text = written(&value, how);
        skyl_fuzz::check_partial_arguments(text.as_bytes(), &cut_points(&cuts, text.len()));
    }

    #[test]
    fn streamed_arguments_that_break_break_where_serde_json_refuses_them(
        value in arguments(),
        how in any::<u8>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..16),
        at in any::<prop::sample::Index>(),
        byte in prop_oneof![Just(None), prop::sample::select(b"{}[],:\"\\ -0.e1tnu\x01\xc3\xff".to_vec()).prop_map(Some)],
    ) {
        // One byte of a valid text dropped or replaced: mostly not JSON any more.
        let mut text = written(&value, how).into_bytes();
        let at = at.index(text.len().max(1)).min(text.len().saturating_sub(1));
        match (byte, text.is_empty()) {
            (_, true) => {}
            (Some(byte), false) => text[at] = byte,
            (None, false) => drop(text.remove(at)),
        }
        skyl_fuzz::check_partial_arguments(&text, &cut_points(&cuts, text.len()));
    }
}

/// The tools above panic on purpose; the default hook would print every one of them.
fn silence_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

// ---------------------------------------------------------------------------------------------
// Decode: any JSON body is an answer or an error, never a panic.

/// JSON built from the providers' own vocabulary, so that bodies get past the first lookup.
fn body() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "choices",
        "message",
        "tool_calls",
        "function",
        "arguments",
        "name",
        "id",
        "content",
        "role",
        "finish_reason",
        "usage",
        "prompt_tokens",
        "completion_tokens",
        "type",
        "text",
        "input",
        "stop_reason",
        "output",
        "call_id",
        "status",
        "candidates",
        "parts",
        "functionCall",
        "args",
        "thoughtSignature",
        "finishReason",
        "usageMetadata",
        "promptTokenCount",
        "error",
        "refusal",
        "reasoning",
        "summary",
        "thinking",
        "signature",
        "input_tokens",
        "output_tokens",
        "responseId",
        "incomplete_details",
        "reason",
    ])
    .prop_map(str::to_owned);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e300f64..1e300).prop_map(Value::from),
        prop::sample::select(vec![
            "assistant",
            "tool_use",
            "function_call",
            "text",
            "stop",
            "tool_calls",
            "end_turn",
            "STOP",
            "message",
            "reasoning",
            "thinking",
            "{\"a\":1}",
            "{",
            "",
            "completed",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A recorded answer with one value somewhere inside replaced.
fn mutated_fixture() -> impl Strategy<Value = Value> {
    let fixtures: Vec<Value> = [
        include_str!("fixtures/anthropic/parallel_calls.json"),
        include_str!("fixtures/anthropic/thinking.json"),
        include_str!("fixtures/openai_chat/parallel_calls.json"),
        include_str!("fixtures/openai_chat/compatible_without_ids.json"),
        include_str!("fixtures/openai_compatible/snowflake_tool_call.json"),
        include_str!("fixtures/openai_compatible/deepseek_thinking_tool_call.json"),
        include_str!("fixtures/openai_compatible/openrouter_reasoning_tool_call.json"),
        include_str!("fixtures/openai_responses/reasoning_message_call.json"),
        include_str!("fixtures/openai_responses/text_and_calls.json"),
        include_str!("fixtures/gemini/parallel_without_ids.json"),
        include_str!("fixtures/gemini/text_thought_and_ids.json"),
    ]
    .iter()
    .map(|text| serde_json::from_str(text).expect("a fixture is JSON"))
    .collect();
    (prop::sample::select(fixtures), any::<u64>(), body()).prop_map(|(mut fixture, at, value)| {
        replace_nth(&mut fixture, at, value);
        fixture
    })
}

/// Replaces the `at % count`-th value of a depth-first walk of `root` with `with`.
fn replace_nth(root: &mut Value, at: u64, with: Value) {
    fn count(value: &Value) -> u64 {
        1 + match value {
            Value::Array(items) => items.iter().map(count).sum(),
            Value::Object(map) => map.values().map(count).sum(),
            _ => 0,
        }
    }
    fn walk(value: &mut Value, n: &mut u64, with: &mut Option<Value>) {
        if *n == 0 {
            if let Some(with) = with.take() {
                *value = with;
            }
            return;
        }
        *n -= 1;
        match value {
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, n, with)),
            Value::Object(map) => map.values_mut().for_each(|v| walk(v, n, with)),
            _ => {}
        }
    }
    let mut n = at % count(root);
    walk(root, &mut n, &mut Some(with));
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn decoding_any_body_never_panics(body in prop_oneof![body(), mutated_fixture()]) {
        for adapter in adapters() {
            let _ = adapter.decode(&body);
        }
    }
}

#[test]
fn the_second_statement_of_the_rules_agrees_on_known_cases() {
    let call = |id: &str| Part::ToolCall(ToolCall::new(id, "get_weather", json!({})));
    let assistant = |parts: Vec<Part>| Message {
        role: Role::Assistant,
        parts,
    };
    let result = |id: &str| skyl::transcript::tool_result_message(id, "22C");
    let cases = [
        (vec![Message::user("hi")], true),
        (
            vec![Message::user("hi"), assistant(vec![call("a")]), result("a")],
            true,
        ),
        (vec![Message::user("hi"), assistant(vec![call("a")])], false),
        (
            vec![Message::user("hi"), result("a"), assistant(vec![call("a")])],
            false,
        ),
        (
            vec![
                Message::user("hi"),
                assistant(vec![call("a")]),
                result("a"),
                result("a"),
            ],
            false,
        ),
        (
            vec![
                Message::user("hi"),
                assistant(vec![call("a"), call("a")]),
                result("a"),
            ],
            false,
        ),
        (
            vec![Message::user("hi"), assistant(vec![call("")]), result("")],
            false,
        ),
        (
            vec![
                Message::user("hi"),
                assistant(vec![call("a")]),
                Message::user("?"),
                result("a"),
            ],
            false,
        ),
    ];
    for (messages, valid) in cases {
        assert_eq!(follows_the_rules(&messages), valid, "{messages:?}");
        assert_eq!(
            transcript::validate_complete(&messages).is_ok(),
            valid,
            "{messages:?}"
        );
    }
}
