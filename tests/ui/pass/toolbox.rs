//! Tools with and without state, sync and async, in one toolbox whose state serves them all.
#![deny(missing_docs, unused)]

use serde_json::json;
use skyl::{ToolCall, Toolbox, tool, tool::FromRef};

/// The database.
pub struct Db(Vec<String>);
/// The settings.
pub struct Settings {
    greeting: String,
}
/// The application state.
pub struct App {
    db: Db,
    settings: Settings,
}

impl FromRef<App> for Db {
    fn from_ref(app: &App) -> &Db {
        &app.db
    }
}

impl FromRef<App> for Settings {
    fn from_ref(app: &App) -> &Settings {
        &app.settings
    }
}

/// Finds a row by number.
#[tool]
pub fn find_row(
    /// The row number.
    index: usize,
    #[state] db: &Db,
) -> Result<String, String> {
    db.0.get(index).cloned().ok_or_else(|| format!("no row {index}"))
}

/// Greets someone.
#[tool]
async fn greet(
    /// Who.
    name: &str,
    /// Not for the model.
    #[state]
    settings: &Settings,
) -> String {
    format!("{} {name}", settings.greeting)
}

/// Says the time.
#[tool]
pub(crate) fn now() {}

impl skyl::tool::IntoToolOutput for Wrapped {
    fn into_tool_output(self) -> skyl::tool::ToolOutcome {
        Ok(self.0)
    }
}

/// Text of our own.
pub struct Wrapped(String);

/// Returns a type of its own.
#[tool]
fn wrap_text(r#type: String, mut count: u8) -> Wrapped {
    count += 1;
    Wrapped(format!("{type}{count}"))
}

fn main() {
    let toolbox = Toolbox::with_state(App {
        db: Db(vec!["zero".into()]),
        settings: Settings {
            greeting: "Hi".into(),
        },
    })
    .with(FindRow)
    .with(Greet)
    .with(Now)
    .with(WrapText);
    let result = toolbox.dispatch_blocking(&ToolCall::new("1", "greet", json!({"name": "Ada"})));
    assert_eq!(result.content, "Hi Ada");
    let _ = (find_row(0, &Db(Vec::new())), now(), wrap_text(String::new(), 0));
}
