//! Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`), the Developer API
//! and Vertex AI.

use std::sync::LazyLock;

use serde_json::{Map, Value};

use super::api::path_segment;
use super::caching;
use super::decode::{Answer, Decoder, provider_error};
use super::encode::{self, Encoder, object};
use super::lowering::{self, MediaRule, ResultLowering};
use super::names::NameRule;
use super::read::Node;
use super::{
    Adapter, Api, DecodeError, EncodeError, OutputSchema, Provider, Request, StopReason,
    ToolChoice, Usage, dialect,
};
use crate::content::{self, Content as ResultPart, ResultContent, Source};
use crate::message::call_arguments;
use crate::message::{Message, Part, ProviderData, Role, ToolCall, ToolResult};
use crate::prose;
use crate::tool::ToolDefinition;

const PROVIDER: Provider = Provider::Gemini;

fn name_first(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')
}

/// Tool names: `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`. The API reference says of
/// `FunctionDeclaration.name`: "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9,
/// or contain underscores, dots, colons and dashes"; the API's own error gives a maximum length
/// of 64 (the Python SDK's docstring says 128).
pub(super) const NAMES: NameRule = NameRule {
    text: "a letter or `_` first, then a-z, A-Z, 0-9, `_`, `.`, `:` or `-`, at most 64 characters",
    first: name_first,
    allowed: name_char,
    max: 64,
};

/// Gemini `generateContent`.
///
/// Encoding:
///
/// - [`Request::system`] and the text of every [`Role::System`] message, in that order, become
///   the parts of `systemInstruction` (a system message's position is not kept). The model is
///   part of the URL, so [`Request::model`] is not in the body.
/// - Assistant messages are `model` contents; consecutive ones are merged into one (a function
///   call turn must follow a user turn or a function response turn). The results answering one assistant turn are one
///   `user` content of `functionResponse` parts, in the order of the calls, whatever order the
///   tool messages hold them in; each takes its `name` from its call. Text in those tool messages
///   follows the responses in the same content.
/// - A result is `response: {"output": content}`. The error flag is dropped by default: Gemini
///   has no flag for it, so the content must say that the tool failed;
///   [`with_error_key(true)`](Self::with_error_key) sends a failure as `response: {"error":
///   content}`, the key Google documents for errors ("Use 'output' key to specify function
///   output and 'error' key to specify error details", `FunctionResponse.response`).
/// - A result's [content](crate::Content): images (PNG, JPEG, WebP) and PDFs, the media a
///   function response takes (Gemini 3's multimodal function responses), are its `parts`, as
///   `inlineData` or, at a URL, `fileData`; text, links, resources and JSON are lines after the
///   prose in `output`. Audio, which a function response cannot hold, is an `inlineData` part
///   of the same `user` content, after the responses and a line naming its call (and so are
///   images and PDFs with [`with_response_parts(false)`](Self::with_response_parts), for
///   models before Gemini 3). Any other media (a GIF, an image at a URL of no known type) is a
///   line saying it was left out.
/// - Ids: a call's id is sent on the call and its response, except ids skyl minted for calls
///   Gemini sent without one (Gemini matches those by order and name); Vertex rejects ids, so
///   [`with_call_ids(false)`](Self::with_call_ids) sends none.
/// - `thoughtSignature`s come back on the part they came with (a signed text decodes as
///   [`Part::ProviderText`], a signed call keeps it in [`ToolCall::provider_data`]); thought
///   parts are sent back as they came; empty text is dropped (Gemini rejects empty parts) and so is a content left
///   empty. Should the transcript then open with the model, an empty user turn is put first
///   (a function call turn must follow a user turn).
/// - Tool schemas go in `parametersJsonSchema` ([`dialect::gemini_json_schema`](super::dialect::gemini_json_schema));
///   [`with_legacy_parameters(true)`](Self::with_legacy_parameters) sends the OpenAPI subset in
///   `parameters` instead ([`dialect::gemini_openapi`](super::dialect::gemini_openapi)), where a recursive type is an
///   [`EncodeError::Schema`].
/// - [`Request::max_tokens`] is `generationConfig.maxOutputTokens`.
///
/// Decoding mints an id for every call without one: `gemini_<key>_<n>`, `n` the call's position
/// in the answer and `key` the response's `responseId` (or a hash of the body when there is
/// none), so ids never collide across the turns of a transcript. A response without candidates
/// (a blocked prompt) is a [`DecodeError::Blocked`]; a candidate without content (stopped by a
/// safety filter) is an empty message with its stop reason.
///
/// ```
/// use skyl::provider::{Adapter, Gemini};
///
/// let vertex = Gemini::default().with_call_ids(false).with_error_key(true);
/// assert_eq!(vertex.provider(), skyl::provider::Provider::Gemini);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemini {
    error_key: bool,
    call_ids: bool,
    legacy_parameters: bool,
    response_parts: bool,
}

