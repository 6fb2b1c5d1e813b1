//! Building a request body: the steps every wire format shares, run in one place, around the
//! steps each format writes for itself ([`Encoder`]).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::names::NameRule;
use super::{EncodeError, Provider, Request, ToolChoice, check};
use crate::message::Role;
use crate::tool::ToolDefinition;

/// The steps of building a body that differ between wire formats. [`encode`] calls each once,
/// in the order they are declared here; a step that inserts into the body inserts its keys in
/// the order the provider's documentation lists them.
pub(crate) trait Encoder {
    /// The provider: it names the errors, and only its provider data is sent back.
    const PROVIDER: Provider;
    /// The provider's rule for tool names.
    const TOOL_NAMES: NameRule;
    /// The key of the transcript in the body (`messages`, `input`, `contents`).
    const TRANSCRIPT: &'static str;

    /// The fields before the transcript: the model, the system prompt, settings the provider
    /// requires.
    fn head(&self, request: &Request<'_>, body: &mut Map<String, Value>);

    /// The transcript as the provider's list of turns or items; empty when nothing is left to
    /// send.
    fn transcript(&self, request: &Request<'_>) -> Vec<Value>;

    /// One tool's declaration, its schema in the provider's dialect.
    fn tool(&self, tool: &ToolDefinition) -> Result<Value, EncodeError>;

    /// The declarations and the tool choice, placed in the body.
    fn tools(&self, declarations: Vec<Value>, choice: &ToolChoice, body: &mut Map<String, Value>);

    /// The fields after the tools: optional settings such as the token limit.
    fn tail(&self, request: &Request<'_>, body: &mut Map<String, Value>);
}

/// The body for `request`: checks, then the encoder's steps, then [`Request::extra`].
pub(crate) fn encode<E: Encoder>(encoder: &E, request: &Request<'_>) -> Result<Value, EncodeError> {
    check::request(E::PROVIDER, &E::TOOL_NAMES, request)?;
    let mut body = Map::new();
    encoder.head(request, &mut body);
    let transcript = encoder.transcript(request);
    if transcript.is_empty() {
        return Err(EncodeError::NoMessages {
            provider: E::PROVIDER,
        });
    }
    body.insert(E::TRANSCRIPT.to_owned(), Value::Array(transcript));
    if !request.tools.is_empty() {
        let declarations = request
            .tools
            .iter()
            .map(|tool| encoder.tool(tool))
            .collect::<Result<_, _>>()?;
        encoder.tools(declarations, &request.tool_choice, &mut body);
    }
    encoder.tail(request, &mut body);
    merge_extra(&mut body, &request.extra);
    Ok(Value::Object(body))
}

/// Merges [`Request::extra`] into the body: a new key is added, an existing one replaced, and two
/// objects merged key by key.
fn merge_extra(body: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (key, value) in extra {
        match (body.get_mut(key), value) {
            (Some(Value::Object(existing)), Value::Object(added)) => {
                for (k, v) in added {
                    existing.insert(k.clone(), v.clone());
                }
            }
            _ => {
                body.insert(key.clone(), value.clone());
            }
        }
    }
}

/// The texts of the system prompt, for providers that take it apart from the transcript
/// (Anthropic, Gemini): [`Request::system`] first, then the text of every [`Role::System`]
/// message in transcript order. Empty texts are left out.
pub(crate) fn system_texts<'r>(request: &'r Request<'_>) -> Vec<Cow<'r, str>> {
    let from_messages = request
        .messages
        .iter()
        .filter(|message| message.role == Role::System)
        .map(|message| match message.parts.as_slice() {
            [part] => Cow::Borrowed(part.text().unwrap_or_default()),
            _ => Cow::Owned(message.text_content()),
        });
    request
        .system
        .as_deref()
        .map(Cow::Borrowed)
        .into_iter()
        .chain(from_messages)
        .filter(|text| !text.is_empty())
        .collect()
}

/// An object of these members, in this order. Unlike `json!`, it moves the values in instead of
/// serializing them again (`json!` copies a `Value` it is given, trees included).
#[inline]
pub(crate) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut object = Map::with_capacity(N);
    for (key, value) in members {
        object.insert(key.to_owned(), value);
    }
    Value::Object(object)
}
