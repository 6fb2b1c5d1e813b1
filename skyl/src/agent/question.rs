//! What a person is asked while a call runs, and what they answer: the [`Question`] a paused run
//! shows and the [`Reply`] it is resumed with. How the call that asked waits meanwhile is
//! `asking.rs`'s; where the question and the reply sit in the call's slot, `turn/slot.rs`'s.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A question a tool call asked the person while it ran: an MCP server's elicitation request
/// during a call of one of its mounted tools.
///
/// A run whose call asks stops with [`Stop::AwaitingApproval`](super::Stop::AwaitingApproval);
/// the call is among [`Run::awaiting_approval`](super::Run::awaiting_approval) and
/// [`Run::question`](super::Run::question) gives its question. Show the person
/// [`message`](Self::message) and a form for [`schema`](Self::schema), then record the answer
/// with [`Run::reply`](super::Run::reply) (or [`Run::approve`](super::Run::approve): accept with
/// the schema's [`defaults`](Self::defaults); [`Run::deny`](super::Run::deny): decline).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    from: String,
    message: String,
    schema: Value,
    /// Where the call that asked waits in the process that ran it; empty for a question
    /// answered on the spot (a [`RemoteBuilder::on_question`](crate::mcp::RemoteBuilder::on_question) handler).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    ticket: String,
    /// What another process needs to go on with the call once the person replies: the request
    /// state and the rest of a 2026-07-28 server's input-required result, which the saved run
    /// keeps; the call's tool goes on with it.
    /// (Boxed: a run's every slot holds a question's room.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    continuation: Option<Box<Value>>,
}

impl Question {
    /// A question from `from` (the name of the server that asks).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn new(from: impl Into<String>, message: impl Into<String>, schema: Value) -> Self {
        Question {
            from: from.into(),
            message: message.into(),
            schema,
            ticket: String::new(),
            continuation: None,
        }
    }

    /// What continues the call in a process that does not hold it, if anything does.
    pub(crate) fn continuation(&self) -> Option<&Value> {
        self.continuation.as_deref()
    }

    /// The question, with what continues its call in a process that does not hold the call.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn continued_by(mut self, continuation: Option<Value>) -> Self {
        self.continuation = continuation.map(Box::new);
        self
    }

    /// Who asks: the name of the mounted server, as given to `skyl::mcp::Remote::builder`
    /// (feature `mcp`).
    pub fn from(&self) -> &str {
        &self.from
    }

    /// What the server asks, for the person to read.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The JSON schema of the answer the server asks for (MCP's `requestedSchema`: an object of
    /// flat properties: strings, numbers, booleans, enums).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The schema's defaults: each property that has a `default`, with it (as SEP-1034 asks a
    /// client to fill in the fields the person leaves as they are).
    /// For `{"properties": {"confirm": {"type": "boolean", "default": true}, "note":
    /// {"type": "string"}}}` they are `{"confirm": true}`.
    pub fn defaults(&self) -> Map<String, Value> {
        let Some(properties) = self.schema.get("properties").and_then(Value::as_object) else {
            return Map::new();
        };
        properties
            .iter()
            .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
            .collect()
    }

    /// Where the call that asked waits in the process that ran it (empty: nowhere).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn ticket(&self) -> &str {
        &self.ticket
    }

    /// The question, its call waiting under `ticket` in this process.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn with_ticket(mut self, ticket: String) -> Self {
        self.ticket = ticket;
        self
    }
}

/// A person's answer to a [`Question`]: what the server that asked receives.
///
/// Non-exhaustive: match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "content", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reply {
    /// The person answered, with these values of the schema's properties.
    Accept(Map<String, Value>),
    /// The person chose not to answer; the server goes on without the answer.
    Decline,
    /// The person dismissed the question; the server stops what asked.
    Cancel,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A question whose schema gives two of its three properties a default.
    pub(crate) fn question() -> Question {
        Question::new(
            "files",
            "Delete notes.txt?",
            json!({"type": "object", "properties": {
                "confirm": {"type": "boolean", "default": true},
                "note": {"type": "string"},
                "level": {"type": "integer", "default": 3}
            }}),
        )
    }

    #[test]
    fn defaults_are_the_properties_that_have_one() {
        assert_eq!(
            Value::Object(question().defaults()),
            json!({"confirm": true, "level": 3})
        );
        assert_eq!(Question::new("s", "m", json!({})).defaults(), Map::new());
    }

    #[test]
    fn a_reply_serializes_with_its_action() {
        let accept = Reply::Accept(question().defaults());
        assert_eq!(
            serde_json::to_value(&accept).unwrap(),
            json!({"action": "accept", "content": {"confirm": true, "level": 3}})
        );
        assert_eq!(
            serde_json::to_value(Reply::Decline).unwrap(),
            json!({"action": "decline"})
        );
        let back: Reply = serde_json::from_value(json!({"action": "cancel"})).unwrap();
        assert_eq!(back, Reply::Cancel);
    }
}