impl Default for Gemini {
    fn default() -> Self {
        Gemini {
            error_key: false,
            call_ids: true,
            legacy_parameters: false,
            response_parts: true,
        }
    }
}

impl Gemini {
    /// Sends a failed result as `response: {"error": content}` instead of `{"output": content}`
    /// (off by default: the flag is dropped).
    pub fn with_error_key(self, error_key: bool) -> Self {
        Gemini { error_key, ..self }
    }

    /// Sends call ids on `functionCall` and `functionResponse` (on by default; turn off for
    /// Vertex AI, which rejects them).
    pub fn with_call_ids(self, call_ids: bool) -> Self {
        Gemini { call_ids, ..self }
    }

    /// Sends tool schemas in the legacy `parameters` field (an OpenAPI 3.0 subset) instead of
    /// `parametersJsonSchema` (off by default).
    pub fn with_legacy_parameters(self, legacy_parameters: bool) -> Self {
        Gemini {
            legacy_parameters,
            ..self
        }
    }

    /// Sends the images and PDFs of a result in its `functionResponse`'s `parts` (on by
    /// default: Gemini 3's multimodal function responses). Turn off for a model older than
    /// Gemini 3, which takes no `parts` there: the media then go as `inlineData` (or `fileData`)
    /// parts of the same `user` turn, after the responses and a line naming their call, as
    /// audio always does.
    ///
    /// ```
    /// use skyl::provider::Gemini;
    ///
    /// let gemini_2_5 = Gemini::default().with_response_parts(false);
    /// # let _ = gemini_2_5;
    /// ```
    pub fn with_response_parts(self, response_parts: bool) -> Self {
        Gemini {
            response_parts,
            ..self
        }
    }

