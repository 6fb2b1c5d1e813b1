//! What a check found: the report, a failed call, an untested tool, and the kind of arguments a
//! call had.

use std::fmt;

use serde_json::Value;

use super::super::Dialect;
use crate::message::ToolResult;

/// What a [`ToolboxCheck`](super::ToolboxCheck) found.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ToolboxReport {
    /// How many calls were made.
    pub calls: usize,
    /// Valid values a dialect allows that the canonical schema does not (a constraint its
    /// lowering dropped), or that a `pattern` constrains: sent, but not required to be accepted.
    pub not_required: usize,
    /// What went wrong, one entry a call.
    pub failures: Vec<CheckFailure>,
    /// The tools no call with valid arguments ran to an answer of their own: every one was
    /// refused, stopped by a time limit or a limit of the toolbox, or could not run where the
    /// check ran it. A tool the check could not exercise fails it, unless
    /// [`ToolboxCheck::allow_untested`](super::ToolboxCheck::allow_untested) names it.
    pub untested: Vec<Untested>,
    /// What was not checked, and why (a tool whose schema a dialect cannot express, a tool
    /// allowed to go untested).
    pub notes: Vec<String>,
}

impl ToolboxReport {
    /// Whether every check passed: no call failed, and every tool was exercised.
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.untested.is_empty()
    }

    /// Panics with the report unless every check passed.
    #[track_caller]
    pub fn assert_passed(&self) {
        if !self.passed() {
            panic!("{self}");
        }
    }
}

/// How many failures a report spells out; the rest are counted.
const SHOWN_FAILURES: usize = 12;

impl fmt::Display for ToolboxReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.passed() {
            write!(f, "the toolbox passed: {} calls", self.calls)?;
        } else if self.failures.is_empty() {
            write!(
                f,
                "the toolbox failed: {} of its tools could not be exercised ({} calls)",
                self.untested.len(),
                self.calls
            )?;
        } else {
            write!(
                f,
                "the toolbox failed {} of {} calls:",
                self.failures.len(),
                self.calls
            )?;
            for failure in self.failures.iter().take(SHOWN_FAILURES) {
                write!(f, "\n\n{failure}")?;
            }
            if self.failures.len() > SHOWN_FAILURES {
                write!(
                    f,
                    "\n\n... and {} more failures",
                    self.failures.len() - SHOWN_FAILURES
                )?;
            }
        }
        for untested in &self.untested {
            write!(f, "\n\n{untested}")?;
        }
        for note in &self.notes {
            write!(f, "\nnote: {note}")?;
        }
        Ok(())
    }
}

/// A tool that no call with valid arguments ran to an answer of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Untested {
    /// The tool's name.
    pub tool: String,
    /// How many calls with valid arguments it got, and what became of them.
    pub problem: String,
    /// What to do about it.
    pub next_step: String,
}

impl fmt::Display for Untested {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (untested): {}\n  {}",
            self.tool, self.problem, self.next_step
        )
    }
}

/// One call that failed a check.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CheckFailure {
    /// The tool the call named.
    pub tool: String,
    /// What kind of arguments it was.
    pub case: Case,
    /// The arguments sent.
    pub arguments: Value,
    /// What went wrong.
    pub problem: String,
    /// The result, when there was one.
    pub result: Option<ToolResult>,
}

/// How many characters of arguments and results a failure shows.
const SHOWN_CHARS: usize = 400;

impl fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({}): {}", self.tool, self.case, self.problem)?;
        write!(f, "  arguments: {}", shorten(&self.arguments.to_string()))?;
        if let Some(result) = &self.result {
            write!(
                f,
                "\n  result: {} {}",
                if result.is_error { "error" } else { "ok" },
                shorten(&format!("{:?}", result.content))
            )?;
        }
        Ok(())
    }
}

fn shorten(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!(
            "{}... ({} characters in all)",
            &text[..end],
            text.chars().count()
        ),
        None => text.to_owned(),
    }
}

/// The kind of arguments a call had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Case {
    /// Values the schema allows, in a provider's dialect.
    Valid(Dialect),
    /// Values the schema allows, at its edges.
    Edge,
    /// Valid arguments sent as JSON text rather than an object. skyl reads them for a
    /// `#[tool]`; a hand-written [`Tool`](crate::Tool) sees the text.
    JsonText,
    /// A property of another type than its schema's.
    WrongType,
    /// A required property left out.
    MissingRequired,
    /// A string of a quarter of a megabyte.
    HugeString,
    /// Values nested hundreds deep, or JSON text nested thousands deep.
    DeepNesting,
    /// Arguments that are not an object: a number, a boolean, an array, plain words.
    NotAnObject,
    /// JSON text cut short.
    MalformedJsonText,
    /// A tool name the toolbox does not have.
    UnknownTool,
}

impl Case {
    /// Whether the arguments are valid, so that the tool must accept them.
    pub fn is_valid(self) -> bool {
        matches!(self, Case::Valid(_) | Case::Edge)
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Case::Valid(dialect) => write!(f, "valid arguments, {dialect} schema"),
            Case::Edge => f.write_str("valid arguments at the schema's edges"),
            Case::JsonText => f.write_str("valid arguments as JSON text"),
            Case::WrongType => f.write_str("a property of the wrong type"),
            Case::MissingRequired => f.write_str("a required property missing"),
            Case::HugeString => f.write_str("a huge string"),
            Case::DeepNesting => f.write_str("deeply nested arguments"),
            Case::NotAnObject => f.write_str("arguments that are not an object"),
            Case::MalformedJsonText => f.write_str("malformed JSON text"),
            Case::UnknownTool => f.write_str("an unknown tool name"),
        }
    }
}
