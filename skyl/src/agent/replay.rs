//! What a run's journal held when the run started again: read once, then looked up by step and
//! call as the loop goes over the run from its start.

use std::collections::{HashMap, HashSet};

use crate::content::Content;
use crate::message::{Message, ToolResult};

use super::Run;
use super::journal::{Entry, JournalError, Record};
use super::step::ResponseMeta;

/// The records of one run, by step and by call position.
#[derive(Debug, Default)]
pub(crate) struct Replay {
    /// The run as it was when its journal began.
    pub(crate) began: Option<Run>,
    pub(crate) answers: HashMap<u32, (Message, ResponseMeta)>,
    /// Each recorded result, with the content beside it.
    pub(crate) results: HashMap<(u32, usize), (ToolResult, Vec<Content>)>,
    /// The calls that were started, whether or not they finished.
    pub(crate) intents: HashSet<(u32, usize)>,
}

impl Replay {
    /// Reads every entry of `run`; the first that cannot be read is the error, so that nothing
    /// is silently dropped.
    pub(crate) fn read(run: &str, entries: &[Entry]) -> Result<Replay, JournalError> {
        let mut replay = Replay::default();
        for entry in entries {
            match Record::read(run, entry)? {
                Record::Began { run } => replay.began = Some(*run),
                Record::Answer {
                    step,
                    message,
                    answer,
                } => {
                    replay.answers.insert(step, (message, answer));
                }
                Record::Intent { step, call, .. } => {
                    replay.intents.insert((step, call));
                }
                Record::Result {
                    step,
                    call,
                    result,
                    content,
                } => {
                    replay.results.insert((step, call), (result, content));
                }
            }
        }
        Ok(replay)
    }
}
