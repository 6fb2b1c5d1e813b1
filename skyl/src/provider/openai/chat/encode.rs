//! A request's body for Chat Completions: the steps the encoding driver runs, messages with
//! their tool calls and `tool` results, and the media a result carries moved to a user message.

use serde_json::{Map, Value};

use super::{CALL_FIELDS, MESSAGE_FIELDS, OpenAiChat, PROVIDER};
use crate::content::{Content, Document, ResultContent, Source, data_url};
use crate::message::call_arguments;
use crate::message::{Message, Part, ToolCall, ToolResult};
use crate::prose;
use crate::provider::encode::{Encoder, object};
use crate::provider::lowering::{MediaRule, ResultLowering};
use crate::provider::names::{self, NameRule};
use crate::provider::openai;
use crate::provider::{
    EncodeError, OutputMode, OutputSchema, Provider, Request, ToolChoice, dialect,
};
use crate::tool::ToolDefinition;

impl Encoder for OpenAiChat {
    const PROVIDER: Provider = PROVIDER;
    const TOOL_NAMES: NameRule = names::WORD_64;
    const TRANSCRIPT: &'static str = "messages";

    fn head(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        body.insert("model".into(), Value::from(&*request.model));
    }

    fn transcript(&self, request: &Request<'_>) -> Vec<Value> {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
            messages.push(text_message("system", vec![system]));
        }
        openai::transcript(
            &request.messages,
            &mut messages,
            text_message,
            media_message,
            |message, items| items.extend(assistant_message(self, message)),
            |result, content, media| {
                let content = match content {
                    None => openai::result_content(result),
                    Some(content) => {
                        Value::String(tool_text(result, content, self.audio_input, media))
                    }
                };
                object([
                    ("role", "tool".into()),
                    ("tool_call_id", Value::from(&*result.call_id)),
                    ("content", content),
                ])
            },
        );
        messages
    }

    fn tool(&self, tool: &ToolDefinition) -> Result<Value, EncodeError> {
        let mut function = Map::with_capacity(4);
        function.insert("name".into(), Value::from(&*tool.name));
        function.insert("description".into(), Value::from(&*tool.description));
        function.insert(
            "parameters".into(),
            openai::parameters(PROVIDER, self.strict, tool)?,
        );
        if self.strict {
            function.insert("strict".into(), true.into());
        }
        Ok(object([
            ("type", "function".into()),
            ("function", Value::Object(function)),
        ]))
    }

    fn tools(&self, declarations: Vec<Value>, choice: &ToolChoice, body: &mut Map<String, Value>) {
        body.insert("tools".into(), Value::Array(declarations));
        let choice = match choice {
            ToolChoice::Auto => "auto".into(),
            ToolChoice::None => "none".into(),
            ToolChoice::Required => "required".into(),
            ToolChoice::Tool(name) => object([
                ("type", "function".into()),
                ("function", object([("name", name[..].into())])),
            ]),
        };
        body.insert("tool_choice".into(), choice);
    }

    fn tail(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        if let Some(max) = request.max_tokens {
            let name = if self.is_compatible() {
                "max_tokens"
            } else {
                "max_completion_tokens"
            };
            body.insert(name.into(), max.into());
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
            body.insert("response_format".into(), format);
            return Ok(());
        }
        let schema = dialect::openai_strict(&output.schema)
            .map_err(|error| EncodeError::output_schema(PROVIDER, &output.name, error))?;
        let json_schema = object([
            ("name", Value::from(&*output.name)),
            ("schema", schema),
            ("strict", true.into()),
        ]);
        body.insert(
            "response_format".into(),
            object([("type", "json_schema".into()), ("json_schema", json_schema)]),
        );
        Ok(())
    }
}

/// What a user message after the tool messages takes: images by data URL or URL, PDFs as
/// bytes, and (on audio models) WAV and MP3 clips.
const LOWERING: ResultLowering = ResultLowering::new(PROVIDER)
    .images(MediaRule::any())
    .documents(MediaRule::any().bytes_only("takes documents only as bytes, not at a URL"))
    .audio(MediaRule::none("takes audio only on audio models"));

/// [`LOWERING`] on an audio model.
const AUDIO_LOWERING: ResultLowering = LOWERING.audio(MediaRule::only(
    &[
        "audio/wav",
        "audio/x-wav",
        "audio/wave",
        "audio/mpeg",
        "audio/mp3",
    ],
    "takes audio only as WAV or MP3",
));

/// The text of a tool message whose result has content: the prose, then a line for each part
/// a tool message can hold as text. The media parts (images, WAV and MP3 audio, PDFs given as
/// bytes) go onto `media`, introduced by a line naming the call, for the user message that
/// follows the tool messages.
fn tool_text(
    result: &ToolResult,
    content: &ResultContent,
    audio_input: bool,
    media: &mut Vec<Value>,
) -> String {
    let lowering = if audio_input {
        AUDIO_LOWERING
    } else {
        LOWERING
    };
    let (text, carried) = lowering.split(openai::result_text(result), result, content);
    if !carried.is_empty() {
        media.push(text_part(&prose::media_of_call(&result.call_id)));
        media.extend(carried.iter().filter_map(|part| media_part(part)));
    }
    text
}

