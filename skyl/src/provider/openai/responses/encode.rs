//! A request's body for the Responses API: the steps the encoding driver runs, the transcript
//! as input items, a result as a `function_call_output` item.

use serde_json::{Map, Value};

use super::{OpenAiResponses, PROVIDER};
use crate::content::{self, Content, ResultContent, Source, data_url};
use crate::message::call_arguments;
use crate::message::{Message, Part, ToolResult};
use crate::provider::encode::{Encoder, object};
use crate::provider::lowering::{Lowered, MediaRule, ResultLowering};
use crate::provider::names::{self, NameRule};
use crate::provider::openai;
use crate::provider::{
    EncodeError, OutputMode, OutputSchema, Provider, Request, ToolChoice, dialect,
};
use crate::tool::ToolDefinition;

impl Encoder for OpenAiResponses {
    const PROVIDER: Provider = PROVIDER;
    const TOOL_NAMES: NameRule = names::WORD_64;
    const TRANSCRIPT: &'static str = "input";

    fn head(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        body.insert("model".into(), Value::from(&*request.model));
        if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
            body.insert("instructions".into(), system.into());
        }
    }

    fn transcript(&self, request: &Request<'_>) -> Vec<Value> {
        let mut input = Vec::with_capacity(request.messages.len());
        openai::transcript(
            &request.messages,
            &mut input,
            input_message,
            // Responses takes media in the output itself: nothing is left for a user message.
            |texts, _| input_message("user", texts),
            assistant_items,
            |result, content, _| {
                let output = match content {
                    None => openai::result_content(result),
                    Some(content) => output_items(result, content),
                };
                object([
                    ("type", "function_call_output".into()),
                    ("call_id", Value::from(&*result.call_id)),
                    ("output", output),
                ])
            },
        );
        input
    }

    fn tool(&self, tool: &ToolDefinition) -> Result<Value, EncodeError> {
        Ok(object([
            ("type", "function".into()),
            ("name", Value::from(&*tool.name)),
            ("description", Value::from(&*tool.description)),
            (
                "parameters",
                openai::parameters(PROVIDER, self.strict, tool)?,
            ),
            ("strict", self.strict.into()),
        ]))
    }

    /// The hosted `tool_search`, run by OpenAI.
    fn tool_search(&self) -> Option<Value> {
        Some(object([("type", Value::from("tool_search"))]))
    }

    fn tools(&self, declarations: Vec<Value>, choice: &ToolChoice, body: &mut Map<String, Value>) {
        body.insert("tools".into(), Value::Array(declarations));
        let choice = match choice {
            ToolChoice::Auto => "auto".into(),
            ToolChoice::None => "none".into(),
            ToolChoice::Required => "required".into(),
            ToolChoice::Tool(name) => {
                object([("type", "function".into()), ("name", name[..].into())])
            }
        };
        body.insert("tool_choice".into(), choice);
    }

    fn tail(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        if let Some(max) = request.max_tokens {
            body.insert("max_output_tokens".into(), max.into());
        }
        openai::cache_options(request, body);
    }

    fn output(
        &self,
        output: &OutputSchema,
        body: &mut Map<String, Value>,
    ) -> Result<(), EncodeError> {
        if output.mode == OutputMode::JsonObject {
            let format = object([("type", "json_object".into())]);
            body.insert("text".into(), object([("format", format)]));
            return Ok(());
        }
        let schema = dialect::openai_strict(&output.schema)
            .map_err(|error| EncodeError::output_schema(PROVIDER, &output.name, error))?;
        let format = object([
            ("type", "json_schema".into()),
            ("name", Value::from(&*output.name)),
            ("schema", schema),
            ("strict", true.into()),
        ]);
        body.insert("text".into(), object([("format", format)]));
        Ok(())
    }
}

/// A `function_call_output`'s `output` for a result with content: a list of `input_text`,
/// `input_image` and `input_file` items, as the SDK's `ResponseFunctionCallOutputItemListParam`
/// types it; the prose first (prefixed with `"error: "` for a failure, as a string output is).
fn output_items(result: &ToolResult, content: &ResultContent) -> Value {
    let mut items = Vec::with_capacity(content.content.len() + 1);
    let prose = openai::result_text(result);
    if !prose.is_empty() {
        items.push(input_text(&prose));
    }
    items.extend(LOWERING.lower(result, content).into_iter().map(output_item));
    if items.is_empty() {
        return Value::String(prose);
    }
    Value::Array(items)
}

fn input_text(text: &str) -> Value {
    object([("type", "input_text".into()), ("text", text.into())])
}

/// What a `function_call_output` takes: images and files, by data URL or URL; no audio.
const LOWERING: ResultLowering = ResultLowering::new(PROVIDER)
    .images(MediaRule::any())
    .documents(MediaRule::any())
    .audio(MediaRule::none(
        "takes no audio in a function call's output",
    ));

