//! The request body's steps: `{"model", "messages", "tools", "stream", "options"}`.

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use skyl::provider::{
    EncodeError, Provider, Request, ToolChoice,
    author::{Encoder, MediaRule, NameRule, ResultLowering, system_texts},
};
use skyl::{
    Content, Message, Part, Role, ToolCall, ToolDefinition, ToolResult,
    content::{ResultContent, Source},
};

use crate::{Ollama, PROVIDER};

/// The key of the model's thinking, on the wire and in the provider data that keeps it.
pub(crate) const THINKING: &str = "thinking";

impl Encoder for Ollama {
    const PROVIDER: Provider = PROVIDER;
    // Ollama takes any name; the rule of the other APIs keeps a toolbox portable.
    const TOOL_NAMES: NameRule = NameRule::WORD_64;
    const TRANSCRIPT: &'static str = "messages";

    fn head(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        body.insert("model".into(), Value::from(&*request.model));
    }

    fn transcript(&self, request: &Request<'_>) -> Vec<Value> {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        let system = system_texts(request);
        if !system.is_empty() {
            messages.push(json!({"role": "system", "content": system.join("\n\n")}));
        }
        // A result names its call's tool: the names of the calls made so far.
        let mut tools: HashMap<&str, &str> = HashMap::new();
        for message in request.messages.iter() {
            match message.role {
                Role::System => {}
                Role::User => {
                    let text = message.text_content();
                    if !text.is_empty() {
                        messages.push(json!({"role": "user", "content": text}));
                    }
                }
                Role::Assistant => {
                    for call in message.tool_calls() {
                        tools.insert(&call.id, &call.name);
                    }
                    if let Some(turn) = assistant(message) {
                        messages.push(turn);
                    }
                }
                Role::Tool => {
                    for result in message.tool_results() {
                        let name = tools.get(result.call_id.as_str()).copied().unwrap_or("");
                        let content = message.result_content(&result.call_id);
                        messages.push(tool_message(result, content, name));
                    }
                }
            }
        }
        messages
    }

    fn tool(&self, tool: &ToolDefinition) -> Result<Value, EncodeError> {
        Ok(json!({
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            }
        }))
    }

    fn tools(&self, declarations: Vec<Value>, choice: &ToolChoice, body: &mut Map<String, Value>) {
        if *choice != ToolChoice::None {
            body.insert("tools".into(), Value::Array(declarations));
        }
    }

    fn tail(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        // Ollama streams unless told not to; the transport asks for a stream by making it true.
        body.insert("stream".into(), Value::Bool(false));
        if let Some(max_tokens) = request.max_tokens {
            body.insert("options".into(), json!({"num_predict": max_tokens}));
        }
    }
}

/// An assistant turn: its text, the thinking it came with, its calls; `None` when it has none.
fn assistant(message: &Message) -> Option<Value> {
    let mut turn = Map::new();
    turn.insert("role".into(), "assistant".into());
    turn.insert("content".into(), message.text_content().into());
    let thinking = message.parts.iter().find_map(|part| match part {
        Part::Provider(data) => data.of(PROVIDER)?.get(THINKING),
        _ => None,
    });
    if let Some(thinking) = thinking {
        turn.insert(THINKING.into(), thinking.clone());
    }
    let calls: Vec<Value> = message.tool_calls().map(call).collect();
    if calls.is_empty() && turn["content"] == "" && thinking.is_none() {
        return None;
    }
    if !calls.is_empty() {
        turn.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(turn))
}

/// A call as Ollama takes it back: its name and its arguments as an object.
fn call(call: &ToolCall) -> Value {
    json!({"function": {"name": call.name, "arguments": arguments(&call.arguments)}})
}

/// A call's arguments as an object: text holding an object is that object, and anything else
/// (no arguments, text that is not an object) is an empty one.
fn arguments(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(object @ Value::Object(_)) => object,
            _ => json!({}),
        },
        _ => json!({}),
    }
}

/// What a message's `images` take: PNG and JPEG, as base64 without a `data:` prefix (the formats
/// every vision model Ollama runs decodes). Ollama takes no documents or audio.
const LOWERING: ResultLowering = ResultLowering::new(PROVIDER)
    .images(
        MediaRule::only(
            &["image/png", "image/jpeg"],
            "takes only PNG and JPEG images",
        )
        .bytes_only("takes images only as bytes, not at a URL"),
    )
    .documents(MediaRule::none("takes no documents"))
    .audio(MediaRule::none("takes no audio"));

/// A result as a `tool` message naming its tool. Ollama has no error flag: an error says so in
/// its content. The images of its content go in the message's `images`; each other part is a
/// line of the content, saying what it was (and, for a part Ollama cannot take, that it was not
/// sent and why).
fn tool_message(result: &ToolResult, content: Option<&ResultContent>, name: &str) -> Value {
    let prose = if result.is_error && !result.content.is_empty() {
        format!("error: {}", result.content)
    } else {
        result.content.clone()
    };
    let (text, media) = match content {
        Some(content) => LOWERING.split(prose, result, content),
        None => (prose, Vec::new()),
    };
    let mut message = json!({"role": "tool", "content": text, "tool_name": name});
    let images: Vec<Value> = media
        .iter()
        .filter_map(|part| match part.as_ref() {
            Content::Image(image) => match &image.source {
                Source::Base64(data) => Some(Value::from(data.as_str())),
                Source::Url(_) => None,
            },
            _ => None,
        })
        .collect();
    if !images.is_empty() {
        message["images"] = Value::Array(images);
    }
    message
}
