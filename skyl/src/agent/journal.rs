//! Durable runs: the seam between the agent loop and whatever stores a run's journal.
//!
//! A run started with [`RunBuilder::journaled`](super::RunBuilder::journaled) writes what it
//! learns to a [`Journal`] as it goes, keyed by the run's id, and a run started again with the
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
//!   a lease): [`Journal::load`] then fails with [`JournalError::Owned`] while another live
//!   worker runs the run, before anything is read or acted on, and the loop gives the run back
//!   with [`Journal::release`] when it stops.
//! - Each call that runs can read its [`effect_key`]: stable across crashes and resumes, made of
//!   the run id, the step and the call id, for an external API's idempotency key.
//! - An approval is bound to its call (see [`Run::approve`](super::Run::approve)); the call's
//!   intent makes it used once.
//! - A sub-agent's run ([`AgentTool`](super::AgentTool)) is a run of its own in the same
//!   journal, under the effect key of the call that runs it (`{run}/{step}/{call id}`, and a
//!   sub-sub-agent's under its own call's key in that run): the rules above hold in it, and the
//!   call that runs it writes no intent, since running it again replays it.
//!
//! Durability is the journal's business and is asked for per group: a group marked durable is on
//! stable storage before [`Journal::append`] returns; the others may wait for the next durable
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
use std::error::Error;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Content;
use crate::message::{Message, ToolResult};

use super::Run;

use super::BoxFuture;

mod journaling;
mod recording;
use super::step::ResponseMeta;
pub(crate) use journaling::Journaling;
pub(crate) use recording::Recording;

/// One record of a run's journal: a key unique within the run, and a body to store as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Unique within the run (see the [module docs](self)).
    pub key: String,
    /// The record, as versioned JSON text.
    pub body: String,
}

/// Where a durable run keeps its journal: an append-only log of [`Entry`]s per run id.
///
/// Implement it for your store; `skyl::durable::SqliteJournal` (feature `durable`) is the
/// embedded default. The [module docs](self) give the rules.
pub trait Journal: Send + Sync {
    /// Every entry of `run`, in the order they were appended; empty for a run never seen.
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>>;

    /// Appends `entries` to `run` as one group: all or none. When `durable`, the group (and
    /// every group before it) is on stable storage before this returns.
    ///
    /// Fails with [`JournalError::Conflict`], appending nothing, when one of the keys exists.
    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>>;

    /// Gives back this worker's hold on `run`, once the run has stopped (finished, paused for a
    /// decision, or failed), so that another worker may resume it at once.
    ///
    /// For a journal that gives each run one owner at a time (a lease, as
    /// `skyl::durable::SqliteJournal` does): `load` takes the hold, or fails with
    /// [`JournalError::Owned`] while another live worker has it, and each `append` renews it.
    /// The loop calls this when a journaled run stops, and ignores its failure (a hold not given
    /// back lapses on its own). A journal without owners does nothing, the default.
    fn release<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<(), JournalError>> {
        let _ = run;
        Box::pin(std::future::ready(Ok(())))
    }
}

impl<J: Journal + ?Sized> Journal for &J {
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
        (**self).load(run)
    }

    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        (**self).append(run, entries, durable)
    }

    fn release<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<(), JournalError>> {
        (**self).release(run)
    }
}

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
    },
}

impl Record {
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

// What a call reads of its own key lives with the tool's view of its call; the run sets it.
pub use crate::tool::effect::effect_key;

/// A journal could not be read or written.
///
/// `Display` says what happened to which run and record; the store's own error, when there is
/// one, is the [`source`](Error::source).
#[derive(Debug)]
#[non_exhaustive]
pub enum JournalError {
    /// Another worker wrote `key` first: it is running this run. This worker stopped without
    /// acting on it.
    Conflict {
        /// The run.
        run: String,
        /// The key both wrote.
        key: String,
    },
    /// Another worker owns the run: its lease is live until `expires`, unless it renews it.
    /// This worker did nothing to the run.
    Owned {
        /// The run.
        run: String,
        /// The worker that owns it.
        owner: String,
        /// When its lease expires, if it does not renew it.
        expires: SystemTime,
    },
    /// A record was written by a later version of skyl.
    NewerFormat {
        /// The run.
        run: String,
        /// The record's key.
        key: String,
        /// The record's format version.
        version: u64,
    },
    /// A record is torn or corrupt: it cannot be read.
    Corrupt {
        /// The run.
        run: String,
        /// The record's key.
        key: String,
        /// What is wrong with it.
        why: String,
    },
    /// The store failed.
    Storage {
        /// The run.
        run: String,
        /// What the journal was doing.
        doing: &'static str,
        /// The store's error.
        source: Box<dyn Error + Send + Sync>,
    },
}

impl JournalError {
    /// The run the error is about.
    pub fn run(&self) -> &str {
        match self {
            JournalError::Conflict { run, .. }
            | JournalError::Owned { run, .. }
            | JournalError::NewerFormat { run, .. }
            | JournalError::Corrupt { run, .. }
            | JournalError::Storage { run, .. } => run,
        }
    }
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Conflict { run, key } => write!(
                f,
                "run \"{run}\": another worker recorded \"{key}\" first and is running this run; this worker stopped without acting on it. Load the run again once that worker is done"
            ),
            JournalError::Owned {
                run,
                owner,
                expires,
            } => write!(
                f,
                "run \"{run}\" is owned by worker \"{owner}\", whose lease expires at {} unless it renews it; this worker did nothing to the run. Start it again once that worker is done, or after its lease has expired",
                Utc(*expires)
            ),
            JournalError::NewerFormat { run, key, version } => write!(
                f,
                "run \"{run}\": record \"{key}\" has format version {version}, and this skyl reads up to version {RECORD_FORMAT}; resume the run with the newer skyl that wrote it"
            ),
            JournalError::Corrupt { run, key, why } => write!(
                f,
                "run \"{run}\": record \"{key}\" cannot be read: {why}. Nothing was dropped: restore the journal from a backup, or start the run under a new id"
            ),
            JournalError::Storage { run, doing, .. } => {
                write!(f, "run \"{run}\": the journal failed while {doing}")
            }
        }
    }
}

