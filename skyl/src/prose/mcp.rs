//! What a mounted tool tells the model when its server does not answer it well.
//!
//! These are failures, not whole sentences: the toolbox puts each in skyl's usual frame
//! (`ERROR: {tool} failed: {message}. {next step}`, see [`failed`](super::failed)), so a remote
//! tool's failures read like a local one's. Each names the server, since that is what the user
//! has to restart or fix.

use serde_json::Value;
use std::process::ExitStatus;
use std::time::Duration;

use crate::tool::ToolFailure;

/// The server closed the connection, or its process ended, before it answered.
pub(crate) fn server_gone(server: &str, status: Option<ExitStatus>) -> ToolFailure {
    let how = match status {
        Some(status) => exit(status),
        None => "closed the connection".to_owned(),
    };
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" {how} before answering"
    ))
    .with_next_step(format!(
        "Do not call its tools again; tell the user that the \"{server}\" server stopped and needs to be restarted."
    ))
}

/// The program closed its connection to the server ([`Remote::close`](super::Remote::close)):
/// nothing is wrong with the server, and restarting it would not bring the tools back.
pub(crate) fn connection_closed(server: &str) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the connection to the MCP server \"{server}\" was closed"
    ))
    .with_next_step("Do not call its tools again; they are no longer available in this session.")
}

/// The placeholder of a call parked while the person answers its server's question: the agent
/// run replaces it with the call's real result once the person has replied.
pub(crate) fn asked_person(server: &str) -> ToolFailure {
    ToolFailure::ask_user(format!(
        "the MCP server \"{server}\" asked the user a question, and the call waits for the answer"
    ))
    .with_next_step("Wait for the user to answer; the result comes once they have.")
}

/// The log line of a call whose server asked a question nobody could answer.
pub(crate) fn question_declined(server: &str, message: &str) -> String {
    format!(
        "the MCP server \"{server}\" asked \"{message}\", and it was declined: no person can answer during this call; run it in an agent run (the run pauses for the answer) or answer with RemoteBuilder::on_question"
    )
}

/// The question a served tool that needs approval asks the client's user.
pub(crate) fn approval_question(tool: &str, arguments: &Value) -> String {
    format!("Allow the tool {tool} to run with these arguments? {arguments}")
}

/// The description of the box the client's user ticks to approve a served call of `tool`.
pub(crate) fn approval_field(tool: &str) -> String {
    format!("Let {tool} run with these arguments.")
}

/// A served call that needs approval, from a client that cannot ask its user.
pub(crate) fn approval_unavailable(tool: &str) -> String {
    crate::prose::denied(
        tool,
        "it needs the user's approval, and this MCP client cannot ask for it (it does not support elicitation)",
    )
}

/// A served call whose approval the user declined.
pub(crate) fn approval_declined(tool: &str) -> String {
    crate::prose::denied(tool, "the user did not approve it when asked")
}

/// A served call whose request for approval the user dismissed.
pub(crate) fn approval_dismissed(tool: &str) -> String {
    crate::prose::denied(tool, "the user dismissed the request to approve it")
}

/// A served call sent again with a request state this server did not give for it (a JSON-RPC
/// error's message: the client's code reads it, and the tool did not run).
pub(crate) fn approval_state_refused(tool: &str) -> String {
    format!(
        "the requestState sent with this call of {tool} is not one this server signed for it (it was changed, or given for another call, or signed with another key); {tool} did not run. Send the call again without requestState and inputResponses to be asked anew"
    )
}

/// What a served tool that asked its client a question ([`crate::mcp::ask`]) fails with; the
/// server answers the call with the question instead, so no model reads it.
pub(crate) fn input_asked() -> String {
    "the tool asked the MCP client a question; the server answers the call with it".to_owned()
}

/// A tool that asked a question ([`crate::mcp::ask`]) outside a served call at 2026-07-28.
pub(crate) fn input_unavailable() -> String {
    "this tool needs to ask the user a question, which it can only do when an MCP client calls it through skyl's MCP server".to_owned()
}

