//! The Anthropic Messages API (`POST /v1/messages`).

use serde_json::{Map, Value};

use super::caching::{self, Plan};
use super::call_ids::AnthropicIds;
use super::decode::{Answer, Decoder, provider_error};
use super::encode::{self, Encoder, object};
use super::lowering::{self, Lowered, MediaRule, ResultLowering};
use super::names::{self, NameRule};
use super::read::Node;
use super::{
    Api, DecodeError, EncodeError, OutputSchema, Provider, Request, StopReason, ToolChoice, Usage,
    dialect,
};
use crate::content::{self, Content, ResultContent, Source};
use crate::message::call_arguments;
use crate::message::{Message, Part, ProviderData, Role, ToolCall, ToolResult};
use crate::tool::ToolDefinition;

const PROVIDER: Provider = Provider::Anthropic;

/// The user turn put first when the transcript opens with the assistant (trimmed history, a
/// greeting): the API wants the first message from the user and rejects empty text.
const OPENING_TEXT: &str = "(continued)";

/// The Anthropic Messages API.
///
/// Encoding:
///
/// - [`Request::system`] and the text of every [`Role::System`] message, in that order, are
///   joined with a blank line into the top-level `system` (the Messages API has no system role;
///   a system message's position in the transcript is not kept).
/// - User and tool messages become `user` messages, assistant messages `assistant` ones;
///   consecutive messages of the same role are merged, so the results of one assistant turn all
///   arrive in one `user` message, and within a `user` message every `tool_result` block comes
///   before any text ("tool_result blocks must come FIRST in the content array").
/// - A [`ToolResult`] is a `tool_result` block with a real `is_error` boolean, sent as `true` or
///   `false` on every result, as in recorded traffic the API accepted. An empty content is left
///   out (the documented shape of an empty result) rather than sent as `""`.
/// - A result with [content](crate::Content) beside it has a list of blocks as its `content`:
///   its prose as a `text` block, then an `image` block (base64 or URL source) per image, a
///   `document` block per PDF, and a `text` block for each other part. Audio, which Anthropic
///   does not take, and an image over its 5 MB, are a line of text saying what was left out.
/// - Empty text is dropped (the API rejects empty text blocks), and so is a message left empty.
///   Should the transcript then open with the assistant, a user message holding the text
///   `(continued)` is put first (the API answers "first message must use the \"user\" role").
/// - Call ids are made to match `^[a-zA-Z0-9_-]+$` (ids from other providers may not), the same
///   way on the call and on its result. Every call of the request gets an id no other call has
///   (Anthropic wants `tool_use` ids unique): an id that a cleaned id or an earlier turn already
///   took gets a `_2`, `_3`, ... suffix, on the call and on its result.
/// - Thinking and other blocks decoded from a response are sent back in place, verbatim.
/// - `max_tokens` is required by the API: [`Request::max_tokens`] or
///   [`DEFAULT_MAX_TOKENS`](Self::DEFAULT_MAX_TOKENS).
/// - Prompt caching ([`Request::caching`], see [`Caching`](super::Caching)): by default a
///   `cache_control: {"type": "ephemeral"}` breakpoint on the last tool (the tools are sent sorted
///   by name), on the system prompt (then sent as one `text` block, since a breakpoint goes on a
///   block), and on the last block of each of the two newest `user` messages: four, the API's
///   limit. A thinking block never carries one; the block before it does.
///
/// ```
/// use skyl::provider::{Adapter, Anthropic, Request};
///
/// let body = Anthropic
///     .encode(&Request { model: "claude-sonnet-4-5".into(), messages: vec![skyl::Message::user("Hi")].into(), ..Default::default() })
///     .unwrap();
/// assert_eq!(body["max_tokens"], 4096);
/// assert_eq!(body["messages"][0]["content"][0]["text"], "Hi");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Anthropic;

impl Anthropic {
    /// The `max_tokens` sent when [`Request::max_tokens`] is `None`: the API requires one. 4096 is
    /// what pydantic-ai sends in the recorded traffic, and within every current model's limit.
    pub const DEFAULT_MAX_TOKENS: u32 = 4096;
}

/// The `anthropic-version` header every Messages request carries.
const VERSION: &str = "2023-06-01";

