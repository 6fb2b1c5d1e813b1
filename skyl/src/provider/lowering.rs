//! What the adapters share to put a result's content ([`ResultContent`]) on their wires: which
//! parts a wire takes as they are, and the line of text for each part it does not.
//!
//! Each adapter writes its own forms; the rule they share is that nothing is dropped in
//! silence. A part a provider cannot take is lowered to a line of prose saying what it was
//! ([`prose::not_taken`]), never sent to be refused with a 400.

use serde_json::Value;

use crate::content::{Content, ResultContent};
use crate::message::{Message, Provider, ToolResult};
use crate::prose;

/// The content beside `result` in `message`, if any.
#[inline]
pub(crate) fn content_of<'m>(
    message: &'m Message,
    result: &ToolResult,
) -> Option<&'m ResultContent> {
    if message.parts.len() < 2 {
        return None;
    }
    message.result_content(&result.call_id)
}

/// The parts of `content` to send beside `prose`, less structured JSON that the prose already
/// is (a [`Json`](crate::Json) output is that JSON as text): the model reads each value once.
pub(crate) fn parts<'c>(
    prose: &'c str,
    content: &'c ResultContent,
) -> impl Iterator<Item = &'c Content> {
    content.content.iter().filter(move |part| match part {
        Content::Json(value) => !is_json_of(prose, value),
        Content::Text(text) => !text.is_empty(),
        _ => true,
    })
}

/// Whether `text` is `value` written as JSON (in any spacing).
pub(crate) fn is_json_of(text: &str, value: &Value) -> bool {
    let text = text.trim();
    !text.is_empty() && serde_json::from_str::<Value>(text).is_ok_and(|parsed| &parsed == value)
}

/// The line for a part a wire carries as text: the text itself, a link or resource said in
/// words, JSON as JSON.
pub(crate) fn line(part: &Content) -> String {
    crate::content::line(part)
}

/// The line for a part `provider` cannot take, saying `why`.
pub(crate) fn not_taken(part: &Content, provider: Provider, why: &str) -> String {
    prose::not_taken(part, provider, why)
}

/// The base64 of an image over this many bytes is more than Anthropic takes of one image
/// ("image exceeds 5 MB maximum").
pub(crate) const ANTHROPIC_MAX_IMAGE_BASE64: usize = 5 * 1024 * 1024;
