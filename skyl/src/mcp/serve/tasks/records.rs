//! The records a task keeps in its journal run, and what they say of the task read back.
//!
//! `created`, then for each run of the call that can have effects its intent (`intent`, then
//! `intent/{round}`), for each round that asked its questions (`asked/{round}`) and each answer
//! (`answer/{round}/{key}`), and last the `result`. A record of a newer format than this build
//! writes is passed over as absent.

use std::time::SystemTime;

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, ErrorCode, InputRequests, InputResponses, JsonObject, TaskStatus,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::Entry;
use crate::prose::mcp as prose;

/// The version of the task records this build writes (and the newest it reads).
pub(super) const FORMAT: u32 = 1;

/// The journal run that holds task `id`.
pub(super) fn run_of(id: &str) -> String {
    format!("mcp-task/{id}")
}

/// The `created` record: everything needed to run the call, here or after a restart.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Created {
    pub(crate) format: u32,
    pub(crate) tool: String,
    pub(crate) arguments: Value,
    /// Whether the tool is read-only or idempotent, as the build that created the task said: a
    /// call cut off by a crash runs again only then.
    pub(crate) reruns: bool,
    /// Whether the tool's output goes in `structuredContent`.
    pub(crate) structured: bool,
    pub(crate) created_at: String,
    /// What the client that created the task said it can do: what the tool may ask it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) capabilities: Option<ClientCapabilities>,
    /// The answers the client gave before the task was created (in input-required rounds of
    /// its `tools/call`), which every run of the call has.
    #[serde(default, skip_serializing_if = "InputResponses::is_empty")]
    pub(crate) answers: InputResponses,
}

impl Created {
    /// The record of a call of `tool` made a task now. `reruns`: whether the tool is read-only
    /// or idempotent; `structured`: whether its output goes in `structuredContent`;
    /// `capabilities`: what the client that made it said it can do.
    pub(crate) fn new(
        tool: String,
        arguments: Value,
        reruns: bool,
        structured: bool,
        capabilities: Option<ClientCapabilities>,
    ) -> Self {
        Created {
            format: FORMAT,
            tool,
            arguments,
            reruns,
            structured,
            created_at: now(),
            capabilities,
            answers: InputResponses::new(),
        }
    }

    /// The same record, with the answers given before the task was created.
    pub(crate) fn with_answers(mut self, answers: InputResponses) -> Self {
        self.answers = answers;
        self
    }
}

/// The `intent` record (`intent/{round}` for a rerun after answers): a call that can have
/// effects was about to start.
#[derive(Serialize, Deserialize)]
pub(super) struct Intent {
    pub(super) format: u32,
    pub(super) at: String,
}

/// The `asked/{round}` record: the call's run `round` ended asking the client these questions.
#[derive(Serialize, Deserialize)]
pub(super) struct Asked {
    pub(super) format: u32,
    pub(super) requests: InputRequests,
    pub(super) at: String,
}

/// The `answer/{round}/{key}` record: the client's answer to question `key` of round `round`.
#[derive(Serialize, Deserialize)]
pub(super) struct Answer {
    pub(super) format: u32,
    pub(super) response: Value,
    pub(super) at: String,
}

/// The key of round `round`'s intent record; round 0's is the plain `intent` of the first
/// format.
pub(super) fn intent_key(round: usize) -> String {
    match round {
        0 => "intent".to_owned(),
        round => format!("intent/{round}"),
    }
}

/// The `result` record: how the task ended.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Finished {
    pub(super) format: u32,
    pub(super) status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) result: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) status_message: Option<String>,
    pub(super) updated_at: String,
}

/// What the journal says of one task.
pub(super) struct Stored {
    pub(super) created: Created,
    /// The rounds whose intent is recorded.
    pub(super) intents: Vec<usize>,
    /// Each round that ended asking, in order.
    pub(super) rounds: Vec<Round>,
    pub(super) finished: Option<Finished>,
}

/// A round of the call that ended asking the client.
#[derive(Default)]
pub(super) struct Round {
    pub(super) asked: InputRequests,
    pub(super) answered: InputResponses,
    /// When the round asked or, since, was last answered.
    pub(super) updated_at: String,
}

