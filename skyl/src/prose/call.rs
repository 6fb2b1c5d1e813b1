//! What the result of a call says when skyl wrote it rather than the tool: a name the toolbox
//! does not have, a tool's failure in skyl's frame, a panic, a timeout, a call that was not run,
//! and a call lost with the process that ran it.

use std::fmt::Write as _;
use std::time::Duration;

use crate::text::{nearest, seconds, shortened};
use crate::tool::{FailureKind, Guidance, ToolFailure};

/// How many tool names an unknown-tool message lists before it summarises the rest.
const LISTED_TOOLS: usize = 20;

/// How much of an unknown name is repeated back: more than any provider allows in a name.
const ECHOED_NAME_BYTES: usize = 256;

/// The content for a call naming a tool the toolbox does not have.
pub(crate) fn unknown_tool<'a>(name: &str, available: impl IntoIterator<Item = &'a str>) -> String {
    let mut available: Vec<&str> = available.into_iter().collect();
    if available.is_empty() {
        let name = shortened(name, ECHOED_NAME_BYTES);
        return format!(
            "ERROR: there is no tool named \"{name}\"; no tools are available. Answer without calling a tool."
        );
    }
    available.sort_unstable();
    let nearest = nearest(name, &available);
    let name = shortened(name, ECHOED_NAME_BYTES);
    let mut text = format!("ERROR: there is no tool named \"{name}\".");
    if let Some(nearest) = nearest {
        let _ = write!(text, " Did you mean \"{nearest}\"?");
    }
    text.push_str(" The available tools are: ");
    text.push_str(
        &available
            .iter()
            .take(LISTED_TOOLS)
            .copied()
            .collect::<Vec<_>>()
            .join(", "),
    );
    if available.len() > LISTED_TOOLS {
        let _ = write!(text, " and {} more", available.len() - LISTED_TOOLS);
    }
    text.push_str(". Call one of them by its exact name.");
    text
}

/// The content for a tool that failed, whether it returned the failure or its arguments were wrong.
pub(crate) fn failed(tool: &str, failure: &ToolFailure) -> String {
    let message = sentence(failure.message());
    let mut text = match failure.kind() {
        FailureKind::InvalidArguments => {
            format!("{}: {message}. ", invalid_arguments_opening(tool))
        }
        _ => format!("ERROR: {tool} failed: {message}. "),
    };
    match failure.next_step() {
        Some(own) => text.push_str(own.trim()),
        None => match (failure.kind(), failure.guidance()) {
            (FailureKind::InvalidArguments, _) => {
                let _ = write!(text, "Call {tool} again with corrected arguments.");
            }
            (_, Guidance::RetryWithOtherArguments) => {
                let _ = write!(text, "Call {tool} again with different arguments.");
            }
            (_, Guidance::AskUser) => {
                let _ = write!(
                    text,
                    "Ask the user how to proceed before calling {tool} again."
                );
            }
            _ => text.push_str(DO_NOT_RETRY),
        },
    }
    text
}

const DO_NOT_RETRY: &str = "Do not retry; tell the user the result is unavailable.";

/// How the content for a call with invalid arguments begins (`check_toolbox` tells a refusal by
/// it).
pub(crate) fn invalid_arguments_opening(tool: &str) -> String {
    format!("ERROR: {tool} was called with invalid arguments")
}

/// How the content for a tool that panicked begins (`check_toolbox` tells a panic by it).
pub(crate) fn crashed_opening(tool: &str) -> String {
    format!("ERROR: {tool} failed: it crashed")
}

/// The sentence that ends the cause of a tool that panicked because of where it was run (see
/// [`runtime_context`]); `check_toolbox` tells such a call by it.
fn runtime_problem(tool: &str) -> String {
    format!("This is a problem in how the application runs {tool}, not in the tool or the call.")
}

/// How the content for a tool that did not finish in time begins.
fn timed_out_opening(tool: &str) -> String {
    format!("ERROR: {tool} failed: it did not finish within ")
}

