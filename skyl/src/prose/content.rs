//! Notes about what a tool returned: an output cut to the toolbox's limit, a part a provider
//! cannot take or that is too large to send, media whose bytes are not what they say.

use crate::content::{self, Content, Looks, Mismatch};
use crate::message::Provider;

/// The note after a tool's output that was cut as text to its first `kept` bytes.
pub(crate) fn output_cut(tool: &str, kept: usize, total: usize) -> String {
    format!(
        "[The output of {tool} was cut: only its first {kept} of {total} bytes are shown. If you need the rest, call {tool} again with arguments that select less.]"
    )
}

/// What a JSON output lost when it was cut: counts of what was left out at its end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LeftOut {
    pub(crate) items: usize,
    pub(crate) members: usize,
    pub(crate) strings: usize,
}

impl LeftOut {
    pub(crate) fn is_nothing(&self) -> bool {
        *self == LeftOut::default()
    }
}

/// The note after a JSON output that was cut, where a value ends, to `kept` bytes.
pub(crate) fn json_output_cut(tool: &str, kept: usize, total: usize, left_out: LeftOut) -> String {
    let mut parts = Vec::new();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if left_out.items > 0 {
        parts.push(plural(left_out.items, "array item", "array items"));
    }
    if left_out.members > 0 {
        parts.push(plural(left_out.members, "object member", "object members"));
    }
    if left_out.strings > 0 {
        parts.push(format!(
            "the end of {}",
            plural(left_out.strings, "string", "strings")
        ));
    }
    let list = match parts.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "nothing".to_owned(),
    };
    format!(
        "[The output of {tool} was cut from {total} to {kept} bytes where a value ends, so it is still valid JSON; left out at the end: {list}. If you need the rest, call {tool} again with arguments that select less.]"
    )
}

/// The line that stands for a part a provider cannot take in a tool's answer, so that the model
/// knows it was there.
pub(crate) fn not_taken(part: &Content, provider: Provider, why: &str) -> String {
    format!(
        "[The tool also returned {}, which was not sent: {provider} {why}. If it matters, tell the user it could not be shown.]",
        content::what(part)
    )
}

/// The line that stands for a part of a tool's content over the toolbox's size limit.
pub(crate) fn media_too_large(tool: &str, part: &Content, max_bytes: usize) -> String {
    format!(
        "[{tool} also returned {}, which was left out: it is larger than {max_bytes} bytes, the most this application sends of one part. If you need it, call {tool} again with arguments that make it smaller.]",
        content::what(part)
    )
}

/// The line that stands for a part of a tool's content that was left out because its bytes
/// are not what its media type says, or its media type is one no model takes: what the bytes
/// look like, so that whoever reads it can find the mistake.
pub(crate) fn media_refused(tool: &str, part: &Content, mismatch: &Mismatch) -> String {
    let media_type = part.base64().map_or("", |(media_type, _)| media_type);
    let why = match mismatch {
        Mismatch::Bytes(looks) => {
            let looks = match looks {
                Looks::Format(name) => format!("they start like {name}"),
                Looks::Text(text) => format!("they start like text, {text:?}"),
                Looks::Bytes(bytes) => {
                    let hex: Vec<String> = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
                    format!("they start with the bytes {}", hex.join(" "))
                }
                Looks::Empty => "there are none".to_owned(),
            };
            format!("its bytes are not {media_type} ({looks})")
        }
        Mismatch::NotBase64 => "its data is not base64".to_owned(),
        Mismatch::Unsupported => format!(
            "models do not take {media_type} (images: image/png, image/jpeg, image/gif, image/webp; audio: audio/wav, audio/mpeg, audio/ogg, audio/flac; documents: application/pdf)"
        ),
    };
    format!(
        "[{tool} also returned {}, which was left out: {why}. If it matters, tell the user it could not be shown.]",
        content::what(part)
    )
}

/// The text that introduces, in a user message, the media of a tool's answer that a provider
/// takes only from the user (OpenAI Chat's tool messages are text).
pub(crate) fn media_of_call(call_id: &str) -> String {
    format!(
        "The result of the tool call {call_id} came with this content, which the tool message could not hold:"
    )
}

/// The line that stands for a blob resource whose media type (`None`: it has none) is not one a
/// model takes as media.
pub(crate) fn blob_not_taken(
    part: &Content,
    provider: Provider,
    media_type: Option<&str>,
) -> String {
    let what = media_type.unwrap_or("bytes of an unknown type");
    not_taken(part, provider, &format!("takes no {what} in a tool result"))
}

/// The line that stands for a blob resource of a media type a model takes whose bytes are not of
/// that type: sent as media, it would have the request refused.
pub(crate) fn mislabelled(part: &Content, media_type: &str) -> String {
    format!(
        "[The tool also returned {}, which was not sent: its bytes are not {media_type}. If it matters, tell the user it could not be shown.]",
        content::what(part)
    )
}

/// A call of the history sent as text, to a request that cannot carry it as a call (see
/// `Anthropic`'s encoding: a request with no tools, or extended thinking after another model's
/// calls).
pub(crate) fn call_as_text(id: &str, tool: &str, arguments: &str) -> String {
    format!("[Earlier call {id} of the tool {tool}, with the arguments {arguments}]")
}

/// The result of a call sent as text ([`call_as_text`]), its prose after it.
pub(crate) fn result_as_text(id: &str, is_error: bool, content: &str) -> String {
    let outcome = if is_error { "failed" } else { "returned" };
    if content.is_empty() {
        format!("[Earlier call {id} {outcome} nothing]")
    } else {
        format!("[Earlier call {id} {outcome}:]\n{content}")
    }
}
