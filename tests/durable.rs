//! Durable runs on the real SQLite journal (a file in a temporary directory per test): replay,
//! the rule for a call started and never finished, effect keys, syncs, bad records, the saved-run
//! format, approvals bound to what they approve, and one owner per run.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use skyl::agent::{
    Agent, AnsweredBy, Decision, DurableRunError, Entry, Event, Hooks, Journal, JournalError, Run,
    Stop, hooks,
};
use skyl::durable::SqliteJournal;
use skyl::model::BoxFuture;
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, ToolResult, Toolbox};

use crate::support::crash::{Marks, kill_child_once_started};
use crate::support::journal::{Failing, dies_before_results};
use crate::support::scratch::TempDir;

/// What the tools of a test did.
#[derive(Default)]
struct Log {
    lookups: Mutex<Vec<String>>,
    sent: Mutex<Vec<String>>,
    keys: Mutex<Vec<Option<String>>>,
}

/// Looks a word up.
#[skyl::tool(read_only)]
fn lookup(#[state] log: &Log, word: String) -> String {
    log.lookups.lock().unwrap().push(word.clone());
    log.keys.lock().unwrap().push(skyl::agent::effect_key());
    format!("{word}: found")
}

/// Sends an email.
#[skyl::tool(idempotent = false)]
fn send_email(#[state] log: &Log, to: String) -> String {
    log.sent.lock().unwrap().push(to.clone());
    log.keys.lock().unwrap().push(skyl::agent::effect_key());
    format!("sent to {to}")
}

fn toolbox() -> Toolbox<Log> {
    Toolbox::with_state(Log::default())
        .with(Lookup)
        .with(SendEmail)
}

/// The output of a future the SQLite journal makes, which its writer thread answers.
fn ready<T>(future: BoxFuture<'_, T>) -> T {
    crate::support::block_on(future)
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// A journaled run of `agent` on `prompt`, and how each call answered without running was
/// answered.
fn journaled_answers<S: Send + Sync + 'static>(
    agent: &Agent<S>,
    prompt: &str,
    journal: &dyn Journal,
    id: &str,
) -> (Run, Vec<(String, AnsweredBy)>) {
    let mut events = Vec::new();
    let run = agent
        .run(vec![Message::user(prompt)])
        .journaled(journal, id)
        .on_event(|event| {
            if let Event::ToolAnswered { result, by, .. } = event {
                events.push((result.call_id, by));
            }
        })
        .blocking()
        .unwrap();
    (run, events)
}

/// A journaled run of `agent` on `prompt`, and what it reported about changed tools and about
/// each call: `ran`, or how it was answered without running (`AnsweredBy` as `Debug` writes it).
fn journaled_events<S: Send + Sync + 'static>(
    agent: &Agent<S>,
    prompt: &str,
    journal: &dyn Journal,
    id: &str,
) -> (Run, Vec<(String, String)>) {
    let mut events = Vec::new();
    let run = agent
        .run(vec![Message::user(prompt)])
        .journaled(journal, id)
        .on_event(|event| match event {
            Event::ToolChanged { name, gone } => events.push((name, format!("gone: {gone}"))),
            Event::ToolAnswered { result, by, .. } => {
                events.push((result.call_id, format!("{by:?}")))
            }
            Event::ToolFinished { result, .. } => events.push((result.call_id, "ran".into())),
            _ => {}
        })
        .blocking()
        .unwrap();
    (run, events)
}

/// A lookup and an email, then the answer.
fn script() -> ScriptedModel {
    ScriptedModel::new()
        .reply_calls([
            call("c1", "lookup", json!({"word": "ada"})),
            call("c2", "send_email", json!({"to": "ada"})),
        ])
        .reply_text("Done.")
}