/// `POST {base}/v1/messages`; the key in `x-api-key`, and `anthropic-version: 2023-06-01`; the
/// SDK's `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`.
impl Api for Anthropic {
    fn default_base_url(&self) -> Option<&'static str> {
        Some("https://api.anthropic.com")
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &["ANTHROPIC_API_KEY"]
    }

    fn base_url_variable(&self) -> Option<&'static str> {
        Some("ANTHROPIC_BASE_URL")
    }

    fn url(&self, base: &str, _model: &str, _stream: bool) -> String {
        format!("{base}/v1/messages")
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        let mut headers = vec![("anthropic-version", VERSION.to_owned())];
        headers.extend(key.map(|key| ("x-api-key", key.to_owned())));
        headers
    }

    /// Anthropic's `overloaded_error` (its 529), `api_error` (its 500) and `rate_limit_error`.
    fn is_transient(&self, error_type: &str) -> bool {
        matches!(
            error_type,
            "overloaded_error" | "api_error" | "rate_limit_error"
        )
    }
}

impl Encoder for Anthropic {
    const PROVIDER: Provider = PROVIDER;
    const TOOL_NAMES: NameRule = names::WORD_64;
    const TRANSCRIPT: &'static str = "messages";

    fn head(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        body.insert("model".into(), Value::from(&*request.model));
        body.insert(
            "max_tokens".into(),
            Value::from(request.max_tokens.unwrap_or(Self::DEFAULT_MAX_TOKENS)),
        );
        let system = encode::system_texts(request);
        if system.is_empty() {
            return;
        }
        let system = system.join("\n\n");
        let system = if plan(request).system {
            // A breakpoint goes on a block, so the system prompt becomes one.
            let mut block = text_block(&system);
            mark(&mut block, request);
            Value::Array(vec![block])
        } else {
            Value::String(system)
        };
        body.insert("system".into(), system);
    }

    fn transcript(&self, request: &Request<'_>) -> Vec<Value> {
        let mut ids = AnthropicIds::new(&request.messages);
        let mut messages = Vec::with_capacity(request.messages.len());
        let mut turn: Option<Turn> = None;
        let plan = plan(request);
        for (index, message) in request.messages.iter().enumerate() {
            let assistant = match message.role {
                Role::System => continue,
                Role::User | Role::Tool => false,
                Role::Assistant => true,
            };
            if assistant {
                ids.open_turn(message.tool_calls().map(|call| call.id.as_str()));
            }
            // Consecutive messages of one role are one turn; a message with nothing to send
            // neither opens a turn nor separates two.
            for part in &message.parts {
                let Some((block, is_result)) = block(part, message, &ids) else {
                    continue;
                };
                let current = match &mut turn {
                    Some(current) if current.assistant == assistant => current,
                    _ => {
                        messages.extend(turn.take().map(Turn::into_message));
                        turn.insert(Turn::new(assistant, message.parts.len()))
                    }
                };
                current.push(block, is_result);
                current.last = Some(is_result);
            }
            if plan.pinned.contains(&index)
                && let Some(current) = &mut turn
            {
                current.mark_last(request);
            }
            if let Some(current) = &mut turn {
                current.last = None;
            }
        }
        messages.extend(turn.map(Turn::into_message));
        mark_newest(&mut messages, plan.newest, request);
        // "messages: first message must use the \"user\" role"; text blocks must be non-empty.
        if messages
            .first()
            .is_some_and(|first| first["role"] == "assistant")
        {
            let mut opening = Turn::new(false, 1);
            opening.push(text_block(OPENING_TEXT), false);
            messages.insert(0, opening.into_message());
        }
        messages
    }

    fn tool(&self, tool: &ToolDefinition) -> Result<Value, EncodeError> {
        Ok(object([
            ("name", Value::from(&*tool.name)),
            ("description", Value::from(&*tool.description)),
            ("input_schema", caching::canonical_schema(&tool.parameters)),
        ]))
    }

    /// Anthropic's tool search tool, its BM25 variant: the model searches in words, as a
    /// person would ask.
    fn tool_search(&self) -> Option<Value> {
        Some(object([
            ("type", Value::from("tool_search_tool_bm25_20251119")),
            ("name", Value::from("tool_search_tool_bm25")),
        ]))
    }

    fn tools(&self, declarations: Vec<Value>, choice: &ToolChoice, body: &mut Map<String, Value>) {
        body.insert("tools".into(), Value::Array(declarations));
        let choice = match choice {
            ToolChoice::Auto => object([("type", "auto".into())]),
            ToolChoice::None => object([("type", "none".into())]),
            ToolChoice::Required => object([("type", "any".into())]),
            ToolChoice::Tool(name) => object([("type", "tool".into()), ("name", name[..].into())]),
        };
        body.insert("tool_choice".into(), choice);
    }

    fn tail(&self, request: &Request<'_>, body: &mut Map<String, Value>) {
        if plan(request).tools
            && let Some(Value::Array(tools)) = body.get_mut("tools")
            && let Some(last) = tools.last_mut()
        {
            mark(last, request);
        }
    }

