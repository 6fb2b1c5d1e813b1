//! A request's body for `generateContent`: the steps the encoding driver runs, the transcript
//! as `contents`, the tools as function declarations in Gemini's schema dialect.

use serde_json::{Map, Value};

use super::{Content, Gemini, NAMES, PROVIDER, text_part, text_parts};
use crate::content::ResultContent;
use crate::message::{Role, ToolResult};
use crate::provider::caching;
use crate::provider::encode::{self, Encoder, object};
use crate::provider::lowering;
use crate::provider::names::NameRule;
use crate::provider::{
    EncodeError, OutputMode, OutputSchema, Provider, Request, ToolChoice, dialect,
};
use crate::tool::ToolDefinition;

/// Prompt caching: Gemini caches recent prefixes by itself (implicit caching), which needs
/// nothing on the wire; [`Caching::cached_content`](crate::provider::caching::Caching::cached_content) names a cache
/// made beforehand, sent as `cachedContent` without the `systemInstruction`, `tools` and
/// `toolConfig` it holds.
impl Encoder for Gemini {
    const PROVIDER: Provider = PROVIDER;
    const TOOL_NAMES: NameRule = NAMES;
    const TRANSCRIPT: &'static str = "contents";

    fn head(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        let system = encode::system_texts(request);
        if !system.is_empty() {
            let parts = system.iter().map(|text| text_part(text)).collect();
            body.insert("systemInstruction".into(), object([("parts", parts)]));
        }
    }

    fn transcript(&self, request: &Request<'_>) -> Vec<Value> {
        let messages = &request.messages;
        let mut contents: Vec<Content> = Vec::new();
        let mut index = 0;
        while index < messages.len() {
            let message = &messages[index];
            index += 1;
            match message.role {
                Role::System => {}
                Role::User | Role::Tool => {
                    let mut parts = Vec::with_capacity(message.parts.len());
                    parts.extend(text_parts(message));
                    if !parts.is_empty() {
                        contents.push(Content {
                            model: false,
                            parts,
                        });
                    }
                }
                Role::Assistant => {
                    // Two assistant messages in a row (text, then calls) are one model turn:
                    // "function call turn comes immediately after a user turn or after a
                    // function response turn".
                    match contents.last_mut() {
                        Some(last) if last.model => self.model_parts(message, &mut last.parts),
                        _ => {
                            let mut parts = Vec::with_capacity(message.parts.len());
                            self.model_parts(message, &mut parts);
                            if !parts.is_empty() {
                                contents.push(Content { model: true, parts });
                            }
                        }
                    }
                    // The tool messages answering this turn: one user content, in call order.
                    // A turn has few calls: finding each one's result by scanning costs less than
                    // hashing the ids.
                    let mut results: Vec<(&ToolResult, Option<&ResultContent>)> = Vec::new();
                    let mut texts = Vec::new();
                    while index < messages.len() && messages[index].role == Role::Tool {
                        let tool = &messages[index];
                        results.extend(
                            tool.tool_results()
                                .map(|result| (result, lowering::content_of(tool, result))),
                        );
                        texts.extend(text_parts(tool));
                        index += 1;
                    }
                    let mut parts = Vec::with_capacity(results.len() + texts.len());
                    let mut after = Vec::new();
                    parts.extend(message.tool_calls().filter_map(|call| {
                        results
                            .iter()
                            .find(|(result, _)| result.call_id == call.id)
                            .map(|(result, content)| {
                                self.response_part(call, result, *content, &mut after)
                            })
                    }));
                    parts.extend(after);
                    parts.extend(texts);
                    if !parts.is_empty() {
                        contents.push(Content {
                            model: false,
                            parts,
                        });
                    }
                }
            }
        }
        // A function call turn must follow a user turn: when the transcript opens with the model
        // (its first user message was empty), an empty user turn goes first, the one empty part
        // Gemini accepted in recorded traffic.
        let opening = contents
            .first()
            .is_some_and(|first| first.model)
            .then(|| Content {
                model: false,
                parts: vec![text_part("")],
            });
        opening
            .into_iter()
            .chain(contents)
            .map(Content::into_value)
            .collect()
    }

    fn tool(&self, tool: &ToolDefinition) -> Result<Value, EncodeError> {
        let (key, parameters) = if self.legacy_parameters {
            let parameters = dialect::gemini_openapi(&tool.parameters)
                .map_err(|error| EncodeError::schema(PROVIDER, tool, error))?;
            ("parameters", parameters)
        } else {
            (
                "parametersJsonSchema",
                dialect::gemini_json_schema(&tool.parameters),
            )
        };
        Ok(object([
            ("name", Value::from(&*tool.name)),
            ("description", Value::from(&*tool.description)),
            (key, caching::canonical_schema(&parameters)),
        ]))
    }

    fn tools(&self, declarations: Vec<Value>, choice: &ToolChoice, body: &mut Map<String, Value>) {
        body.insert(
            "tools".into(),
            Value::Array(vec![object([(
                "functionDeclarations",
                Value::Array(declarations),
            )])]),
        );
        let config = match choice {
            ToolChoice::Auto => object([("mode", "AUTO".into())]),
            ToolChoice::None => object([("mode", "NONE".into())]),
            ToolChoice::Required => object([("mode", "ANY".into())]),
            ToolChoice::Tool(name) => object([
                ("mode", "ANY".into()),
                ("allowedFunctionNames", Value::Array(vec![name[..].into()])),
            ]),
        };
        body.insert(
            "toolConfig".into(),
            object([("functionCallingConfig", config)]),
        );
    }

    fn tail(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        if let Some(max) = request.max_tokens {
            body.insert(
                "generationConfig".into(),
                object([("maxOutputTokens", max.into())]),
            );
        }
        // The cache holds the system instruction and the tools, and Gemini refuses a request
        // naming one that sets them again ("CachedContent can not be used with GenerateContent
        // request setting system_instruction, tools or tool_config").
        if let Some(name) = &request.caching.cached_content {
            for key in ["systemInstruction", "tools", "toolConfig"] {
                body.shift_remove(key);
            }
            body.insert("cachedContent".into(), name.as_str().into());
        }
    }

    fn output(
        &self,
        output: &OutputSchema,
        body: &mut Map<String, Value>,
    ) -> Result<(), EncodeError> {
        let config = body
            .entry("generationConfig")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(config) = config {
            config.insert("responseMimeType".into(), "application/json".into());
        }
        if output.mode == OutputMode::JsonObject {
            return Ok(());
        }
        let (key, schema) = if self.legacy_parameters {
            let schema = dialect::gemini_openapi(&output.schema)
                .map_err(|error| EncodeError::output_schema(PROVIDER, &output.name, error))?;
            ("responseSchema", schema)
        } else {
            (
                "responseJsonSchema",
                dialect::gemini_json_schema(&output.schema),
            )
        };
        let config = body
            .entry("generationConfig")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(config) = config {
            config.insert(key.into(), schema);
        }
        Ok(())
    }
}
