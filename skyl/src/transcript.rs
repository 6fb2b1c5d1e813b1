//! A transcript's rules and the pieces to build one by hand: the ordering rules every provider
//! enforces on tool calls and their results, the tool messages ([`tool_result_message`],
//! [`tool_error_message`]), the provider data an answer carries back ([`ProviderData`]) and why a
//! result is malformed ([`InvalidToolResult`]).
//!
//! Each provider answers a transcript that breaks these rules with an HTTP 400, often after the
//! tools already ran. Checking them here, before a request is built, turns that 400 into an error
//! that names the message and the call.
//!
//! The rules, in the words of the error each one raises:
//!
//! - tool calls live in assistant messages and results in [`Role::Tool`] messages;
//! - every call and result has a non-empty id, and no two calls in one turn share an id;
//! - every result follows the assistant turn that made its call, in the tool messages directly
//!   after it (a user, system or assistant message closes that window);
//! - every call gets exactly one result before the window closes.
//!
//! [`validate`] accepts a transcript that ends on calls still waiting for results (the application
//! is running the tools); [`validate_complete`] is the stricter check a request needs.
//!
//! ```
//! use skyl::{Message, Part, Role, ToolCall, transcript, transcript::tool_result_message};
//! use serde_json::json;
//!
//! let call = ToolCall::new("call_1", "get_weather", json!({"city": "Kampala"}));
//! let mut messages = vec![
//!     Message::user("Weather in Kampala?"),
//!     Message { role: Role::Assistant, parts: vec![Part::ToolCall(call)] },
//! ];
//! assert!(transcript::validate(&messages).is_ok());
//! assert!(transcript::validate_complete(&messages).is_err());
//!
//! messages.push(tool_result_message("call_1", "22C and sunny"));
//! assert!(transcript::validate_complete(&messages).is_ok());
//! ```

use std::fmt;

use crate::message::{Message, Part, Role};

pub use crate::message::{
    InvalidToolResult, ProviderData, tool_error_message, tool_result_message,
};

/// A rule of the transcript that a message breaks.
///
/// Every variant carries `index`, the position in the slice of the message at fault, and most
/// carry the call id involved; [`index`](Self::index) and [`call_id`](Self::call_id) read them
/// without a `match`. The `Display` text is a sentence that says what to change.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TranscriptError {
    /// A call or result has an empty id.
    EmptyCallId {
        /// The message holding it.
        index: usize,
        /// Whether it is a call (`true`) or a result (`false`).
        is_call: bool,
    },
    /// Two calls in one assistant turn share an id.
    DuplicateCallId {
        /// The assistant message.
        index: usize,
        /// The id they share.
        call_id: String,
    },
    /// A tool call is in a message that is not from the assistant.
    CallOutsideAssistant {
        /// The message holding the call.
        index: usize,
        /// The call's id.
        call_id: String,
        /// The role of that message.
        role: Role,
    },
    /// A tool result is in a message whose role is not [`Role::Tool`].
    ResultOutsideTool {
        /// The message holding the result.
        index: usize,
        /// The result's call id.
        call_id: String,
        /// The role of that message.
        role: Role,
    },
    /// A call has no result before the next non-tool message (or, for
    /// [`validate_complete`], before the end).
    MissingResult {
        /// The assistant message that made the call.
        index: usize,
        /// The call's id.
        call_id: String,
        /// The tool the call names.
        tool: String,
        /// The message that closed the window, `None` at the end of the transcript.
        before: Option<usize>,
    },
    /// A call has a second result.
    DuplicateResult {
        /// The message holding the second result.
        index: usize,
        /// The call's id.
        call_id: String,
        /// The message holding the first result.
        first: usize,
    },
    /// A result is not in the tool messages directly after the turn that made its call: it comes
    /// before the call, or after another turn.
    ResultNotAfterCall {
        /// The message holding the result.
        index: usize,
        /// The call's id.
        call_id: String,
        /// The assistant message that made the call.
        call_index: usize,
    },
    /// A result answers a call id that no assistant message holds.
    UnknownCall {
        /// The message holding the result.
        index: usize,
        /// The id it answers.
        call_id: String,
    },
    /// A [`Part::ResultContent`] is in a message that holds no result of its call id: content
    /// goes beside the result it belongs to, in the same tool message.
    ContentWithoutResult {
        /// The message holding the content.
        index: usize,
        /// The call id the content names.
        call_id: String,
    },
}