    fn output(
        &self,
        output: &OutputSchema,
        body: &mut Map<String, Value>,
    ) -> Result<(), EncodeError> {
        let schema = dialect::anthropic_output(&output.schema)
            .map_err(|error| EncodeError::output_schema(PROVIDER, &output.name, error))?;
        let format = object([("type", "json_schema".into()), ("schema", schema)]);
        body.insert("output_config".into(), object([("format", format)]));
        Ok(())
    }
}

/// The request's breakpoints ([`Request::caching`]), within the API's four.
fn plan(request: &Request<'_>) -> Plan {
    request.caching.plan(
        !request.tools.is_empty(),
        !encode::system_texts(request).is_empty(),
        request.messages.len(),
    )
}

/// Puts the request's `cache_control` on a block.
fn mark(block: &mut Value, request: &Request<'_>) {
    if let Value::Object(block) = block {
        block.insert(
            "cache_control".into(),
            caching::cache_control(request.caching.ttl),
        );
    }
}

/// Whether a block may carry `cache_control`: thinking blocks may not ("Thinking blocks cannot
/// be cached directly"), so a breakpoint goes on the block before.
fn markable(block: &Value) -> bool {
    !matches!(
        block["type"].as_str(),
        Some("thinking" | "redacted_thinking")
    )
}

/// Marks the last markable block of the newest `count` user messages: the sliding breakpoints.
fn mark_newest(messages: &mut [Value], count: usize, request: &Request<'_>) {
    let users = messages
        .iter_mut()
        .rev()
        .filter(|message| message["role"] == "user")
        .take(count);
    for message in users {
        if let Some(Value::Array(content)) = message.get_mut("content")
            && let Some(block) = content.iter_mut().rev().find(|block| markable(block))
        {
            mark(block, request);
        }
    }
}

/// The blocks of one message on the wire, the `tool_result` blocks first ("tool_result blocks
/// must come FIRST in the content array"), each kind in its order.
struct Turn {
    assistant: bool,
    content: Vec<Value>,
    /// How many `tool_result` blocks lead `content`.
    results: usize,
    /// Whether the last block the current message of the transcript added was a `tool_result`
    /// (`None`: it added none), to pin a breakpoint on it.
    last: Option<bool>,
}

impl Turn {
    /// A turn sized for `blocks` blocks (the parts of the message that opens it).
    fn new(assistant: bool, blocks: usize) -> Self {
        Turn {
            assistant,
            content: Vec::with_capacity(blocks),
            results: 0,
            last: None,
        }
    }

    /// Marks the last block the current message added (a pinned breakpoint), or, when that one
    /// may not carry a mark, the markable block before it.
    fn mark_last(&mut self, request: &Request<'_>) {
        let Some(is_result) = self.last else {
            return;
        };
        let end = if is_result {
            self.results
        } else {
            self.content.len()
        };
        if let Some(block) = self.content[..end]
            .iter_mut()
            .rev()
            .find(|block| markable(block))
        {
            mark(block, request);
        }
    }

    fn push(&mut self, block: Value, is_result: bool) {
        if is_result {
            self.content.insert(self.results, block);
            self.results += 1;
        } else {
            self.content.push(block);
        }
    }

    fn into_message(self) -> Value {
        let role = if self.assistant { "assistant" } else { "user" };
        object([
            ("role", role.into()),
            ("content", Value::Array(self.content)),
        ])
    }
}

/// The block for one part and whether it is a `tool_result`, or `None` for a part Anthropic does
/// not get. `ids` maps the call ids of the latest assistant turn to the ids sent.
fn block(part: &Part, message: &Message, ids: &AnthropicIds<'_>) -> Option<(Value, bool)> {
    match part {
        Part::Text(text) | Part::ProviderText { text, .. } => {
            (!text.is_empty()).then(|| (text_block(text), false))
        }
        Part::ToolCall(call) => Some((
            object([
                ("type", "tool_use".into()),
                ("id", ids.get(&call.id).into()),
                ("name", Value::from(&*call.name)),
                (
                    "input",
                    Value::Object(call_arguments::to_object(&call.arguments)),
                ),
            ]),
            false,
        )),
        Part::ToolResult(result) => Some((
            result_block(result, lowering::content_of(message, result), ids),
            true,
        )),
        Part::Provider(data) => data.of(PROVIDER).map(|block| (block.clone(), false)),
        // Sent inside the `tool_result` block of its call.
        Part::ResultContent(_) => None,
    }
}

fn text_block(text: &str) -> Value {
    object([("type", "text".into()), ("text", text.into())])
}