/// A served call whose question, asked of the client during the call (MCP before 2026-07-28),
/// the client answered with an error.
pub(crate) fn question_failed(tool: &str, cause: &str) -> String {
    format!(
        "ERROR: {tool} did not finish: it asked the MCP client a question during the call, and the client answered with an error ({cause}). Call {tool} again once the client can answer it, or continue without it."
    )
}

/// A served call whose tool kept asking questions during the call, round after round.
pub(crate) fn asked_too_often(tool: &str, most: usize) -> String {
    format!(
        "ERROR: {tool} did not finish: it asked the MCP client questions in {most} rounds and was still asking, so the server stopped it. Do not retry; tell the user the result is unavailable."
    )
}

/// A served call whose request for approval failed on the way.
pub(crate) fn approval_failed(tool: &str, error: &str) -> String {
    crate::prose::denied(
        tool,
        &format!("asking the user to approve it failed ({error})"),
    )
}

/// How a process ended, as the end of a sentence about it.
pub(crate) fn exit(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "exited".to_owned(),
    }
}

/// The server did not answer within the call timeout.
pub(crate) fn server_timed_out(server: &str, limit: Duration) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" did not answer within {}",
        crate::text::seconds(limit)
    ))
    .with_next_step(format!(
        "Do not retry with the same arguments; tell the user that the \"{server}\" server is not responding."
    ))
}

/// The server answered the call with a JSON-RPC error instead of a result.
pub(crate) fn server_refused(
    server: &str,
    tool: &str,
    code: i32,
    message: &str,
    invalid_params: bool,
) -> ToolFailure {
    let message = format!(
        "the MCP server \"{server}\" refused the call ({message}; JSON-RPC error {code})",
        message = message.trim().trim_end_matches('.')
    );
    if invalid_params {
        ToolFailure::retry_with_other_arguments(message)
            .with_next_step(format!("Call {tool} again with corrected arguments."))
    } else {
        ToolFailure::do_not_retry(message)
    }
}

/// The connection failed in a way that is neither a closed transport nor an answer.
pub(crate) fn server_failed(server: &str, detail: &str) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the call to the MCP server \"{server}\" failed ({detail})"
    ))
}

/// The server answered with `isError: true`. Its text is its own; what to do depends on what it
/// says, so the model is told to read it, unless the text already says what to do in skyl's
/// frame (a skyl server's, see [`already_guided`]).
pub(crate) fn tool_reported(local: &str, remote: &str, text: &str) -> ToolFailure {
    if let Some(failure) = already_guided(local, remote, text) {
        return failure;
    }
    let text = if text.trim().is_empty() {
        "the server gave no reason"
    } else {
        text
    };
    ToolFailure::do_not_retry(text).with_next_step(format!(
        "If the message says the arguments were wrong, call {local} again with corrected ones; otherwise do not retry, and tell the user."
    ))
}

/// How skyl's next steps begin, to tell where a framed failure's cause ends.
const NEXT_STEP_OPENINGS: [&str; 5] =
    ["Do not ", "Call ", "Ask the user ", "If ", "Tell the user "];

/// A failure that a skyl server (or any server framing failures as skyl does) wrote:
/// `ERROR: {remote} failed: {cause}. {next step}`, or `... was called with invalid arguments: ...`.
/// It already says what to do, so it is framed once, not twice, and under the name the model
/// calls (`calc_add`), not the server's own (`add`), which the model cannot call.
fn already_guided(local: &str, remote: &str, text: &str) -> Option<ToolFailure> {
    let (rest, invalid) =
        if let Some(rest) = text.strip_prefix(&format!("ERROR: {remote} failed: ")) {
            (rest, false)
        } else {
            let opening = format!("ERROR: {remote} was called with invalid arguments: ");
            (text.strip_prefix(&opening)?, true)
        };
    let end_of_cause = NEXT_STEP_OPENINGS
        .iter()
        .filter_map(|opening| rest.find(&format!(". {opening}")))
        .min();
    let (cause, next_step) = match end_of_cause {
        Some(at) => (&rest[..at], rest[at + 2..].trim()),
        None => (rest, ""),
    };
    let failure = if invalid {
        ToolFailure::invalid_arguments(cause)
    } else {
        ToolFailure::do_not_retry(cause)
    };
    Some(if next_step.is_empty() {
        failure
    } else {
        failure.with_next_step(renamed(next_step, remote, local))
    })
}