#[test]
fn a_run_started_again_asks_the_model_nothing_and_runs_no_call_again() {
    let dir = TempDir::new("durable-replay");
    let journal = dir.journal();
    let model = script();
    let agent = Agent::new(model.clone(), toolbox(), "m");
    let run = agent
        .run(vec![Message::user("Go")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    assert_eq!(run.text(), "Done.");
    assert_eq!(run.id(), Some("r1"));
    // One durable write per model answer, one for the intent of the turn's email; nothing else.
    assert_eq!(journal.syncs(), 3);
    assert_eq!(model.requests().len(), 2);

    // Another process: a new journal handle, a model that has nothing to say, fresh tools.
    let journal = dir.journal();
    let silent = ScriptedModel::new();
    let agent = Agent::new(silent.clone(), toolbox(), "m");
    let (again, events) = journaled_answers(&agent, "something else", &journal, "r1");
    assert_eq!(again.transcript(), run.transcript());
    assert_eq!(again.steps(), 2);
    assert!(silent.requests().is_empty());
    assert!(agent.toolbox().state().lookups.lock().unwrap().is_empty());
    assert!(agent.toolbox().state().sent.lock().unwrap().is_empty());
    assert_eq!(
        events,
        [
            ("c1".to_owned(), AnsweredBy::Journal),
            ("c2".to_owned(), AnsweredBy::Journal)
        ]
    );
    assert_eq!(journal.syncs(), 0, "a replay writes nothing");
}

#[test]
fn a_call_started_and_never_finished_runs_again_if_idempotent_and_is_outcome_unknown_otherwise() {
    let dir = TempDir::new("durable-unfinished");
    let dying = dies_before_results(dir.journal());
    // The email first: its result is the first group written without a sync, before the lookup
    // starts, so the "process" dies between the two calls.
    let model = ScriptedModel::new().reply_calls([
        call("c1", "send_email", json!({"to": "ada"})),
        call("c2", "lookup", json!({"word": "ada"})),
    ]);
    let agent = Agent::new(model, toolbox(), "m");
    let error = agent
        .run(vec![Message::user("Go")])
        .journaled(&dying, "r1")
        .blocking()
        .unwrap_err();
    assert!(matches!(error, DurableRunError::Journal(_)), "{error}");
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
    assert!(agent.toolbox().state().lookups.lock().unwrap().is_empty());

    let journal = dir.journal();
    let model = ScriptedModel::new().reply_text("I will check the outbox first.");
    let agent = Agent::new(model.clone(), toolbox(), "m");
    let (run, events) = journaled_events(&agent, "Go", &journal, "r1");
    assert_eq!(
        events,
        [
            ("c1".to_owned(), "OutcomeUnknown".to_owned()),
            ("c2".to_owned(), "ran".to_owned())
        ]
    );
    // The lookup ran (it has no intent: it runs whenever it has no result); the email was not
    // sent again.
    assert_eq!(*agent.toolbox().state().lookups.lock().unwrap(), ["ada"]);
    assert!(agent.toolbox().state().sent.lock().unwrap().is_empty());
    assert_eq!(
        run.transcript()[2],
        Message {
            role: skyl::Role::Tool,
            parts: vec![
                skyl::Part::ToolResult(ToolResult::error(
                    "c1",
                    "ERROR: the outcome of this send_email call is unknown: it was started, and the process running it stopped before it finished, so it may or may not have taken effect. It was not run again, so that its effect is not repeated. Before calling send_email again, check whether it took effect (with a tool that reads the state it changes, or by asking the user); call it again only if it did not."
                )),
                skyl::Part::ToolResult(ToolResult::success("c2", "ada: found")),
            ],
        }
    );
    // The model read the outcome-unknown result in its next request.
    assert_eq!(*model.requests()[0].messages, run.transcript()[..3]);
}

#[test]
fn a_call_cut_off_after_its_tool_recorded_a_handle_runs_again_to_pick_the_work_up() {
    let dir = TempDir::new("durable-handed");
    let dying = dies_before_results(dir.journal());
    let model = ScriptedModel::new().reply_calls([call("c1", "send_email", json!({"to": "ada"}))]);
    let agent = Agent::new(model, toolbox(), "m");
    agent
        .run(vec![Message::user("Go")])
        .journaled(&dying, "r1")
        .blocking()
        .unwrap_err();
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
    // What a tool that handed its work on (a mounted MCP tool whose server made a task of the
    // call) records under the call's effect key.
    let journal = dir.journal();
    let handle = Entry::new("task".to_owned(), r#"{"taskId": "t-1"}"#.to_owned());
    let handles = skyl::agent::journal::handle_run("r1/1/c1");
    ready(journal.append(&handles, vec![handle], true)).unwrap();

    let model = ScriptedModel::new().reply_text("Sent.");
    let agent = Agent::new(model, toolbox(), "m");
    let (run, events) = journaled_events(&agent, "Go", &journal, "r1");
    // Not outcome-unknown: the call ran again (its intent is not written twice), and its result
    // is the one the run keeps.
    assert_eq!(events, [("c1".to_owned(), "ran".to_owned())]);
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
    assert_eq!(
        run.transcript()[2],
        Message {
            role: skyl::Role::Tool,
            parts: vec![skyl::Part::ToolResult(ToolResult::success(
                "c1",
                "sent to ada"
            ))],
        }
    );
}

#[test]
fn each_intent_is_written_just_before_its_call_so_a_call_that_never_started_runs_on_resume() {
    let dir = TempDir::new("durable-per-call-intent");
    // Durable writes: the answer (0), the first email's intent (1), the second's (2) fails.
    let written = AtomicUsize::new(0);
    let failing = Failing::new(dir.journal(), move |run, _, durable| {
        (durable && written.fetch_add(1, Ordering::SeqCst) == 2).then(|| JournalError::Storage {
            run: run.to_owned(),
            doing: "writing an intent",
            source: "the disk is full".into(),
        })
    });
    let model = ScriptedModel::new()
        .reply_calls([
            call("c1", "send_email", json!({"to": "ada"})),
            call("c2", "send_email", json!({"to": "bob"})),
        ])
        .reply_text("Sent both.");
    let agent = Agent::new(model, toolbox(), "m");
    let error = agent
        .run(vec![Message::user("Email both")])
        .journaled(&failing, "r1")
        .blocking()
        .unwrap_err();
    assert_eq!(
        std::error::Error::source(&error).unwrap().to_string(),
        "run \"r1\": the journal failed while writing an intent"
    );
    // The second email did not start without its intent.
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);

    let journal = dir.journal();
    let agent = Agent::new(
        ScriptedModel::new().reply_text("Sent both."),
        toolbox(),
        "m",
    );
    let run = agent
        .run(vec![Message::user("Email both")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    // The first email's result was recorded; the second, never started, runs now.
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["bob"]);
    let contents: Vec<&str> = run.transcript()[2]
        .tool_results()
        .map(|result| result.content.as_str())
        .collect();
    assert_eq!(contents, ["sent to ada", "sent to bob"]);
}

#[test]
fn each_call_reads_an_effect_key_made_of_the_run_the_step_and_the_call() {
    let dir = TempDir::new("durable-keys");
    let journal = dir.journal();
    let agent = Agent::new(script(), toolbox(), "m");
    agent
        .run(vec![Message::user("Go")])
        .journaled(&journal, "order-42")
        .blocking()
        .unwrap();
    assert_eq!(
        *agent.toolbox().state().keys.lock().unwrap(),
        [
            Some("order-42/1/c1".to_owned()),
            Some("order-42/1/c2".to_owned())
        ]
    );

    // Outside a journaled run there is none.
    let agent = Agent::new(script(), toolbox(), "m");
    agent.run(vec![Message::user("Go")]).blocking().unwrap();
    assert_eq!(*agent.toolbox().state().keys.lock().unwrap(), [None, None]);
}

#[test]
fn a_torn_or_newer_record_stops_the_run_with_an_error_naming_the_run_and_the_record() {
    let dir = TempDir::new("durable-corrupt");
    let journal = dir.journal();
    let agent = Agent::new(script(), toolbox(), "m");
    agent
        .run(vec![Message::user("Go")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    let bad =
        |key: &str, body: &str| ready(journal.append("r1", vec![Entry::new(key, body)], true));
    bad("result/9/0", r#"{"record": "resu"#).unwrap();
    let error = agent
        .run(vec![Message::user("Go")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap_err();
    let DurableRunError::Journal(error) = error else {
        panic!("{error}")
    };
    assert!(
        error.to_string().starts_with(
            "run \"r1\": record \"result/9/0\" cannot be read: its body is not JSON ("
        ),
        "{error}"
    );

    let dir = TempDir::new("durable-newer");
    let journal = dir.journal();
    ready(journal.append(
        "r2",
        vec![Entry::new(
            "began",
            r#"{"record": "began", "format": 7, "run": {"hologram": true}}"#,
        )],
        true,
    ))
    .unwrap();
    let error = agent
        .run(vec![Message::user("Go")])
        .journaled(&journal, "r2")
        .blocking()
        .unwrap_err();
    assert_eq!(
        std::error::Error::source(&error).unwrap().to_string(),
        "run \"r2\": record \"began\" has format version 7, and this skyl reads up to version 2; resume the run with the newer skyl that wrote it"
    );
    assert_eq!(
        error.to_string(),
        "the journal of run \"r2\" could not be used"
    );

    // A key written twice is refused, the second writer told who won.
    let conflict = ready(journal.append("r2", vec![Entry::new("began", "{}")], false)).unwrap_err();
    assert_eq!(
        conflict.to_string(),
        "run \"r2\": another worker recorded \"began\" first and is running this run; this worker stopped without acting on it. Load the run again once that worker is done"
    );
}

#[test]
fn a_run_saved_before_runs_carried_a_format_still_loads_and_resumes_and_a_newer_one_is_refused() {
    let saved = include_str!("fixtures/runs/unversioned_awaiting_approval.json");
    let mut run: Run = serde_json::from_str(saved).unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    assert_eq!(run.steps(), 2);
    let waiting: Vec<&str> = run
        .awaiting_approval()
        .map(|call| call.id.as_str())
        .collect();
    assert_eq!(waiting, ["c2"]);
    run.approve("c2").unwrap();

    /// Pays.
    #[skyl::tool]
    fn pay(amount: u32) -> String {
        format!("paid {amount}")
    }
    /// Get the weather.
    #[skyl::tool]
    fn get_weather(city: String) -> String {
        format!("sunny in {city}")
    }
    /// Divides.
    #[skyl::tool]
    fn divide(a: f64, b: f64) -> Result<f64, String> {
        if b == 0.0 {
            Err("division by zero".into())
        } else {
            Ok(a / b)
        }
    }
    let agent = Agent::new(
        ScriptedModel::new().reply_text("Paid."),
        Toolbox::new().with(Pay).with(GetWeather).with(Divide),
        "m",
    );
    let run = agent.resume(run).blocking().unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(
        run.transcript()[4]
            .tool_results()
            .map(|result| result.content.as_str())
            .collect::<Vec<_>>(),
        [
            "22C and sunny in Kampala",
            "paid 10",
            "ERROR: divide failed: division by zero. Call divide again with different arguments."
        ]
    );

    let mut newer: Value = serde_json::from_str(saved).unwrap();
    newer["format"] = json!(3);
    newer["id"] = json!("r9");
    let error = serde_json::from_value::<Run>(newer).unwrap_err();
    assert_eq!(
        error.to_string(),
        "run \"r9\" cannot be resumed: it was saved in format version 3, and this skyl reads up to version 2; load it with the newer skyl that saved it"
    );
}

// ---------------------------------------------------------------------------------------------
// Approvals

fn paused_email() -> (Agent<Log, impl skyl::agent::Hooks>, ScriptedModel) {
    let model = ScriptedModel::new()
        .reply_calls([call("c1", "send_email", json!({"to": "ada"}))])
        .reply_text("Sent.")
        .reply_text("Sent.");
    let agent = Agent::new(model.clone(), toolbox(), "m").with_hooks(hooks::before_tool_call(
        |call, proposed| {
            if call.name == "send_email" {
                Decision::Pause
            } else {
                proposed
            }
        },
    ));
    (agent, model)
}

/// The run of `paused_email`'s agent, journaled in `journal` under `r1`.
fn email_ada<H: Hooks>(agent: &Agent<Log, H>, journal: &SqliteJournal) -> Run {
    agent
        .run(vec![Message::user("Email Ada")])
        .journaled(journal, "r1")
        .blocking()
        .unwrap()
}

/// Resumed by `agent`, `run`'s approval of the email to Ada does not hold: the call waits again.
fn assert_asks_again<S: Send + Sync + 'static, H: Hooks>(agent: &Agent<S, H>, run: Run) {
    let mut events = Vec::new();
    let asked = agent
        .resume(run)
        .on_event(|event| events.push(event))
        .blocking()
        .unwrap();
    assert_eq!(asked.stop(), &Stop::AwaitingApproval);
    assert_eq!(
        events,
        [Event::ToolPaused {
            call: call("c1", "send_email", json!({"to": "ada"}))
        }]
    );
}

#[test]
fn an_approved_call_of_a_saved_run_resumed_twice_on_one_journal_runs_once() {
    let dir = TempDir::new("durable-approve-twice");
    let journal = dir.journal();
    let (agent, _) = paused_email();
    let mut run = email_ada(&agent, &journal);
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    run.approve("c1").unwrap();
    let saved = serde_json::to_string(&run).unwrap();

    // Two workers, each with the saved run, one journal.
    for _ in 0..2 {
        let run: Run = serde_json::from_str(&saved).unwrap();
        let resumed = agent
            .resume(run)
            .journaled(&journal, "r1")
            .blocking()
            .unwrap();
        assert_eq!(resumed.stop(), &Stop::Answered);
        assert_eq!(
            resumed.transcript()[2]
                .tool_results()
                .next()
                .unwrap()
                .content,
            "sent to ada"
        );
    }
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
}

#[test]
fn an_approved_run_saved_under_one_id_is_refused_under_another_and_asks_again_without_its_journal()
{
    let dir = TempDir::new("durable-approve-other-id");
    let journal = dir.journal();
    let (agent, _) = paused_email();
    let mut run = email_ada(&agent, &journal);
    run.approve("c1").unwrap();
    let saved = serde_json::to_value(&run).unwrap();
    assert_eq!(saved["id"], "r1");
    // The approval names the run it was given in, beside the call it lets run.
    let Value::Object(granted) = &saved["turn"]["slots"][0]["granted"] else {
        panic!("{saved}")
    };
    let mut bound: Vec<&str> = granted.keys().map(String::as_str).collect();
    bound.sort_unstable();
    assert_eq!(bound, ["arguments", "call_id", "definition", "run", "tool"]);
    assert_eq!(granted["run"], "r1");
    let resumed = agent
        .resume(serde_json::from_value(saved.clone()).unwrap())
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    assert_eq!(resumed.stop(), &Stop::Answered);
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);

    // Under another id: refused before anything is read, written or run.
    let error = agent
        .resume(serde_json::from_value(saved.clone()).unwrap())
        .journaled(&journal, "r2")
        .blocking()
        .unwrap_err();
    assert!(
        matches!(error, DurableRunError::AnotherRun { .. }),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "run \"r1\" cannot be resumed as run \"r2\": its journal, which records what it already did, is under \"r1\". Resume it with .journaled(journal, \"r1\"), or start a new run from its transcript to use \"r2\""
    );
    assert!(!journal.has_run("r2").unwrap());

    // Without its journal: the approval does not hold there, so the call waits again.
    assert_asks_again(&agent, serde_json::from_value(saved).unwrap());
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
}

#[test]
fn an_approval_for_another_definition_other_arguments_or_past_its_expiry_asks_again() {
    let (agent, _) = paused_email();
    let run = agent
        .run(vec![Message::user("Email Ada")])
        .blocking()
        .unwrap();
    let approved = |mut run: Run| {
        run.approve("c1").unwrap();
        run
    };

    // The tool changed between the pause and the approval's use.
    /// Sends an email, now to several people.
    #[skyl::tool(idempotent = false)]
    fn send_email(to: String, cc: Option<String>) -> String {
        format!("sent to {to} {cc:?}")
    }
    let changed = Agent::new(ScriptedModel::new(), Toolbox::new().with(SendEmail), "m");
    assert_asks_again(&changed, approved(run.clone()));

    // The approval moved to other arguments (the saved run edited).
    let mut moved = serde_json::to_value(approved(run.clone())).unwrap();
    moved["transcript"][1]["parts"][0]["tool_call"]["arguments"] = json!({"to": "eve"});
    let moved: Run = serde_json::from_value(moved).unwrap();
    let asked = agent.resume(moved).blocking().unwrap();
    assert_eq!(asked.stop(), &Stop::AwaitingApproval);

    // Past its expiry.
    let mut expired = run.clone();
    expired
        .approve_until("c1", SystemTime::now() - Duration::from_secs(1))
        .unwrap();
    let asked = agent.resume(expired).blocking().unwrap();
    assert_eq!(asked.stop(), &Stop::AwaitingApproval);
    assert!(agent.toolbox().state().sent.lock().unwrap().is_empty());

    // Within its expiry, for the same tool and arguments: it runs.
    let mut valid = run;
    valid
        .approve_until("c1", SystemTime::now() + Duration::from_secs(3600))
        .unwrap();
    let ran = agent.resume(valid).blocking().unwrap();
    assert_eq!(ran.stop(), &Stop::Answered);
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
}

/// Draws a chart of a word.
#[skyl::tool(read_only)]
fn chart(word: String) -> (String, skyl::content::Image) {
    (
        format!("{word}, drawn"),
        skyl::content::Image::png(b"\x89PNG\r\n\x1a\n"),
    )
}

#[test]
fn a_replayed_result_keeps_the_image_beside_it() {
    let dir = TempDir::new("durable-content");
    let journal = dir.journal();
    let model = ScriptedModel::new()
        .reply_calls([call("c1", "chart", json!({"word": "ada"}))])
        .reply_text("Drawn.");
    let agent = Agent::new(model, Toolbox::new().with(Chart), "m");
    let run = agent
        .run(vec![Message::user("Draw")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    assert_eq!(
        run.transcript()[2].result_content("c1"),
        Some(&skyl::content::ResultContent::new(
            "c1",
            vec![skyl::content::Image::png(b"\x89PNG\r\n\x1a\n").into()]
        ))
    );

    // Another process replays the run from its journal, the image included, and draws nothing.
    let journal = dir.journal();
    let agent = Agent::new(ScriptedModel::new(), Toolbox::new(), "m");
    let again = agent
        .run(vec![Message::user("something else")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    assert_eq!(again.transcript(), run.transcript());
}

/// Sends an email once told to: `started` hears that it runs, `finish` says when it may end.
#[skyl::tool(idempotent = false)]
fn send_when_told(#[state] gate: &Gate, to: String) -> String {
    gate.started.lock().unwrap().send(()).unwrap();
    gate.finish.lock().unwrap().recv().unwrap();
    gate.sent.lock().unwrap().push(to.clone());
    format!("sent to {to}")
}

struct Gate {
    started: Mutex<std::sync::mpsc::Sender<()>>,
    finish: Mutex<std::sync::mpsc::Receiver<()>>,
    sent: Mutex<Vec<String>>,
}

#[test]
fn a_second_worker_is_refused_while_the_first_owns_the_run_and_replays_its_work_once_it_is_done() {
    let dir = TempDir::new("durable-two-workers");
    let lease = Duration::from_secs(3600);
    let first = dir.journal().with_owner("worker-a").with_lease(lease);
    let second = dir.journal().with_owner("worker-b");
    let (started, running) = std::sync::mpsc::channel();
    let (finish, finishing) = std::sync::mpsc::channel();
    let gate = Gate {
        started: Mutex::new(started),
        finish: Mutex::new(finishing),
        sent: Mutex::default(),
    };
    // When the model was asked: after the run was loaded, before its answer was written.
    let asked = std::sync::Arc::new(Mutex::new(None));
    let model = {
        let asked = std::sync::Arc::clone(&asked);
        ScriptedModel::new()
            .reply_with(move |_| {
                *asked.lock().unwrap() = Some(SystemTime::now());
                // The answer's write comes a clock tick later than the load.
                std::thread::sleep(Duration::from_millis(2));
                Ok(skyl::provider::Response::calls([call(
                    "c1",
                    "send_when_told",
                    json!({"to": "ada"}),
                )]))
            })
            .reply_text("Sent.")
    };
    let agent = Agent::new(model, Toolbox::with_state(gate).with(SendWhenTold), "m");
    std::thread::scope(|scope| {
        // Owned by this closure: a failed assertion drops it, and the email ends.
        let finish = finish;
        let worker = scope.spawn(|| {
            agent
                .run(vec![Message::user("Email Ada")])
                .journaled(&first, "r1")
                .blocking()
        });
        // The first worker's email is running: its intent is written, its result is not.
        running.recv().unwrap();

        let silent = ScriptedModel::new();
        let other = Agent::new(silent.clone(), toolbox(), "m");
        let refused = other
            .run(vec![Message::user("Email Ada")])
            .journaled(&second, "r1")
            .blocking()
            .unwrap_err();
        let DurableRunError::Journal(JournalError::Owned {
            run,
            owner,
            expires,
        }) = &refused
        else {
            panic!("{refused}")
        };
        assert_eq!((run.as_str(), owner.as_str()), ("r1", "worker-a"));
        // Renewed by the writes after the model was asked, not only taken when the run loaded.
        let asked = asked.lock().unwrap().unwrap();
        assert!(*expires >= asked + lease, "{expires:?} {asked:?}");
        // The second worker did nothing: no model request, no email, no answer for the call.
        assert!(silent.requests().is_empty());
        assert!(other.toolbox().state().sent.lock().unwrap().is_empty());

        finish.send(()).unwrap();
        let run = worker.join().unwrap().unwrap();
        assert_eq!(run.text(), "Sent.");
        assert_eq!(
            run.transcript()[2].tool_results().next().unwrap(),
            &ToolResult::success("c1", "sent to ada")
        );

        // The first worker is done and gave the run back: the second replays all of its work.
        let (replayed, events) = journaled_answers(&other, "Email Ada", &second, "r1");
        assert_eq!(replayed.transcript(), run.transcript());
        assert_eq!(events, [("c1".to_owned(), AnsweredBy::Journal)]);
        assert!(silent.requests().is_empty());
        assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
    });
}

#[test]
fn a_run_whose_owner_stopped_renewing_is_taken_over_once_its_lease_expires() {
    let dir = TempDir::new("durable-lease-expiry");
    // A worker took the run and died before doing anything else.
    let dead = dir.journal().with_owner("worker-a");
    assert_eq!(ready(dead.load("r1")).unwrap(), []);
    let second = dir.journal().with_owner("worker-b");
    let agent = Agent::new(script(), toolbox(), "m");
    let refused = agent
        .run(vec![Message::user("Go")])
        .journaled(&second, "r1")
        .blocking()
        .unwrap_err();
    assert!(
        matches!(&refused, DurableRunError::Journal(JournalError::Owned { owner, .. }) if owner == "worker-a"),
        "{refused}"
    );
    assert!(agent.toolbox().state().sent.lock().unwrap().is_empty());

    // Its last heartbeat set a lease of a millisecond; once it lapses, the run is the second's.
    let last_breath = dir
        .journal()
        .with_owner("worker-a")
        .with_lease(Duration::from_millis(1));
    assert_eq!(ready(last_breath.load("r1")).unwrap(), []);
    let mut attempts = 0;
    let run = loop {
        attempts += 1;
        match agent
            .run(vec![Message::user("Go")])
            .journaled(&second, "r1")
            .blocking()
        {
            Ok(run) => break run,
            Err(DurableRunError::Journal(JournalError::Owned { .. })) if attempts < 1000 => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(error) => panic!("after {attempts} attempts: {error}"),
        }
    };
    assert_eq!(run.text(), "Done.");
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);

    // Held by the second again, the run refuses the first's writes: a worker that lost its
    // lease writes nothing, rather than answering for a run another one is running.
    assert_eq!(ready(second.load("r1")).unwrap().len(), 6);
    let late = ready(dead.append("r1", vec![Entry::new("answer/9", "{}")], true)).unwrap_err();
    assert!(
        matches!(&late, JournalError::Owned { owner, .. } if owner == "worker-b"),
        "{late}"
    );
}

// ---------------------------------------------------------------------------------------------
// Killed between two calls

/// Appends a note (synchronous, on the calling thread; each call appends one).
#[skyl::tool(idempotent = false)]
fn append_note(#[state] marks: &Marks, text: String) -> String {
    marks.append("notes", &text);
    format!("noted {text}")
}

/// Sends a fax (synchronous, on the calling thread): marks that it started, then never finishes.
#[skyl::tool(idempotent = false)]
fn send_fax(#[state] marks: &Marks, to: String) -> String {
    marks.append("faxing", &to);
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

fn fax_agent(marks: Marks, model: ScriptedModel) -> Agent<Marks> {
    Agent::new(
        model,
        Toolbox::with_state(marks).with(AppendNote).with(SendFax),
        "m",
    )
}

/// The child's run: one turn of two synchronous calls, a note and a fax that never finishes.
fn note_then_fax(dir: PathBuf, journal: &SqliteJournal) -> ! {
    let model = ScriptedModel::new().reply_calls([
        call("c1", "append_note", json!({"text": "ada"})),
        call("c2", "send_fax", json!({"to": "bob"})),
    ]);
    let _ = fax_agent(Marks(dir), model)
        .run(vec![Message::user("Note, then fax")])
        .journaled(journal, "r1")
        .blocking();
    unreachable!("the fax never finishes");
}

/// The run of [`note_then_fax`] started again on `journal` after its process was killed in the
/// fax, and how each of its calls was answered.
fn resumed_after_the_fax(
    dir: &TempDir,
    journal: &SqliteJournal,
) -> (Run, Vec<(String, AnsweredBy)>) {
    let agent = fax_agent(
        Marks(dir.0.clone()),
        ScriptedModel::new().reply_text("The note is in; the fax may not have gone."),
    );
    journaled_answers(&agent, "Note, then fax", journal, "r1")
}

/// Set in the child process of the test below, to the test's directory.
const CRASH_CHILD: &str = "SKYL_DURABLE_CRASH_CHILD";

#[test]
fn a_process_killed_while_a_synchronous_call_runs_keeps_the_result_of_the_one_before() {
    if let Some(dir) = std::env::var_os(CRASH_CHILD) {
        let dir = PathBuf::from(dir);
        let journal = SqliteJournal::open(dir.join("journal.db"))
            .unwrap()
            .with_owner("worker");
        note_then_fax(dir, &journal);
    }

    let dir = TempDir::new("durable-killed-between");
    // SIGKILL while the fax runs: the note finished before it started.
    kill_child_once_started(
        "durable::a_process_killed_while_a_synchronous_call_runs_keeps_the_result_of_the_one_before",
        CRASH_CHILD,
        &dir.0,
        "faxing",
        "the fax",
    );
    let marks = Marks(dir.0.clone());
    assert_eq!(marks.read("notes"), ["ada"]);

    // The worker started again under its name takes its run back at once.
    let journal = dir.journal().with_owner("worker");
    let (run, events) = resumed_after_the_fax(&dir, &journal);
    // The note replays as finished, from its recorded result; only the fax is unknown.
    assert_eq!(
        events,
        [
            ("c1".to_owned(), AnsweredBy::Journal),
            ("c2".to_owned(), AnsweredBy::OutcomeUnknown)
        ]
    );
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap(),
        &ToolResult::success("c1", "noted ada")
    );
    assert_eq!(marks.read("notes"), ["ada"]);
    assert_eq!(marks.read("faxing"), ["bob"]);
}

/// Set in the child process of the test below, to the test's directory.
const UNNAMED_CHILD: &str = "SKYL_DURABLE_UNNAMED_CHILD";

#[test]
fn a_worker_killed_while_holding_runs_and_started_again_without_an_owner_name_takes_them_at_once() {
    if let Some(dir) = std::env::var_os(UNNAMED_CHILD) {
        // The child, under the name its handle made: it holds "r2" (loaded, not finished) and
        // runs "r1" into a fax that never finishes.
        let dir = PathBuf::from(dir);
        let journal = SqliteJournal::open(dir.join("journal.db")).unwrap();
        assert_eq!(ready(journal.load("r2")).unwrap(), []);
        note_then_fax(dir, &journal);
    }

    let dir = TempDir::new("durable-killed-unnamed");
    kill_child_once_started(
        "durable::a_worker_killed_while_holding_runs_and_started_again_without_an_owner_name_takes_them_at_once",
        UNNAMED_CHILD,
        &dir.0,
        "faxing",
        "the fax",
    );
    let marks = Marks(dir.0.clone());

    // Started again with a name of its own, the worker takes both runs on its first try: their
    // leases, five minutes long, name a process that is gone.
    let journal = dir.journal();
    let (run, events) = resumed_after_the_fax(&dir, &journal);
    assert_eq!(
        events,
        [
            ("c1".to_owned(), AnsweredBy::Journal),
            ("c2".to_owned(), AnsweredBy::OutcomeUnknown)
        ]
    );
    assert_eq!(run.text(), "The note is in; the fax may not have gone.");
    assert_eq!(ready(journal.load("r2")).unwrap(), []);
    assert_eq!(marks.read("notes"), ["ada"]);
    assert_eq!(marks.read("faxing"), ["bob"]);
}

#[test]
fn a_live_owner_without_a_name_keeps_its_runs_until_its_handle_is_dropped_and_the_refusal_names_with_owner()
 {
    let dir = TempDir::new("durable-live-unnamed");
    let first = dir.journal();
    let second = dir.journal();
    assert_eq!(ready(first.load("r1")).unwrap(), []);
    let refused = ready(second.load("r1")).unwrap_err();
    let JournalError::Owned { run, owner, .. } = &refused else {
        panic!("{refused}")
    };
    assert_eq!((run.as_str(), owner.as_str()), ("r1", first.owner()));
    assert!(
        refused
            .to_string()
            .contains("give both one name with SqliteJournal::with_owner"),
        "{refused}"
    );
    // Under one name, two handles are one owner.
    let named = dir.journal().with_owner(first.owner());
    assert_eq!(ready(named.load("r1")).unwrap(), []);

    // Once no handle holds the first's name, its lease is free at once.
    drop((first, named));
    assert_eq!(ready(second.load("r1")).unwrap(), []);
}

// ---------------------------------------------------------------------------------------------
// Resumed by another build

mod rebuilt {
    use super::Marks;

    /// Appends a note; the rebuild marks it idempotent, which it is not.
    #[skyl::tool(idempotent)]
    pub(super) fn append_note(#[state] marks: &Marks, text: String) -> String {
        marks.append("notes", &text);
        format!("noted {text}")
    }
}

/// A run of `note_agent` cut off while its note was being appended: the note was appended, its
/// intent is recorded, its result is not.
fn cut_off_note(dir: &TempDir, id: &str) -> Marks {
    let dying = dies_before_results(dir.journal());
    let model = ScriptedModel::new().reply_calls([call("c1", "append_note", json!({"text": id}))]);
    let agent = fax_agent(Marks(dir.0.clone()), model);
    let error = agent
        .run(vec![Message::user("Note it")])
        .journaled(&dying, id)
        .blocking()
        .unwrap_err();
    assert!(matches!(error, DurableRunError::Journal(_)), "{error}");
    Marks(dir.0.clone())
}

#[test]
fn a_call_cut_off_is_decided_by_what_the_build_that_started_it_promised_and_a_changed_tool_is_reported()
 {
    let dir = TempDir::new("durable-rebuilt");
    let marks = cut_off_note(&dir, "r1");
    assert_eq!(marks.read("notes"), ["r1"]);

    // The rebuild marks the tool idempotent: the note is not appended again, and the change is
    // reported.
    let journal = dir.journal();
    let agent = Agent::new(
        ScriptedModel::new().reply_text("I will check the notes."),
        Toolbox::with_state(Marks(dir.0.clone()))
            .with(rebuilt::AppendNote)
            .with(SendFax),
        "m",
    );
    let (run, events) = journaled_events(&agent, "Note it", &journal, "r1");
    assert_eq!(
        events,
        [
            ("append_note".to_owned(), "gone: false".to_owned()),
            ("c1".to_owned(), "OutcomeUnknown".to_owned()),
        ]
    );
    assert_eq!(marks.read("notes"), ["r1"]);
    assert_eq!(run.stop(), &Stop::Answered);

    // A rebuild without the tool (renamed): reported as gone, and the run goes on.
    cut_off_note(&dir, "r2");
    let renamed = Agent::new(
        ScriptedModel::new().reply_text("I will check the notes."),
        Toolbox::with_state(Marks(dir.0.clone())).with(SendFax),
        "m",
    );
    let (run, events) = journaled_events(&renamed, "Note it", &journal, "r2");
    assert_eq!(
        events,
        [
            ("append_note".to_owned(), "gone: true".to_owned()),
            ("c1".to_owned(), "OutcomeUnknown".to_owned()),
        ]
    );
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(marks.read("notes"), ["r1", "r2"]);

    // The same build: nothing is reported.
    cut_off_note(&dir, "r3");
    let same = fax_agent(
        Marks(dir.0.clone()),
        ScriptedModel::new().reply_text("I will check the notes."),
    );
    let (_, events) = journaled_events(&same, "Note it", &journal, "r3");
    assert_eq!(events, [("c1".to_owned(), "OutcomeUnknown".to_owned())]);
}