impl TranscriptError {
    /// The index of the message at fault.
    pub fn index(&self) -> usize {
        match self {
            TranscriptError::EmptyCallId { index, .. }
            | TranscriptError::DuplicateCallId { index, .. }
            | TranscriptError::CallOutsideAssistant { index, .. }
            | TranscriptError::ResultOutsideTool { index, .. }
            | TranscriptError::MissingResult { index, .. }
            | TranscriptError::DuplicateResult { index, .. }
            | TranscriptError::ResultNotAfterCall { index, .. }
            | TranscriptError::UnknownCall { index, .. }
            | TranscriptError::ContentWithoutResult { index, .. } => *index,
        }
    }

    /// The call id involved, if there is one.
    pub fn call_id(&self) -> Option<&str> {
        match self {
            TranscriptError::EmptyCallId { .. } => None,
            TranscriptError::DuplicateCallId { call_id, .. }
            | TranscriptError::CallOutsideAssistant { call_id, .. }
            | TranscriptError::ResultOutsideTool { call_id, .. }
            | TranscriptError::MissingResult { call_id, .. }
            | TranscriptError::DuplicateResult { call_id, .. }
            | TranscriptError::ResultNotAfterCall { call_id, .. }
            | TranscriptError::UnknownCall { call_id, .. }
            | TranscriptError::ContentWithoutResult { call_id, .. } => Some(call_id),
        }
    }
}

impl fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranscriptError::EmptyCallId {
                index,
                is_call: true,
            } => write!(
                f,
                "message {index}: a tool call has an empty id; keep the id the provider gave the call"
            ),
            TranscriptError::EmptyCallId {
                index,
                is_call: false,
            } => write!(
                f,
                "message {index}: a tool result has an empty call_id; set it to the id of the call it answers"
            ),
            TranscriptError::DuplicateCallId { index, call_id } => write!(
                f,
                "message {index}: two tool calls share the id \"{call_id}\"; each call in a turn needs its own id so that its result can be matched to it"
            ),
            TranscriptError::CallOutsideAssistant {
                index,
                call_id,
                role,
            } => write!(
                f,
                "message {index}: tool call \"{call_id}\" is in a {role} message; only assistant messages may hold tool calls"
            ),
            TranscriptError::ResultOutsideTool {
                index,
                call_id,
                role,
            } => write!(
                f,
                "message {index}: the result for call \"{call_id}\" is in a {role} message; put tool results in a tool message (skyl::transcript::tool_result_message builds one)"
            ),
            TranscriptError::MissingResult {
                index,
                call_id,
                tool,
                before: Some(before),
            } => write!(
                f,
                "message {index}: tool call \"{call_id}\" ({tool}) has no result before message {before}; every call needs one result in the tool messages right after its assistant turn (send skyl::transcript::tool_error_message if the tool could not run)"
            ),
            TranscriptError::MissingResult {
                index,
                call_id,
                tool,
                before: None,
            } => write!(
                f,
                "message {index}: tool call \"{call_id}\" ({tool}) has no result and the transcript ends; answer every call before sending the next request (send skyl::transcript::tool_error_message if the tool could not run)"
            ),
            TranscriptError::DuplicateResult {
                index,
                call_id,
                first,
            } => write!(
                f,
                "message {index}: call \"{call_id}\" already has a result in message {first}; send exactly one result per call"
            ),
            TranscriptError::ResultNotAfterCall {
                index,
                call_id,
                call_index,
            } if call_index > index => write!(
                f,
                "message {index}: the result for call \"{call_id}\" comes before its call in message {call_index}; append the assistant's turn first, then its results"
            ),
            TranscriptError::ResultNotAfterCall {
                index,
                call_id,
                call_index,
            } => write!(
                f,
                "message {index}: the result for call \"{call_id}\" does not directly follow the assistant turn that made the call (message {call_index}); results go in the tool messages right after their call, before any other turn"
            ),
            TranscriptError::UnknownCall { index, call_id } => write!(
                f,
                "message {index}: the result for call \"{call_id}\" answers no call in the transcript; copy the call_id from the assistant's tool call"
            ),
            TranscriptError::ContentWithoutResult { index, call_id } => write!(
                f,
                "message {index}: content for call \"{call_id}\" is in a message without that call's result; put the Part::ResultContent in the tool message that holds the result, right after it"
            ),
        }
    }
}

