//! OpenAI Chat Completions (`POST /v1/chat/completions`), also spoken by most OpenAI-compatible
//! servers (vLLM, Ollama's `/v1`, Groq, OpenRouter, Gemini's compatibility endpoint, ...).

use serde_json::{Map, Value};

use super::UsageKeys;
use crate::content::{Content, Document, ResultContent, Source, data_url};
use crate::message::call_arguments;
use crate::message::{Message, Part, ProviderData, ToolCall, ToolResult};
use crate::prose;
use crate::provider::api::bearer;
use crate::provider::decode::{Answer, Decoder};
use crate::provider::encode::{Encoder, object};
use crate::provider::lowering::{MediaRule, ResultLowering};
use crate::provider::names::{self, NameRule};
use crate::provider::read::Node;
use crate::provider::{
    Api, DecodeError, EncodeError, OutputSchema, Provider, Request, StopReason, ToolChoice, Usage,
    dialect,
};
use crate::tool::ToolDefinition;

mod stream;

const PROVIDER: Provider = Provider::OpenAiChat;

/// OpenAI Chat Completions and the OpenAI-compatible servers.
///
/// Encoding:
///
/// - [`Request::system`] is the first message, `role: "system"`; [`Role::System`](crate::Role::System) messages of
///   the transcript stay in place as `system` messages.
/// - A call is an entry of the assistant message's `tool_calls`, its arguments a JSON string; a
///   [`ToolResult`](crate::ToolResult) is a `role: "tool"` message right after it. There is no
///   error flag on this wire and skyl never sends an `is_error` key (Fireworks and Groq reject
///   unknown keys): a failed result's content is prefixed with `"error: "`, and a failure with
///   empty content is sent as `""`, its flag lost. Write failures as sentences.
/// - Text in a tool message is sent as a `user` message after the tool messages.
/// - A tool message holds text only, so a result's [content](crate::Content) is lowered: text,
///   links, resources and JSON are lines after the prose in the tool message; images
///   (`image_url`), PDFs given as bytes (`file`) and, with
///   [`with_audio_input(true)`](Self::with_audio_input), WAV and MP3 audio (`input_audio`) go
///   in that `user` message after the tool messages, each run introduced by a line naming the
///   call it belongs to. What Chat cannot take (audio by default, a PDF at a URL) is a line
///   saying it was left out. The model sees the media as the user's, not the tool's: that is
///   the loss.
/// - With [`with_strict(true)`](Self::with_strict) tools carry `"strict": true` and their schema
///   is lowered with [`dialect::openai_strict`](crate::provider::dialect::openai_strict); a schema that cannot be strict is an
///   [`EncodeError::Schema`].
/// - An assistant turn that only calls tools has `"content": ""`. OpenAI takes a missing, `null`
///   or empty `content` there, and the official SDKs send whatever they are given, but
///   compatible servers do not all agree: llama-cpp-python's server answers a missing `content`
///   and `null` with a 500 and takes `""`, which is also what the AI SDK sends every compatible
///   server. `""` is the one value every server tried takes.
/// - [`Request::max_tokens`] is sent as `max_completion_tokens` to OpenAI (its current name;
///   reasoning models reject `max_tokens`), and as `max_tokens` to a compatible server
///   ([`with_compatible`](Self::with_compatible), or a named [`server`](Self::server)): the name
///   every compatible server reads, where several (llama-cpp-python, older vLLM and Ollama) ignore
///   the new one and answer without a limit.
///
/// Decoding keeps an `arguments` string that is not valid JSON as a string (dispatching the call
/// then tells the model) and mints ids for calls a server sent without one (`call_<key>_<n>`, the
/// key being the response `id` or a hash of the body). It reads compatible servers as they really
/// answer: an empty `refusal` is no refusal, empty `content` next to calls is no text, an empty
/// `id` is no id, and calls with an empty, missing or `"stop"` `finish_reason` (OpenAI's own, when
/// `tool_choice` forces a call) stop for [`StopReason::ToolUse`].
///
/// # Compatible servers and what goes back to them
///
/// Some compatible servers put fields of their own on the assistant message and need them back on
/// the next request: Gemini's endpoint its thought signatures under `extra_content` (on the
/// message and on each call), DeepSeek in thinking mode its `reasoning_content` (a 400 without it
/// once the model has called a tool), vLLM and OpenRouter their `reasoning` or
/// `reasoning_details`. OpenAI's own request types forbid every one of them. Decoding keeps them as
/// [`ProviderData`] labelled with the adapter's [`server`](Self::server), and encoding sends them
/// back only to an adapter with the same label:
///
/// - [`OpenAiChat::default()`] talks to OpenAI itself. It sends nothing OpenAI does not define, so
///   a transcript from any compatible server can be continued on OpenAI.
/// - [`with_server("deepseek")`](Self::with_server) talks to a compatible server named
///   `"deepseek"`: what that server returned, decoded by an adapter of the same name, goes back
///   verbatim; another server's fields do not.
///
/// Name the server when it needs its fields back (DeepSeek, Gemini's endpoint, vLLM serving a
/// reasoning model). Leave Groq unnamed: it answers with `reasoning` but refuses that field (and
/// every field it does not list) in a request.
///
/// ```
/// use skyl::provider::{Adapter, OpenAiChat, Request};
/// use skyl::Message;
/// use serde_json::json;
///
/// let deepseek = OpenAiChat::default().with_server("deepseek");
/// let answer = deepseek.decode(&json!({
///     "choices": [{"finish_reason": "stop", "message": {
///         "role": "assistant", "content": "42.", "reasoning_content": "6 times 7."
///     }}]
/// }))?;
/// let request = Request {
///     model: "deepseek-chat".into(),
///     messages: vec![Message::user("6 × 7?"), answer.message, Message::user("Sure?")].into(),
///     ..Default::default()
/// };
/// let to_deepseek = deepseek.encode(&request)?;
/// assert_eq!(to_deepseek["messages"][1]["reasoning_content"], "6 times 7.");
/// let to_openai = OpenAiChat::default().encode(&request)?;
/// assert_eq!(to_openai["messages"][1], json!({"role": "assistant", "content": "42."}));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenAiChat {
    strict: bool,
    server: Option<&'static str>,
    compatible: bool,
    audio_input: bool,
}

