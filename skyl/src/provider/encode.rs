//! Building a request body: the steps every wire format shares, run in one place, around the
//! steps each format writes for itself ([`Encoder`]).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::names::NameRule;
use super::{EncodeError, OutputSchema, Provider, Request, ToolChoice, check};
use crate::message::Role;
use crate::tool::ToolDefinition;

/// The steps of building a request body that differ between wire formats: what a provider
/// writes to encode, while [`encode_with`] runs what every provider shares.
///
/// [`encode_with`] checks the request first (the transcript is complete, every tool's name
/// follows [`TOOL_NAMES`](Self::TOOL_NAMES) and its schema's root is an object, the tool choice
/// names a tool of the request), then calls each step once, in the order they are declared here,
/// and merges [`Request::extra`] in last. A step that inserts into the body inserts its keys in
/// the order the provider's documentation lists them.
///
/// The built-in adapters are their steps run by this driver; so is a provider written outside
/// skyl (the `skyl-ollama` package of skyl's repository is a worked example): a type with
/// `Encoder` and [`Decoder`](crate::provider::author::Decoder) steps is made an [`Adapter`](super::Adapter) by
/// [`adapter!`](super::adapter), whose `encode` is this driver.
pub trait Encoder {
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

    /// One tool's declaration, its schema in the provider's dialect. The driver calls it for the
    /// request's tools sorted by name, so that the order they were added in does not change the
    /// body (a provider's prompt cache reads the tools first); the built-in steps also write each
    /// schema with [`canonical_schema`](crate::provider::caching::canonical_schema), for the same reason.
    fn tool(&self, tool: &ToolDefinition) -> Result<Value, EncodeError>;

    /// The declarations and the tool choice, placed in the body.
    fn tools(&self, declarations: Vec<Value>, choice: &ToolChoice, body: &mut Map<String, Value>);

    /// The declaration of the provider's own tool search, declared after the tools when the
    /// request defers some ([`Request::deferred_tools`]); `None` (the default) when the provider
    /// has none, and a request that defers tools is refused.
    fn tool_search(&self) -> Option<Value> {
        None
    }

    /// The fields after the tools: optional settings such as the token limit.
    fn tail(&self, request: &Request<'_>, body: &mut Map<String, Value>);

    /// The schema the answer must follow ([`Request::output`]), on the provider's
    /// structured-output field, lowered to its dialect; called after [`tail`](Self::tail), only
    /// for a request that has one.
    ///
    /// The default sends nothing: a provider without structured output still gets a typed run's
    /// answer checked, and a wrong one sent back with what was wrong
    /// ([`RunBuilder::answer_as`](crate::agent::RunBuilder::answer_as)).
    fn output(
        &self,
        output: &OutputSchema,
        body: &mut Map<String, Value>,
    ) -> Result<(), EncodeError> {
        let _ = (output, body);
        Ok(())
    }
}

/// The body for `request`: checks, then the encoder's steps, then [`Request::extra`]; or why the
/// provider would refuse the request.
pub fn encode_with<E: Encoder>(encoder: &E, request: &Request<'_>) -> Result<Value, EncodeError> {
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
        let mut declarations: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| encoder.tool(tool))
            .collect::<Result<_, _>>()?;
        defer(encoder, request, &mut declarations)?;
        encoder.tools(declarations, &request.tool_choice, &mut body);
    }
    encoder.tail(request, &mut body);
    if let Some(output) = &request.output {
        encoder.output(output, &mut body)?;
    }
    merge_extra(&mut body, &request.extra);
    Ok(Value::Object(body))
}

/// Marks the declarations of the request's deferred tools `"defer_loading": true` and declares
/// the provider's tool search after them, when the request defers tools.
fn defer<E: Encoder>(
    encoder: &E,
    request: &Request<'_>,
    declarations: &mut Vec<Value>,
) -> Result<(), EncodeError> {
    if request.deferred_tools.is_empty() {
        return Ok(());
    }
    let Some(search) = encoder.tool_search() else {
        return Err(EncodeError::ToolSearch {
            provider: E::PROVIDER,
            tool: None,
        });
    };
    if let Some(unknown) = request
        .deferred_tools
        .iter()
        .find(|name| !request.tools.iter().any(|tool| tool.name == **name))
    {
        return Err(EncodeError::ToolSearch {
            provider: E::PROVIDER,
            tool: Some(unknown.clone()),
        });
    }
    // By the name each declaration carries, whatever order the declarations are in.
    for declaration in declarations.iter_mut() {
        if let Value::Object(declaration) = declaration
            && let Some(Value::String(name)) = declaration.get("name")
            && request.deferred_tools.contains(name)
        {
            declaration.insert("defer_loading".into(), Value::Bool(true));
        }
    }
    declarations.push(search);
    Ok(())
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
/// (Anthropic, Gemini) or as one message first (Ollama): [`Request::system`] first, then the
/// text of every [`Role::System`] message in transcript order. Empty texts are left out.
pub fn system_texts<'r>(request: &'r Request<'_>) -> Vec<Cow<'r, str>> {
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