impl Stored {
    /// The round that runs now or next: the one after every round that asked.
    pub(super) fn round(&self) -> usize {
        self.rounds.len()
    }

    /// The questions of the last round not answered yet; empty when none waits.
    pub(super) fn outstanding(&self) -> InputRequests {
        let Some(round) = self.rounds.last() else {
            return InputRequests::new();
        };
        round
            .asked
            .iter()
            .filter(|(key, _)| !round.answered.contains_key(*key))
            .map(|(key, request)| (key.clone(), request.clone()))
            .collect()
    }

    /// Every answer the client gave, those before the task first, a later round's over an
    /// earlier one's under the same key.
    pub(super) fn answers(&self) -> InputResponses {
        let before = self.created.answers.clone();
        before
            .into_iter()
            .chain(self.rounds.iter().flat_map(|round| round.answered.clone()))
            .collect()
    }

    /// When the task last changed before it finished.
    pub(super) fn updated_at(&self) -> &str {
        self.rounds
            .last()
            .map_or(&self.created.created_at, |round| &round.updated_at)
    }
}

/// A task that failed before its call could start.
pub(super) fn failure(message: &str) -> Finished {
    let error = ErrorData::new(ErrorCode::INTERNAL_ERROR, message.to_owned(), None);
    Finished {
        status_message: Some(message.to_owned()),
        ..failure_of(&error)
    }
}

/// A task that failed with `error`.
pub(super) fn failure_of(error: &ErrorData) -> Finished {
    Finished {
        format: FORMAT,
        status: TaskStatus::Failed,
        result: None,
        error: Some(to_object(error)),
        status_message: None,
        updated_at: now(),
    }
}

/// A task cancelled before its call had a result.
pub(super) fn cancelled_finish(created: &Created) -> Finished {
    Finished {
        format: FORMAT,
        status: TaskStatus::Cancelled,
        result: None,
        error: None,
        status_message: Some(prose::task_cancelled(&created.tool)),
        updated_at: now(),
    }
}

pub(super) fn entry(key: &str, body: &impl Serialize) -> Entry {
    Entry {
        key: key.to_owned(),
        body: serde_json::to_string(body).expect("task records are plain JSON"),
    }
}

pub(super) fn to_object(value: &impl Serialize) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

/// Now, as ISO 8601 in UTC with milliseconds.
pub(super) fn now() -> String {
    crate::text::Utc(SystemTime::now()).to_string()
}

/// What the records of a task's run say of it; `None` without a `created` record this build
/// reads.
pub(super) fn read(entries: Vec<Entry>) -> Option<Stored> {
    let mut created = None;
    let mut intents = Vec::new();
    let mut rounds: Vec<Round> = Vec::new();
    let mut finished = None;
    for Entry { key, body } in entries {
        let (kind, rest) = key.split_once('/').unwrap_or((key.as_str(), ""));
        let round = || rest.split('/').next()?.parse::<usize>().ok();
        match kind {
            "created" => created = serde_json::from_str::<Created>(&body).ok(),
            "intent" if rest.is_empty() => intents.push(0),
            "intent" => intents.extend(round()),
            "asked" => {
                if let (Some(n), Ok(asked)) = (round(), serde_json::from_str::<Asked>(&body))
                    && n == rounds.len()
                    && asked.format <= FORMAT
                {
                    rounds.push(Round {
                        asked: asked.requests,
                        answered: InputResponses::new(),
                        updated_at: asked.at,
                    });
                }
            }
            "answer" => {
                let question = rest.split_once('/').map(|(_, key)| key);
                if let (Some(n), Some(question), Ok(answer)) =
                    (round(), question, serde_json::from_str::<Answer>(&body))
                    && let Some(round) = rounds.get_mut(n)
                    && answer.format <= FORMAT
                {
                    round.answered.insert(question.to_owned(), answer.response);
                    round.updated_at = answer.at;
                }
            }
            "result" => finished = serde_json::from_str::<Finished>(&body).ok(),
            _ => {}
        }
    }
    let created = created.filter(|created| created.format <= FORMAT)?;
    Some(Stored {
        created,
        intents,
        rounds,
        finished: finished.filter(|finished| finished.format <= FORMAT),
    })
}