/// How the content for a call the toolbox or the application did not run begins: a limit, a
/// repeated call, a hook or a person that said no.
fn not_run_opening(tool: &str) -> String {
    format!("ERROR: {tool} was not run: ")
}

#[cfg(any(test, feature = "testing"))]
/// Who ended a call whose result is a failure skyl wrote, rather than one the tool returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The arguments were refused before the tool saw them, or the tool refused them.
    InvalidArguments,
    /// The tool panicked: a bug in the tool.
    Crashed,
    /// The tool panicked because of the runtime it was called in (or the lack of one).
    WrongRuntime,
    /// The tool did not finish within its time limit.
    TimedOut,
    /// The call was never run.
    NotRun,
}

#[cfg(any(test, feature = "testing"))]
/// Reads back which of the sentences above a failed result of `tool` begins with, so that
/// `check_toolbox` can tell a call that ran its tool from one that did not without a copy of
/// them. `None` is a failure of the tool's own.
pub(crate) fn ended_by(tool: &str, content: &str) -> Option<Ended> {
    if content.starts_with(&invalid_arguments_opening(tool)) {
        Some(Ended::InvalidArguments)
    } else if content.starts_with(&crashed_opening(tool)) {
        Some(Ended::Crashed)
    } else if content.starts_with(&timed_out_opening(tool)) {
        Some(Ended::TimedOut)
    } else if content.starts_with(&not_run_opening(tool)) {
        Some(Ended::NotRun)
    } else if content.starts_with(&format!("ERROR: {tool} failed: "))
        && content.contains(&runtime_problem(tool))
    {
        Some(Ended::WrongRuntime)
    } else {
        None
    }
}

/// The content for a tool that panicked. `payload` is the panic message when it was a string.
pub(crate) fn panicked(tool: &str, payload: Option<&str>) -> String {
    if let Some(cause) = payload.and_then(runtime_context) {
        return format!(
            "ERROR: {tool} failed: {cause}. {} {DO_NOT_RETRY}",
            runtime_problem(tool)
        );
    }
    // `assert_eq!` and friends spread their message over lines; a model reads one sentence.
    let payload = payload.map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "));
    match payload.as_deref().map(sentence).filter(|p| !p.is_empty()) {
        Some(payload) => format!(
            "{} ({payload}). This is a bug in the tool, not in the call. {DO_NOT_RETRY}",
            crashed_opening(tool)
        ),
        None => format!(
            "{}. This is a bug in the tool, not in the call. {DO_NOT_RETRY}",
            crashed_opening(tool)
        ),
    }
}

/// What a panic from Tokio about the caller's runtime means, in words: the tool is fine, the
/// caller runs it where Tokio cannot work. A synchronous tool that uses a Tokio handle, or an
/// asynchronous one that uses Tokio's timers or sockets, panics this way under
/// `dispatch_blocking`, which runs tools without a runtime.
fn runtime_context(payload: &str) -> Option<&'static str> {
    if payload.contains("there is no reactor running") {
        Some(
            "it needs a Tokio runtime and was called outside one; the application must call it from inside a Tokio runtime (with .await), not with dispatch_blocking",
        )
    } else if payload.starts_with("Cannot start a runtime from within a runtime") {
        Some(
            "it starts a Tokio runtime of its own and was called from inside one; the application must call it from a thread outside the runtime (for example in tokio::task::spawn_blocking)",
        )
    } else if payload.starts_with("A Tokio 1.x context was found, but timers are disabled") {
        Some(
            "it needs Tokio's timers, and the application's runtime was built without them; the runtime must be built with enable_time or enable_all",
        )
    } else if payload.starts_with("A Tokio 1.x context was found, but IO is disabled") {
        Some(
            "it needs Tokio's I/O, and the application's runtime was built without it; the runtime must be built with enable_io or enable_all",
        )
    } else {
        None
    }
}

