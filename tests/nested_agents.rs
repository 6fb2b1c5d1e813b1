//! Agents that call agents: an agent as a typed tool of another, its run journaled under the
//! calling run's effect key and resumed where it was, approvals asked from inside at any depth,
//! and its events nested under the call that runs it.

use std::future::IntoFuture as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::task::{Context, Waker};

use serde_json::{Value, json};
use skyl::agent::{
    Agent, AgentTool, AnsweredBy, Decision, DurableRunError, Event, Journal, JournalError, Run,
    Stop, hooks,
};
use skyl::durable::SqliteJournal;
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox};

use crate::support::crash::{Marks, kill_child_once_started};
use crate::support::journal::Failing;
use crate::support::scratch::TempDir;

/// What the tools of a test did, with the effect key of each call.
#[derive(Default)]
struct Log {
    done: Mutex<Vec<(String, Option<String>)>>,
}

impl Log {
    fn done(&self) -> Vec<(String, Option<String>)> {
        self.done.lock().unwrap().clone()
    }
}

/// Looks a word up.
#[skyl::tool(read_only)]
fn lookup(#[state] log: &Arc<Log>, word: String) -> String {
    log.done
        .lock()
        .unwrap()
        .push((format!("lookup {word}"), skyl::agent::effect_key()));
    format!("{word}: found")
}

/// Sends an email.
#[skyl::tool(idempotent = false)]
fn send_email(#[state] log: &Arc<Log>, to: String) -> String {
    log.done
        .lock()
        .unwrap()
        .push((format!("send_email {to}"), skyl::agent::effect_key()));
    format!("sent to {to}")
}

/// Charges a card; in the first "process" of a test, it never finishes.
#[skyl::tool(idempotent = false)]
async fn charge(#[state] log: &Arc<Log>, cents: u64) -> String {
    log.done
        .lock()
        .unwrap()
        .push((format!("charge {cents}"), skyl::agent::effect_key()));
    std::future::pending::<()>().await;
    unreachable!("the charge never finishes")
}

/// What to look into.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Topic {
    /// The subject.
    subject: String,
}

/// What was found.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Finding {
    summary: String,
}

/// Who to write to.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Mail {
    #[expect(dead_code, reason = "the sub-agent reads the arguments as JSON")]
    to: String,
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// The journal in `dir` as one worker opens it: a handle opened again (another process of the
/// same worker) takes the runs back at once, though reading the records (`keys`) took the lease.
fn worker_journal(dir: &TempDir) -> Arc<SqliteJournal> {
    Arc::new(dir.worker_journal())
}

/// The keys of the records of `run` in `journal`.
fn keys(journal: &SqliteJournal, run: &str) -> Vec<String> {
    crate::support::block_on(journal.load(run))
        .unwrap()
        .into_iter()
        .map(|entry| entry.key)
        .collect()
}

/// An unjournaled run of `agent` on the prompt of every run here.
fn write_to_ada(agent: &Agent<Arc<Log>>) -> Run {
    agent
        .run(vec![Message::user("Write to Ada")])
        .blocking()
        .unwrap()
}

/// Three levels: the top agent calls `research` (c1), whose agent looks a word up (r1) and calls
/// `mail` (r2), whose agent sends an email (m1), paused for approval when `pause` holds.
struct Levels {
    top: ScriptedModel,
    research: ScriptedModel,
    mail: ScriptedModel,
}