/// A `tool_result` block with a real `is_error`, sent on every result as in recorded traffic the
/// API accepted. An empty content is left out, the documented shape of an empty result.
fn result_block(
    result: &ToolResult,
    content: Option<&ResultContent>,
    ids: &AnthropicIds<'_>,
) -> Value {
    let mut block = Map::with_capacity(4);
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), ids.get(&result.call_id).into());
    block.insert("is_error".into(), result.is_error.into());
    if let Some(content) = content {
        let mut blocks = Vec::with_capacity(content.content.len() + 1);
        if !result.content.is_empty() {
            blocks.push(text_block(&result.content));
        }
        blocks.extend(
            LOWERING
                .lower(result, content)
                .into_iter()
                .map(content_block),
        );
        block.insert("content".into(), Value::Array(blocks));
    } else if !result.content.is_empty() {
        block.insert("content".into(), Value::from(&*result.content));
    }
    Value::Object(block)
}

/// What a `tool_result` takes: image and document blocks as the SDK's `ToolResultBlockParam`
/// types them; no audio, and no image over 5 MB.
const LOWERING: ResultLowering = ResultLowering::new(PROVIDER)
    .images(MediaRule::any().at_most(
        lowering::ANTHROPIC_MAX_IMAGE_BASE64,
        "takes images of at most 5 MB",
    ))
    .documents(MediaRule::any())
    .audio(MediaRule::none("takes no audio in a tool result"));

/// A part of a result's content as a block of a `tool_result`'s `content`.
fn content_block(part: Lowered<'_>) -> Value {
    let source = |source: &Source, media_type: &str| match source {
        Source::Base64(data) => object([
            ("type", "base64".into()),
            ("media_type", media_type.into()),
            ("data", Value::from(&**data)),
        ]),
        Source::Url(url) => object([("type", "url".into()), ("url", Value::from(&**url))]),
    };
    let part = match part {
        Lowered::Line(line) => return text_block(&line),
        Lowered::Media(part) => part,
    };
    match &*part {
        Content::Image(image) => object([
            ("type", "image".into()),
            ("source", source(&image.source, &image.media_type)),
        ]),
        Content::Document(document) => {
            let mut block = Map::with_capacity(3);
            block.insert("type".into(), "document".into());
            block.insert(
                "source".into(),
                source(&document.source, &document.media_type),
            );
            if let Some(title) = &document.title {
                block.insert("title".into(), Value::from(&**title));
            }
            Value::Object(block)
        }
        // The lowering gives no other medium to a wire that takes no other.
        other => text_block(&content::line(other)),
    }
}

impl Decoder for Anthropic {
    const PROVIDER: Provider = PROVIDER;
    const ID: &'static str = "id";
    const MODEL: &'static str = "model";

    fn error(&self, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError> {
        let is_error =
            matches!(root.get("type").value(), Some(Value::String(kind)) if kind == "error");
        let error = root.get("error");
        if !is_error && error.value().is_none() {
            return Ok(None);
        }
        Ok(Some(provider_error(PROVIDER, error, "type")?))
    }

    fn answer<'a>(
        &self,
        root: Node<'a>,
        answer: &mut Answer<'a>,
    ) -> Result<StopReason, DecodeError> {
        for block in root.get("content").array()? {
            answer.push(match block.get("type").str()? {
                "text" => Part::Text(block.get("text").str()?.to_owned()),
                "tool_use" => {
                    let input = block
                        .get("input")
                        .opt_object()?
                        .cloned()
                        .unwrap_or_default();
                    Part::ToolCall(ToolCall::new(
                        block.get("id").str()?,
                        block.get("name").str()?,
                        Value::Object(input),
                    ))
                }
                // thinking, redacted_thinking, server tool blocks: sent back as they came.
                _ => Part::Provider(ProviderData::new(
                    PROVIDER,
                    Value::Object(block.object()?.clone()),
                )),
            });
        }
        Ok(match root.get("stop_reason").opt_str()? {
            Some("end_turn") => StopReason::EndTurn,
            Some("tool_use") => StopReason::ToolUse,
            Some("max_tokens") => StopReason::MaxTokens,
            Some("stop_sequence") => StopReason::StopSequence,
            Some("refusal") => StopReason::Refusal,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::Other(String::new()),
        })
    }

    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError> {
        let usage = root.get("usage");
        let cache_read = usage.get("cache_read_input_tokens").opt_u64()?;
        let cache_write = usage.get("cache_creation_input_tokens").opt_u64()?;
        Ok(Usage {
            // Saturating: a buggy or hostile body must not overflow (a panic in debug).
            input_tokens: usage
                .get("input_tokens")
                .count()?
                .saturating_add(cache_read.unwrap_or(0))
                .saturating_add(cache_write.unwrap_or(0)),
            output_tokens: usage.get("output_tokens").count()?,
            cached_input_tokens: cache_read,
            cache_write_tokens: cache_write,
            reasoning_tokens: None,
            unreported: usage.value().is_none(),
        })
    }
}
