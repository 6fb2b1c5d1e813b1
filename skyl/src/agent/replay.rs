//! What a run's journal held when the run started again: read once, then looked up by step and
//! call as the loop goes over the run from its start.

use std::collections::{BTreeMap, HashMap};

use crate::content::Content;
use crate::message::{Message, ToolResult};

use crate::agent::journal::Record;
use crate::agent::journal::error::JournalError;
use crate::agent::journal::seam::Entry;
use crate::agent::run::Run;
use crate::agent::run::Spent;
use crate::agent::step::ResponseMeta;

/// The records of one run, by step and by call position.
#[derive(Debug, Default)]
pub(crate) struct Replay {
    /// The run as it was when its journal began.
    pub(crate) began: Option<Run>,
    pub(crate) answers: HashMap<u32, (Message, ResponseMeta)>,
    /// Each recorded result, with the content beside it.
    pub(crate) results: HashMap<(u32, usize), Recorded>,
    /// The calls that were started, whether or not they finished, with what the build that
    /// started them promised.
    pub(crate) intents: HashMap<(u32, usize), Intent>,
    /// The fingerprint of each tool's definition in the builds that wrote the journal, by name.
    pub(crate) tools: BTreeMap<String, String>,
}

/// A recorded result, the content beside it, and what the run of its sub-agent used.
pub(crate) type Recorded = (ToolResult, Vec<Content>, Option<Spent>);

/// What the build that started a call recorded about its tool.
#[derive(Debug)]
pub(crate) struct Intent {
    /// Whether it promised that running the call again repeats no effect (`false` when the
    /// record is older than the promise).
    pub(crate) idempotent: bool,
    /// The call's id, from which its effect key is made.
    pub(crate) call_id: String,
    /// Whether its tool recorded a handle for it ([`handle_run`](super::journal::handle_run)):
    /// the work goes on elsewhere, and the call picks it up.
    pub(crate) handed: bool,
}

/// A tool the journal's builds had that the toolbox replaying it has otherwise, or not at all.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Changed {
    pub(crate) name: String,
    /// No tool of that name now (renamed or removed).
    pub(crate) gone: bool,
}

impl Replay {
    /// Reads every entry of `run`; the first that cannot be read is the error, so that nothing
    /// is silently dropped.
    pub(crate) fn read(run: &str, entries: &[Entry]) -> Result<Replay, JournalError> {
        let mut replay = Replay::default();
        for entry in entries {
            match Record::read(run, entry)? {
                Record::Began { run, tools } => {
                    replay.began = Some(*run);
                    replay.tools.extend(tools);
                }
                Record::Answer {
                    step,
                    message,
                    answer,
                } => {
                    replay.answers.insert(step, (message, answer));
                }
                Record::Intent {
                    step,
                    call,
                    call_id,
                    tool,
                    idempotent,
                    definition,
                } => {
                    let idempotent = idempotent.unwrap_or(false);
                    let intent = Intent {
                        idempotent,
                        call_id,
                        handed: false,
                    };
                    replay.intents.insert((step, call), intent);
                    if let Some(definition) = definition {
                        // The latest build that started a call of the tool says how it was.
                        replay.tools.insert(tool, definition);
                    }
                }
                Record::Result {
                    step,
                    call,
                    result,
                    content,
                    spent,
                } => {
                    replay
                        .results
                        .insert((step, call), (result, content, spent));
                }
            }
        }
        Ok(replay)
    }

    /// The tools whose definition the journal recorded and `now` (the fingerprint of a tool's
    /// definition in the toolbox replaying it, `None` for a tool it lacks) differs from, by name.
    pub(crate) fn changed_tools(&self, now: impl Fn(&str) -> Option<String>) -> Vec<Changed> {
        self.tools
            .iter()
            .filter_map(|(name, recorded)| match now(name) {
                Some(current) if current == *recorded => None,
                current => Some(Changed {
                    name: name.clone(),
                    gone: current.is_none(),
                }),
            })
            .collect()
    }
}
