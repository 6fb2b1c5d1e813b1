//! One rich transcript encoded by every adapter, compared whole with its snapshot.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Provider, Request};
use skyl::{
    Message, Part, Role, ToolCall, ToolDefinition, ToolResult,
    transcript::{tool_error_message, tool_result_message},
};

use super::support::assert_golden;

/// Units a temperature is given in.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Units {
    Celsius,
    Fahrenheit,
}

/// The arguments of `get_weather`.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WeatherArgs {
    /// The city, in English.
    city: String,
    /// The units to answer in; Celsius when left out.
    units: Option<Units>,
}

/// The arguments of `convert`.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConvertArgs {
    /// Degrees Celsius.
    celsius: f64,
}

pub(crate) fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition::new(
            "get_weather",
            "Current weather in a city.",
            skyl::schema::canonical_schema_for::<WeatherArgs>(),
        ),
        ToolDefinition::new(
            "convert",
            "Converts Celsius to Fahrenheit.",
            skyl::schema::canonical_schema_for::<ConvertArgs>(),
        ),
    ]
}

fn call(id: &str, name: &str, arguments: serde_json::Value) -> Part {
    Part::ToolCall(ToolCall::new(id, name, arguments))
}

/// A system prompt and a system message, text, three parallel calls answered out of order (a
/// success, a failure, a failure with empty content), a follow-up user turn right after the
/// results, a call whose id another provider made (with characters Anthropic refuses), an empty
/// text part, and a final answer and question.
pub(crate) fn rich_request() -> Request<'static> {
    let mut extra = Map::new();
    extra.insert("temperature".into(), json!(0.2));
    Request::new("some-model", vec![
            Message::system("Answer in one sentence."),
            Message::user("Weather in Kampala, Gulu and Jinja?"),
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Text("Checking all three.".into()),
                    call("call_1", "get_weather", json!({"city": "Kampala"})),
                    call(
                        "call_2",
                        "get_weather",
                        json!({"city": "Gulu", "units": "celsius"}),
                    ),
                    call("call_3", "get_weather", json!({"city": "Jinja"})),
                ],
            },
            tool_error_message(
                "call_2",
                "ERROR: get_weather failed: upstream timeout. Do not retry; tell the user the data is unavailable.",
            ),
            tool_result_message("call_1", "22C and sunny"),
            Message {
                role: Role::Tool,
                parts: vec![Part::ToolResult(ToolResult::error("call_3", ""))],
            },
            Message::user("And in Fahrenheit?"),
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Text(String::new()),
                    call("convert.1:a", "convert", json!({"celsius": 22})),
                ],
            },
            tool_result_message("convert.1:a", "71.6"),
            Message::assistant("Kampala: 22C (71.6F) and sunny; Gulu and Jinja are unavailable."),
            Message::user("Thanks. Umbrella tomorrow?"),
        ]).with_system("You are a terse weather assistant.").with_tools(tools()).with_extra(extra)
}

#[test]
fn anthropic_rich() {
    let body = Anthropic.encode(&rich_request()).unwrap();
    assert_golden("anthropic_rich", &body);
}

#[test]
fn openai_chat_rich() {
    let body = OpenAiChat::default().encode(&rich_request()).unwrap();
    assert_golden("openai_chat_rich", &body);
}

#[test]
fn openai_chat_rich_strict() {
    let body = OpenAiChat::default()
        .with_strict(true)
        .encode(&rich_request())
        .unwrap();
    assert_golden("openai_chat_rich_strict", &body);
}

#[test]
fn openai_responses_rich() {
    let body = OpenAiResponses::default().encode(&rich_request()).unwrap();
    assert_golden("openai_responses_rich", &body);
}

/// The rich request with Gemini's place for the temperature.
fn gemini_request() -> Request<'static> {
    let mut request = rich_request();
    request.extra.clear();
    request
        .extra
        .insert("generationConfig".into(), json!({"temperature": 0.2}));
    request
}

#[test]
fn gemini_rich() {
    let body = Gemini::default().encode(&gemini_request()).unwrap();
    assert_golden("gemini_rich", &body);
}