impl OpenAiChat {
    /// Turns OpenAI strict mode on or off for every tool (off by default, as on the API).
    ///
    /// ```
    /// use skyl::provider::{Adapter, OpenAiChat};
    ///
    /// let strict = OpenAiChat::default().with_strict(true);
    /// assert_eq!(strict.provider(), skyl::provider::Provider::OpenAiChat);
    /// ```
    pub fn with_strict(self, strict: bool) -> Self {
        OpenAiChat { strict, ..self }
    }

    /// Names the OpenAI-compatible server this adapter talks to (`"deepseek"`, `"gemini"`,
    /// `"vllm"`, ...), so that the fields that server returned for itself go back to it; see
    /// [Compatible servers](Self#compatible-servers-and-what-goes-back-to-them). The name is a
    /// label of your choosing: answers decoded under one name go back only to an adapter of the
    /// same name. An empty name is no name: OpenAI itself.
    ///
    /// ```
    /// use skyl::provider::OpenAiChat;
    ///
    /// let gemini = OpenAiChat::default().with_server("gemini");
    /// assert_eq!(gemini.server(), Some("gemini"));
    /// assert_eq!(OpenAiChat::default().server(), None);
    /// ```
    pub fn with_server(self, server: &'static str) -> Self {
        OpenAiChat {
            server: (!server.is_empty()).then_some(server),
            ..self
        }
    }

    /// The compatible server this adapter talks to, `None` for OpenAI itself (or a compatible
    /// server without a name).
    pub fn server(&self) -> Option<&'static str> {
        self.server
    }

    /// Says whether this adapter talks to an OpenAI-compatible server rather than OpenAI itself,
    /// for the fields the two name differently: a compatible server gets the token limit as
    /// `max_tokens`. A named [`server`](Self::server) is compatible already. An
    /// `HttpModel` (feature `http`) whose base URL is not OpenAI's sets it.
    ///
    /// ```
    /// use skyl::provider::{Adapter, OpenAiChat, Request};
    ///
    /// let request = Request {
    ///     model: "smollm2".into(),
    ///     messages: vec![skyl::Message::user("Hi.")].into(),
    ///     max_tokens: Some(5),
    ///     ..Default::default()
    /// };
    /// let local = OpenAiChat::default().with_compatible(true).encode(&request).unwrap();
    /// assert_eq!(local["max_tokens"], 5);
    /// let openai = OpenAiChat::default().encode(&request).unwrap();
    /// assert_eq!(openai["max_completion_tokens"], 5);
    /// ```
    pub fn with_compatible(self, compatible: bool) -> Self {
        OpenAiChat { compatible, ..self }
    }

    /// Sends audio a tool returned (WAV and MP3) to the model as `input_audio`, in the `user`
    /// message after the tool messages (off by default). Only OpenAI's audio models take audio
    /// input, and any other answers the request with a 400; so by default a clip is a line
    /// saying it was left out. Turn it on when the model takes audio.
    ///
    /// ```
    /// use skyl::provider::OpenAiChat;
    ///
    /// let audio = OpenAiChat::default().with_audio_input(true);
    /// assert!(audio.takes_audio());
    /// assert!(!OpenAiChat::default().takes_audio());
    /// ```
    pub fn with_audio_input(self, audio_input: bool) -> Self {
        OpenAiChat {
            audio_input,
            ..self
        }
    }

    /// Whether audio a tool returned is sent to the model (see
    /// [`with_audio_input`](Self::with_audio_input)).
    pub fn takes_audio(&self) -> bool {
        self.audio_input
    }

    /// Whether this adapter talks to an OpenAI-compatible server (see
    /// [`with_compatible`](Self::with_compatible)).
    pub fn is_compatible(&self) -> bool {
        self.compatible || self.server.is_some()
    }

    /// The fields `data` holds for the message or call it came with, when they were returned by
    /// the server this adapter talks to.
    fn returned<'d>(&self, data: &'d ProviderData) -> Option<&'d Map<String, Value>> {
        let server = self.server?;
        let data = data.of(PROVIDER)?;
        if data.get(SERVER)?.as_str()? != server {
            return None;
        }
        data.get(FIELDS)?.as_object()
    }

    /// `fields` as provider data labelled with this adapter's server.
    fn keep(&self, fields: Map<String, Value>) -> ProviderData {
        let mut data = Map::with_capacity(2);
        if let Some(server) = self.server {
            data.insert(SERVER.into(), server.into());
        }
        data.insert(FIELDS.into(), Value::Object(fields));
        ProviderData::new(PROVIDER, Value::Object(data))
    }
}

