//! Durable runs: the seam between the agent loop and whatever stores a run's journal.
//!
//! A run started with [`RunBuilder::journaled`](super::RunBuilder::journaled) writes what it
//! learns to a [`Journal`](seam::Journal) as it goes, keyed by the run's id, and a run started again with the
//! same id (in this process or another one, after a crash at any instant) replays the journal
//! instead of doing the work again.
//!
//! # The records
//!
//! The loop writes four kinds of record, each an [`Entry`]: a key unique within its run, and a
//! body the core alone reads (versioned JSON; a journal stores it as it is).
//!
//! | key | record | written | durable |
//! |---|---|---|---|
//! | `began` | the run as it was when its journal began (its messages, for a new run), and the fingerprint of each tool's definition | with the first other record | with it |
//! | `answer/{step}` | the model's answer of a step | before any of its calls is acted on | yes |
//! | `intent/{step}/{call}` | a call that can have effects is about to run: its tool, what the build promised of it (idempotent or not) and its definition's fingerprint | just before it starts | yes |
//! | `result/{step}/{call}` | a call's result, whoever gave it | as soon as it is known, and before the next call of its turn starts | no |
//!
//! `{call}` is the call's position in its turn (a provider may reuse an id).
//!
//! # The rules
//!
//! - An answer that is recorded is never asked for again: replay reads it.
//! - A result that is recorded is reused; its call does not run.
//! - A call with an intent and no result was started and never finished (the process died while
//!   it ran). It runs again if the build that recorded the intent promised that its tool is
//!   read-only or idempotent, whatever the toolbox resumed with says now; otherwise it does not,
//!   and its result says that the call may or may not have taken effect and that the model must
//!   check before calling it again (an *outcome-unknown* result).
//! - Unless its tool handed the work to something that keeps it, and said so in the same
//!   journal: a record in the run named [`handle_run`] of the call's effect key (a mounted MCP
//!   tool records there the task its server made of the call). Such a call runs again, and its
//!   tool picks the work up by that handle instead of starting it again.
//! - A journal resumed with a toolbox that defines one of its tools otherwise, or lacks it
//!   (renamed, removed), is reported ([`Event::ToolChanged`](super::Event::ToolChanged), and a
//!   warning with feature `tracing`), tool by tool; the run goes on.
//! - Only calls that can have effects get an intent: a read-only or idempotent tool's call without
//!   a result simply runs again.
//! - Each intent is written on its own, durably, just before its call starts; the calls after
//!   it in the turn wait for it (the calls before it may be running). A journal that cannot
//!   write an intent stops the turn: no call starts after it.
//! - Each result is written as soon as the loop hears of it, while the turn's other calls run,
//!   and at the latest before the next call of the turn starts: a synchronous tool (not marked
//!   `blocking`) holds the loop's thread while it runs, and a process killed then keeps the
//!   results of the calls that finished before it. (A `blocking` or asynchronous call that
//!   finishes while such a tool runs is heard of, and written, once that tool returns.)
//! - A key is written once. Appending a key that exists fails with [`JournalError::Conflict`]:
//!   two workers resuming one run cannot both record an answer for the same step, nor both start
//!   the same effect, and the one that loses stops without acting.
//! - A journal may give each run one owner at a time (`skyl::durable::SqliteJournal` does, with
//!   a lease): [`Journal::load`](seam::Journal::load) then fails with [`JournalError::Owned`] while another live
//!   worker runs the run, before anything is read or acted on, and the loop gives the run back
//!   with [`Journal::release`](seam::Journal::release) when it stops.
//! - Each call that runs can read its [`effect_key`](super::effect_key): stable across crashes and resumes, made of
//!   the run id, the step and the call id, for an external API's idempotency key.
//! - An approval is bound to its call (see [`Run::approve`](super::Run::approve)); the call's
//!   intent makes it used once.
//! - A sub-agent's run ([`AgentTool`](super::AgentTool)) is a run of its own in the same
//!   journal, under the effect key of the call that runs it (`{run}/{step}/{call id}`, and a
//!   sub-sub-agent's under its own call's key in that run): the rules above hold in it, and the
//!   call that runs it writes no intent, since running it again replays it.
//!
//! Durability is the journal's business and is asked for per group: a group marked durable is on
//! stable storage before [`Journal::append`](seam::Journal::append) returns; the others may wait for the next durable
//! group (a crash may lose them, which only means a lookup runs again or a call is answered as
//! outcome-unknown). So a step costs one durable write for its answer and one for each of its
//! calls that can have effects, and nothing else is synced.
//!
//! # Another engine
//!
//! Nothing here assumes SQLite (`skyl::durable::SqliteJournal`, feature `durable`, is one
//! implementation). An engine with journaled steps (Restate's `ctx.run`) maps an entry's key to a
//! step name and its body to the step's journaled value; a conflict is what such an engine
//! reports when a second invocation races the first. The rules above are the core's and hold
//! whatever the journal.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Content;
use crate::message::{Message, ToolResult};