#[test]
fn gemini_rich_vertex_legacy() {
    let gemini = Gemini::default()
        .with_call_ids(false)
        .with_legacy_parameters(true)
        .with_error_key(true);
    let mut request = gemini_request();
    request.max_tokens = Some(512);
    request.tool_choice = skyl::provider::ToolChoice::Tool("get_weather".into());
    assert_golden(
        "gemini_rich_vertex_legacy",
        &gemini.encode(&request).unwrap(),
    );
}

#[test]
fn adapters_work_as_trait_objects() {
    let adapters: Vec<Box<dyn Adapter>> = vec![
        Box::new(Anthropic),
        Box::new(OpenAiChat::default()),
        Box::new(OpenAiResponses::default()),
        Box::new(Gemini::default()),
    ];
    let providers: Vec<Provider> = adapters.iter().map(|a| a.provider()).collect();
    assert_eq!(
        providers,
        [
            Provider::Anthropic,
            Provider::OpenAiChat,
            Provider::OpenAiResponses,
            Provider::Gemini
        ]
    );
    for adapter in &adapters {
        let body = adapter.encode(&rich_request()).unwrap();
        let direct = match adapter.provider() {
            Provider::Anthropic => Anthropic.encode(&rich_request()),
            Provider::OpenAiChat => OpenAiChat::default().encode(&rich_request()),
            Provider::OpenAiResponses => OpenAiResponses::default().encode(&rich_request()),
            _ => Gemini::default().encode(&rich_request()),
        };
        assert_eq!(body, direct.unwrap());
    }
    fn assert_send_sync<T: Send + Sync + ?Sized>() {}
    assert_send_sync::<dyn Adapter>();
}

#[test]
fn extra_fields_are_merged_into_the_top_level() {
    let mut request = Request::new("m", vec![Message::user("Hi")]).with_max_tokens(100);
    request
        .extra
        .insert("generationConfig".into(), json!({"temperature": 0}));
    request.extra.insert("max_tokens".into(), json!(7));
    assert_eq!(
        Gemini::default().encode(&request).unwrap(),
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "generationConfig": {"maxOutputTokens": 100, "temperature": 0},
            "max_tokens": 7
        })
    );
    assert_eq!(
        Anthropic.encode(&request).unwrap(),
        json!({
            "model": "m",
            "max_tokens": 7,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]}],
            "generationConfig": {"temperature": 0}
        })
    );
}

#[test]
fn every_tool_choice_on_every_adapter() {
    use skyl::provider::ToolChoice;
    // What each provider's API reference calls each choice: Anthropic `tool_choice.type`, OpenAI
    // `tool_choice` (Chat nests the function's name, Responses does not), Gemini
    // `functionCallingConfig.mode`.
    let table: [(ToolChoice, [Value; 4]); 4] = [
        (
            ToolChoice::Auto,
            [
                json!({"type": "auto"}),
                json!("auto"),
                json!("auto"),
                json!({"functionCallingConfig": {"mode": "AUTO"}}),
            ],
        ),
        (
            ToolChoice::None,
            [
                json!({"type": "none"}),
                json!("none"),
                json!("none"),
                json!({"functionCallingConfig": {"mode": "NONE"}}),
            ],
        ),
        (
            ToolChoice::Required,
            [
                json!({"type": "any"}),
                json!("required"),
                json!("required"),
                json!({"functionCallingConfig": {"mode": "ANY"}}),
            ],
        ),
        (
            ToolChoice::Tool("get_weather".into()),
            [
                json!({"type": "tool", "name": "get_weather"}),
                json!({"type": "function", "function": {"name": "get_weather"}}),
                json!({"type": "function", "name": "get_weather"}),
                json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}}),
            ],
        ),
    ];
    let adapters: [(&dyn Adapter, &str); 4] = [
        (&Anthropic, "tool_choice"),
        (&OpenAiChat::default(), "tool_choice"),
        (&OpenAiResponses::default(), "tool_choice"),
        (&Gemini::default(), "toolConfig"),
    ];
    for (choice, expected) in table {
        for ((adapter, key), expected) in adapters.iter().zip(expected) {
            let request = Request::new("m", vec![Message::user("Weather?")])
                .with_tools(tools())
                .with_tool_choice(choice.clone());
            let body = adapter.encode(&request).unwrap();
            assert_eq!(
                body[*key],
                expected,
                "{} with {choice:?}",
                adapter.provider().as_str()
            );
        }
    }
}