/// The key of the provider data naming the server that returned it.
const SERVER: &str = "server";
/// The key of the provider data holding the fields to send back.
const FIELDS: &str = "fields";

/// The fields a compatible server adds to an assistant message and may need back: Gemini's
/// `extra_content` (thought signatures), DeepSeek's (Moonshot's, older vLLM's)
/// `reasoning_content`, vLLM's, Groq's and OpenRouter's `reasoning`, OpenRouter's
/// `reasoning_details`.
const MESSAGE_FIELDS: [&str; 4] = [
    "extra_content",
    "reasoning_content",
    "reasoning",
    "reasoning_details",
];

/// The fields a compatible server adds to a call and may need back: Gemini's `extra_content`.
const CALL_FIELDS: [&str; 1] = ["extra_content"];

/// `POST {base}/chat/completions`, `Authorization: Bearer`; the SDK's `OPENAI_API_KEY`,
/// `OPENAI_BASE_URL`, `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`. A stream asks for its usage
/// (`stream_options.include_usage`) unless the request says otherwise.
impl Api for OpenAiChat {
    fn default_base_url(&self) -> Option<&'static str> {
        Some(super::BASE_URL)
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &[super::KEY_VARIABLE]
    }

    fn base_url_variable(&self) -> Option<&'static str> {
        Some(super::BASE_URL_VARIABLE)
    }

    fn header_variables(&self) -> &'static [(&'static str, &'static str)] {
        super::HEADER_VARIABLES
    }

    fn url(&self, base: &str, _model: &str, _stream: bool) -> String {
        format!("{base}/chat/completions")
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        bearer(key)
    }

    /// Names the compatible servers whose fields go back to them by their host:
    /// `api.deepseek.com` is `deepseek`, `generativelanguage.googleapis.com` is `gemini`,
    /// `openrouter.ai` is `openrouter`; a name given by hand stays.
    fn adapt_to_host(&mut self, host: &str) {
        if self.server.is_none()
            && let Some(server) = compatible_server(host)
        {
            *self = self.with_server(server);
        }
        if !is_openai(host) {
            *self = self.with_compatible(true);
        }
    }

    fn stream_body(&self, body: &mut Value) {
        if let Value::Object(body) = body {
            body.insert("stream".into(), Value::Bool(true));
            // Without it the stream carries no token counts; a caller's own choice stays.
            body.entry("stream_options")
                .or_insert_with(|| object([("include_usage", Value::Bool(true))]));
        }
    }

    fn is_transient(&self, error_type: &str) -> bool {
        super::is_transient(error_type)
    }
}

/// Whether `host` serves OpenAI's own API (its own, or Azure's deployment of it), which reads
/// OpenAI's current field names; every other host is a compatible server.
fn is_openai(host: &str) -> bool {
    host == "api.openai.com" || host.ends_with(".openai.azure.com")
}