/// `text` with every occurrence of the tool name `from`, as a whole name, replaced by `to`.
fn renamed(text: &str, from: &str, to: &str) -> String {
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(is_name_char) || after.is_some_and(is_name_char) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

/// The server's tool list changed and no longer has this tool.
pub(crate) fn tool_withdrawn(server: &str) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" no longer offers this tool"
    ))
    .with_next_step("Do not call it again; use the tools you are offered now.")
}

/// The server refused the call for want of authorization, and skyl's OAuth could not get it
/// (feature `mcp-oauth`): `reason` says which step failed and what to do.
#[cfg(feature = "mcp-oauth")]
pub(crate) fn authorization_failed(server: &str, reason: &str) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" refused the call without authorization, and authorizing failed: {reason}"
    ))
    .with_next_step(format!(
        "Do not call its tools again; tell the user that access to the \"{server}\" server needs their authorization."
    ))
}

/// A client's `tools/call` whose `arguments` is not an object: a JSON-RPC error's message,
/// which hosts show the model.
pub(crate) fn arguments_not_an_object(tool: &str, arguments: &serde_json::Value) -> String {
    format!(
        "{}: `arguments` must be a JSON object with one key per parameter, but it was {}. Call {tool} again with its arguments as an object.",
        super::call::invalid_arguments_opening(tool),
        super::arguments::describe(arguments)
    )
}

/// The status message of a served task cancelled by its client (`tasks/cancel`): the call's
/// context was cancelled and its future dropped after its grace.
pub(crate) fn task_cancelled(tool: &str) -> String {
    format!(
        "ERROR: the {tool} call was cancelled by the client before it finished: it was stopped, and any effect it had already begun may or may not have taken place. Before calling {tool} again, check whether it took effect; call it again only if it did not and the user still wants it."
    )
}

/// The JSON-RPC error of a `tasks/*` request naming a task the server does not have.
pub(crate) fn task_unknown(id: &str) -> String {
    format!(
        "there is no task \"{id}\" on this server: check the taskId the tools/call answered with; a task from another server, or one whose journal was removed, cannot be found"
    )
}

/// A served call of `tool` that asked its client what only a client declaring the
/// `capabilities` named (`elicitation`, `sampling`, `roots`) can answer, from a client that did
/// not declare them: the message of the error -32021.
pub(crate) fn capability_missing(tool: &str, capabilities: &[&str]) -> String {
    let what = |name: &str| match name {
        "elicitation" => "a person's answer (`elicitation`)",
        "sampling" => "a completion from the client's model (`sampling`)",
        _ => "the client's roots (`roots`)",
    };
    let asked: Vec<&str> = capabilities.iter().map(|name| what(name)).collect();
    let declared: Vec<String> = capabilities
        .iter()
        .map(|name| format!("\"{name}\": {{}}"))
        .collect();
    format!(
        "the {tool} call needs {}, and this MCP client did not declare that capability, so it cannot be asked; declare {{{}}} in the client's capabilities (at 2026-07-28, in each request's `_meta` clientCapabilities) with a handler that answers, then call {tool} again",
        asked.join(" and "),
        declared.join(", ")
    )
}

/// The JSON-RPC error -32601 answering a `tools/call` of `tool` that asks to be a task of MCP
/// 2025-11-25 (its `task` parameter), which skyl does not serve: the tool did not run.
pub(crate) fn task_parameter_refused(tool: &str) -> String {
    format!(
        "Method not found: this server does not run a tools/call as a task of MCP 2025-11-25 (the `task` parameter; its tools list no `execution.taskSupport`, which means forbidden), so {tool} did not run; call it again without `task` to have its result in the response, or declare the `io.modelcontextprotocol/tasks` extension in the client's capabilities, for which a server that serves tasks answers the call with one"
    )
}