    /// The id to send for `call`, if any.
    fn wire_id<'a>(&self, call: &'a ToolCall) -> Option<&'a str> {
        let minted = own(call.provider_data.as_ref())
            .and_then(|data| data.get("minted_id"))
            .is_some_and(|minted| minted == &Value::Bool(true));
        (self.call_ids && !minted).then_some(call.id.as_str())
    }

    /// The parts of a `model` content for an assistant message.
    fn model_parts(&self, message: &Message, parts: &mut Vec<Value>) {
        for part in &message.parts {
            match part {
                Part::Text(text) if !text.is_empty() => parts.push(text_part(text)),
                Part::ProviderText {
                    text,
                    provider_data,
                } => {
                    let signature =
                        own(Some(provider_data)).and_then(|data| data.get("thoughtSignature"));
                    match signature {
                        Some(signature) => parts.push(object([
                            ("text", Value::from(&**text)),
                            ("thoughtSignature", signature.clone()),
                        ])),
                        None if !text.is_empty() => parts.push(text_part(text)),
                        None => {}
                    }
                }
                Part::ToolCall(call) => {
                    let mut function_call = Map::with_capacity(3);
                    function_call.insert("name".into(), Value::from(&*call.name));
                    function_call.insert(
                        "args".into(),
                        Value::Object(call_arguments::to_object(&call.arguments)),
                    );
                    if let Some(id) = self.wire_id(call) {
                        function_call.insert("id".into(), id.into());
                    }
                    let mut wire = Map::with_capacity(2);
                    wire.insert("functionCall".into(), Value::Object(function_call));
                    if let Some(signature) = own(call.provider_data.as_ref())
                        .and_then(|data| data.get("thoughtSignature"))
                    {
                        wire.insert("thoughtSignature".into(), signature.clone());
                    }
                    parts.push(Value::Object(wire));
                }
                Part::Provider(data) => {
                    if let Some(verbatim) = own(Some(data)).and_then(|data| data.get("part")) {
                        parts.push(verbatim.clone());
                    }
                }
                _ => {}
            }
        }
    }

    /// The `functionResponse` part of a result; audio in its content, which a function response
    /// cannot hold, goes onto `after`, for the same content after the responses.
    fn response_part(
        &self,
        call: &ToolCall,
        result: &ToolResult,
        content: Option<&ResultContent>,
        after: &mut Vec<Value>,
    ) -> Value {
        let key = if self.error_key && result.is_error {
            "error"
        } else {
            "output"
        };
        let mut response = Map::with_capacity(4);
        response.insert("name".into(), Value::from(&*call.name));
        let Some(content) = content else {
            response.insert(
                "response".into(),
                object([(key, Value::from(&*result.content))]),
            );
            if let Some(id) = self.wire_id(call) {
                response.insert("id".into(), id.into());
            }
            return object([("functionResponse", Value::Object(response))]);
        };
        let (output, media) = LOWERING.split(result.content.clone(), result, content);
        let mut parts = Vec::new();
        // Audio, and the media a model before Gemini 3 takes only beside the response.
        let mut audio = Vec::new();
        for part in &media {
            match response_media(part) {
                Media::Part(value) if self.response_parts => parts.push(value),
                Media::Part(value) | Media::After(value) => audio.push(value),
            }
        }
        response.insert("response".into(), object([(key, output.into())]));
        if let Some(id) = self.wire_id(call) {
            response.insert("id".into(), id.into());
        }
        if !parts.is_empty() {
            response.insert("parts".into(), Value::Array(parts));
        }
        if !audio.is_empty() {
            after.push(text_part(&prose::media_of_call(&call.id)));
            after.extend(audio);
        }
        object([("functionResponse", Value::Object(response))])
    }
}

/// Where a medium of a result's content goes on this wire.
enum Media {
    /// In the function response's `parts`.
    Part(Value),
    /// In the `user` content, after the function responses.
    After(Value),
}

/// The media types a function response's `parts` take.
const RESPONSE_MEDIA: &[&str] = &["image/png", "image/jpeg", "image/webp", "application/pdf"];

/// What a function response takes: PNG, JPEG and WebP images and PDFs in its `parts`, and
/// audio of any type beside it.
const LOWERING: ResultLowering = ResultLowering::new(PROVIDER)
    .images(MediaRule::only(RESPONSE_MEDIA, RESPONSE_MEDIA_ONLY))
    .documents(MediaRule::only(RESPONSE_MEDIA, RESPONSE_MEDIA_ONLY))
    .audio(MediaRule::any());

const RESPONSE_MEDIA_ONLY: &str =
    "takes only PNG, JPEG and WebP images and PDFs in a function response";

fn response_media(part: &ResultPart) -> Media {
    let (media_type, source) = match part {
        ResultPart::Image(image) => (&image.media_type, &image.source),
        ResultPart::Document(document) => (&document.media_type, &document.source),
        ResultPart::Audio(audio) => {
            return Media::After(inline_data(&audio.media_type, &audio.data));
        }
        // The lowering gives no other medium.
        other => return Media::After(text_part(&content::line(other))),
    };
    Media::Part(match source {
        Source::Base64(data) => inline_data(media_type, data),
        Source::Url(url) => object([(
            "fileData",
            object([
                ("mimeType", Value::from(&**media_type)),
                ("fileUri", Value::from(&**url)),
            ]),
        )]),
    })
}

fn inline_data(media_type: &str, data: &str) -> Value {
    object([(
        "inlineData",
        object([("mimeType", media_type.into()), ("data", data.into())]),
    )])
}

