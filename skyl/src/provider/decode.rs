//! Reading a response body: the steps every wire format shares, run in one place, around the
//! steps each format writes for itself ([`Decoder`]).

use std::borrow::Cow;

use serde_json::Value;

use super::read::Node;
use super::{DecodeError, Provider, Response, StopReason, Usage, call_ids};
use crate::message::{Message, Part, Role};

/// The steps of reading a response body that differ between wire formats: what a provider writes
/// to decode, while [`decode_with`] runs what every provider shares.
///
/// [`decode_with`] calls each step once, in the order they are declared here, through a
/// [`Node`] of the body (a reader that names the JSON path of whatever is not of the documented
/// shape), and builds the [`Response`]: an answer that holds calls stopped for them
/// ([`StopReason::ToolUse`]) whatever ordinary end the provider reported, and ids minted for calls
/// the provider sent without ([`Answer::mint_id`]).
///
/// [`adapter!`](super::adapter) makes a type with `Decoder` and [`Encoder`](crate::provider::author::Encoder)
/// steps an [`Adapter`](super::Adapter) whose `decode` is this driver.
pub trait Decoder {
    /// The provider: it names the errors and owns the provider data of the answer.
    const PROVIDER: Provider;
    /// The key of the response's id.
    const ID: &'static str;
    /// The key of the model that answered.
    const MODEL: &'static str;

    /// The provider's error, when the body is one instead of an answer.
    fn error(&self, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError>;

    /// The answer's parts, pushed in order onto `answer`, and why the model stopped.
    fn answer<'a>(
        &self,
        root: Node<'a>,
        answer: &mut Answer<'a>,
    ) -> Result<StopReason, DecodeError>;

    /// The tokens used.
    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError>;
}

/// The response in `body`: the provider's error, or the answer, its usage, id and model.
pub fn decode_with<D: Decoder>(decoder: &D, body: &Value) -> Result<Response, DecodeError> {
    let root = Node::root(D::PROVIDER, body);
    if let Some(error) = decoder.error(root)? {
        return Err(error);
    }
    // Some compatible servers fill unused fields with `""`: an empty id is no id.
    let id = root.get(D::ID).opt_str()?.filter(|id| !id.is_empty());
    let mut answer = Answer {
        parts: Vec::new(),
        calls: 0,
        body,
        id,
        key: None,
    };
    let stop_reason = match decoder.answer(root, &mut answer)? {
        // An answer with calls stopped so that they run, whatever the server says of an ordinary
        // end: OpenAI says "stop" when `tool_choice` forced the call (as do Ollama and SGLang for
        // any call), Snowflake Cortex says "", some servers say nothing.
        reason if answer.calls > 0 && ordinary_end(&reason) => StopReason::ToolUse,
        reason => reason,
    };
    Ok(Response {
        message: Message {
            role: Role::Assistant,
            parts: answer.parts,
        },
        stop_reason,
        usage: decoder.usage(root)?,
        id: id.map(str::to_owned),
        model: root
            .get(D::MODEL)
            .opt_str()?
            .filter(|model| !model.is_empty())
            .map(str::to_owned),
        answered_by: None,
        requested_model: None,
    })
}

/// The error a provider's body tells of in `error`: its kind under `kind`, its text under
/// `message`.
pub(crate) fn error_object(
    provider: Provider,
    error: Node<'_>,
    kind: &str,
) -> Result<DecodeError, DecodeError> {
    Ok(DecodeError::Provider {
        provider,
        kind: error.get(kind).opt_str()?.map(str::to_owned),
        message: error.get("message").opt_str()?.unwrap_or("").to_owned(),
    })
}

/// Whether `reason` says only that the turn ended: an end of turn, or no reason at all.
fn ordinary_end(reason: &StopReason) -> bool {
    match reason {
        StopReason::EndTurn => true,
        StopReason::Other(reason) => reason.is_empty(),
        _ => false,
    }
}

/// The parts of an answer as a [`Decoder`] reads them, in order, and what makes ids for its calls.
pub struct Answer<'a> {
    parts: Vec<Part>,
    calls: usize,
    body: &'a Value,
    id: Option<&'a str>,
    /// What makes minted ids unique, worked out for the first call that needs one.
    key: Option<Cow<'a, str>>,
}

impl Answer<'_> {
    /// Adds the next part.
    pub fn push(&mut self, part: Part) {
        if let Part::ToolCall(_) = part {
            self.calls += 1;
        }
        self.parts.push(part);
    }

    /// An id for the next call, which the provider sent without one: `<prefix>_<key>_<n>`, the
    /// key being the response's id or a hash of the body, so that ids stay unique across the
    /// answers of a transcript and the same body always gives the same ids.
    pub fn mint_id(&mut self, prefix: &str) -> String {
        let key = self
            .key
            .get_or_insert_with(|| call_ids::response_key(self.id, self.body));
        call_ids::mint(prefix, key, self.calls)
    }
}
