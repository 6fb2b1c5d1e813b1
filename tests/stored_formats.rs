//! The stored formats, compared whole with golden files named by their format version: the
//! records of a journal (`tests/fixtures/stored/records.v{N}.json`) and a saved run
//! (`run.v{N}.json`), N the version this build writes.
//!
//! A change to what is stored (a field added to a record, a slot, an approval, a message) fails
//! the golden test of the current version: bump the version (`RECORD_FORMAT` in
//! `skyl/src/agent/journal.rs`, `RUN_FORMAT` in `skyl/src/agent/run.rs`), keep reading the
//! older ones, and write the new golden file (`SKYL_BLESS=1` writes the missing ones). Every
//! golden file of every version stays, and is read back by the tests below.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, UNIX_EPOCH};

use serde_json::{Value, json};
use skyl::agent::{Agent, AnsweredBy, Decision, Entry, Event, Journal, JournalError, Run, hooks};
use skyl::model::BoxFuture;
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox};

/// Looks a word up.
#[skyl::tool(read_only)]
fn lookup(word: String) -> String {
    format!("{word}: found")
}

/// Sends an email.
#[skyl::tool(idempotent = false)]
fn send_email(to: String) -> String {
    format!("sent to {to}")
}

/// Draws a chart of a word.
#[skyl::tool(read_only)]
fn chart(word: String) -> (String, skyl::content::Image) {
    (
        format!("a chart of {word}"),
        skyl::content::Image::png(b"\x89PNG\r\n\x1a\n"),
    )
}

fn toolbox() -> Toolbox {
    Toolbox::new().with(Lookup).with(SendEmail).with(Chart)
}

/// A journal in memory: the entries of every run, in order.
#[derive(Default)]
struct Memory(Mutex<Vec<(String, Entry)>>);

impl Memory {
    /// A journal holding `records` (as the golden files hold them) for `run`.
    fn holding(run: &str, records: &Value) -> Memory {
        let entries = records
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| {
                let entry = Entry::new(
                    entry["key"].as_str().unwrap().to_owned(),
                    entry["body"].to_string(),
                );
                (run.to_owned(), entry)
            })
            .collect();
        Memory(Mutex::new(entries))
    }

    fn entries(&self, run: &str) -> Vec<Entry> {
        let entries = self.0.lock().unwrap();
        entries
            .iter()
            .filter(|(of, _)| of == run)
            .map(|(_, entry)| entry.clone())
            .collect()
    }
}

impl Journal for Memory {
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
        Box::pin(std::future::ready(Ok(self.entries(run))))
    }

    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        _durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        let mut stored = self.0.lock().unwrap();
        stored.extend(entries.into_iter().map(|entry| (run.to_owned(), entry)));
        Box::pin(std::future::ready(Ok(())))
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// A journaled run writing each kind of record: `began`, answers, an intent, results (one with
/// an image beside it).
fn journaled_records() -> Value {
    let journal = Memory::default();
    let model = ScriptedModel::by_step()
        .reply_calls([
            call("c1", "lookup", json!({"word": "ada"})),
            call("c2", "send_email", json!({"to": "ada"})),
            call("c3", "chart", json!({"word": "ada"})),
        ])
        .reply_text("Done.");
    let agent = Agent::new(model, toolbox(), "m");
    agent
        .run(vec![Message::user("Go")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    let entries: Vec<Value> = journal
        .entries("r1")
        .into_iter()
        .map(|entry| {
            json!({"key": entry.key, "body": serde_json::from_str::<Value>(&entry.body).unwrap()})
        })
        .collect();
    Value::Array(entries)
}

/// Runs saved with each kind of slot: paused for a person, then decided (an approval bound to
/// its call, its run and an expiry; a denial), beside a call already answered.
fn saved_runs() -> Value {
    let journal = Memory::default();
    let model = ScriptedModel::by_step().reply_calls([
        call("c1", "lookup", json!({"word": "ada"})),
        call("c2", "send_email", json!({"to": "ada"})),
        call("c3", "send_email", json!({"to": "bob"})),
    ]);
    let agent =
        Agent::new(model, toolbox(), "m").with_hooks(hooks::before_tool_call(|call, proposed| {
            if call.name == "send_email" {
                Decision::Pause
            } else {
                proposed
            }
        }));
    let mut run = agent
        .run(vec![Message::user("Email both")])
        .journaled(&journal, "r2")
        .blocking()
        .unwrap();
    let paused = serde_json::to_value(&run).unwrap();
    run.approve_until("c2", UNIX_EPOCH + Duration::from_secs(1_796_457_662))
        .unwrap();
    run.deny("c3", "Not Bob.").unwrap();
    json!({"paused": paused, "decided": serde_json::to_value(&run).unwrap()})
}

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/stored/{name}"))
}

/// Compares `stored` whole with the golden file of `kind` for `version`; writes it when missing
/// and `SKYL_BLESS` is set.
fn assert_golden(kind: &str, version: u64, stored: &Value) {
    let path = golden(&format!("{kind}.v{version}.json"));
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(_) if std::env::var_os("SKYL_BLESS").is_some() => {
            let text = serde_json::to_string_pretty(stored).unwrap() + "\n";
            std::fs::write(&path, &text).unwrap();
            text
        }
        Err(error) => panic!(
            "{} cannot be read ({error}): format version {version} of {kind} has no golden file. A new version needs one (SKYL_BLESS=1 writes it), and its reader must still read the older ones",
            path.display()
        ),
    };
    let golden: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        stored, &golden,
        "the stored shape of {kind} changed while its format stayed {version}: bump the version, keep reading this one, and add the new version's golden file"
    );
}