/// The content for a call that repeats an earlier call of its turn to a tool that must not run
/// twice by accident; `first_result` is the content of that earlier call's result.
pub(crate) fn repeated_call(tool: &str, first_call_id: &str, first_result: &str) -> String {
    let returned = if first_result.trim().is_empty() {
        "returned nothing".to_owned()
    } else {
        format!("returned: \"{}\"", quote(first_result))
    };
    format!(
        "ERROR: {tool} was not run: this call repeats the call `{first_call_id}` of the same turn with the same arguments, and running {tool} twice would repeat its effect. The call `{first_call_id}` {returned}. Call {tool} again in a later turn only if the user wants it done twice."
    )
}

/// How much of an earlier result a refusal quotes; the whole result is in the same turn.
const QUOTED_CHARS: usize = 200;

/// `text` on one line, at most [`QUOTED_CHARS`] characters, marked when cut.
fn quote(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("{}...", &one_line[..end]),
        None => one_line,
    }
}

/// The content for a tool that did not finish in time.
#[cfg_attr(not(feature = "timeout"), allow(dead_code))]
pub(crate) fn timed_out(tool: &str, limit: Duration) -> String {
    format!(
        "{}{} and was stopped. Do not retry with the same arguments; tell the user it timed out.",
        timed_out_opening(tool),
        seconds(limit)
    )
}

/// The content for a call that was started and never finished (the process running it died),
/// whose tool may have effects: it is not run again, since it may already have taken effect.
pub(crate) fn outcome_unknown(tool: &str) -> String {
    format!(
        "ERROR: the outcome of this {tool} call is unknown: it was started, and the process running it stopped before it finished, so it may or may not have taken effect. It was not run again, so that its effect is not repeated. Before calling {tool} again, check whether it took effect (with a tool that reads the state it changes, or by asking the user); call it again only if it did not."
    )
}

/// The content for a call that asked the person a question and waited for the reply in a
/// process that no longer holds it (it restarted, or the run was resumed elsewhere), whose tool
/// may have effects.
pub(crate) fn question_lost(tool: &str, asked_by: &str) -> String {
    format!(
        "ERROR: the outcome of this {tool} call is unknown: {asked_by} asked the user a question while the call ran, and the process holding the call stopped before the answer came, so the call was lost after it started. It was not run again, so that its effect is not repeated. Before calling {tool} again, check whether it took effect (with a tool that reads the state it changes, or by asking the user); call it again only if it did not."
    )
}

/// The content for a call the application decided not to run (an agent hook, or a person who
/// did not approve it).
pub(crate) fn denied(tool: &str, reason: &str) -> String {
    format!(
        "{}{}. Do not call it again with the same arguments; continue without it, or ask the user how to proceed.",
        not_run_opening(tool),
        sentence(reason)
    )
}

/// The content for a call whose arguments are larger than the toolbox accepts.
pub(crate) fn arguments_too_large(tool: &str, max_bytes: usize) -> String {
    format!(
        "ERROR: {tool} was not run: its arguments are larger than {max_bytes} bytes, the most this application accepts. Call {tool} again with smaller arguments; split a large input over several calls."
    )
}

/// The content for a call whose arguments nest deeper than the toolbox accepts.
pub(crate) fn arguments_too_deep(tool: &str, max_depth: usize) -> String {
    format!(
        "ERROR: {tool} was not run: its arguments are nested more than {max_depth} levels deep, the most this application accepts. Call {tool} again with flatter arguments."
    )
}

