//! Every `EncodeError` and `DecodeError` kind, with its whole `Display` text.

use std::collections::HashMap;

use crate::support::calling;
use schemars::JsonSchema;
use serde_json::json;
use skyl::provider::{
    Adapter, Anthropic, DecodeError, EncodeError, Gemini, OpenAiChat, OpenAiResponses, Provider,
    Request, ToolChoice,
};
use skyl::{Message, ToolDefinition};

fn tool(name: &str) -> ToolDefinition {
    ToolDefinition::new(
        name,
        "A tool.",
        json!({"type": "object", "properties": {}, "required": []}),
    )
}

fn hello() -> Request<'static> {
    Request::new("m", vec![Message::user("Hello")]).with_tools(vec![tool("get_weather")])
}

#[test]
fn a_transcript_error_names_the_message_and_the_call() {
    let request = {
        let mut request = hello();
        request.messages = vec![
            Message::user("Weather?"),
            calling("c1", "get_weather", json!({})),
        ]
        .into();
        request
    };
    let error = Anthropic.encode(&request).unwrap_err();
    assert_eq!(error.index(), Some(1));
    assert_eq!(error.call_id(), Some("c1"));
    assert_eq!(error.provider(), Provider::Anthropic);
    // Each level says its own part once: the request, then the rule broken (its cause).
    assert_eq!(
        error.to_string(),
        "cannot encode the Anthropic request: the transcript breaks an ordering rule every provider enforces"
    );
    assert_eq!(
        std::error::Error::source(&error).map(ToString::to_string),
        Some("message 1: tool call \"c1\" (get_weather) has no result and the transcript ends; answer every call before sending the next request (send skyl::transcript::tool_error_message if the tool could not run)".to_owned())
    );
    assert!(matches!(error, EncodeError::Transcript { .. }));
}

#[test]
fn a_tool_name_error_gives_the_rule_and_a_name_that_follows_it() {
    let request = {
        let mut request = hello();
        request.tools = vec![tool("get weather!")].into();
        request
    };
    assert_eq!(
        OpenAiChat::default()
            .encode(&request)
            .unwrap_err()
            .to_string(),
        "cannot encode the OpenAI Chat request: the tool name \"get weather!\" breaks the rule for tool names (1 to 64 characters from a-z, A-Z, 0-9, `_` and `-`); give the tool's ToolDefinition a name every provider accepts, for example \"get_weather_\" (a Toolbox refuses such a name when the tool is added, and a #[tool] function's when it compiles, so this definition came from neither)"
    );
    let request = {
        let mut request = hello();
        request.tools = vec![tool("9lives")].into();
        request
    };
    assert_eq!(
        Gemini::default().encode(&request).unwrap_err().to_string(),
        "cannot encode the Gemini request: the tool name \"9lives\" breaks the rule for tool names (a letter or `_` first, then a-z, A-Z, 0-9, `_`, `.`, `:` or `-`, at most 64 characters); give the tool's ToolDefinition a name every provider accepts, for example \"_9lives\" (a Toolbox refuses such a name when the tool is added, and a #[tool] function's when it compiles, so this definition came from neither)"
    );
    // Dots are fine on Gemini and not elsewhere.
    let request = {
        let mut request = hello();
        request.tools = vec![tool("weather.get")].into();
        request
    };
    assert!(Gemini::default().encode(&request).is_ok());
    // The name suggested is one every provider takes, not only the one that refused it.
    assert_eq!(
        Anthropic.encode(&request).unwrap_err().to_string(),
        "cannot encode the Anthropic request: the tool name \"weather.get\" breaks the rule for tool names (1 to 64 characters from a-z, A-Z, 0-9, `_` and `-`); give the tool's ToolDefinition a name every provider accepts, for example \"weather_get\" (a Toolbox refuses such a name when the tool is added, and a #[tool] function's when it compiles, so this definition came from neither)"
    );
}

#[allow(dead_code)]
#[derive(JsonSchema)]
struct Labels {
    /// Labels to set.
    labels: HashMap<String, String>,
}