use crate::agent::run::{Run, Spent};

// Private: their names' one public path is `skyl::agent` (tests/public_paths.rs holds that).
pub(super) mod error;
pub(super) mod seam;

pub(in crate::agent) mod journaling;
pub(in crate::agent) mod recording;
use crate::agent::step::ResponseMeta;
use error::JournalError;
use seam::Entry;

/// The version of the records this code writes, and the latest it reads; a record of a later
/// version is refused, naming its version and this one, rather than read as corrupt.
///
/// - 1: the first.
/// - 2: the saved run inside `began` is of run format 2, `began` holds each tool's definition
///   fingerprint, and an intent what the writing build promised of its tool (idempotent, the
///   definition's fingerprint). Version 1 records of the last builds of version 1 hold the same
///   fields and are read as they are; the version was bumped after them.
///
/// The JSON shape of each record is pinned by `tests/fixtures/stored/records.v{RECORD_FORMAT}.json`:
/// a change of that shape is a new version, with a golden file of its own.
pub(crate) const RECORD_FORMAT: u32 = 2;

/// A record, as the core reads and writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "record")]
pub(crate) enum Record {
    Began {
        run: Box<Run>,
        /// The fingerprint of each tool's definition in the toolbox that began the journal, by
        /// name; empty in a journal begun before it was recorded.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        tools: BTreeMap<String, String>,
    },
    Answer {
        step: u32,
        message: Message,
        answer: ResponseMeta,
    },
    Intent {
        step: u32,
        call: usize,
        call_id: String,
        tool: String,
        /// What the writing build's toolbox promised of the tool: that running a call again
        /// repeats no effect (read-only or idempotent). Replay decides a cut-off call by it, not
        /// by the toolbox it is resumed with; absent in an older record, which reads as `false`
        /// (such a build wrote intents only for tools that promised nothing).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        idempotent: Option<bool>,
        /// The fingerprint of the tool's definition in the writing build.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        definition: Option<String>,
    },
    Result {
        step: u32,
        call: usize,
        result: ToolResult,
        /// The content beside the result (an image), which a replay puts back beside it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        content: Vec<Content>,
        /// What the run of the call's sub-agent used, which a replay counts again in the run's
        /// tree.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spent: Option<Spent>,
    },
}

impl Record {
    /// The record of the call at `position` of step `step` finishing with `result` and the
    /// `content` beside it, its sub-agent's run having used `spent`: the one place a result's
    /// record is made, whoever gave the result (the journal, a hook, a person, the tool).
    pub(crate) fn result(
        step: u32,
        position: usize,
        result: &ToolResult,
        content: &[Content],
        spent: Option<Spent>,
    ) -> Record {
        Record::Result {
            step,
            call: position,
            result: result.clone(),
            content: content.to_vec(),
            spent,
        }
    }

    pub(crate) fn key(&self) -> String {
        match self {
            Record::Began { .. } => "began".to_owned(),
            Record::Answer { step, .. } => format!("answer/{step}"),
            Record::Intent { step, call, .. } => format!("intent/{step}/{call}"),
            Record::Result { step, call, .. } => format!("result/{step}/{call}"),
        }
    }

    pub(crate) fn entry(&self) -> Entry {
        let mut body = serde_json::to_value(self).expect("a record serializes");
        if let Value::Object(object) = &mut body {
            object.insert("format".into(), RECORD_FORMAT.into());
        }
        Entry {
            key: self.key(),
            body: body.to_string(),
        }
    }

    /// Reads an entry of `run`: a record of a later format, or one that does not parse, is an
    /// error naming both.
    pub(crate) fn read(run: &str, entry: &Entry) -> Result<Record, JournalError> {
        let corrupt = |why: String| JournalError::Corrupt {
            run: run.to_owned(),
            key: entry.key.clone(),
            why,
        };
        let body: Value = serde_json::from_str(&entry.body)
            .map_err(|error| corrupt(format!("its body is not JSON ({error})")))?;
        match body.get("format").and_then(Value::as_u64) {
            Some(version) if version > u64::from(RECORD_FORMAT) => {
                return Err(JournalError::NewerFormat {
                    run: run.to_owned(),
                    key: entry.key.clone(),
                    version,
                });
            }
            Some(_) => {}
            None => return Err(corrupt("it has no format version".into())),
        }
        let record: Record = serde_json::from_value(body)
            .map_err(|error| corrupt(format!("it is not a record skyl wrote ({error})")))?;
        if record.key() != entry.key {
            return Err(corrupt(format!(
                "it holds the record of key \"{}\"",
                record.key()
            )));
        }
        Ok(record)
    }
}