/// The error -32021 answering a call of `tool`, which runs only as a task, from a client that
/// did not declare the tasks extension: the tool did not run.
pub(crate) fn task_required(tool: &str) -> String {
    format!(
        "the {tool} call runs only as a task, and this MCP client did not declare the `io.modelcontextprotocol/tasks` extension, so {tool} did not run; declare {{\"extensions\": {{\"io.modelcontextprotocol/tasks\": {{}}}}}} in the client's capabilities, then call {tool} again and poll the task it is answered with (`tasks/get`)"
    )
}

/// The error answering a `tasks/cancel` of MCP 2025-11-25 for a task that ended.
pub(crate) fn task_ended(id: &str, status: &str) -> String {
    format!(
        "the task \"{id}\" has ended ({status}), and a task that ended cannot be cancelled; read its result with tasks/result"
    )
}

/// The error answering a `tasks/result` of MCP 2025-11-25 for a task that has no result: it was
/// cancelled (`said` is its status message), or waits for answers.
pub(crate) fn task_without_result(id: &str, said: &str) -> String {
    format!(
        "the task \"{id}\" has no result: {said}; a task waiting for answers takes them with the tasks extension's tasks/update, which a client of MCP 2025-11-25 does not send, so cancel it with tasks/cancel and call the tool again"
    )
}

/// A `tasks/list` cursor this server did not give.
pub(crate) fn task_cursor_refused(cursor: &str) -> String {
    format!(
        "the cursor {cursor} is not one this server gave: send the nextCursor of the page before, as it was, or no cursor for the first page"
    )
}

/// A question of a task of MCP 2025-11-25 that could not be asked of its client during
/// `tasks/result`, for `cause`.
pub(crate) fn task_question_failed(id: &str, cause: &str) -> String {
    format!(
        "the task \"{id}\" waits for an answer its client was asked for and did not give ({cause}); ask for its result again with tasks/result to be asked again, or cancel it with tasks/cancel"
    )
}

/// A served call that was not made a task because its journal could not record it.
pub(crate) fn task_not_recorded(tool: &str, cause: &str) -> String {
    format!(
        "the {tool} call was not started: its task could not be recorded in the server's journal ({cause}); try the call again later, and tell the server's operator if it keeps failing"
    )
}

/// A `tasks/*` request whose task could not be read from the server's journal.
pub(crate) fn task_unreadable(id: &str, cause: &str) -> String {
    format!(
        "the task \"{id}\" could not be read from the server's journal ({cause}); ask again later, and tell the server's operator if it keeps failing"
    )
}

/// A mounted call whose server cancelled the task it answered with.
pub(crate) fn task_cancelled_by_server(server: &str, message: Option<&str>) -> ToolFailure {
    let said = message.map_or(String::new(), |message| {
        format!(" (it said: {})", message.trim().trim_end_matches('.'))
    });
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" cancelled the task that ran the call{said}"
    ))
}

/// A mounted call whose server's task did not take the answer to its question.
pub(crate) fn task_answer_refused(server: &str, cause: &str) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" did not take the answer to the question its task asked ({cause}), so the call did not finish here, and it may or may not have taken effect"
    ))
}

/// A mounted call whose server's task asked more questions than a call may.
pub(crate) fn task_asked_too_often(server: &str, most: usize) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" kept asking questions in the task that ran the call, more than {most}; the task was cancelled, and the call may or may not have taken effect"
    ))
}