impl Levels {
    /// The models of a whole run.
    fn scripted() -> Levels {
        Levels {
            top: ScriptedModel::new()
                .reply_calls([call("c1", "research", json!({"subject": "Ada"}))])
                .reply_text("Ada was written to."),
            research: ScriptedModel::new()
                .reply_calls([
                    call("r1", "lookup", json!({"word": "ada"})),
                    call("r2", "mail", json!({"to": "ada"})),
                ])
                .reply_text(r#"{"summary": "ada found and mailed"}"#),
            mail: ScriptedModel::new()
                .reply_calls([call("m1", "send_email", json!({"to": "ada"}))])
                .reply_text(r#""mailed ada""#),
        }
    }

    /// Models with nothing to say: another process, whose journal has every answer.
    fn silent() -> Levels {
        Levels {
            top: ScriptedModel::new(),
            research: ScriptedModel::new(),
            mail: ScriptedModel::new(),
        }
    }

    fn requests(&self) -> [usize; 3] {
        [
            self.top.requests().len(),
            self.research.requests().len(),
            self.mail.requests().len(),
        ]
    }

    /// The top agent, its sub-agents journaled in `journal` when there is one.
    fn agent(
        &self,
        log: &Arc<Log>,
        journal: Option<Arc<SqliteJournal>>,
        pause: bool,
    ) -> Agent<Arc<Log>> {
        let mailer = Agent::new(
            self.mail.clone(),
            Toolbox::with_state(Arc::clone(log)).with(SendEmail),
            "mail-model",
        )
        .with_approval_for_destructive(pause);
        let mut mail: AgentTool<Mail, String, Arc<Log>> =
            mailer.as_tool("mail", "Writes to someone.");
        if let Some(journal) = &journal {
            mail = mail.journaled(Arc::clone(journal) as Arc<dyn Journal>);
        }
        let researcher = Agent::new(
            self.research.clone(),
            Toolbox::with_state(Arc::clone(log)).with(Lookup).with(mail),
            "research-model",
        );
        let mut research: AgentTool<Topic, Finding, Arc<Log>> =
            AgentTool::new("research", "Looks a subject up.", researcher)
                .with_prompt(|topic: &Topic| format!("Look {} up and mail them.", topic.subject));
        if let Some(journal) = &journal {
            research = research.journaled(Arc::clone(journal) as Arc<dyn Journal>);
        }
        Agent::new(
            self.top.clone(),
            Toolbox::with_state(Arc::clone(log)).with(research),
            "top-model",
        )
    }
}

#[test]
fn a_sub_agent_answers_the_call_with_its_typed_answer_from_its_own_model_and_tools() {
    let log = Arc::new(Log::default());
    let levels = Levels::scripted();
    let agent = levels.agent(&log, None, false);
    let run = write_to_ada(&agent);
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(run.text(), "Ada was written to.");
    let results: Vec<&str> = run
        .transcript()
        .iter()
        .flat_map(Message::tool_results)
        .map(|result| result.content.as_str())
        .collect();
    assert_eq!(results, [r#"{"summary":"ada found and mailed"}"#]);
    assert_eq!(levels.requests(), [2, 2, 2]);
    // Each agent asks its own model, with its own tools and its own output schema.
    let research = levels.research.requests();
    assert_eq!(research[0].model, "research-model");
    assert_eq!(
        research[0].messages[0],
        Message::user("Look Ada up and mail them.")
    );
    let tools: Vec<&str> = research[0]
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert_eq!(tools, ["lookup", "mail"]);
    assert_eq!(research[0].output.as_ref().unwrap().name, "Finding");
    let mail = levels.mail.requests();
    // Without a prompt of its own, the sub-agent reads the arguments as JSON.
    assert_eq!(mail[0].messages[0], Message::user(r#"{"to":"ada"}"#));
    let top = levels.top.requests();
    let research_tool = top[0]
        .tools
        .iter()
        .find(|tool| tool.name == "research")
        .unwrap();
    assert_eq!(
        research_tool.parameters,
        json!({
            "type": "object",
            "properties": {"subject": {"type": "string", "description": "The subject."}},
            "required": ["subject"]
        })
    );
    assert_eq!(research_tool.annotations.destructive, Some(false));
    assert_eq!(research_tool.annotations.idempotent, None);
    assert_eq!(
        log.done(),
        [
            ("lookup ada".to_owned(), None),
            ("send_email ada".to_owned(), None)
        ]
    );
}

#[test]
fn a_sub_agent_that_stops_short_or_answers_unreadably_gives_the_model_a_failure() {
    let log = Arc::new(Log::default());
    let looping = ScriptedModel::new()
        .reply_calls([call("r1", "lookup", json!({"word": "a"}))])
        .reply_calls([call("r2", "lookup", json!({"word": "b"}))]);
    let researcher = Agent::new(
        looping,
        Toolbox::with_state(Arc::clone(&log)).with(Lookup),
        "m",
    )
    .with_max_steps(1);
    let unreadable = Agent::new(
        ScriptedModel::new().reply_text("not JSON"),
        Toolbox::with_state(Arc::clone(&log)),
        "m",
    );
    let top = ScriptedModel::new()
        .reply_calls([
            call("c1", "research", json!({"subject": "a"})),
            call("c2", "summarize", json!({"subject": "b"})),
        ])
        .reply_text("Sorry.");
    let agent = Agent::new(
        top,
        Toolbox::with_state(Arc::clone(&log))
            .with(researcher.as_tool::<Topic, Finding>("research", "Looks up."))
            .with(
                AgentTool::<Topic, Finding, Arc<Log>>::new("summarize", "Sums up.", unreadable)
                    .with_corrections(0),
            ),
        "m",
    );
    let run = agent.run(vec![Message::user("Go")]).blocking().unwrap();
    let results: Vec<&str> = run.transcript()[2]
        .tool_results()
        .map(|result| result.content.as_str())
        .collect();
    assert_eq!(
        results,
        [
            "ERROR: research failed: research stopped before its final answer: the run reached its limit of 1 steps. Call research again with different arguments.",
            "ERROR: summarize failed: the final answer of summarize could not be read as Finding: expected ident at line 1 column 2. Call summarize again with different arguments."
        ]
    );
}

#[test]
fn a_sub_agents_run_is_journaled_under_the_calls_effect_key_and_a_replay_runs_nothing() {
    let dir = TempDir::new("nested-journaled");
    let journal = worker_journal(&dir);
    let log = Arc::new(Log::default());
    let levels = Levels::scripted();
    let agent = levels.agent(&log, Some(Arc::clone(&journal)), false);
    let run = agent
        .run(vec![Message::user("Write to Ada")])
        .journaled(&*journal, "top")
        .blocking()
        .unwrap();
    assert_eq!(run.text(), "Ada was written to.");
    // Each sub-agent's run id is the effect key of the call that runs it.
    assert_eq!(
        log.done(),
        [
            ("lookup ada".to_owned(), Some("top/1/c1/1/r1".to_owned())),
            (
                "send_email ada".to_owned(),
                Some("top/1/c1/1/r2/1/m1".to_owned())
            )
        ]
    );
    assert_eq!(
        keys(&journal, "top/1/c1/1/r2"),
        ["began", "answer/1", "intent/1/0", "result/1/0", "answer/2"]
    );
    assert_eq!(
        keys(&journal, "top/1/c1"),
        ["began", "answer/1", "result/1/0", "result/1/1", "answer/2"]
    );
    // A sub-agent's call repeats nothing when it runs again (it replays), so it writes no intent.
    assert_eq!(
        keys(&journal, "top"),
        ["began", "answer/1", "result/1/0", "answer/2"]
    );

    // Another process: everything is replayed, nothing asked or run.
    let log = Arc::new(Log::default());
    let silent = Levels::silent();
    let agent = silent.agent(&log, Some(worker_journal(&dir)), false);
    let again = agent
        .run(vec![Message::user("something else")])
        .journaled(&*worker_journal(&dir), "top")
        .blocking()
        .unwrap();
    assert_eq!(again.transcript(), run.transcript());
    assert_eq!(silent.requests(), [0, 0, 0]);
    assert!(log.done().is_empty());
}

#[test]
fn a_run_stopped_inside_a_sub_agent_resumes_it_where_it_was_and_repeats_no_effect() {
    let dir = TempDir::new("nested-stopped");
    let log = Arc::new(Log::default());
    let billing = |model: ScriptedModel, log: &Arc<Log>| {
        Agent::new(
            model,
            Toolbox::with_state(Arc::clone(log))
                .with(Lookup)
                .with(Charge),
            "billing-model",
        )
    };
    let top = |model: ScriptedModel, billing: Agent<Arc<Log>>, journal: &Arc<SqliteJournal>| {
        let bill = billing
            .as_tool::<Topic, String>("bill", "Bills a customer.")
            .journaled(Arc::clone(journal) as Arc<dyn Journal>);
        Agent::new(
            model,
            Toolbox::with_state(Arc::new(Log::default())).with(bill),
            "top",
        )
    };

    // The first process: the sub-agent looks up, then its charge starts and never finishes; the
    // process stops there (the run's future is dropped, as a crash would).
    let journal = worker_journal(&dir);
    let sub_model = ScriptedModel::new()
        .reply_calls([call("b1", "lookup", json!({"word": "ada"}))])
        .reply_calls([call("b2", "charge", json!({"cents": 500}))]);
    let top_model =
        ScriptedModel::new().reply_calls([call("c1", "bill", json!({"subject": "ada"}))]);
    let agent = top(top_model, billing(sub_model, &log), &journal);
    {
        let mut run = agent
            .run(vec![Message::user("Bill Ada")])
            .journaled(&*journal, "top")
            .into_future();
        let mut context = Context::from_waker(Waker::noop());
        // The journal writes on a thread of its own, so the run is polled until both effects are
        // done (bounded: about ten seconds at most).
        for _ in 0..10_000 {
            assert!(run.as_mut().poll(&mut context).is_pending());
            if log.done().len() == 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    assert_eq!(
        log.done(),
        [
            ("lookup ada".to_owned(), Some("top/1/c1/1/b1".to_owned())),
            ("charge 500".to_owned(), Some("top/1/c1/2/b2".to_owned()))
        ]
    );

    // Another process: the sub-agent goes on from its third step; the charge cut off is answered
    // as outcome-unknown, not run again, and the lookup's result is reused.
    let log = Arc::new(Log::default());
    let journal = worker_journal(&dir);
    let sub_model = ScriptedModel::new().reply_text(r#""not charged""#);
    let top_model = ScriptedModel::new().reply_text("Could not bill Ada.");
    let agent = top(
        top_model.clone(),
        billing(sub_model.clone(), &log),
        &journal,
    );
    let mut answered = Vec::new();
    let run = agent
        .run(vec![Message::user("Bill Ada")])
        .journaled(&*journal, "top")
        .on_event(|event| {
            if let Event::ToolAnswered { result, by, .. } = event.innermost() {
                answered.push((event.path(), result.call_id.clone(), *by));
            }
        })
        .blocking()
        .unwrap();
    assert_eq!(run.text(), "Could not bill Ada.");
    assert!(log.done().is_empty());
    assert_eq!(sub_model.requests().len(), 1);
    assert_eq!(top_model.requests().len(), 1);
    let bill = ["c1 bill".to_owned()];
    assert_eq!(
        answered,
        [
            (bill.to_vec(), "b1".to_owned(), AnsweredBy::Journal),
            (bill.to_vec(), "b2".to_owned(), AnsweredBy::OutcomeUnknown)
        ]
    );
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap().content,
        r#""not charged""#
    );
}

#[test]
fn an_approval_asked_two_levels_down_pauses_the_top_run_and_is_used_once_in_another_process() {
    let dir = TempDir::new("nested-approval");
    let log = Arc::new(Log::default());
    let levels = Levels::scripted();
    let agent = levels.agent(&log, Some(worker_journal(&dir)), true);
    let run = agent
        .run(vec![Message::user("Write to Ada")])
        .journaled(&*worker_journal(&dir), "top")
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    assert_eq!(
        log.done(),
        [("lookup ada".to_owned(), Some("top/1/c1/1/r1".to_owned()))]
    );
    let waiting = run.waiting();
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        waiting[0].describe(),
        ["c1 research", "r2 mail", "m1 send_email"]
    );
    assert_eq!(waiting[0].ids(), ["c1", "r2", "m1"]);
    assert_eq!(waiting[0].run_id(), Some("top/1/c1/1/r2"));
    assert_eq!(waiting[0].call().arguments, json!({"to": "ada"}));
    let awaiting: Vec<&str> = run
        .awaiting_approval()
        .map(|call| call.id.as_str())
        .collect();
    assert_eq!(awaiting, ["c1"]);
    let saved = serde_json::to_string(&run).unwrap();

    // Another process decides and resumes.
    let mut run: Run = serde_json::from_str(&saved).unwrap();
    assert_eq!(run.waiting(), waiting);
    assert_eq!(
        run.approve_at(&["c1", "m1"]).unwrap_err().to_string(),
        "no call \"m1\" is waiting for approval in this run; decide about one of \"r2\" instead"
    );
    run.approve_at(&["c1", "r2", "m1"]).unwrap();
    assert!(run.waiting().is_empty());
    let approved = serde_json::to_string(&run).unwrap();
    let log = Arc::new(Log::default());
    let models = Levels {
        top: ScriptedModel::new().reply_text("Ada was written to."),
        research: ScriptedModel::new().reply_text(r#"{"summary": "ada found and mailed"}"#),
        mail: ScriptedModel::new().reply_text(r#""mailed ada""#),
    };
    let agent = models.agent(&log, Some(worker_journal(&dir)), true);
    let finished = agent
        .resume(run)
        .journaled(&*worker_journal(&dir), "top")
        .blocking()
        .unwrap();
    assert_eq!(finished.stop(), &Stop::Answered);
    assert_eq!(finished.text(), "Ada was written to.");
    // The lookup is not run again; the email runs once, under its effect key.
    assert_eq!(
        log.done(),
        [(
            "send_email ada".to_owned(),
            Some("top/1/c1/1/r2/1/m1".to_owned())
        )]
    );
    assert_eq!(models.requests(), [1, 1, 1]);
    assert_eq!(
        finished.transcript()[2]
            .tool_results()
            .next()
            .unwrap()
            .content,
        r#"{"summary":"ada found and mailed"}"#
    );

    // The same approved run resumed again (a second worker, a retry): the approval was used.
    let log = Arc::new(Log::default());
    let silent = Levels::silent();
    let agent = silent.agent(&log, Some(worker_journal(&dir)), true);
    let again = agent
        .resume(serde_json::from_str(&approved).unwrap())
        .journaled(&*worker_journal(&dir), "top")
        .blocking()
        .unwrap();
    assert_eq!(again.transcript(), finished.transcript());
    assert!(log.done().is_empty());
    assert_eq!(silent.requests(), [0, 0, 0]);
}

#[test]
fn an_approval_from_inside_binds_to_the_sub_agents_journaled_run() {
    let dir = TempDir::new("nested-binding");
    let log = Arc::new(Log::default());
    let levels = Levels::scripted();
    let agent = levels.agent(&log, Some(worker_journal(&dir)), true);
    let mut run = agent
        .run(vec![Message::user("Write to Ada")])
        .journaled(&*worker_journal(&dir), "top")
        .blocking()
        .unwrap();
    run.approve_at(&["c1", "r2", "m1"]).unwrap();

    // Resumed without the journal, the sub-agents' runs have no journal either: the approval,
    // bound to the journaled sub-run, does not hold, and the call waits again.
    let log = Arc::new(Log::default());
    let models = Levels {
        top: ScriptedModel::new(),
        research: ScriptedModel::new(),
        mail: ScriptedModel::new(),
    };
    let agent = models.agent(&log, None, true);
    let run = agent.resume(run).blocking().unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    assert!(log.done().is_empty());
    assert_eq!(run.waiting()[0].ids(), ["c1", "r2", "m1"]);
}

#[test]
fn a_call_denied_inside_a_sub_agent_gives_its_model_the_reason_and_the_run_goes_on() {
    let log = Arc::new(Log::default());
    let levels = Levels::scripted();
    let agent = levels.agent(&log, None, true);
    let mut run = write_to_ada(&agent);
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    run.deny_at(&["c1", "r2", "m1"], "Ada asked not to be emailed")
        .unwrap();
    let run = agent.resume(run).blocking().unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(log.done(), [("lookup ada".to_owned(), None)]);
    let mail = levels.mail.requests();
    let denied = mail[1].messages[2].tool_results().next().unwrap();
    assert_eq!(
        denied.content,
        "ERROR: send_email was not run: Ada asked not to be emailed. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
    );
}

#[test]
fn a_sub_agents_events_come_nested_under_the_call_that_runs_it() {
    let log = Arc::new(Log::default());
    let levels = Levels::scripted();
    let agent = levels.agent(&log, None, false);
    let mut seen = Vec::new();
    agent
        .run(vec![Message::user("Write to Ada")])
        .on_event(|event| {
            let what = match event.innermost() {
                Event::StepStarted { step } => format!("step {step}"),
                Event::ToolStarted { call } => format!("started {}", call.id),
                Event::ToolFinished { result, .. } => format!("finished {}", result.call_id),
                _ => return,
            };
            seen.push((event.path().join(" > "), what));
        })
        .blocking()
        .unwrap();
    let seen: Vec<(&str, &str)> = seen
        .iter()
        .map(|(path, what)| (path.as_str(), what.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("", "step 1"),
            ("", "started c1"),
            ("c1 research", "step 1"),
            ("c1 research", "started r1"),
            ("c1 research", "started r2"),
            ("c1 research", "finished r1"),
            ("c1 research > r2 mail", "step 1"),
            ("c1 research > r2 mail", "started m1"),
            ("c1 research > r2 mail", "finished m1"),
            ("c1 research > r2 mail", "step 2"),
            ("c1 research", "finished r2"),
            ("c1 research", "step 2"),
            ("", "finished c1"),
            ("", "step 2"),
        ]
    );
}

#[test]
fn a_sub_agent_that_waits_outside_an_agent_run_fails_its_call() {
    let log = Arc::new(Log::default());
    let mailer = Agent::new(
        ScriptedModel::new().reply_calls([call("m1", "send_email", json!({"to": "ada"}))]),
        Toolbox::with_state(Arc::clone(&log)).with(SendEmail),
        "m",
    )
    .with_hooks(hooks::before_tool_call(|_, _| Decision::Pause));
    let toolbox = Toolbox::new().with(mailer.as_tool::<Mail, String>("mail", "Writes."));
    let result = toolbox.dispatch_blocking(&call("c1", "mail", json!({"to": "ada"})));
    assert_eq!(
        result.content,
        "ERROR: mail failed: a call inside mail needs the user's decision, and nobody can give it here: mail was not run by an agent run that could pause for it. Continue without its answer, or ask the user to run the task where they can approve it."
    );
    assert!(log.done().is_empty());
}

/// A top agent whose model calls `research` once (c1), and the model of `research`'s agent,
/// which sends Ada an email (r1); `research` keeps its runs in `journal` when there is one.
fn top_calling_research(
    log: &Arc<Log>,
    journal: Option<Arc<dyn Journal>>,
) -> (Agent<Arc<Log>>, ScriptedModel) {
    let research_model = ScriptedModel::new()
        .reply_calls([call("r1", "send_email", json!({"to": "ada"}))])
        .reply_text(r#"{"summary": "mailed"}"#);
    let researcher = Agent::new(
        research_model.clone(),
        Toolbox::with_state(Arc::clone(log)).with(SendEmail),
        "research-model",
    );
    let mut research = researcher.as_tool::<Topic, Finding>("research", "Looks a subject up.");
    if let Some(journal) = journal {
        research = research.journaled(journal);
    }
    let top = ScriptedModel::new()
        .reply_calls([call("c1", "research", json!({"subject": "Ada"}))])
        .reply_text("Done.");
    let agent = Agent::new(
        top,
        Toolbox::with_state(Arc::clone(log)).with(research),
        "m",
    );
    (agent, research_model)
}

#[test]
fn a_sub_agent_without_a_journal_refuses_a_call_of_a_journaled_run() {
    let dir = TempDir::new("nested-unjournaled");
    let log = Arc::new(Log::default());
    // The top run is journaled; the sub-agent was given no journal.
    let (agent, research_model) = top_calling_research(&log, None);
    let run = agent
        .run(vec![Message::user("Write to Ada")])
        .journaled(&*worker_journal(&dir), "top")
        .blocking()
        .unwrap();
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap().content,
        "ERROR: research failed: research runs an agent in a journaled run, and has no journal to keep that agent's run in, so a crash would repeat what it did. Continue without it, and tell the user that the application must give the tool the run's journal (AgentTool::journaled)."
    );
    assert!(log.done().is_empty());
    assert!(research_model.requests().is_empty());
}

#[test]
fn a_sub_agent_whose_journal_another_worker_holds_stops_the_top_run_recording_nothing_for_the_call()
{
    let dir = TempDir::new("nested-contended");
    // Another worker holds every sub-agent's run: appending to one conflicts.
    let journal = Arc::new(Failing::new(
        SqliteJournal::open(dir.0.join("journal.db")).unwrap(),
        |run, entries, _| {
            run.starts_with("top/").then(|| JournalError::Conflict {
                run: run.to_owned(),
                key: entries[0].key.clone(),
            })
        },
    ));
    let log = Arc::new(Log::default());
    let (agent, _) = top_calling_research(&log, Some(Arc::clone(&journal) as Arc<dyn Journal>));
    let error = agent
        .run(vec![Message::user("Write to Ada")])
        .journaled(&*journal, "top")
        .blocking()
        .unwrap_err();
    let DurableRunError::Journal(JournalError::Conflict { run, key }) = &error else {
        panic!("{error:?}")
    };
    assert_eq!((run.as_str(), key.as_str()), ("top/1/c1", "began"));
    assert!(log.done().is_empty());
    // The call has no result in the top run's journal: whoever holds the sub-run answers it.
    assert_eq!(keys(&journal.journal, "top"), ["began", "answer/1"]);
}

#[test]
fn an_approval_from_inside_that_expired_asks_again() {
    let log = Arc::new(Log::default());
    let levels = Levels::scripted();
    let agent = levels.agent(&log, None, true);
    let mut run = write_to_ada(&agent);
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    run.approve_at_until(&["c1", "r2", "m1"], past).unwrap();
    assert!(run.waiting().is_empty());
    let run = agent.resume(run).blocking().unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    assert_eq!(run.waiting()[0].ids(), ["c1", "r2", "m1"]);
    assert_eq!(log.done(), [("lookup ada".to_owned(), None)]);
}

/// What the top model is told when it calls `research`, whose model (`model`) fails with `error`.
fn research_result_when_its_model_fails(error: skyl::model::ModelError, model: &str) -> String {
    let researcher = Agent::new(ScriptedModel::new().fail(error), Toolbox::new(), model);
    let top = ScriptedModel::new()
        .reply_calls([call("c1", "research", json!({"subject": "Ada"}))])
        .reply_text("Sorry.");
    let agent = Agent::new(
        top,
        Toolbox::new().with(researcher.as_tool::<Topic, Finding>("research", "Looks up.")),
        "large",
    );
    let run = agent.run(vec![Message::user("Ada?")]).blocking().unwrap();
    run.transcript()[2]
        .tool_results()
        .next()
        .unwrap()
        .content
        .clone()
}

#[test]
fn a_sub_agent_whose_model_fails_tells_the_model_why_and_whether_to_call_again() {
    let overloaded = skyl::model::ModelError::provider(529, "Overloaded")
        .with_provider(skyl::provider::Provider::Anthropic);
    assert_eq!(
        research_result_when_its_model_fails(overloaded, "small"),
        "ERROR: research failed: the model of research failed: Anthropic answered HTTP 529: Overloaded. Call research again in a moment, or continue without its answer."
    );
}

/// llama-cpp-python's server answers a request it refuses with a 500 (issue 41: `json_schema`,
/// tools in a stream): a refusal that will repeat, which the calling model is told not to try
/// again, where a 529 is worth a call in a moment.
#[test]
fn a_sub_agent_whose_server_refuses_what_it_asks_tells_the_model_not_to_call_again() {
    let refused =
        skyl::model::ModelError::provider(500, "Automatic streaming tool choice is not supported")
            .with_provider(skyl::provider::Provider::OpenAiChat)
            .with_error_type("internal_server_error");
    assert_eq!(
        research_result_when_its_model_fails(refused, "smollm2"),
        "ERROR: research failed: the model of research failed: OpenAI Chat answered HTTP 500 (internal_server_error): Automatic streaming tool choice is not supported. Do not call research again for this: its model would fail the same way. Continue without its answer, or tell the user that research cannot do it."
    );
}

/// A mailer whose model sends Ada an email, then answers `then`.
fn mailer(log: &Arc<Log>, then: ScriptedModel) -> Agent<Arc<Log>> {
    Agent::new(
        then,
        Toolbox::with_state(Arc::clone(log)).with(SendEmail),
        "small",
    )
}

#[test]
fn a_sub_agent_whose_model_fails_after_an_email_went_out_says_so_and_never_invites_a_retry() {
    let overloaded = skyl::model::ModelError::provider(529, "Overloaded")
        .with_provider(skyl::provider::Provider::Anthropic);
    let log = Arc::new(Log::default());
    let model = ScriptedModel::new()
        .reply_calls([call("m1", "send_email", json!({"to": "ada"}))])
        .fail(overloaded);
    let mail = mailer(&log, model).as_tool::<Mail, String>("mail", "Sends mail.");
    let top = ScriptedModel::new()
        .reply_calls([call("c1", "mail", json!({"to": "Ada"}))])
        .reply_text("The email went out; the rest failed.");
    let agent = Agent::new(top, Toolbox::new().with(mail), "large");
    let run = agent
        .run(vec![Message::user("Mail Ada")])
        .blocking()
        .unwrap();
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap().content,
        "ERROR: mail failed: the model of mail failed: Anthropic answered HTTP 529: Overloaded; before that, mail completed these calls with effects: send_email (call m1). Do not call mail again for the same task: what those calls did is done, and calling mail again would do it again. Continue without its answer, and tell the user what was done."
    );
    assert_eq!(log.done(), [("send_email ada".to_owned(), None)]);
}

#[test]
fn a_journaled_sub_agent_whose_model_failed_after_an_email_sends_it_no_more_when_called_again() {
    let dir = TempDir::new("nested-failed-mail");
    let overloaded = skyl::model::ModelError::provider(529, "Overloaded");
    let top = |model: ScriptedModel, mailer: Agent<Arc<Log>>, journal: &Arc<SqliteJournal>| {
        let mail = mailer
            .as_tool::<Mail, String>("mail", "Sends mail.")
            .journaled(Arc::clone(journal) as Arc<dyn Journal>);
        Agent::new(model, Toolbox::new().with(mail), "large")
    };

    // The first process: the email goes out, the mailer's model fails, and the process dies
    // before the top run records the call's result.
    let log = Arc::new(Log::default());
    let model = ScriptedModel::new()
        .reply_calls([call("m1", "send_email", json!({"to": "ada"}))])
        .fail(overloaded);
    let agent = top(
        ScriptedModel::new().reply_calls([call("c1", "mail", json!({"to": "Ada"}))]),
        mailer(&log, model),
        &worker_journal(&dir),
    );
    let dying = crate::support::journal::dies_before_results(
        SqliteJournal::open(dir.0.join("journal.db"))
            .unwrap()
            .with_owner("worker"),
    );
    let error = agent
        .run(vec![Message::user("Mail Ada")])
        .journaled(&dying, "top")
        .blocking()
        .unwrap_err();
    assert!(matches!(error, DurableRunError::Journal(_)), "{error}");
    assert_eq!(
        log.done(),
        [(
            "send_email ada".to_owned(),
            Some("top/1/c1/1/m1".to_owned())
        )]
    );

    // Another process: the call runs again, and its sub-agent's run goes on from its journal:
    // the email's result is the journal's, and only the failed request is asked again.
    let log = Arc::new(Log::default());
    let model = ScriptedModel::new().reply_text(r#""Sent.""#);
    let top_model = ScriptedModel::new().reply_text("Ada has her email.");
    let journal = worker_journal(&dir);
    let agent = top(top_model.clone(), mailer(&log, model.clone()), &journal);
    let run = agent
        .run(vec![Message::user("Mail Ada")])
        .journaled(&*journal, "top")
        .blocking()
        .unwrap();
    assert_eq!(run.text(), "Ada has her email.");
    assert!(log.done().is_empty(), "the email was not sent again");
    assert_eq!(model.requests().len(), 1);
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap().content,
        r#""Sent.""#
    );
}

/// An answer that reported `input` input tokens.
fn used(response: skyl::provider::Response, input: u64) -> skyl::provider::Response {
    response.with_usage(skyl::provider::Usage::new(input, 0))
}

/// A top agent ("large", 1 a million tokens) that calls `mail`, whose agent ("small", 10 a
/// million) sends an email once a person approves it; each answer reports its input tokens.
fn priced_mail(log: &Arc<Log>, journal: Option<&Arc<SqliteJournal>>) -> Agent {
    let prices = skyl::model::Prices::new()
        .with("large", skyl::model::Price::per_million_tokens(1.0, 1.0))
        .with("small", skyl::model::Price::per_million_tokens(10.0, 10.0));
    let mailer = Agent::new(
        ScriptedModel::new()
            .reply(used(
                skyl::provider::Response::calls([call("m1", "send_email", json!({"to": "ada"}))]),
                1000,
            ))
            .reply(used(skyl::provider::Response::text(r#""Sent.""#), 2000)),
        Toolbox::with_state(Arc::clone(log)).with(SendEmail),
        "small",
    )
    .with_prices(prices.clone())
    .with_hooks(hooks::before_tool_call(|_, _| Decision::Pause));
    let top = ScriptedModel::new()
        .reply(used(
            skyl::provider::Response::calls([call("c1", "mail", json!({"to": "Ada"}))]),
            100,
        ))
        .reply(used(skyl::provider::Response::text("Done."), 300));
    let mut mail = mailer.as_tool::<Mail, String>("mail", "Sends mail.");
    if let Some(journal) = journal {
        mail = mail.journaled(Arc::clone(journal) as Arc<dyn Journal>);
    }
    Agent::new(top, Toolbox::new().with(mail), "large").with_prices(prices)
}

#[test]
fn a_runs_tree_usage_and_cost_include_its_sub_agents_own_beside_them_across_a_pause_and_a_replay() {
    use skyl::model::Cost;
    use skyl::provider::Usage;

    let log = Arc::new(Log::default());
    let agent = priced_mail(&log, None);
    let mut run = agent
        .run(vec![Message::user("Mail Ada")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    // The sub-agent waits with what it used so far.
    assert_eq!(run.usage(), &Usage::new(100, 0));
    assert_eq!(run.tree_usage(), Usage::new(1100, 0));
    assert_eq!(run.tree_cost(), Some(Cost::from_units(0.0101)));
    run.approve_at(&["c1", "m1"]).unwrap();
    let run = agent.resume(run).blocking().unwrap();
    assert_eq!(run.text(), "Done.");
    assert_eq!(run.usage(), &Usage::new(400, 0));
    assert_eq!(run.cost(), Some(Cost::from_units(0.0004)));
    assert_eq!(run.tree_usage(), Usage::new(3400, 0));
    // 400 at 1 a million, and the sub-agent's 3000 at 10 a million: each at its own prices.
    assert_eq!(run.tree_cost(), Some(Cost::from_units(0.0304)));
    assert_eq!(log.done().len(), 1);

    // Journaled, stored while it waits and replayed by another process once it finished: the
    // same totals, each answer counted once.
    let dir = TempDir::new("nested-tree");
    let journal = worker_journal(&dir);
    let log = Arc::new(Log::default());
    let agent = priced_mail(&log, Some(&journal));
    let mut waiting = agent
        .run(vec![Message::user("Mail Ada")])
        .journaled(&*journal, "top")
        .blocking()
        .unwrap();
    assert_eq!(waiting.tree_usage(), Usage::new(1100, 0));
    let stored: Run = serde_json::from_str(&serde_json::to_string(&waiting).unwrap()).unwrap();
    assert_eq!(stored.tree_usage(), Usage::new(1100, 0));
    waiting.approve_at(&["c1", "m1"]).unwrap();
    let run = agent
        .resume(waiting)
        .journaled(&*journal, "top")
        .blocking()
        .unwrap();
    assert_eq!(
        (run.tree_usage(), run.tree_cost()),
        (Usage::new(3400, 0), Some(Cost::from_units(0.0304)))
    );
    let journal = worker_journal(&dir);
    let agent = priced_mail(&Arc::new(Log::default()), Some(&journal));
    let replayed = agent
        .run(vec![Message::user("Mail Ada")])
        .journaled(&*journal, "top")
        .blocking()
        .unwrap();
    assert_eq!(replayed.text(), "Done.");
    assert_eq!(
        (
            replayed.usage(),
            replayed.tree_usage(),
            replayed.tree_cost()
        ),
        (
            &Usage::new(400, 0),
            Usage::new(3400, 0),
            Some(Cost::from_units(0.0304))
        )
    );
    assert_eq!(log.done().len(), 1);
}

/// An answer that generated `output` tokens.
fn generated(response: skyl::provider::Response, output: u64) -> skyl::provider::Response {
    response.with_usage(skyl::provider::Usage::new(1, output))
}

/// The top agent of the budget tests, on `top`: its tool `research` is `researcher`, each of its
/// answers may generate 100 tokens, and its tree `output_tokens` in all.
fn researching_within<S: Send + Sync + 'static>(
    top: &ScriptedModel,
    researcher: Agent<S>,
    output_tokens: u64,
) -> Agent {
    Agent::new(
        top.clone(),
        Toolbox::new().with(researcher.as_tool::<Topic, Finding>("research", "Looks up.")),
        "large",
    )
    .with_max_tokens(100)
    .with_budget(skyl::agent::Budget::new().output_tokens(output_tokens))
}

/// What the model reads of a `research` call that the top run's budget stopped (`stop`).
fn research_out_of_budget(stop: &Stop) -> String {
    format!(
        "ERROR: research failed: research stopped before its final answer: {stop}. Continue without its answer: calling research again would stop the same way."
    )
}

#[test]
fn a_budget_on_the_top_run_bounds_its_sub_agents_requests_before_they_are_sent() {
    use skyl::agent::BudgetLimit;

    let log = Arc::new(Log::default());
    // The researcher has no budget of its own: the top run's bounds it.
    let research_model = (1..=3).fold(ScriptedModel::new(), |model, n| {
        model.reply(generated(
            skyl::provider::Response::calls([call(
                &format!("r{n}"),
                "lookup",
                json!({"word": format!("w{n}")}),
            )]),
            90,
        ))
    });
    let researcher = Agent::new(
        research_model.clone(),
        Toolbox::with_state(Arc::clone(&log)).with(Lookup),
        "small",
    )
    .with_max_tokens(100);
    let top = ScriptedModel::new()
        .reply(generated(
            skyl::provider::Response::calls([call("c1", "research", json!({"subject": "Ada"}))]),
            10,
        ))
        .reply_text("unused");
    let agent = researching_within(&top, researcher, 250);
    let run = agent.run(vec![Message::user("Ada?")]).blocking().unwrap();
    // The top run's first answer (10) and the researcher's two (90 each) leave 60 of 250: the
    // researcher's third request, which could generate 100, is not sent, nor the top run's next.
    let stop = Stop::Budget {
        limit: BudgetLimit::OutputTokens,
        max: 250,
        used: 190,
        next: 100,
    };
    assert_eq!(research_model.requests().len(), 2);
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap().content,
        research_out_of_budget(&stop)
    );
    assert_eq!(run.stop(), &stop);
    assert_eq!(top.requests().len(), 1);
    assert_eq!(run.usage().output_tokens, 10);
    assert_eq!(run.tree_usage().output_tokens, 190);
}

// ---------------------------------------------------------------------------------------------
// Where failover, budgets, sub-agents, approvals and a crash meet

/// Sends a letter.
#[skyl::tool(idempotent = false)]
fn send_letter(#[state] marks: &Marks, to: String) -> String {
    marks.append("letters", &to);
    format!("sent to {to}")
}

/// Charges a card: marks that it started, then never finishes (the process is killed in it).
#[skyl::tool(idempotent = false)]
fn bill(#[state] marks: &Marks, cents: u64) -> String {
    marks.append("bills", &cents.to_string());
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
}

/// Set in the child process of the crossing test, to the test's directory.
const CROSSING_CHILD: &str = "SKYL_NESTED_CROSSING_CHILD";

/// An answer that reported `input` and `output` tokens.
fn costing(
    response: skyl::provider::Response,
    input: u64,
    output: u64,
) -> skyl::provider::Response {
    response.with_usage(skyl::provider::Usage::new(input, output))
}

fn crossing_prices() -> skyl::model::Prices {
    use skyl::model::{Price, Prices};
    Prices::new()
        .with("claude-sonnet-4-5", Price::per_million_tokens(3.0, 15.0))
        .with("gpt-4.1", Price::per_million_tokens(2.0, 8.0))
        .with("gemini-2.5-flash", Price::per_million_tokens(0.3, 2.5))
}

/// The cost limit of the crossing test's top run, which bounds its tree.
fn crossing_budget() -> skyl::agent::Budget {
    skyl::agent::Budget::new().cost(skyl::model::Cost::from_units(0.012))
}

/// The crossing test's top agent: a failover of Claude then GPT, with a cost limit, whose
/// `post` tool runs a Gemini agent (journaled in `journal`) that asks before each letter.
/// The crossing run on its prompt, journaled under `top`.
fn post_ada_her_letter(agent: &Agent, journal: &Arc<SqliteJournal>) -> Run {
    agent
        .run(vec![Message::user("Post Ada her letter")])
        .journaled(&**journal, "top")
        .blocking()
        .unwrap()
}

fn crossing_agent(
    dir: &std::path::Path,
    claude: ScriptedModel,
    gpt: ScriptedModel,
    gemini: ScriptedModel,
    journal: &Arc<SqliteJournal>,
) -> Agent {
    let poster = Agent::new(
        gemini,
        Toolbox::with_state(Marks(dir.to_owned()))
            .with(SendLetter)
            .with(Bill),
        "gemini-2.5-flash",
    )
    .with_prices(crossing_prices())
    .with_max_tokens(200)
    .with_hooks(hooks::before_tool_call(|call, proposed| {
        match call.name.as_str() {
            "send_letter" => Decision::Pause,
            _ => proposed,
        }
    }));
    let post = poster
        .as_tool::<Mail, String>("post", "Posts a letter and bills for it.")
        .journaled(Arc::clone(journal) as Arc<dyn Journal>);
    let model = skyl::model::Failover::new([
        skyl::model::Member::new(claude).model_name("claude-sonnet-4-5"),
        skyl::model::Member::new(gpt).model_name("gpt-4.1"),
    ]);
    Agent::new(model, Toolbox::new().with(post), "claude-sonnet-4-5")
        .with_prices(crossing_prices())
        .with_max_tokens(500)
        .with_budget(crossing_budget())
}

#[test]
fn a_journaled_failover_run_with_a_budget_killed_inside_its_approving_sub_agent_resumes_with_each_effect_once_and_its_tree_cost_exact()
 {
    use skyl::model::{Cost, ModelError, Price};
    use skyl::provider::{Response, Usage};

    let journal_at = |dir: &std::path::Path| {
        Arc::new(
            SqliteJournal::open(dir.join("journal.db"))
                .unwrap()
                .with_owner("worker"),
        )
    };
    if let Some(dir) = std::env::var_os(CROSSING_CHILD) {
        // The child: Claude is overloaded and GPT answers with a call of `post`; inside it, Gemini
        // asks to send a letter, and the top run waits. The person approves; the run goes on in
        // this process: the letter goes, then the bill starts and never finishes.
        let dir = PathBuf::from(dir);
        let journal = journal_at(&dir);
        let agent = crossing_agent(
            &dir,
            ScriptedModel::new().fail(ModelError::provider(529, "Overloaded")),
            ScriptedModel::new().reply(costing(
                Response::calls([call("c1", "post", json!({"to": "Ada"}))]),
                1000,
                50,
            )),
            ScriptedModel::new()
                .reply(costing(
                    Response::calls([call("p1", "send_letter", json!({"to": "ada"}))]),
                    500,
                    20,
                ))
                .reply(costing(
                    Response::calls([call("p2", "bill", json!({"cents": 500}))]),
                    600,
                    25,
                )),
            &journal,
        );
        let run = post_ada_her_letter(&agent, &journal);
        assert_eq!(run.stop(), &Stop::AwaitingApproval);
        assert_eq!(run.waiting()[0].ids(), ["c1", "p1"]);
        // Stored while it waits, as an application would, and approved.
        let mut run: Run = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
        run.approve_at(&["c1", "p1"]).unwrap();
        let _ = agent.resume(run).journaled(&*journal, "top").blocking();
        unreachable!("the bill never finishes");
    }

    let dir = TempDir::new("nested-crossing");
    // SIGKILL inside the sub-agent's bill, the letter sent.
    kill_child_once_started(
        "nested_agents::a_journaled_failover_run_with_a_budget_killed_inside_its_approving_sub_agent_resumes_with_each_effect_once_and_its_tree_cost_exact",
        CROSSING_CHILD,
        &dir.0,
        "bills",
        "the bill",
    );
    let marks = Marks(dir.0.clone());
    assert_eq!(marks.read("letters"), ["ada"]);

    // A fresh process of the same worker: the top run replays GPT's answer, runs `post` again,
    // whose Gemini run replays its two answers and the letter, answers the bill cut off as
    // outcome-unknown, and asks Gemini once more; then Claude, back, answers.
    let journal = journal_at(&dir.0);
    let gemini = ScriptedModel::new().reply(costing(
        Response::text(r#""Posted; the bill may not have gone.""#),
        700,
        30,
    ));
    let claude = ScriptedModel::new().reply(costing(
        Response::text("Ada's letter is posted; check the bill."),
        2000,
        40,
    ));
    let gpt = ScriptedModel::new();
    let agent = crossing_agent(
        &dir.0,
        claude.clone(),
        gpt.clone(),
        gemini.clone(),
        &journal,
    );
    let run = post_ada_her_letter(&agent, &journal);
    assert_eq!(run.text(), "Ada's letter is posted; check the bill.");
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap().content,
        r#""Posted; the bill may not have gone.""#
    );
    // Every effect once.
    assert_eq!(marks.read("letters"), ["ada"]);
    assert_eq!(marks.read("bills"), ["500"]);
    assert_eq!(
        (
            claude.requests().len(),
            gpt.requests().len(),
            gemini.requests().len()
        ),
        (1, 0, 1)
    );
    // Each answer at the prices of the member or the agent that gave it.
    let at = |price: Price, input, output| price.cost(&Usage::new(input, output));
    let gpt_price = Price::per_million_tokens(2.0, 8.0);
    let claude_price = Price::per_million_tokens(3.0, 15.0);
    let gemini_price = Price::per_million_tokens(0.3, 2.5);
    let own = at(gpt_price, 1000, 50).saturating_add(at(claude_price, 2000, 40));
    let gemini_cost = [(500, 20), (600, 25), (700, 30)]
        .into_iter()
        .fold(Cost::ZERO, |sum, (input, output)| {
            sum.saturating_add(at(gemini_price, input, output))
        });
    assert_eq!(run.cost(), Some(own));
    assert_eq!(run.tree_cost(), Some(own.saturating_add(gemini_cost)));
    assert_eq!(run.tree_usage(), Usage::new(4800, 165));
    // Never over its budget.
    assert!(run.tree_cost().unwrap() <= Cost::from_units(0.012));
}

/// A model that lets its caller's other work run once before each answer, as a model over a
/// network does: a request in flight while the calls beside it go on.
struct Yielding(ScriptedModel);

impl skyl::model::Model for Yielding {
    fn complete<'a>(
        &'a self,
        request: &'a skyl::provider::Request<'_>,
    ) -> skyl::model::BoxFuture<'a, Result<skyl::provider::Response, skyl::model::ModelError>> {
        Box::pin(async move {
            let mut yielded = false;
            std::future::poll_fn(|context| {
                if yielded {
                    return std::task::Poll::Ready(());
                }
                yielded = true;
                context.waker().wake_by_ref();
                std::task::Poll::Pending
            })
            .await;
            self.0.complete(request).await
        })
    }
}

#[test]
fn sub_agents_called_side_by_side_cannot_both_pass_on_what_the_top_budget_has_left_for_one() {
    use skyl::agent::BudgetLimit;
    use skyl::provider::Response;

    let research_model = ScriptedModel::new().reply(generated(
        Response::text(r#"{"summary": "Ada wrote the first program."}"#),
        20,
    ));
    let researcher =
        Agent::new(Yielding(research_model.clone()), Toolbox::new(), "small").with_max_tokens(100);
    let top = ScriptedModel::new()
        .reply(generated(
            Response::calls([
                call("c1", "research", json!({"subject": "Ada"})),
                call("c2", "research", json!({"subject": "Alan"})),
            ]),
            10,
        ))
        .reply(generated(Response::text("Ada wrote the first program."), 5));
    let agent = researching_within(&top, researcher, 150);
    let run = agent.run(vec![Message::user("Who?")]).blocking().unwrap();
    // The first research request holds 100 of the 140 left while it is in flight: the second,
    // asked meanwhile, could pass the limit with it, and is not sent.
    let stop = Stop::Budget {
        limit: BudgetLimit::OutputTokens,
        max: 150,
        used: 110,
        next: 100,
    };
    let results: Vec<String> = run.transcript()[2]
        .tool_results()
        .map(|result| result.content.clone())
        .collect();
    assert_eq!(
        results,
        [
            r#"{"summary":"Ada wrote the first program."}"#.to_owned(),
            research_out_of_budget(&stop)
        ]
    );
    assert_eq!(research_model.requests().len(), 1);
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(run.tree_usage().output_tokens, 35);
}