/// The data, when it is Gemini's.
fn own(data: Option<&ProviderData>) -> Option<&Value> {
    data.and_then(|data| data.of(PROVIDER))
}

/// `{"minted_id": true}`: the provider data of a call whose id skyl minted, which
/// [`Gemini::wire_id`] keeps off the wire.
///
/// Built once and cloned for each call: a clone copies the map's small table where a new map
/// would hash its key again, and Gemini mints an id for nearly every call it makes.
fn minted_mark() -> Map<String, Value> {
    static MARK: LazyLock<Map<String, Value>> =
        LazyLock::new(|| Map::from_iter([("minted_id".to_owned(), Value::Bool(true))]));
    MARK.clone()
}

fn text_part(text: &str) -> Value {
    object([("text", text.into())])
}

/// The non-empty texts of a message, as parts.
fn text_parts(message: &Message) -> impl Iterator<Item = Value> + '_ {
    message
        .parts
        .iter()
        .filter_map(Part::text)
        .filter(|text| !text.is_empty())
        .map(text_part)
}

/// A content on the wire while it is being built: whose it is, and its parts.
struct Content {
    model: bool,
    parts: Vec<Value>,
}

impl Content {
    fn into_value(self) -> Value {
        let role = if self.model { "model" } else { "user" };
        object([("role", role.into()), ("parts", Value::Array(self.parts))])
    }
}

/// `POST {base}/v1beta/models/{model}:generateContent` (`:streamGenerateContent?alt=sse` to
/// stream: the body does not change); the key in `x-goog-api-key`; the SDK's `GOOGLE_API_KEY`
/// or `GEMINI_API_KEY` and `GOOGLE_GEMINI_BASE_URL`.
impl Api for Gemini {
    fn default_base_url(&self) -> Option<&'static str> {
        Some("https://generativelanguage.googleapis.com")
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &["GOOGLE_API_KEY", "GEMINI_API_KEY"]
    }

    fn base_url_variable(&self) -> Option<&'static str> {
        Some("GOOGLE_GEMINI_BASE_URL")
    }

    fn url(&self, base: &str, model: &str, stream: bool) -> String {
        let model = model.strip_prefix("models/").unwrap_or(model);
        let method = if stream {
            "streamGenerateContent?alt=sse"
        } else {
            "generateContent"
        };
        format!("{base}/v1beta/models/{}:{method}", path_segment(model))
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        key.map(|key| ("x-goog-api-key", key.to_owned()))
            .into_iter()
            .collect()
    }

    fn stream_body(&self, _body: &mut Value) {}

    /// Gemini's stream has no end marker: it is read to its end.
    fn ends_at_completion(&self) -> bool {
        false
    }

    /// Gemini answers some errors as a one-element array of its error object.
    fn error_words(&self, body: &Value) -> Option<(Option<String>, String)> {
        let body = match body {
            Value::Array(items) if items.len() == 1 => &items[0],
            body => body,
        };
        match self.decode(body) {
            Err(DecodeError::Provider { kind, message, .. }) if !message.is_empty() => {
                Some((kind, message))
            }
            _ => None,
        }
    }

    /// Google's `UNAVAILABLE` (503), `RESOURCE_EXHAUSTED` (429) and `INTERNAL` (500).
    fn is_transient(&self, error_type: &str) -> bool {
        matches!(
            error_type,
            "UNAVAILABLE" | "RESOURCE_EXHAUSTED" | "INTERNAL"
        )
    }
}

/// Prompt caching: Gemini caches recent prefixes by itself (implicit caching), which needs
/// nothing on the wire; [`Caching::cached_content`](super::Caching::cached_content) names a cache
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
            config.insert("responseMimeType".into(), "application/json".into());
            config.insert(key.into(), schema);
        }
        Ok(())
    }
}

impl Decoder for Gemini {
    const PROVIDER: Provider = PROVIDER;
    const ID: &'static str = "responseId";
    const MODEL: &'static str = "modelVersion";