impl std::error::Error for TranscriptError {}

/// Checks the rules on a transcript that may still be waiting for results: calls in the last
/// assistant turn may be unanswered (or partly answered) at the end.
///
/// Returns the first broken rule, in message order.
pub fn validate(messages: &[Message]) -> Result<(), TranscriptError> {
    check(messages, false)
}

/// Checks the rules on a transcript about to be sent: every call must have its result.
///
/// Every [`Adapter`](crate::provider::Adapter) runs this before encoding a request.
pub fn validate_complete(messages: &[Message]) -> Result<(), TranscriptError> {
    check(messages, true)
}

/// The calls of the latest assistant turn, while only tool messages have followed it.
struct Window<'a> {
    index: usize,
    /// Call id, tool name, and the message holding its result once one came.
    calls: Vec<(&'a str, &'a str, Option<usize>)>,
}

impl Window<'_> {
    fn close(&self, before: Option<usize>) -> Result<(), TranscriptError> {
        match self
            .calls
            .iter()
            .find(|(_, _, answered)| answered.is_none())
        {
            Some((call_id, tool, _)) => Err(TranscriptError::MissingResult {
                index: self.index,
                call_id: (*call_id).to_owned(),
                tool: (*tool).to_owned(),
                before,
            }),
            None => Ok(()),
        }
    }
}

fn check(messages: &[Message], complete: bool) -> Result<(), TranscriptError> {
    let mut window: Option<Window<'_>> = None;
    for (index, message) in messages.iter().enumerate() {
        check_parts(index, message)?;
        if message.role != Role::Tool
            && let Some(open) = window.take()
        {
            open.close(Some(index))?;
        }
        match message.role {
            Role::Assistant => window = Some(open_window(index, message)?),
            Role::Tool => {
                for result in message.tool_results() {
                    let id = result.call_id.as_str();
                    let slot = window.as_mut().and_then(|open| {
                        open.calls.iter_mut().find(|(call_id, _, _)| *call_id == id)
                    });
                    match slot {
                        Some((_, _, Some(first))) => {
                            return Err(TranscriptError::DuplicateResult {
                                index,
                                call_id: id.to_owned(),
                                first: *first,
                            });
                        }
                        Some((_, _, answered)) => *answered = Some(index),
                        None => {
                            return Err(match call_site(messages, id) {
                                Some(call_index) => TranscriptError::ResultNotAfterCall {
                                    index,
                                    call_id: id.to_owned(),
                                    call_index,
                                },
                                None => TranscriptError::UnknownCall {
                                    index,
                                    call_id: id.to_owned(),
                                },
                            });
                        }
                    }
                }
            }
            Role::System | Role::User => {}
        }
    }
    match window {
        Some(open) if complete => open.close(None),
        _ => Ok(()),
    }
}

