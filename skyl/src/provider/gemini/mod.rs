//! Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`), the Developer API
//! and Vertex AI.

use std::sync::LazyLock;

use serde_json::{Map, Value};

use super::Provider;
use super::encode::object;
use super::lowering::{MediaRule, ResultLowering};
use super::names::NameRule;
#[cfg(doc)]
use super::{DecodeError, EncodeError, Request};
use crate::content::{self, Content as ResultPart, ResultContent, Source};
#[cfg(doc)]
use crate::message::Role;
use crate::message::call_arguments;
use crate::message::{Message, Part, ProviderData, ToolCall, ToolResult};
use crate::prose;

mod api;
mod decode;
mod encode;
mod stream;

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
