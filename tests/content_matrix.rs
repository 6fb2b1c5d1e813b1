//! The content matrix: every kind of content a tool can answer with, on every wire (the four
//! built-in adapters and `skyl-ollama`, written outside skyl), each request body compared whole.
//!
//! The rows (a kind of content and the whole body each wire makes of it) are
//! `support/content_rows.rs`, shared with the MCP tests.
//!
//! The other axes make the tool message of a row in every way a user can: each return shape a
//! `#[tool]` function can give content in ([`SHAPES`], dispatched locally), a journaled run
//! replayed from real SQLite in place of running its tools, and `testing::check_toolbox` over the
//! same tools. Each must give the very message the row's cells are the encoding of. The MCP round
//! trip (served by skyl, mounted back through rmcp's client) is `tests/mcp/mounted_media.rs`, in
//! the package that has the `mcp` features.

use crate::support::content_rows::{KINDS, Kind, PROSE, check_cells, request, rows};
use serde_json::json;
use skyl::agent::Agent;
use skyl::durable::SqliteJournal;
use skyl::testing::ScriptedModel;
use skyl::{
    Content, Message, Part, Role, ToolCall, ToolFailure, ToolResult, Toolbox,
    content::ResultContent, tool::ToolOutput,
};
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn every_kind_of_content_on_every_wire_is_the_whole_body_of_its_cell() {
    let mut wrong = Vec::new();
    for row in rows() {
        let message = request(vec![row.content.clone()]).messages[2].clone();
        check_cells("as a message", &row, message, &mut wrong);
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// The return shapes that give the prose and one part of content. Each answers with the content of
// the kind it is asked for, and counts its runs so a replay can show it ran nothing.

/// How many times the shapes' tools ran, for the toolbox that holds them.
#[derive(Default)]
struct Runs(AtomicUsize);

fn made(runs: &Runs, kind: Kind) -> Content {
    runs.0.fetch_add(1, Ordering::SeqCst);
    kind.content()
}

/// Answers with prose and the content, as a tuple.
#[skyl::tool]
fn tuple(#[state] runs: &Runs, kind: Kind) -> (String, Content) {
    (PROSE.to_owned(), made(runs, kind))
}

/// Answers with prose and the content, as an array of parts.
#[skyl::tool]
fn array(#[state] runs: &Runs, kind: Kind) -> [Content; 2] {
    [Content::text(PROSE), made(runs, kind)]
}

/// Answers with prose and the content, as a list of parts.
#[skyl::tool]
fn list(#[state] runs: &Runs, kind: Kind) -> Vec<Content> {
    vec![Content::text(PROSE), made(runs, kind)]
}

/// Answers with prose and the content, built part by part.
#[skyl::tool]
fn output(#[state] runs: &Runs, kind: Kind) -> ToolOutput {
    ToolOutput::from(PROSE).with(made(runs, kind))
}

/// Answers with prose and the content, maybe.
#[skyl::tool]
fn maybe(#[state] runs: &Runs, kind: Kind) -> Option<Vec<Content>> {
    Some(vec![Content::text(PROSE), made(runs, kind)])
}

/// Answers with prose and a list of the content, or fails.
#[skyl::tool]
fn fallible(#[state] runs: &Runs, kind: Kind) -> Result<(&'static str, Vec<Content>), ToolFailure> {
    Ok((PROSE, vec![made(runs, kind)]))
}

/// Answers with prose and the content, later.
#[skyl::tool]
async fn later(#[state] runs: &Runs, kind: Kind) -> Vec<Content> {
    vec![Content::text(PROSE), made(runs, kind)]
}

/// The tools of [`SHAPES`] by name, and the return type each shows.
const SHAPES: [(&str, &str); 7] = [
    ("tuple", "(String, Content)"),
    ("array", "[Content; 2]"),
    ("list", "Vec<Content>"),
    ("output", "ToolOutput"),
    ("maybe", "Option<Vec<Content>>"),
    ("fallible", "Result<(&str, Vec<Content>), ToolFailure>"),
    ("later", "async Vec<Content>"),
];

fn shapes_toolbox() -> Toolbox<Runs> {
    Toolbox::with_state(Runs::default())
        .with(Tuple)
        .with(Array)
        .with(List)
        .with(Output)
        .with(Maybe)
        .with(Fallible)
        .with(Later)
}

/// Call `c1` of `shape` for the content of `kind`.
fn shape_call(shape: &str, kind: Kind) -> ToolCall {
    ToolCall::new("c1", shape, json!({"kind": kind}))
}

/// The part of `message` answering call `id`, as the message answering `c1`.
fn answer_of(message: &Message, id: &str) -> Message {
    let parts = message
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::ToolResult(result) if result.call_id == id => {
                Some(Part::ToolResult(ToolResult {
                    call_id: "c1".into(),
                    ..result.clone()
                }))
            }
            Part::ResultContent(content) if content.call_id == id => Some(Part::ResultContent(
                ResultContent::new("c1", content.content.clone()),
            )),
            _ => None,
        })
        .collect();
    Message {
        role: Role::Tool,
        parts,
    }
}

#[test]
fn every_return_shape_of_every_kind_dispatched_locally_is_the_rows_body_on_every_wire() {
    let toolbox = shapes_toolbox();
    let mut wrong = Vec::new();
    for (row, kind) in rows().iter().zip(KINDS) {
        for (shape, shown) in SHAPES {
            let call = Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall(shape_call(shape, kind))],
            };
            let answer = toolbox.answer_blocking(&call);
            check_cells(&format!("returned as {shown}"), row, answer, &mut wrong);
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_journaled_run_replayed_from_sqlite_gives_every_shapes_content_back_without_running_it() {
    let dir = std::env::temp_dir().join(format!("skyl-content-matrix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut wrong = Vec::new();
    for (row, kind) in rows().iter().zip(KINDS) {
        let id = format!("{kind:?}");
        // One step calls every shape for this kind at once, the next one answers.
        let calls = SHAPES
            .iter()
            .enumerate()
            .map(|(i, (shape, _))| ToolCall::new(format!("s{i}"), *shape, json!({"kind": kind})));
        let model = ScriptedModel::new().reply_calls(calls).reply_text("Done.");
        let journal = SqliteJournal::open(dir.join("journal.db")).unwrap();
        let agent = Agent::new(model, shapes_toolbox(), "m");
        let run = agent
            .run(vec![Message::user("Report?")])
            .journaled(&journal, id.as_str())
            .blocking()
            .unwrap();

        // Another handle on the file, a model with nothing to say: the replay runs no tool.
        let journal = SqliteJournal::open(dir.join("journal.db")).unwrap();
        assert_eq!(
            agent.toolbox().state().0.load(Ordering::SeqCst),
            SHAPES.len()
        );
        let replaying = Agent::new(ScriptedModel::new(), shapes_toolbox(), "m");
        let again = replaying
            .run(vec![Message::user("Report?")])
            .journaled(&journal, id.as_str())
            .blocking()
            .unwrap();
        assert_eq!(again.transcript(), run.transcript(), "{}", row.kind);
        let ran = replaying.toolbox().state().0.load(Ordering::SeqCst);
        assert_eq!(ran, 0, "{} ran again", row.kind);

        let tool_message = &again.transcript()[2];
        for (i, (_, shown)) in SHAPES.iter().enumerate() {
            let answer = answer_of(tool_message, &format!("s{i}"));
            check_cells(&format!("replayed as {shown}"), row, answer, &mut wrong);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_harness_passes_a_toolbox_of_every_shape_and_kind() {
    skyl::testing::check_toolbox(&shapes_toolbox());
}