/// Where the call `id` first appears, to tell a misplaced result from one with no call at all.
/// Looked up only for an error, so a valid transcript is checked without building an index.
fn call_site(messages: &[Message], id: &str) -> Option<usize> {
    messages
        .iter()
        .position(|message| message.tool_calls().any(|call| call.id == id))
}

/// Ids present and parts in the role that may hold them.
fn check_parts(index: usize, message: &Message) -> Result<(), TranscriptError> {
    for part in &message.parts {
        match part {
            Part::ToolCall(call) if call.id.is_empty() => {
                return Err(TranscriptError::EmptyCallId {
                    index,
                    is_call: true,
                });
            }
            Part::ToolCall(call) if message.role != Role::Assistant => {
                return Err(TranscriptError::CallOutsideAssistant {
                    index,
                    call_id: call.id.clone(),
                    role: message.role,
                });
            }
            Part::ToolResult(result) if result.call_id.is_empty() => {
                return Err(TranscriptError::EmptyCallId {
                    index,
                    is_call: false,
                });
            }
            Part::ToolResult(result) if message.role != Role::Tool => {
                return Err(TranscriptError::ResultOutsideTool {
                    index,
                    call_id: result.call_id.clone(),
                    role: message.role,
                });
            }
            Part::ResultContent(content)
                if !message
                    .tool_results()
                    .any(|result| result.call_id == content.call_id) =>
            {
                return Err(TranscriptError::ContentWithoutResult {
                    index,
                    call_id: content.call_id.clone(),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

fn open_window(index: usize, message: &Message) -> Result<Window<'_>, TranscriptError> {
    let mut calls: Vec<(&str, &str, Option<usize>)> = Vec::new();
    for call in message.tool_calls() {
        if calls.iter().any(|(id, _, _)| *id == call.id) {
            return Err(TranscriptError::DuplicateCallId {
                index,
                call_id: call.id.clone(),
            });
        }
        calls.push((&call.id, &call.name, None));
    }
    Ok(Window { index, calls })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ToolCall, ToolResult, tool_error_message, tool_result_message};
    use serde_json::json;

    fn calls(ids: &[&str]) -> Message {
        Message {
            role: Role::Assistant,
            parts: ids
                .iter()
                .map(|id| Part::ToolCall(ToolCall::new(*id, "get_weather", json!({}))))
                .collect(),
        }
    }

    fn results(ids: &[&str]) -> Message {
        Message {
            role: Role::Tool,
            parts: ids
                .iter()
                .map(|id| Part::ToolResult(ToolResult::success(*id, "ok")))
                .collect(),
        }
    }

    fn both(messages: &[Message]) -> (Result<(), TranscriptError>, Result<(), TranscriptError>) {
        (validate(messages), validate_complete(messages))
    }

    #[test]
    fn empty_and_plain_conversations_are_valid() {
        assert_eq!(both(&[]), (Ok(()), Ok(())));
        let chat = [
            Message::system("s"),
            Message::user("u"),
            Message::assistant("a"),
            Message::user("u2"),
        ];
        assert_eq!(both(&chat), (Ok(()), Ok(())));
    }

    #[test]
    fn answered_calls_are_valid_in_one_or_several_tool_messages_in_any_order() {
        let one = [
            Message::user("u"),
            calls(&["a", "b"]),
            results(&["b", "a"]),
            Message::assistant("done"),
        ];
        assert_eq!(both(&one), (Ok(()), Ok(())));
        let split = [
            Message::user("u"),
            calls(&["a", "b"]),
            tool_result_message("a", "1"),
            tool_error_message("b", "ERROR"),
            Message::user("thanks"),
        ];
        assert_eq!(both(&split), (Ok(()), Ok(())));
    }

    #[test]
    fn trailing_calls_may_wait_for_results_but_not_in_a_request() {
        let waiting = [Message::user("u"), calls(&["a", "b"])];
        let missing = TranscriptError::MissingResult {
            index: 1,
            call_id: "a".into(),
            tool: "get_weather".into(),
            before: None,
        };
        assert_eq!(both(&waiting), (Ok(()), Err(missing)));

        let partly = [Message::user("u"), calls(&["a", "b"]), results(&["a"])];
        let missing_b = TranscriptError::MissingResult {
            index: 1,
            call_id: "b".into(),
            tool: "get_weather".into(),
            before: None,
        };
        assert_eq!(both(&partly), (Ok(()), Err(missing_b.clone())));
        assert_eq!(
            missing_b.to_string(),
            "message 1: tool call \"b\" (get_weather) has no result and the transcript ends; answer every call before sending the next request (send skyl::transcript::tool_error_message if the tool could not run)"
        );
    }

    #[test]
    fn a_call_without_a_result_before_the_next_turn_is_refused() {
        for next in [
            Message::user("u"),
            Message::assistant("a"),
            Message::system("s"),
        ] {
            let messages = [calls(&["a", "b"]), results(&["a"]), next];
            let err = validate(&messages).unwrap_err();
            assert_eq!(
                err,
                TranscriptError::MissingResult {
                    index: 0,
                    call_id: "b".into(),
                    tool: "get_weather".into(),
                    before: Some(2)
                }
            );
            assert_eq!((err.index(), err.call_id()), (0, Some("b")));
        }
        assert_eq!(
            validate(&[calls(&["a"]), Message::user("u")])
                .unwrap_err()
                .to_string(),
            "message 0: tool call \"a\" (get_weather) has no result before message 1; every call needs one result in the tool messages right after its assistant turn (send skyl::transcript::tool_error_message if the tool could not run)"
        );
    }

    #[test]
    fn a_result_before_its_call_is_refused() {
        let messages = [Message::user("u"), results(&["a"]), calls(&["a"])];
        let err = validate(&messages).unwrap_err();
        assert_eq!(
            err,
            TranscriptError::ResultNotAfterCall {
                index: 1,
                call_id: "a".into(),
                call_index: 2
            }
        );
        assert_eq!(
            err.to_string(),
            "message 1: the result for call \"a\" comes before its call in message 2; append the assistant's turn first, then its results"
        );
    }

    #[test]
    fn a_result_after_another_turn_is_refused() {
        let after_user = [calls(&["a"]), Message::user("wait"), results(&["a"])];
        // The user turn closes the window first, so the missing result is reported.
        assert!(matches!(
            validate(&after_user),
            Err(TranscriptError::MissingResult {
                before: Some(1),
                ..
            })
        ));

        let stale = [
            calls(&["a"]),
            results(&["a"]),
            calls(&["b"]),
            results(&["b", "a"]),
        ];
        let err = validate(&stale).unwrap_err();
        assert_eq!(
            err,
            TranscriptError::ResultNotAfterCall {
                index: 3,
                call_id: "a".into(),
                call_index: 0
            }
        );
        assert_eq!(
            err.to_string(),
            "message 3: the result for call \"a\" does not directly follow the assistant turn that made the call (message 0); results go in the tool messages right after their call, before any other turn"
        );
    }

    #[test]
    fn two_results_for_one_call_are_refused() {
        let same_message = [calls(&["a"]), results(&["a", "a"])];
        assert_eq!(
            validate(&same_message),
            Err(TranscriptError::DuplicateResult {
                index: 1,
                call_id: "a".into(),
                first: 1
            })
        );
        let next_message = [calls(&["a"]), results(&["a"]), results(&["a"])];
        let err = validate(&next_message).unwrap_err();
        assert_eq!(
            err,
            TranscriptError::DuplicateResult {
                index: 2,
                call_id: "a".into(),
                first: 1
            }
        );
        assert_eq!(
            err.to_string(),
            "message 2: call \"a\" already has a result in message 1; send exactly one result per call"
        );
    }

    #[test]
    fn a_result_for_an_unknown_call_is_refused() {
        let messages = [Message::user("u"), calls(&["a"]), results(&["a", "zzz"])];
        let err = validate(&messages).unwrap_err();
        assert_eq!(
            err,
            TranscriptError::UnknownCall {
                index: 2,
                call_id: "zzz".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "message 2: the result for call \"zzz\" answers no call in the transcript; copy the call_id from the assistant's tool call"
        );
        assert_eq!(
            validate(&[Message::user("u"), results(&["x"])]),
            Err(TranscriptError::UnknownCall {
                index: 1,
                call_id: "x".into()
            })
        );
    }

    #[test]
    fn empty_ids_are_refused() {
        let call = validate(&[calls(&[""])]).unwrap_err();
        assert_eq!(
            call,
            TranscriptError::EmptyCallId {
                index: 0,
                is_call: true
            }
        );
        assert_eq!(call.call_id(), None);
        assert_eq!(
            call.to_string(),
            "message 0: a tool call has an empty id; keep the id the provider gave the call"
        );
        let result = validate(&[calls(&["a"]), results(&[""])]).unwrap_err();
        assert_eq!(
            result,
            TranscriptError::EmptyCallId {
                index: 1,
                is_call: false
            }
        );
        assert_eq!(
            result.to_string(),
            "message 1: a tool result has an empty call_id; set it to the id of the call it answers"
        );
    }

    #[test]
    fn duplicate_call_ids_in_one_turn_are_refused() {
        let err = validate(&[calls(&["a", "b", "a"])]).unwrap_err();
        assert_eq!(
            err,
            TranscriptError::DuplicateCallId {
                index: 0,
                call_id: "a".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "message 0: two tool calls share the id \"a\"; each call in a turn needs its own id so that its result can be matched to it"
        );
    }

    #[test]
    fn calls_and_results_must_sit_in_their_roles() {
        let call_in_user = Message {
            role: Role::User,
            parts: vec![Part::ToolCall(ToolCall::new("a", "t", json!({})))],
        };
        let err = validate(&[call_in_user]).unwrap_err();
        assert_eq!(
            err,
            TranscriptError::CallOutsideAssistant {
                index: 0,
                call_id: "a".into(),
                role: Role::User
            }
        );
        assert_eq!(
            err.to_string(),
            "message 0: tool call \"a\" is in a user message; only assistant messages may hold tool calls"
        );

        let result_in_user = Message {
            role: Role::User,
            parts: vec![Part::ToolResult(ToolResult::success("a", "x"))],
        };
        let err = validate(&[calls(&["a"]), result_in_user]).unwrap_err();
        assert_eq!(
            err,
            TranscriptError::ResultOutsideTool {
                index: 1,
                call_id: "a".into(),
                role: Role::User
            }
        );
        assert_eq!(
            err.to_string(),
            "message 1: the result for call \"a\" is in a user message; put tool results in a tool message (skyl::transcript::tool_result_message builds one)"
        );
    }

    #[test]
    fn content_must_sit_beside_its_result() {
        use crate::content::{Content, ResultContent};
        let content =
            |id: &str| Part::ResultContent(ResultContent::new(id, vec![Content::text("x")]));
        let mut beside = results(&["a"]);
        beside.parts.push(content("a"));
        assert_eq!(validate(&[calls(&["a"]), beside]), Ok(()));

        let mut astray = results(&["a"]);
        astray.parts.push(content("b"));
        let err = validate(&[calls(&["a"]), astray]).unwrap_err();
        assert_eq!(
            err,
            TranscriptError::ContentWithoutResult {
                index: 1,
                call_id: "b".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "message 1: content for call \"b\" is in a message without that call's result; put the Part::ResultContent in the tool message that holds the result, right after it"
        );
    }

    #[test]
    fn the_first_broken_rule_in_message_order_is_reported() {
        let messages = [results(&["x"]), calls(&["a", "a"])];
        assert_eq!(validate(&messages).unwrap_err().index(), 0);
    }
}