/// A time as UTC in RFC 3339, to the millisecond: `2026-12-05T08:01:02.345Z`.
struct Utc(SystemTime);

impl fmt::Display for Utc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let since = self.0.duration_since(UNIX_EPOCH).unwrap_or_default();
        let seconds = since.as_secs();
        let (days, of_day) = (seconds / 86_400, seconds % 86_400);
        // Howard Hinnant's days-to-civil, for days since 1970-01-01.
        let z = days + 719_468;
        let era = z / 146_097;
        let day_of_era = z % 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let shifted_month = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
        let month = if shifted_month < 10 {
            shifted_month + 3
        } else {
            shifted_month - 9
        };
        let year = year_of_era + era * 400 + u64::from(month <= 2);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            of_day / 3600,
            of_day / 60 % 60,
            of_day % 60,
            since.subsec_millis()
        )
    }
}

impl Error for JournalError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            JournalError::Storage { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

/// Why a journaled run ended without a [`Run`]: a model request failed (the run so
/// far is in the [`RunError`](super::RunError)), or the journal failed (the journal has the run:
/// start it again once the cause is fixed).
#[derive(Debug)]
#[non_exhaustive]
pub enum DurableRunError {
    /// A model request failed.
    Model(super::RunError),
    /// The journal could not be read or written; nothing was acted on past the last record.
    Journal(JournalError),
    /// A saved run was resumed under an id other than the one its journal has: nothing was read,
    /// written or run. Its journal holds what it already did (the approved calls it ran
    /// included), so under another id it would do that again.
    AnotherRun {
        /// The id the run was saved with ([`Run::id`]).
        saved: String,
        /// The id it was resumed under.
        given: String,
    },
}

impl fmt::Display for DurableRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DurableRunError::Model(_) => f.write_str("a model request of the journaled run failed"),
            DurableRunError::Journal(error) => write!(
                f,
                "the journal of run \"{}\" could not be used",
                error.run()
            ),
            DurableRunError::AnotherRun { saved, given } => write!(
                f,
                "run \"{saved}\" cannot be resumed as run \"{given}\": its journal, which records what it already did, is under \"{saved}\". Resume it with .journaled(journal, \"{saved}\"), or start a new run from its transcript to use \"{given}\""
            ),
        }
    }
}

impl Error for DurableRunError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            DurableRunError::Model(error) => Some(error),
            DurableRunError::Journal(error) => Some(error),
            DurableRunError::AnotherRun { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
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
            "run \"r1\" is owned by worker \"worker-a\", whose lease expires at 2026-12-05T08:01:02.345Z unless it renews it; this worker did nothing to the run. Start it again once that worker is done, or after its lease has expired"
        );
        assert_eq!(owned.run(), "r1");
        // Leap days, and the turn of a century that is not a leap year.
        assert_eq!(Utc(UNIX_EPOCH).to_string(), "1970-01-01T00:00:00.000Z");
        let at =
            |seconds: u64| Utc(UNIX_EPOCH + std::time::Duration::from_secs(seconds)).to_string();
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(4_107_542_399), "2100-02-28T23:59:59.000Z");
        assert_eq!(at(4_107_542_400), "2100-03-01T00:00:00.000Z");
    }

    #[test]
    fn an_effect_key_is_the_run_the_step_and_the_call() {
        assert_eq!(make_effect_key("run", 3, "c9"), "run/3/c9");
    }
}
