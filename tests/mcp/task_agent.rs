//! A journaled agent run that calls a mounted tool served as a task, for the test that kills it
//! while the task runs and resumes the run in another process.
//!
//! `task_agent URL JOURNAL first|resume TOOL` mounts the server at URL (prefix `jobs`) with task
//! ids recorded in the SQLite journal JOURNAL, and runs `run-1` journaled there: `first` with a
//! model that calls `jobs_{TOOL}` with `{"report": 7}` and then answers, `resume` with a model
//! that only answers (the first answer is replayed from the journal). It prints the run's
//! transcript as JSON on stdout.

use skyl::agent::Agent;
use skyl::durable::SqliteJournal;
use skyl::mcp::Remote;
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: task_agent URL JOURNAL first|resume TOOL";
    let url = args.next().ok_or(usage)?;
    let journal = args.next().ok_or(usage)?;
    let mode = args.next().ok_or(usage)?;
    let tool = args.next().ok_or(usage)?;
    let remote = Remote::builder("jobs")
        .task_journal(SqliteJournal::open(&journal)?.with_owner("task-agent"))
        .connect_http(&url)
        .await?;
    let model = match mode.as_str() {
        "first" => ScriptedModel::new().reply_calls([ToolCall::new(
            "c1",
            format!("jobs_{tool}"),
            serde_json::json!({"report": 7}),
        )]),
        "resume" => ScriptedModel::new(),
        _ => return Err(usage.into()),
    }
    .reply_text("The report is rendered.");
    let agent = Agent::new(model, Toolbox::new().with_remote(&remote), "m");
    // The same owner in both processes: the second takes over the run the killed one held at
    // once, instead of waiting for its lease to expire.
    let journal = SqliteJournal::open(&journal)?.with_owner("task-agent");
    let run = agent
        .run(vec![Message::user("Render report 7.")])
        .journaled(&journal, "run-1")
        .await?;
    println!("{}", serde_json::to_string(run.transcript())?);
    Ok(())
}