    fn error(&self, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError> {
        let error = root.get("error");
        if error.value().is_none() {
            return Ok(None);
        }
        error.object()?;
        Ok(Some(provider_error(PROVIDER, error, "status")?))
    }

    fn answer<'a>(
        &self,
        root: Node<'a>,
        answer: &mut Answer<'a>,
    ) -> Result<StopReason, DecodeError> {
        // Not an object at all: say so, rather than call it a blocked prompt.
        root.object()?;
        let Some(candidate) = root.get("candidates").opt_array()?.next() else {
            return Err(DecodeError::Blocked {
                provider: PROVIDER,
                reason: root
                    .get("promptFeedback")
                    .get("blockReason")
                    .opt_str()?
                    .map(str::to_owned),
            });
        };
        // A candidate may lack content (a safety stop), but what is there must have its shape.
        candidate.object()?;
        let content = candidate.get("content");
        content.opt_object()?;
        for part in content.get("parts").opt_array()? {
            part.object()?;
            let signature = part.get("thoughtSignature").opt_str()?;
            let function_call = part.get("functionCall");
            let text = part.get("text").opt_str()?;
            let is_thought = part.get("thought").value() == Some(&Value::Bool(true));
            if function_call.value().is_some() {
                function_call.object()?;
                let id = function_call
                    .get("id")
                    .opt_str()?
                    .filter(|id| !id.is_empty());
                let data = match (signature, id) {
                    // How Gemini usually calls: no id, no signature; the mark alone.
                    (None, None) => minted_mark(),
                    (signature, id) => {
                        let mut data = Map::new();
                        if let Some(signature) = signature {
                            data.insert("thoughtSignature".into(), signature.into());
                        }
                        if id.is_none() {
                            data.insert("minted_id".into(), true.into());
                        }
                        data
                    }
                };
                let id = match id {
                    Some(id) => id.to_owned(),
                    None => answer.mint_id("gemini"),
                };
                let args = function_call.get("args").opt_object()?;
                let mut call = ToolCall::new(
                    id,
                    function_call.get("name").str()?,
                    Value::Object(args.cloned().unwrap_or_default()),
                );
                if !data.is_empty() {
                    call.provider_data = Some(ProviderData::new(PROVIDER, Value::Object(data)));
                }
                answer.push(Part::ToolCall(call));
            } else if let (Some(text), false) = (text.filter(|t| !t.is_empty()), is_thought) {
                answer.push(match signature {
                    Some(signature) => Part::ProviderText {
                        text: text.to_owned(),
                        provider_data: ProviderData::new(
                            PROVIDER,
                            object([("thoughtSignature", signature.into())]),
                        ),
                    },
                    None => Part::Text(text.to_owned()),
                });
            } else if is_thought || signature.is_some() || text.is_none() {
                // Thoughts, signed empty text, and parts skyl does not read: sent back verbatim.
                answer.push(Part::Provider(ProviderData::new(
                    PROVIDER,
                    object([("part", Value::Object(part.object()?.clone()))]),
                )));
            }
        }
        Ok(match candidate.get("finishReason").opt_str()? {
            Some("STOP") => StopReason::EndTurn,
            Some("MAX_TOKENS") => StopReason::MaxTokens,
            Some(
                "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
                | "IMAGE_SAFETY",
            ) => StopReason::ContentFilter,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::Other(String::new()),
        })
    }

    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError> {
        let usage = root.get("usageMetadata");
        let thoughts = usage.get("thoughtsTokenCount").opt_u64()?;
        Ok(Usage {
            input_tokens: usage.get("promptTokenCount").count()?,
            // Gemini counts thoughts apart from the answer and bills them as output, as the
            // other providers count reasoning inside their output.
            output_tokens: usage
                .get("candidatesTokenCount")
                .count()?
                .saturating_add(thoughts.unwrap_or(0)),
            cached_input_tokens: usage.get("cachedContentTokenCount").opt_u64()?,
            cache_write_tokens: None,
            reasoning_tokens: thoughts,
            unreported: usage.value().is_none(),
        })
    }
}
