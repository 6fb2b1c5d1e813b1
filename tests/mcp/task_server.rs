//! A server whose two tools take as long as the test wants, served as tasks kept in a SQLite
//! journal, for the test that kills it while its tasks run and starts it again on the journal.
//!
//! `task_server JOURNAL EFFECTS GATE` serves on stdio. Each tool appends `{tool} {n} start` to
//! the file EFFECTS when it starts and `{tool} {n} done` when it ends; a call with `wait` true
//! waits, in between, until the file GATE exists. `refund` asks the person first (`ask`), so its
//! task waits for input before it has any effect. `archive` runs only as a task.

use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// The files named on the command line.
static FILES: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();

/// Appends one line to the effects file.
fn effect(line: &str) {
    let (effects, _) = FILES.get().expect("set in main");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(effects)
        .expect("the effects file opens");
    writeln!(file, "{line}").expect("the effects file takes a line");
    file.sync_all().expect("the effects file syncs");
}

/// Runs one effect: its start, the wait for the gate, its end.
async fn work(tool: &str, n: u32, wait: bool) {
    effect(&format!("{tool} {n} start"));
    let (_, gate) = FILES.get().expect("set in main");
    // At most 10 minutes: the test kills or opens the gate long before.
    for _ in 0..30_000 {
        if !wait || gate.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    effect(&format!("{tool} {n} done"));
}

/// Charges an order: not idempotent, charging twice charges twice.
#[skyl::tool]
async fn charge(order: u32, wait: bool) -> String {
    work("charge", order, wait).await;
    format!("charged order {order}")
}

/// Renders a report: idempotent, rendering it again gives the same report.
#[skyl::tool(idempotent)]
async fn render(report: u32, wait: bool) -> String {
    work("render", report, wait).await;
    format!("rendered report {report}")
}

/// Archives a month's orders: runs only as a task.
#[skyl::tool(idempotent)]
async fn archive(month: u32) -> String {
    work("archive", month, false).await;
    format!("archived month {month}")
}

/// Refunds an order once the person confirms: not idempotent either.
#[skyl::tool]
async fn refund(order: u32, wait: bool) -> Result<String, skyl::ToolFailure> {
    let Some(answer) = skyl::mcp::answer("confirm") else {
        let params = serde_json::from_value(serde_json::json!({
            "mode": "form",
            "message": format!("Refund order {order}?"),
            "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}}
        }))
        .expect("an elicitation's params");
        let question = skyl::mcp::rmcp::model::ElicitRequest::new(params);
        return Err(skyl::mcp::ask(
            "confirm",
            skyl::mcp::rmcp::model::InputRequest::Elicitation(question),
        ));
    };
    work("refund", order, wait).await;
    Ok(format!("refunded order {order}: {}", answer["action"]))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).map(PathBuf::from);
    let usage = "usage: task_server JOURNAL EFFECTS GATE";
    let journal = args.next().ok_or(usage)?;
    let effects = args.next().ok_or(usage)?;
    let gate = args.next().ok_or(usage)?;
    FILES.set((effects, gate)).map_err(|_| "set twice")?;
    // No owner name: a restarted server takes back the tasks its killed self held at once, as
    // the journal knows that process is gone.
    let journal = skyl::durable::SqliteJournal::open(journal)?;
    let toolbox = skyl::Toolbox::new()
        .with(Charge)
        .with(Render)
        .with(Refund)
        .with(Archive);
    skyl::mcp::Server::new(toolbox)
        .with_task_journal(journal)
        .with_tasks_required_for(|call, _| call.name == "archive")
        .with_task_poll_interval(Duration::from_millis(20))
        .serve_stdio()
        .await?;
    Ok(())
}