/// The one format version of the records in `records`.
fn record_format(records: &Value) -> u64 {
    let versions: Vec<u64> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["body"]["format"].as_u64().unwrap())
        .collect();
    assert!(versions.windows(2).all(|pair| pair[0] == pair[1]));
    versions[0]
}

#[test]
fn each_record_is_stored_as_the_golden_file_of_its_format_version_says() {
    let records = journaled_records();
    let version = record_format(&records);
    assert_eq!(version, 2);
    assert_golden("records", version, &records);
}

#[test]
fn a_saved_run_is_stored_as_the_golden_file_of_its_format_version_says() {
    let runs = saved_runs();
    let version = runs["paused"]["format"].as_u64().unwrap();
    assert_eq!(runs["decided"]["format"].as_u64(), Some(version));
    assert_eq!(version, 2);
    assert_golden("run", version, &runs);
}

/// The golden files of `kind`, oldest version first; there is one for each version, 1 and 2.
fn every_version(kind: &str) -> Vec<(u64, Value)> {
    let mut found: Vec<(u64, Value)> = std::fs::read_dir(golden(""))
        .unwrap()
        .filter_map(|file| {
            let name = file.unwrap().file_name().into_string().unwrap();
            let version = name
                .strip_prefix(&format!("{kind}.v"))?
                .strip_suffix(".json")?
                .parse()
                .ok()?;
            let text = std::fs::read_to_string(golden(&name)).unwrap();
            Some((version, serde_json::from_str(&text).unwrap()))
        })
        .collect();
    found.sort_by_key(|(version, _)| *version);
    assert_eq!(
        found
            .iter()
            .map(|(version, _)| *version)
            .collect::<Vec<_>>(),
        [1, 2]
    );
    found
}

#[test]
fn the_records_of_every_format_version_replay_without_asking_the_model_or_running_a_tool() {
    let versions = every_version("records");
    for (version, records) in versions {
        let journal = Memory::holding("r1", &records);
        let silent = ScriptedModel::new();
        let agent = Agent::new(silent.clone(), Toolbox::new(), "m");
        let mut answered = Vec::new();
        let run = agent
            .run(vec![Message::user("something else")])
            .journaled(&journal, "r1")
            .on_event(|event| {
                if let Event::ToolAnswered { result, by, .. } = event {
                    answered.push((result.call_id, by));
                }
            })
            .blocking()
            .unwrap_or_else(|error| panic!("version {version}: {error}"));
        assert_eq!(run.text(), "Done.", "version {version}");
        assert_eq!(
            answered,
            [
                ("c1".to_owned(), AnsweredBy::Journal),
                ("c2".to_owned(), AnsweredBy::Journal),
                ("c3".to_owned(), AnsweredBy::Journal),
            ],
            "version {version}"
        );
        assert!(silent.requests().is_empty());
    }
}

#[test]
fn a_saved_run_of_every_format_version_loads_as_the_same_run() {
    let versions = every_version("run");
    let current: Value = saved_runs();
    for (version, runs) in versions {
        for state in ["paused", "decided"] {
            let loaded: Run = serde_json::from_value(runs[state].clone())
                .unwrap_or_else(|error| panic!("version {version}, {state}: {error}"));
            let now: Run = serde_json::from_value(current[state].clone()).unwrap();
            assert_eq!(loaded, now, "version {version}, {state}");
            // Saved again, it is saved in this build's format.
            assert_eq!(serde_json::to_value(&loaded).unwrap(), current[state]);
        }
    }
}

#[test]
fn a_record_or_run_of_a_newer_format_is_refused_as_newer_naming_both_versions() {
    let mut records = journaled_records();
    for entry in records.as_array_mut().unwrap() {
        entry["body"]["format"] = json!(3);
        // A field this build does not know: a newer record is still not called corrupt.
        entry["body"]["hologram"] = json!(true);
    }
    let journal = Memory::holding("r1", &records);
    let agent = Agent::new(ScriptedModel::new(), Toolbox::new(), "m");
    let error = agent
        .run(vec![Message::user("Go")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap_err();
    assert_eq!(
        std::error::Error::source(&error).unwrap().to_string(),
        "run \"r1\": record \"began\" has format version 3, and this skyl reads up to version 2; resume the run with the newer skyl that wrote it"
    );

    let mut run = saved_runs()["decided"].clone();
    run["format"] = json!(3);
    run["hologram"] = json!(true);
    let error = serde_json::from_value::<Run>(run).unwrap_err();
    assert_eq!(
        error.to_string(),
        "run \"r2\" cannot be resumed: it was saved in format version 3, and this skyl reads up to version 2; load it with the newer skyl that saved it"
    );
}