/// The name an OpenAI-compatible server's fields are kept under, from the host of its API; `None`
/// for OpenAI itself and for servers with nothing to send back (Groq returns `reasoning` but
/// refuses it in a request).
fn compatible_server(host: &str) -> Option<&'static str> {
    match host {
        "api.deepseek.com" => Some("deepseek"),
        "generativelanguage.googleapis.com" => Some("gemini"),
        "openrouter.ai" => Some("openrouter"),
        _ => None,
    }
}

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
        super::transcript(
            &request.messages,
            &mut messages,
            text_message,
            media_message,
            |message, items| items.extend(assistant_message(self, message)),
            |result, content, media| {
                let content = match content {
                    None => super::result_content(result),
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
            super::parameters(PROVIDER, self.strict, tool)?,
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
        super::cache_options(request, body);
    }

    fn output(
        &self,
        output: &OutputSchema,
        body: &mut Map<String, Value>,
    ) -> Result<(), EncodeError> {
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
    let (text, carried) = lowering.split(super::result_text(result), result, content);
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
                    ("filename", title.as_deref().unwrap_or(DOCUMENT_NAME).into()),
                    ("file_data", data_url(media_type, data).into()),
                ]),
            ),
        ]),
        // The lowering gives no other medium.
        _ => return None,
    })
}

/// The file name of a document that has no title.
pub(super) const DOCUMENT_NAME: &str = "document.pdf";

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

impl Decoder for OpenAiChat {
    const PROVIDER: Provider = PROVIDER;
    const ID: &'static str = "id";
    const MODEL: &'static str = "model";

    fn error(&self, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError> {
        super::error(PROVIDER, root)
    }

    fn answer<'a>(
        &self,
        root: Node<'a>,
        answer: &mut Answer<'a>,
    ) -> Result<StopReason, DecodeError> {
        let choices = root.get("choices");
        let Some(choice) = choices.array()?.next() else {
            return Err(choices.error("a non-empty array"));
        };
        let message = choice.get("message");
        message.object()?;
        let returned = returned_by(message, &MESSAGE_FIELDS);
        if !returned.is_empty() {
            answer.push(Part::Provider(self.keep(returned)));
        }
        let content = message.get("content");
        match content.value() {
            None => {}
            Some(Value::String(text)) if text.is_empty() => {}
            Some(Value::String(text)) => answer.push(Part::Text(text.clone())),
            Some(Value::Array(_)) => {
                for item in content.array()? {
                    if let Some(text) = item.get("text").opt_str()? {
                        answer.push(Part::Text(text.to_owned()));
                    }
                }
            }
            Some(_) => return Err(content.error("a string, an array or null")),
        }
        // Snowflake Cortex sends `"refusal": ""` on every answer, calls included.
        let refusal = message
            .get("refusal")
            .opt_str()?
            .filter(|refusal| !refusal.is_empty());
        if let Some(refusal) = refusal {
            answer.push(Part::Text(refusal.to_owned()));
        }
        for call in message.get("tool_calls").opt_array()? {
            let id = match call.get("id").opt_str()? {
                Some(id) if !id.is_empty() => id.to_owned(),
                _ => answer.mint_id("call"),
            };
            let function = call.get("function");
            let arguments = function.get("arguments");
            let arguments = match arguments.value() {
                None => Value::Object(Map::new()),
                Some(Value::String(text)) => call_arguments::from_text(text),
                // Some compatible servers send the object itself.
                Some(Value::Object(object)) => Value::Object(object.clone()),
                Some(_) => return Err(arguments.error("a string")),
            };
            let mut tool_call = ToolCall::new(id, function.get("name").str()?, arguments);
            let returned = returned_by(call, &CALL_FIELDS);
            if !returned.is_empty() {
                tool_call.provider_data = Some(self.keep(returned));
            }
            answer.push(Part::ToolCall(tool_call));
        }
        Ok(match choice.get("finish_reason").opt_str()? {
            _ if refusal.is_some() => StopReason::Refusal,
            // With calls, "stop", "" and nothing all become a tool use, in `decode::decode`.
            Some("stop") => StopReason::EndTurn,
            Some("tool_calls" | "function_call") => StopReason::ToolUse,
            Some("length") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::ContentFilter,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::Other(String::new()),
        })
    }

    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError> {
        super::usage(
            root.get("usage"),
            &UsageKeys {
                input: "prompt_tokens",
                output: "completion_tokens",
                input_details: "prompt_tokens_details",
                output_details: "completion_tokens_details",
            },
        )
    }
}

/// The fields of `names` that `node` (a message or a call) holds and that are worth keeping.
fn returned_by(node: Node<'_>, names: &[&str]) -> Map<String, Value> {
    names
        .iter()
        .filter_map(|&key| {
            let value = node.get(key).value().filter(|value| kept(value))?;
            Some((key.to_owned(), value.clone()))
        })
        .collect()
}

/// Whether a field a server returned for itself is worth keeping: anything but `null` and an
/// empty array or object. An empty string is kept, as DeepSeek wants its `reasoning_content` back
/// on every turn with calls, even when it is empty.
fn kept(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Array(items) => !items.is_empty(),
        Value::Object(members) => !members.is_empty(),
        _ => true,
    }
}
