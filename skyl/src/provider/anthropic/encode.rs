//! A request's body for the Messages API: the steps the encoding driver runs, the prompt-cache
//! breakpoints, and each part of the transcript as a content block.

use serde_json::{Map, Value};

use super::{Anthropic, OPENING_TEXT, PROVIDER};
use crate::content::{self, Content, ResultContent, Source};
use crate::message::call_arguments;
use crate::message::{Message, Part, Role, ToolResult};
use crate::prose::content as prose;
use crate::provider::caching::{self, Plan};
use crate::provider::call_ids::AnthropicIds;
use crate::provider::encode::{self, Encoder, object};
use crate::provider::lowering::{self, Lowered, MediaRule, ResultLowering};
use crate::provider::names::{self, NameRule};
use crate::provider::{
    EncodeError, OutputMode, OutputSchema, Provider, Request, ToolChoice, dialect,
};
use crate::tool::ToolDefinition;

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
        let as_text = calls_as_text_from(request);
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
            let lowered = as_text.is_some_and(|from| index >= from);
            for part in &message.parts {
                let blocks = match lowered.then(|| as_text_blocks(part, message)).flatten() {
                    Some(blocks) => blocks,
                    None => match block(part, message, &ids) {
                        Some((block, is_result)) => vec![(block, is_result)],
                        None => continue,
                    },
                };
                let current = match &mut turn {
                    Some(current) if current.assistant == assistant => current,
                    _ => {
                        messages.extend(turn.take().map(Turn::into_message));
                        turn.insert(Turn::new(assistant, message.parts.len()))
                    }
                };
                for (block, is_result) in blocks {
                    current.push(block, is_result);
                    current.last = Some(is_result);
                }
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
        // Anthropic has no JSON mode: the schema in the prompt is all there is.
        if output.mode == OutputMode::JsonObject {
            return Ok(());
        }
        let schema = dialect::anthropic_output(&output.schema)
            .map_err(|error| EncodeError::output_schema(PROVIDER, &output.name, error))?;
        let format = object([("type", "json_schema".into()), ("schema", schema)]);
        body.insert("output_config".into(), object([("format", format)]));
        Ok(())
    }
}

/// Where the calls and results of the transcript start going as text, not as `tool_use` and
/// `tool_result` blocks: with extended thinking, the calls of the final assistant message and
/// their results, when that message does not open with a thinking block of Anthropic's (the API
/// answers "Expected `thinking` or `redacted_thinking`, but found `tool_use`"). They are the
/// calls of another model (another provider, or Anthropic without thinking), handed over or
/// failed over in the middle of their turn.
fn calls_as_text_from(request: &Request<'_>) -> Option<usize> {
    let messages = &request.messages;
    let thinking = request
        .extra
        .get("thinking")
        .and_then(|thinking| thinking.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|kind| kind != "disabled");
    if !thinking {
        return None;
    }
    // The final assistant message on the wire: the assistant messages after the last user or
    // tool message before the last assistant one.
    let last = messages
        .iter()
        .rposition(|message| message.role == Role::Assistant)?;
    let start = messages[..last]
        .iter()
        .rposition(|message| matches!(message.role, Role::User | Role::Tool))
        .map_or(0, |before| before + 1);
    let turn = &messages[start..=last];
    if turn
        .iter()
        .all(|message| message.tool_calls().next().is_none())
    {
        return None;
    }
    let opening = turn
        .iter()
        .filter(|message| message.role == Role::Assistant)
        .flat_map(|message| &message.parts)
        .find(|part| match part {
            Part::Text(text) | Part::ProviderText { text, .. } => !text.is_empty(),
            Part::Provider(data) => data.of(PROVIDER).is_some(),
            Part::ToolCall(_) | Part::ToolResult(_) => true,
            Part::ResultContent(_) => false,
        });
    let opens_with_thinking = matches!(
        opening,
        Some(Part::Provider(data)) if data.of(PROVIDER).is_some_and(|block| !markable(block))
    );
    (!opens_with_thinking).then_some(start)
}

/// A call or a result as text blocks ([`calls_as_text_from`]), or `None` for any other part.
/// A result's images and documents follow its text, as blocks of the user message.
fn as_text_blocks(part: &Part, message: &Message) -> Option<Vec<(Value, bool)>> {
    match part {
        Part::ToolCall(call) => {
            let arguments = Value::Object(call_arguments::to_object(&call.arguments)).to_string();
            let text = prose::call_as_text(&call.id, &call.name, &arguments);
            Some(vec![(text_block(&text), false)])
        }
        Part::ToolResult(result) => {
            let text = prose::result_as_text(&result.call_id, result.is_error, &result.content);
            let mut blocks = vec![(text_block(&text), false)];
            if let Some(content) = lowering::content_of(message, result) {
                blocks.extend(
                    LOWERING
                        .lower(result, content)
                        .into_iter()
                        .map(|part| (content_block(part), false)),
                );
            }
            Some(blocks)
        }
        _ => None,
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