/// A mounted call whose server's task waits for input skyl's client cannot give it.
pub(crate) fn task_needs_input(server: &str) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" asked for input during the task that ran the call, which this client cannot give inside a task; the task was cancelled"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prose::failed;

    #[test]
    fn remote_failures_read_like_local_ones_and_name_the_server() {
        assert_eq!(
            failed("files_read", &server_gone("files", None)),
            "ERROR: files_read failed: the MCP server \"files\" closed the connection before answering. Do not call its tools again; tell the user that the \"files\" server stopped and needs to be restarted."
        );
        assert_eq!(
            failed(
                "files_read",
                &server_timed_out("files", Duration::from_secs(30))
            ),
            "ERROR: files_read failed: the MCP server \"files\" did not answer within 30s. Do not retry with the same arguments; tell the user that the \"files\" server is not responding."
        );
        assert_eq!(
            failed(
                "files_read",
                &server_refused("files", "files_read", -32602, "Unknown tool: read.", true)
            ),
            "ERROR: files_read failed: the MCP server \"files\" refused the call (Unknown tool: read; JSON-RPC error -32602). Call files_read again with corrected arguments."
        );
        assert_eq!(
            failed(
                "files_read",
                &server_refused("files", "files_read", -32603, "disk on fire", false)
            ),
            "ERROR: files_read failed: the MCP server \"files\" refused the call (disk on fire; JSON-RPC error -32603). Do not retry; tell the user the result is unavailable."
        );
        assert_eq!(
            failed(
                "files_read",
                &server_failed("files", "Transport send error: broken pipe")
            ),
            "ERROR: files_read failed: the call to the MCP server \"files\" failed (Transport send error: broken pipe). Do not retry; tell the user the result is unavailable."
        );
        assert_eq!(
            failed(
                "files_read",
                &tool_reported("files_read", "read", "no such file: a.txt.")
            ),
            "ERROR: files_read failed: no such file: a.txt. If the message says the arguments were wrong, call files_read again with corrected ones; otherwise do not retry, and tell the user."
        );
        assert_eq!(
            failed("files_read", &tool_reported("files_read", "read", "")),
            "ERROR: files_read failed: the server gave no reason. If the message says the arguments were wrong, call files_read again with corrected ones; otherwise do not retry, and tell the user."
        );
        assert_eq!(
            failed("files_read", &connection_closed("files")),
            "ERROR: files_read failed: the connection to the MCP server \"files\" was closed. Do not call its tools again; they are no longer available in this session."
        );
        assert_eq!(
            failed("files_read", &tool_withdrawn("files")),
            "ERROR: files_read failed: the MCP server \"files\" no longer offers this tool. Do not call it again; use the tools you are offered now."
        );
    }

    #[test]
    fn a_failure_already_in_skyls_frame_is_framed_once_under_the_mounted_name() {
        // What the server reported for its tool "add", and how the mounted "calc_add" fails with it.
        let cases = [
            (
                "ERROR: add failed: the sum overflows. Do not retry; tell the user the result is unavailable.",
                "ERROR: calc_add failed: the sum overflows. Do not retry; tell the user the result is unavailable.",
            ),
            (
                "ERROR: add was called with invalid arguments: argument `a`: invalid type: string \"x\", expected i64. Call add again with corrected arguments.",
                "ERROR: calc_add was called with invalid arguments: argument `a`: invalid type: string \"x\", expected i64. Call calc_add again with corrected arguments.",
            ),
            // A next step naming the tool among other words: only the whole name changes.
            (
                "ERROR: add failed: no answer. Ask the user how to proceed before calling add again (not add_all).",
                "ERROR: calc_add failed: no answer. Ask the user how to proceed before calling calc_add again (not add_all).",
            ),
            // Without a next step, the default of its kind.
            (
                "ERROR: add failed: it crashed",
                "ERROR: calc_add failed: it crashed. Do not retry; tell the user the result is unavailable.",
            ),
            // Another tool's frame, or text that only looks like one, is the server's own words.
            (
                "ERROR: sub failed: no.",
                "ERROR: calc_add failed: ERROR: sub failed: no. If the message says the arguments were wrong, call calc_add again with corrected ones; otherwise do not retry, and tell the user.",
            ),
        ];
        for (reported, expected) in cases {
            assert_eq!(
                failed("calc_add", &tool_reported("calc_add", "add", reported)),
                expected,
                "{reported}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn an_exit_status_says_how_the_process_ended() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(exit(ExitStatus::from_raw(3 << 8)), "exited with status 3");
        assert_eq!(exit(ExitStatus::from_raw(9)), "was killed by signal 9");
        assert_eq!(
            failed("t", &server_gone("s", Some(ExitStatus::from_raw(9)))),
            "ERROR: t failed: the MCP server \"s\" was killed by signal 9 before answering. Do not call its tools again; tell the user that the \"s\" server stopped and needs to be restarted."
        );
    }
}
