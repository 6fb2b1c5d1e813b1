//! The arguments of every tool call of a streamed answer, parsed as the answer streams.

use super::PartialArguments;
use crate::provider::stream::StreamEvent;

/// The tool calls of one streamed answer, each with its arguments parsed as they arrive.
///
/// Opt-in: hand it the [`StreamEvent`]s of a stream (from a
/// [`StreamDecoder`](crate::provider::stream::StreamDecoder), or any source of them) with
/// [`read`](Self::read); a stream nobody reads this way parses no arguments. Each
/// [`ToolCallDelta`](StreamEvent::ToolCallDelta) is read once, at a cost that grows with the
/// delta, not with the arguments so far.
///
/// ```
/// use skyl::provider::{Anthropic, partial::PartialCalls, stream::Streaming};
///
/// let mut decoder = Anthropic.stream_decoder();
/// let mut calls = PartialCalls::new();
/// let mut shown = Vec::new();
/// let mut sink = |event| {
///     if let Some(call) = calls.read(&event) {
///         // A UI would redraw the call here: the path as soon as it is known, the content as it
///         // fills in.
///         let arguments = call.arguments();
///         shown.push((arguments.get::<String>("path"), arguments.str_so_far("content").map(str::to_owned)));
///     }
/// };
/// decoder.push("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"write_file","input":{}}}"#, &mut sink).unwrap();
/// for piece in [r#"{"path": "a.md", "con"#, r##"tent": "# Ti"##, r#"tle\n"}"#] {
///     let data = serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}});
///     decoder.push("content_block_delta", &data.to_string(), &mut sink).unwrap();
/// }
/// decoder.push("content_block_stop", r#"{"type":"content_block_stop","index":0}"#, &mut sink).unwrap();
/// assert_eq!(shown, [
///     (None, None), // started
///     (Some("a.md".into()), None),
///     (Some("a.md".into()), Some("# Ti".into())),
///     (Some("a.md".into()), Some("# Title\n".into())),
///     (Some("a.md".into()), Some("# Title\n".into())), // finished
/// ]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct PartialCalls {
    /// By the calls' `index` in their events.
    calls: Vec<PartialCall>,
}

/// One tool call of a streamed answer, as far as it has arrived.
#[derive(Clone, Debug)]
pub struct PartialCall {
    index: usize,
    id: String,
    name: String,
    arguments: PartialArguments,
    finished: bool,
}

impl PartialCalls {
    /// Nothing read yet.
    pub fn new() -> PartialCalls {
        PartialCalls::default()
    }

    /// Reads one event of the stream. Returns the call the event was about (started, grown by a
    /// delta, or finished), as it is now; `None` for the other events. A
    /// [`Failover`](StreamEvent::Failover) forgets every call read so far: the answer starts
    /// again, and none of the calls of the answer cut off will run.
    ///
    /// A finished call's arguments are complete: those of the
    /// [`ToolCallFinished`](StreamEvent::ToolCallFinished) call when its deltas were empty (a call
    /// without arguments), else what its deltas say, which is what
    /// `serde_json::from_str` says of them joined (an error too, which
    /// [`PartialArguments::error`] tells).
    pub fn read(&mut self, event: &StreamEvent) -> Option<&PartialCall> {
        let index = match event {
            StreamEvent::ToolCallStarted { index, id, name } => {
                let call = PartialCall {
                    index: *index,
                    id: id.clone(),
                    name: name.clone(),
                    arguments: PartialArguments::new(),
                    finished: false,
                };
                match self.calls.iter().position(|known| known.index == *index) {
                    Some(position) => self.calls[position] = call,
                    None => self.calls.push(call),
                }
                *index
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                let call = self.call_mut(*index)?;
                if !call.finished {
                    call.arguments.push(arguments);
                }
                *index
            }
            StreamEvent::ToolCallFinished { index, call } => {
                let partial = self.call_mut(*index)?;
                if !partial.finished {
                    partial.finished = true;
                    if partial.arguments.is_untouched() {
                        partial.arguments = PartialArguments::whole(call.arguments.clone());
                    } else {
                        partial.arguments.end();
                    }
                }
                *index
            }
            // The answer starts again from another model: the calls of the one cut off are gone.
            StreamEvent::Failover { .. } => {
                self.calls.clear();
                return None;
            }
            _ => return None,
        };
        self.get(index)
    }

    /// The call of `index` (its position among the answer's calls, as in its events).
    pub fn get(&self, index: usize) -> Option<&PartialCall> {
        // Calls start in the order of their indexes: the position is the index, but for a stream
        // that numbered them otherwise.
        match self.calls.get(index) {
            Some(call) if call.index == index => Some(call),
            _ => self.calls.iter().find(|call| call.index == index),
        }
    }

    /// The calls started so far, in the order they started.
    pub fn iter(&self) -> impl Iterator<Item = &PartialCall> {
        self.calls.iter()
    }

    fn call_mut(&mut self, index: usize) -> Option<&mut PartialCall> {
        self.calls.iter_mut().find(|call| call.index == index)
    }
}

impl PartialCall {
    /// The call's position among the answer's calls.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The call's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its arguments so far.
    pub fn arguments(&self) -> &PartialArguments {
        &self.arguments
    }

    /// Whether the stream said the call is complete.
    pub fn is_finished(&self) -> bool {
        self.finished
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::message::ToolCall;

    #[test]
    fn a_failover_forgets_the_calls_of_the_answer_cut_off() {
        let mut calls = PartialCalls::new();
        let started = |id: &str, name: &str| StreamEvent::ToolCallStarted {
            index: 0,
            id: id.into(),
            name: name.into(),
        };
        calls.read(&started("toolu_1", "write_file"));
        calls.read(&StreamEvent::ToolCallDelta {
            index: 0,
            arguments: r#"{"path": "a.md""#.into(),
        });
        let failover = StreamEvent::Failover {
            from: "claude".into(),
            to: "gpt".into(),
            reason: "the stream broke".into(),
        };
        assert!(calls.read(&failover).is_none());
        assert_eq!(calls.iter().count(), 0);
        // The next model's first call is index 0 again, read from its own start.
        calls.read(&started("call_1", "read_file"));
        let finished = calls
            .read(&StreamEvent::ToolCallFinished {
                index: 0,
                call: ToolCall::new("call_1", "read_file", json!({"path": "b.md"})),
            })
            .unwrap();
        assert_eq!(
            (finished.id(), finished.arguments().get::<String>("path")),
            ("call_1", Some("b.md".to_owned()))
        );
        assert_eq!(calls.iter().count(), 1);
    }
}
