//! What a streamed answer tells as it arrives, the same for every provider.

use crate::message::{Part, ToolCall};
use crate::provider::{Response, StopReason, Usage};

/// One thing a streamed answer told us, in the order it arrived.
///
/// `index` numbers the answer's tool calls from 0 in the order they started, and is the same on
/// every event of one call, so that interleaved parallel calls can be told apart.
///
/// Non-exhaustive: providers add kinds of streamed content, and skyl may follow.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// A piece of the answer's text.
    TextDelta(String),
    /// A piece of the model's readable reasoning ("thinking"), where the provider streams it.
    ReasoningDelta(String),
    /// The model began a tool call.
    ToolCallStarted {
        /// The call's position among this answer's calls.
        index: usize,
        /// The call's id (minted by skyl where the provider gives none).
        id: String,
        /// The tool's name.
        name: String,
    },
    /// A piece of a call's arguments, as JSON text: the pieces of one call, joined, are its whole
    /// arguments object.
    ToolCallDelta {
        /// The call's position among this answer's calls.
        index: usize,
        /// The next piece of JSON text.
        arguments: String,
    },
    /// A call is complete and its arguments are parsed: it can be dispatched.
    ToolCallFinished {
        /// The call's position among this answer's calls.
        index: usize,
        /// The whole call, as it appears in the final [`Response`].
        call: ToolCall,
    },
    /// Token counts, as far as the provider has reported them.
    Usage(Usage),
    /// The answer is complete.
    Done {
        /// Why the model stopped.
        stop_reason: StopReason,
    },
    /// The answer starts again from another model: the model `from` failed with `reason`, a
    /// failure to fail over on, and `to` now answers the same request from its start. Only a
    /// [`Failover`](crate::model::Failover) sends it.
    ///
    /// What this answer streamed before it (text, calls taking shape) is dropped: none of it
    /// reaches the transcript and none of its calls runs, so a display that showed it clears it.
    Failover {
        /// The name of the model that failed.
        from: String,
        /// The name of the model that answers now.
        to: String,
        /// Why `from` failed, as its error says it.
        reason: String,
    },
    /// The stream ended with nothing in it, though the server accepted the request (an
    /// OpenAI-compatible server that cannot stream what was asked, such as llama-cpp-python's
    /// with tools): the same request was sent once more unstreamed, and the events of that
    /// whole answer follow, as [`StreamEvent::replay`] gives them. Only
    /// `skyl::http::HttpModel` sends it (feature `http`).
    AskedWhole {
        /// What the stream did, in a sentence.
        reason: String,
    },
}

impl StreamEvent {
    /// The events a stream of `response` would have produced, for a model that cannot stream:
    /// each text part whole, each call started, its arguments in one piece and finished, the
    /// usage, and the end.
    ///
    /// ```
    /// use skyl::Message;
    /// use skyl::provider::{Response, StopReason, Usage, stream::StreamEvent};
    ///
    /// let response = Response::new(Message::assistant("Hello"), StopReason::EndTurn);
    /// assert_eq!(
    ///     StreamEvent::replay(&response),
    ///     vec![
    ///         StreamEvent::TextDelta("Hello".into()),
    ///         StreamEvent::Usage(Usage::default()),
    ///         StreamEvent::Done { stop_reason: StopReason::EndTurn },
    ///     ]
    /// );
    /// ```
    pub fn replay(response: &Response) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        let mut index = 0;
        for part in &response.message.parts {
            match part {
                Part::ToolCall(call) => {
                    events.push(StreamEvent::ToolCallStarted {
                        index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                    events.push(StreamEvent::ToolCallDelta {
                        index,
                        arguments: crate::message::call_arguments::to_text(&call.arguments)
                            .into_owned(),
                    });
                    events.push(StreamEvent::ToolCallFinished {
                        index,
                        call: call.clone(),
                    });
                    index += 1;
                }
                // A provider's text with its signature is text the model wrote, as plain text is.
                _ => {
                    if let Some(text) = part.text().filter(|text| !text.is_empty()) {
                        events.push(StreamEvent::TextDelta(text.to_owned()));
                    }
                }
            }
        }
        events.push(StreamEvent::Usage(response.usage.clone()));
        events.push(StreamEvent::Done {
            stop_reason: response.stop_reason.clone(),
        });
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, ProviderData, Role};
    use crate::provider::Provider;
    use serde_json::json;

    #[test]
    fn a_replay_starts_grows_and_finishes_every_call_in_order() {
        let first = ToolCall::new("c1", "a", json!({"x": 1}));
        // Arguments a model wrote that are not JSON stream as they were written.
        let second = ToolCall::new("c2", "b", json!("{oops"));
        let response = Response {
            message: Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Text("Let me look.".into()),
                    Part::ProviderText {
                        text: " Again.".into(),
                        provider_data: ProviderData::new(
                            Provider::Gemini,
                            json!({"thoughtSignature": "c2ln"}),
                        ),
                    },
                    Part::Text(String::new()),
                    Part::ToolCall(first.clone()),
                    Part::ToolCall(second.clone()),
                ],
            },
            stop_reason: StopReason::ToolUse,
            usage: Usage {
                input_tokens: 3,
                output_tokens: 4,
                ..Usage::default()
            },
            id: None,
            model: None,
            answered_by: None,
            requested_model: None,
        };
        let usage = response.usage.clone();
        assert_eq!(
            StreamEvent::replay(&response),
            vec![
                StreamEvent::TextDelta("Let me look.".into()),
                StreamEvent::TextDelta(" Again.".into()),
                StreamEvent::ToolCallStarted {
                    index: 0,
                    id: "c1".into(),
                    name: "a".into()
                },
                StreamEvent::ToolCallDelta {
                    index: 0,
                    arguments: r#"{"x":1}"#.into()
                },
                StreamEvent::ToolCallFinished {
                    index: 0,
                    call: first
                },
                StreamEvent::ToolCallStarted {
                    index: 1,
                    id: "c2".into(),
                    name: "b".into()
                },
                StreamEvent::ToolCallDelta {
                    index: 1,
                    arguments: "{oops".into()
                },
                StreamEvent::ToolCallFinished {
                    index: 1,
                    call: second
                },
                StreamEvent::Usage(usage),
                StreamEvent::Done {
                    stop_reason: StopReason::ToolUse
                },
            ]
        );
    }
}