/// A cause as the middle of a sentence: trimmed, without a trailing full stop, never empty.
fn sentence(cause: &str) -> &str {
    let cause = cause.trim().trim_end_matches('.').trim_end();
    if cause.is_empty() {
        "no reason was given"
    } else {
        cause
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tool_suggests_the_nearest_name_and_lists_the_rest() {
        assert_eq!(
            unknown_tool("get_wether", ["search", "get_weather"]),
            "ERROR: there is no tool named \"get_wether\". Did you mean \"get_weather\"? The available tools are: get_weather, search. Call one of them by its exact name."
        );
        assert_eq!(
            unknown_tool("Get-Weather", ["get_weather"]),
            "ERROR: there is no tool named \"Get-Weather\". Did you mean \"get_weather\"? The available tools are: get_weather. Call one of them by its exact name."
        );
        assert_eq!(
            unknown_tool("translate", ["search", "get_weather"]),
            "ERROR: there is no tool named \"translate\". The available tools are: get_weather, search. Call one of them by its exact name."
        );
        assert_eq!(
            unknown_tool("anything", []),
            "ERROR: there is no tool named \"anything\"; no tools are available. Answer without calling a tool."
        );
    }

    #[test]
    fn every_sentence_skyl_writes_for_a_call_is_read_back_as_its_kind() {
        let tool = "fetch_page";
        let cases = [
            (
                failed(tool, &ToolFailure::invalid_arguments("missing field `url`")),
                Some(Ended::InvalidArguments),
            ),
            (
                panicked(tool, Some("index out of bounds")),
                Some(Ended::Crashed),
            ),
            (panicked(tool, None), Some(Ended::Crashed)),
            (
                panicked(
                    tool,
                    Some(
                        "there is no reactor running, must be called from the context of a Tokio 1.x runtime",
                    ),
                ),
                Some(Ended::WrongRuntime),
            ),
            (
                panicked(
                    tool,
                    Some(
                        "A Tokio 1.x context was found, but timers are disabled. Call `enable_time` on the runtime builder to enable timers.",
                    ),
                ),
                Some(Ended::WrongRuntime),
            ),
            (
                timed_out(tool, Duration::from_secs(5)),
                Some(Ended::TimedOut),
            ),
            (denied(tool, "the user said no"), Some(Ended::NotRun)),
            (arguments_too_large(tool, 1024), Some(Ended::NotRun)),
            (arguments_too_deep(tool, 64), Some(Ended::NotRun)),
            (repeated_call(tool, "call_1", "sent"), Some(Ended::NotRun)),
            (
                failed(tool, &ToolFailure::do_not_retry("the page is gone")),
                None,
            ),
            // Another tool's sentence is not this tool's.
            (panicked("other", Some("boom")), None),
        ];
        for (content, expected) in cases {
            assert_eq!(ended_by(tool, &content), expected, "{content}");
        }
    }

    #[test]
    fn a_long_tool_list_is_cut() {
        let names: Vec<String> = (0..25).map(|i| format!("tool_{i:02}")).collect();
        let text = unknown_tool("zzz", names.iter().map(String::as_str));
        assert!(
            text.ends_with("tool_19 and 5 more. Call one of them by its exact name."),
            "{text}"
        );
    }

    #[test]
    fn failures_name_the_tool_the_cause_and_the_next_step() {
        let cases = [
            (
                "get_weather",
                ToolFailure::do_not_retry("upstream timeout"),
                "ERROR: get_weather failed: upstream timeout. Do not retry; tell the user the result is unavailable.",
            ),
            (
                "get_weather",
                ToolFailure::retry_with_other_arguments("no city called Atlantis."),
                "ERROR: get_weather failed: no city called Atlantis. Call get_weather again with different arguments.",
            ),
            (
                "book",
                ToolFailure::ask_user("two flights match"),
                "ERROR: book failed: two flights match. Ask the user how to proceed before calling book again.",
            ),
            (
                "book",
                ToolFailure::ask_user("two flights match").with_next_step("Ask which one. "),
                "ERROR: book failed: two flights match. Ask which one.",
            ),
            (
                "get_weather",
                ToolFailure::invalid_arguments("missing field `city`"),
                "ERROR: get_weather was called with invalid arguments: missing field `city`. Call get_weather again with corrected arguments.",
            ),
            (
                "x",
                ToolFailure::do_not_retry("  "),
                "ERROR: x failed: no reason was given. Do not retry; tell the user the result is unavailable.",
            ),
        ];
        for (tool, failure, expected) in cases {
            assert_eq!(failed(tool, &failure), expected);
        }
    }

    #[test]
    fn panics_and_timeouts_say_what_happened() {
        let panics = [
            (
                "parse",
                Some("index out of bounds"),
                "ERROR: parse failed: it crashed (index out of bounds). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.",
            ),
            (
                "check",
                Some("assertion `left == right` failed: codes\n  left: 2\n right: 3"),
                "ERROR: check failed: it crashed (assertion `left == right` failed: codes left: 2 right: 3). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.",
            ),
            (
                "fetch",
                Some(
                    "there is no reactor running, must be called from the context of a Tokio 1.x runtime",
                ),
                "ERROR: fetch failed: it needs a Tokio runtime and was called outside one; the application must call it from inside a Tokio runtime (with .await), not with dispatch_blocking. This is a problem in how the application runs fetch, not in the tool or the call. Do not retry; tell the user the result is unavailable.",
            ),
            (
                "fetch",
                Some("Cannot start a runtime from within a runtime. This happens because ..."),
                "ERROR: fetch failed: it starts a Tokio runtime of its own and was called from inside one; the application must call it from a thread outside the runtime (for example in tokio::task::spawn_blocking). This is a problem in how the application runs fetch, not in the tool or the call. Do not retry; tell the user the result is unavailable.",
            ),
            (
                "wait",
                Some(
                    "A Tokio 1.x context was found, but timers are disabled. Call `enable_time` on the runtime builder to enable timers.",
                ),
                "ERROR: wait failed: it needs Tokio's timers, and the application's runtime was built without them; the runtime must be built with enable_time or enable_all. This is a problem in how the application runs wait, not in the tool or the call. Do not retry; tell the user the result is unavailable.",
            ),
            (
                "listen",
                Some(
                    "A Tokio 1.x context was found, but IO is disabled. Call `enable_io` on the runtime builder to enable IO.: Os { code: 2 }",
                ),
                "ERROR: listen failed: it needs Tokio's I/O, and the application's runtime was built without it; the runtime must be built with enable_io or enable_all. This is a problem in how the application runs listen, not in the tool or the call. Do not retry; tell the user the result is unavailable.",
            ),
            (
                "parse",
                None,
                "ERROR: parse failed: it crashed. This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.",
            ),
        ];
        for (tool, message, expected) in panics {
            assert_eq!(panicked(tool, message), expected);
        }
        assert_eq!(
            timed_out("search", Duration::from_secs(5)),
            "ERROR: search failed: it did not finish within 5s and was stopped. Do not retry with the same arguments; tell the user it timed out."
        );
        assert_eq!(seconds(Duration::from_millis(250)), "250ms");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5s");
    }

    #[test]
    fn a_repeated_call_quotes_the_first_result() {
        assert_eq!(
            repeated_call("send_email", "c1", "sent to ada\n(id 7)"),
            "ERROR: send_email was not run: this call repeats the call `c1` of the same turn with the same arguments, and running send_email twice would repeat its effect. The call `c1` returned: \"sent to ada (id 7)\". Call send_email again in a later turn only if the user wants it done twice."
        );
        assert_eq!(
            repeated_call("ping", "c1", " "),
            "ERROR: ping was not run: this call repeats the call `c1` of the same turn with the same arguments, and running ping twice would repeat its effect. The call `c1` returned nothing. Call ping again in a later turn only if the user wants it done twice."
        );
        let long = repeated_call("read", "c1", &"é".repeat(300));
        assert!(
            long.contains(&format!("returned: \"{}...\".", "é".repeat(200))),
            "{long}"
        );
    }

    #[test]
    fn a_denied_call_says_it_was_not_run_and_why() {
        assert_eq!(
            denied("delete_file", "the user did not approve it."),
            "ERROR: delete_file was not run: the user did not approve it. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
        );
        assert_eq!(
            denied("delete_file", ""),
            "ERROR: delete_file was not run: no reason was given. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
        );
    }
}