#[test]
fn a_schema_that_cannot_be_strict_names_the_tool_and_the_field() {
    let request = {
        let mut request = hello();
        request.tools = vec![ToolDefinition::new(
            "tag",
            "Tags an item.",
            skyl::schema::canonical_schema_for::<Labels>(),
        )]
        .into();
        request
    };
    let error = OpenAiResponses::default()
        .with_strict(true)
        .encode(&request)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot encode the OpenAI Responses request: the schema of tool \"tag\", at `labels`: a map (an object whose `additionalProperties` is not false, such as a HashMap) cannot be strict; strict mode needs every key declared in advance; use a struct with named fields (or a list of {key, value} objects), or leave strict mode off for this adapter"
    );
    assert!(OpenAiResponses::default().encode(&request).is_ok());
}

#[test]
fn a_recursive_schema_is_refused_by_gemini_legacy_parameters() {
    let request = {
        let mut request = hello();
        request.tools = vec![ToolDefinition::new(
            "tree",
            "Takes a tree.",
            json!({
                "type": "object",
                "properties": {"root": {"$ref": "#/$defs/Node"}},
                "required": ["root"],
                "$defs": {"Node": {"type": "object", "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                }}}
            }),
        )]
        .into();
        request
    };
    assert_eq!(
        Gemini::default()
            .with_legacy_parameters(true)
            .encode(&request)
            .unwrap_err()
            .to_string(),
        "cannot encode the Gemini request: the schema of tool \"tree\", at `root.children[]`: the type refers to itself (`$ref` \"#/$defs/Node\"), and Gemini's `parameters` (an OpenAPI subset without references) cannot express recursion; use Gemini's default parametersJsonSchema mode (do not call .with_legacy_parameters(true)), or bound the nesting in the argument type"
    );
    assert!(Gemini::default().encode(&request).is_ok());
}

/// Anthropic requires `input_schema.type: "object"` and OpenAI "a JSON Schema of 'type:
/// \"object\"'": a hand-written definition with `{}` or a bare type is refused before sending, on
/// every adapter.
#[test]
fn a_parameters_schema_whose_root_is_not_an_object_is_refused() {
    for parameters in [json!({}), json!(null), json!({"type": "string"})] {
        let mut request = hello();
        request.tools.to_mut()[0].parameters = parameters.clone();
        for adapter in crate::support::adapters() {
            let error = adapter.encode(&request).unwrap_err();
            assert!(
                matches!(error, EncodeError::Schema { .. }),
                "{parameters}: {error}"
            );
        }
    }
    let mut request = hello();
    request.tools.to_mut()[0].parameters = json!({});
    assert_eq!(
        Anthropic.encode(&request).unwrap_err().to_string(),
        "cannot encode the Anthropic request: the schema of tool \"get_weather\": the root of the parameters schema does not say `\"type\": \"object\"`, and the provider takes a tool's arguments only as an object; pass the schema through skyl::schema::canonicalize (for a tool without arguments it gives {\"type\": \"object\", \"properties\": {}, \"required\": []}), or take the arguments as a struct with named fields"
    );
}

#[test]
fn a_tool_choice_must_name_a_tool_of_the_request() {
    let request = {
        let mut request = hello();
        request.tool_choice = ToolChoice::Tool("get_wether".into());
        request.tools = vec![tool("get_weather"), tool("convert")].into();
        request
    };
    assert_eq!(
        Anthropic.encode(&request).unwrap_err().to_string(),
        "cannot encode the Anthropic request: tool_choice names the tool \"get_wether\", which is not among the request's tools (get_weather, convert); add it to Request::tools or choose one of those"
    );
    let request = {
        let mut request = hello();
        request.tool_choice = ToolChoice::Required;
        request.tools = Vec::new().into();
        request
    };
    assert_eq!(
        Gemini::default().encode(&request).unwrap_err().to_string(),
        "cannot encode the Gemini request: tool_choice is Required but the request has no tools; add the tools to Request::tools or use ToolChoice::Auto"
    );
}

#[test]
fn a_request_with_nothing_to_send_is_refused() {
    let request = {
        let mut request = hello();
        request.messages = vec![Message::system("Be terse."), Message::user("")].into();
        request
    };
    for adapter in [
        &Anthropic as &dyn Adapter,
        &OpenAiChat::default(),
        &OpenAiResponses::default(),
        &Gemini::default(),
    ] {
        let error = adapter.encode(&{
            let mut request = request.clone();
            request.messages = vec![Message::user("")].into();
            request
        });
        assert_eq!(
            error.unwrap_err(),
            EncodeError::NoMessages {
                provider: adapter.provider()
            }
        );
    }
    assert_eq!(
        Anthropic.encode(&request).unwrap_err().to_string(),
        "cannot encode the Anthropic request: there is no message to send once system messages are moved out and empty messages dropped; add a user message"
    );
}

#[test]
fn provider_error_bodies_carry_the_providers_message() {
    let anthropic = Anthropic.decode(&json!({
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01"}
    }));
    assert_eq!(
        anthropic.unwrap_err().to_string(),
        "the Anthropic API answered with an error (invalid_request_error): messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01"
    );
    let openai = OpenAiChat::default().decode(&json!({
        "error": {"message": "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", "type": "invalid_request_error", "param": "messages.[3].role", "code": null}
    }));
    assert_eq!(
        openai.unwrap_err().to_string(),
        "the OpenAI Chat API answered with an error (invalid_request_error): Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    );
    let responses = OpenAiResponses::default().decode(&json!({
        "error": {"message": "No tool output found for function call call_W.", "code": "invalid_request_error"}, "output": []
    }));
    assert_eq!(
        responses.unwrap_err().to_string(),
        "the OpenAI Responses API answered with an error (invalid_request_error): No tool output found for function call call_W."
    );
    let gemini = Gemini::default().decode(&json!({
        "error": {"code": 400, "message": "Please ensure that function response turn comes immediately after a function call turn.", "status": "INVALID_ARGUMENT"}
    }));
    assert_eq!(
        gemini.unwrap_err().to_string(),
        "the Gemini API answered with an error (INVALID_ARGUMENT): Please ensure that function response turn comes immediately after a function call turn."
    );
    assert_eq!(
        OpenAiChat::default()
            .decode(&json!({"error": "overloaded"}))
            .unwrap_err()
            .to_string(),
        "the OpenAI Chat API answered with an error: overloaded"
    );
}

#[test]
fn a_malformed_body_is_reported_with_its_json_path() {
    let body = json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}},
        {"id": "b", "type": "function", "function": {"name": 42, "arguments": "{}"}}
    ]}}]});
    let error = OpenAiChat::default().decode(&body).unwrap_err();
    assert_eq!(
        error,
        DecodeError::Shape {
            provider: Provider::OpenAiChat,
            path: "choices[0].message.tool_calls[1].function.name".into(),
            expected: "a string",
            found: "a number",
        }
    );
    assert_eq!(
        error.to_string(),
        "cannot read the OpenAI Chat response: choices[0].message.tool_calls[1].function.name: expected a string, found a number; is this body from the OpenAI Chat API?"
    );
    assert_eq!(
        OpenAiChat::default()
            .decode(&json!({"choices": []}))
            .unwrap_err()
            .to_string(),
        "cannot read the OpenAI Chat response: choices: expected a non-empty array, found an empty array; is this body from the OpenAI Chat API?"
    );
    assert_eq!(
        Anthropic
            .decode(&json!({"content": [{"type": "tool_use", "name": "x", "input": {}}]}))
            .unwrap_err()
            .to_string(),
        "cannot read the Anthropic response: content[0].id: expected a string, found nothing; is this body from the Anthropic API?"
    );
    assert_eq!(
        OpenAiResponses::default()
            .decode(&json!([]))
            .unwrap_err()
            .to_string(),
        "cannot read the OpenAI Responses response: output: expected an array, found nothing; is this body from the OpenAI Responses API?"
    );
}

#[test]
fn a_blocked_gemini_prompt_is_an_error() {
    let blocked = super::support::fixture("gemini", "blocked");
    assert_eq!(
        Gemini::default().decode(&blocked).unwrap_err().to_string(),
        "the Gemini response has no candidate: the prompt was blocked (SAFETY); change the prompt or the request's safetySettings"
    );
    assert_eq!(
        Gemini::default()
            .decode(&json!({"candidates": []}))
            .unwrap_err()
            .to_string(),
        "the Gemini response has no candidate and gives no block reason; retry the request"
    );
}