fn output_item(part: Lowered<'_>) -> Value {
    let part = match part {
        Lowered::Line(line) => return input_text(&line),
        Lowered::Media(part) => part,
    };
    match &*part {
        Content::Image(image) => {
            let url = match &image.source {
                Source::Base64(data) => data_url(&image.media_type, data),
                Source::Url(url) => url.clone(),
            };
            object([("type", "input_image".into()), ("image_url", url.into())])
        }
        Content::Document(document) => match &document.source {
            Source::Base64(data) => object([
                ("type", "input_file".into()),
                ("file_data", data_url(&document.media_type, data).into()),
                (
                    "filename",
                    document
                        .title
                        .as_deref()
                        .unwrap_or(crate::content::UNTITLED_DOCUMENT)
                        .into(),
                ),
            ]),
            Source::Url(url) => object([
                ("type", "input_file".into()),
                ("file_url", Value::from(&**url)),
            ]),
        },
        // The lowering gives no other medium to a wire that takes no other.
        other => input_text(&content::line(other)),
    }
}

/// An input message: one text as a string, several as `input_text` parts.
fn input_message(role: &str, texts: Vec<&str>) -> Value {
    let content = match texts.as_slice() {
        [text] => Value::from(*text),
        _ => texts
            .into_iter()
            .map(|text| object([("type", "input_text".into()), ("text", text.into())]))
            .collect(),
    };
    object([("role", role.into()), ("content", content)])
}

fn assistant_text(text: &str) -> Value {
    object([("role", "assistant".into()), ("content", text.into())])
}

/// The `message` item data a part carries, when it came from this API.
fn message_item(part: &Part) -> Option<&Map<String, Value>> {
    let Part::ProviderText { provider_data, .. } = part else {
        return None;
    };
    match provider_data.of(PROVIDER) {
        Some(Value::Object(item)) if item.get("type") == Some(&Value::from("message")) => {
            Some(item)
        }
        _ => None,
    }
}

/// The items of an assistant turn, in the order the model produced them.
///
/// A reasoning item must be followed by the item that followed it in the answer, with that item's
/// id (`Item 'rs_…' of type 'reasoning' was provided without its required following item`); a
/// message item with an id must be preceded by its reasoning item (`Item 'msg_…' of type
/// 'message' was provided without its required 'reasoning' item`). So a message item keeps its id
/// exactly when the reasoning item before it is sent back, and is plain assistant text otherwise.
fn assistant_items(message: &Message, input: &mut Vec<Value>) {
    let parts = &message.parts;
    let mut reasoning_sent = false;
    let mut position = 0;
    while position < parts.len() {
        let part = &parts[position];
        position += 1;
        if let Some(item) = message_item(part) {
            // The item's texts: this part and the ones after it that carry the same item.
            let same_item = |p: &Part| message_item(p) == Some(item);
            let end = position
                + parts[position..]
                    .iter()
                    .take_while(|p| same_item(p))
                    .count();
            let texts = parts[position - 1..end]
                .iter()
                .filter_map(Part::text)
                .filter(|text| !text.is_empty());
            position = end;
            if reasoning_sent && texts.clone().next().is_some() {
                let mut item = item.clone();
                item.insert("role".into(), "assistant".into());
                let content = texts.map(|text| {
                    object([
                        ("type", "output_text".into()),
                        ("text", text.into()),
                        ("annotations", Value::Array(Vec::new())),
                    ])
                });
                item.insert("content".into(), content.collect());
                input.push(Value::Object(item));
            } else {
                input.extend(texts.map(assistant_text));
            }
            reasoning_sent = false;
            continue;
        }
        match part {
            Part::Text(text) | Part::ProviderText { text, .. } => {
                if !text.is_empty() {
                    input.push(assistant_text(text));
                }
            }
            Part::ToolCall(call) => {
                let mut item = Map::with_capacity(5);
                item.insert("type".into(), "function_call".into());
                item.insert("call_id".into(), Value::from(&*call.id));
                item.insert("name".into(), Value::from(&*call.name));
                item.insert(
                    "arguments".into(),
                    Value::from(call_arguments::to_text(&call.arguments)),
                );
                if let Some(id) = call
                    .provider_data
                    .as_ref()
                    .and_then(|data| data.of(PROVIDER))
                    .and_then(|data| data.get("id"))
                {
                    item.insert("id".into(), id.clone());
                }
                input.push(Value::Object(item));
                reasoning_sent = false;
            }
            Part::Provider(data) => {
                let Some(data) = data.of(PROVIDER) else {
                    continue;
                };
                match data.get("type").and_then(Value::as_str) {
                    Some("reasoning") => {
                        // Needed only with tool calls, and a 400 without its following item.
                        reasoning_sent = parts[position..]
                            .iter()
                            .any(|p| matches!(p, Part::ToolCall(_)));
                        if reasoning_sent {
                            input.push(data.clone());
                        }
                    }
                    // A message item that held no text: nothing to send.
                    Some("message") => reasoning_sent = false,
                    _ => input.push(data.clone()),
                }
            }
            Part::ToolResult(_) | Part::ResultContent(_) => {}
        }
    }
}