/// The key a call's effect goes by, stable across crashes and resumes of its run: the run id,
/// the step and the call id.
pub(crate) fn make_effect_key(run: &str, step: u32, call_id: &str) -> String {
    format!("{run}/{step}/{call_id}")
}

/// The journal run in which a tool records the handle of work it handed to something that
/// keeps it (a mounted MCP tool: the task its server made of the call), for the call whose
/// effect key is `effect_key`. A run resumed after a crash runs such a call again, even when
/// its tool is not idempotent: the tool picks the work up by the handle (see the
/// [module docs](self)).
///
/// ```
/// assert_eq!(skyl::agent::journal::handle_run("run-1/2/c1"), "handle/run-1/2/c1");
/// ```
pub fn handle_run(effect_key: &str) -> String {
    format!("handle/{effect_key}")
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;
    use serde_json::json;

    #[test]
    fn a_record_is_written_with_its_format_and_read_back_whole() {
        let record = Record::Intent {
            step: 2,
            call: 1,
            call_id: "c7".into(),
            tool: "send_email".into(),
            idempotent: Some(false),
            definition: Some("f00d".into()),
        };
        let entry = record.entry();
        assert_eq!(entry.key, "intent/2/1");
        assert_eq!(
            serde_json::from_str::<Value>(&entry.body).unwrap(),
            json!({"record": "intent", "step": 2, "call": 1, "call_id": "c7", "tool": "send_email", "idempotent": false, "definition": "f00d", "format": 2})
        );
        assert_eq!(Record::read("r1", &entry).unwrap(), record);
    }

    #[test]
    fn an_intent_or_a_beginning_written_before_they_held_the_build_s_promise_still_reads() {
        let old = Entry {
            key: "intent/2/1".into(),
            body: r#"{"record": "intent", "step": 2, "call": 1, "call_id": "c7", "tool": "send_email", "format": 1}"#.into(),
        };
        assert_eq!(
            Record::read("r1", &old).unwrap(),
            Record::Intent {
                step: 2,
                call: 1,
                call_id: "c7".into(),
                tool: "send_email".into(),
                idempotent: None,
                definition: None,
            }
        );
        let run = Run::start(vec![crate::message::Message::user("Hi")]);
        let mut body = serde_json::to_value(Record::Began {
            run: Box::new(run.clone()),
            tools: BTreeMap::new(),
        })
        .unwrap();
        assert!(body.get("tools").is_none(), "{body}");
        body["format"] = json!(1);
        let began = Entry {
            key: "began".into(),
            body: body.to_string(),
        };
        assert_eq!(
            Record::read("r1", &began).unwrap(),
            Record::Began {
                run: Box::new(run),
                tools: BTreeMap::new(),
            }
        );
    }

    #[test]
    fn a_newer_torn_or_misplaced_record_is_an_error_naming_the_run_and_the_record() {
        let entry = |key: &str, body: &str| Entry {
            key: key.into(),
            body: body.into(),
        };
        let newer = Record::read(
            "r1",
            &entry("result/1/0", r#"{"record": "result", "format": 3}"#),
        )
        .unwrap_err();
        assert_eq!(
            newer.to_string(),
            "run \"r1\": record \"result/1/0\" has format version 3, and this skyl reads up to version 2; resume the run with the newer skyl that wrote it"
        );
        let torn = Record::read("r1", &entry("answer/3", r#"{"record": "answ"#)).unwrap_err();
        assert!(
            torn.to_string().starts_with(
                "run \"r1\": record \"answer/3\" cannot be read: its body is not JSON ("
            ),
            "{torn}"
        );
        let misplaced = Record::read(
            "r1",
            &entry("began", r#"{"record": "intent", "step": 1, "call": 0, "call_id": "c", "tool": "t", "format": 1}"#),
        )
        .unwrap_err();
        assert_eq!(
            misplaced.to_string(),
            "run \"r1\": record \"began\" cannot be read: it holds the record of key \"intent/1/0\". Nothing was dropped: restore the journal from a backup, or start the run under a new id"
        );
    }

    #[test]
    fn a_run_owned_by_another_worker_is_an_error_naming_the_run_the_owner_and_the_expiry() {
        let owned = JournalError::Owned {
            run: "r1".into(),
            owner: "worker-a".into(),
            expires: UNIX_EPOCH + std::time::Duration::from_millis(1_796_457_662_345),
        };
        assert_eq!(
            owned.to_string(),
            "run \"r1\" is owned by worker \"worker-a\", whose lease expires at 2026-12-05T08:01:02.345Z unless it renews it; this worker did nothing to the run. If that worker is this one under another name (another handle of the journal), give both one name with SqliteJournal::with_owner; otherwise start the run again once that worker is done, or after its lease has expired"
        );
        assert_eq!(owned.run(), "r1");
    }

    #[test]
    fn an_effect_key_is_the_run_the_step_and_the_call() {
        assert_eq!(make_effect_key("run", 3, "c9"), "run/3/c9");
    }
}