/// A medium as a content part of a user message (`image_url`, `input_audio`, `file`, as the
/// SDK's `ChatCompletionContentPartParam` types them).
fn media_part(part: &Content) -> Option<Value> {
    Some(match part {
        Content::Image(image) => {
            let url = match &image.source {
                Source::Base64(data) => data_url(&image.media_type, data),
                Source::Url(url) => url.clone(),
            };
            object([
                ("type", "image_url".into()),
                ("image_url", object([("url", url.into())])),
            ])
        }
        Content::Audio(audio) => {
            let format = match audio.media_type.as_str() {
                "audio/mpeg" | "audio/mp3" => "mp3",
                _ => "wav",
            };
            object([
                ("type", "input_audio".into()),
                (
                    "input_audio",
                    object([
                        ("data", Value::from(&*audio.data)),
                        ("format", format.into()),
                    ]),
                ),
            ])
        }
        Content::Document(Document {
            media_type,
            source: Source::Base64(data),
            title,
        }) => object([
            ("type", "file".into()),
            (
                "file",
                object([
                    (
                        "filename",
                        title
                            .as_deref()
                            .unwrap_or(crate::content::UNTITLED_DOCUMENT)
                            .into(),
                    ),
                    ("file_data", data_url(media_type, data).into()),
                ]),
            ),
        ]),
        // The lowering gives no other medium.
        _ => return None,
    })
}

fn text_part(text: &str) -> Value {
    object([("type", "text".into()), ("text", text.into())])
}

/// The user message after a run of tool messages that holds their text and their media.
fn media_message(texts: Vec<&str>, media: Vec<Value>) -> Value {
    let mut content: Vec<Value> = texts.into_iter().map(text_part).collect();
    content.extend(media);
    object([("role", "user".into()), ("content", Value::Array(content))])
}

/// The non-empty texts of a message.
fn texts(message: &Message) -> Vec<&str> {
    message
        .parts
        .iter()
        .filter_map(Part::text)
        .filter(|text| !text.is_empty())
        .collect()
}

/// One text as a plain string, several as an array of `{"type": "text"}` parts.
fn text_content(texts: Vec<&str>) -> Value {
    match texts.as_slice() {
        [text] => Value::from(*text),
        _ => texts
            .into_iter()
            .map(|text| object([("type", "text".into()), ("text", text.into())]))
            .collect(),
    }
}

fn text_message(role: &str, texts: Vec<&str>) -> Value {
    object([("role", role.into()), ("content", text_content(texts))])
}

/// The assistant message for a turn, with its calls under `tool_calls` and the fields its server
/// returned when `adapter` talks to that server; `None` when it has neither text nor calls.
fn assistant_message(adapter: &OpenAiChat, message: &Message) -> Option<Value> {
    let mut out = Map::new();
    out.insert("role".into(), "assistant".into());
    let texts = texts(message);
    let has_text = !texts.is_empty();
    if has_text {
        out.insert("content".into(), text_content(texts));
    }
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|tool_call| call(adapter, tool_call))
        .collect();
    let has_calls = !calls.is_empty();
    if has_calls {
        if !has_text {
            out.insert("content".into(), "".into());
        }
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    // The fields the server returned on the message (`reasoning_content`, `extra_content`).
    for part in &message.parts {
        if let Part::Provider(data) = part
            && let Some(fields) = adapter.returned(data)
        {
            send_back(&mut out, fields, &MESSAGE_FIELDS);
        }
    }
    (has_text || has_calls).then_some(Value::Object(out))
}

fn call(adapter: &OpenAiChat, call: &ToolCall) -> Value {
    let mut entry = Map::with_capacity(3);
    entry.insert("id".into(), Value::from(&*call.id));
    entry.insert("type".into(), "function".into());
    entry.insert(
        "function".into(),
        object([
            ("name", Value::from(&*call.name)),
            (
                "arguments",
                Value::from(call_arguments::to_text(&call.arguments)),
            ),
        ]),
    );
    if let Some(fields) = call
        .provider_data
        .as_ref()
        .and_then(|d| adapter.returned(d))
    {
        send_back(&mut entry, fields, &CALL_FIELDS);
    }
    Value::Object(entry)
}

/// Copies the fields of `names` a server returned into the object it goes back in. Only those:
/// provider data edited by hand cannot replace what skyl writes (`role`, `tool_calls`, ...).
fn send_back(out: &mut Map<String, Value>, fields: &Map<String, Value>, names: &[&str]) {
    for (key, value) in fields {
        if names.contains(&key.as_str()) {
            out.insert(key.clone(), value.clone());
        }
    }
}
