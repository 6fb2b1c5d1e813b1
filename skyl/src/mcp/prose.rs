//! What a mounted tool tells the model when its server does not answer it well.
//!
//! These are failures, not whole sentences: the toolbox puts each in skyl's usual frame
//! (`ERROR: {tool} failed: {message}. {next step}`, see `crate::prose`), so a remote tool's
//! failures read like a local one's. They live here, beside the feature that needs them, and
//! each names the server, since that is what the user has to restart or fix.

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
        crate::prose::seconds(limit)
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
/// says, so the model is told to read it.
pub(crate) fn tool_reported(tool: &str, text: &str) -> ToolFailure {
    let text = if text.trim().is_empty() {
        "the server gave no reason"
    } else {
        text
    };
    ToolFailure::do_not_retry(text).with_next_step(format!(
        "If the message says the arguments were wrong, call {tool} again with corrected ones; otherwise do not retry, and tell the user."
    ))
}

/// The server's tool list changed and no longer has this tool.
pub(crate) fn tool_withdrawn(server: &str) -> ToolFailure {
    ToolFailure::do_not_retry(format!(
        "the MCP server \"{server}\" no longer offers this tool"
    ))
    .with_next_step("Do not call it again; use the tools you are offered now.")
}

/// The model's arguments are not an object, which is all MCP can carry.
pub(crate) fn arguments_not_an_object(kind: &str) -> ToolFailure {
    ToolFailure::invalid_arguments(format!(
        "the arguments must be a JSON object of named arguments, not {kind}"
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
                &tool_reported("files_read", "no such file: a.txt.")
            ),
            "ERROR: files_read failed: no such file: a.txt. If the message says the arguments were wrong, call files_read again with corrected ones; otherwise do not retry, and tell the user."
        );
        assert_eq!(
            failed("files_read", &tool_reported("files_read", "")),
            "ERROR: files_read failed: the server gave no reason. If the message says the arguments were wrong, call files_read again with corrected ones; otherwise do not retry, and tell the user."
        );
        assert_eq!(
            failed("files_read", &tool_withdrawn("files")),
            "ERROR: files_read failed: the MCP server \"files\" no longer offers this tool. Do not call it again; use the tools you are offered now."
        );
        assert_eq!(
            failed("files_read", &arguments_not_an_object("a string")),
            "ERROR: files_read was called with invalid arguments: the arguments must be a JSON object of named arguments, not a string. Call files_read again with corrected arguments."
        );
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
