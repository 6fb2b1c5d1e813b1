//! What a client reads when a served prompt or resource cannot be given: an unknown name or URI,
//! an argument or a URI's variable that does not read, the function's own error, a panic.
//!
//! These are JSON-RPC error messages: a host shows them to a person or a model, so each names
//! the prompt or resource, says what went wrong and what to do next.

use std::fmt::Write as _;

use crate::text::{nearest, shortened};

/// How much of a name or URI a client sent is echoed back.
const ECHOED: usize = 200;
/// How many names or URIs an error lists.
const LISTED: usize = 20;

/// `names`, sorted, at most [`LISTED`] of them, as a sentence's list.
fn listed(mut names: Vec<&str>) -> String {
    names.sort_unstable();
    let mut text = names
        .iter()
        .take(LISTED)
        .map(|name| format!("\"{name}\""))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LISTED {
        let _ = write!(text, " and {} more", names.len() - LISTED);
    }
    text
}

/// `prompts/get` for a name the server has no prompt of.
pub(crate) fn unknown_prompt<'a>(
    name: &str,
    available: impl IntoIterator<Item = &'a str>,
) -> String {
    let available: Vec<&str> = available.into_iter().collect();
    let shown = shortened(name, ECHOED);
    if available.is_empty() {
        return format!("there is no prompt named \"{shown}\": this server has no prompts");
    }
    let mut text = format!("there is no prompt named \"{shown}\".");
    if let Some(nearest) = nearest(name, &available) {
        let _ = write!(text, " Did you mean \"{nearest}\"?");
    }
    let _ = write!(
        text,
        " The prompts are: {}. Get one of them by its exact name (prompts/list lists them).",
        listed(available)
    );
    text
}

/// `prompts/get` without an argument the prompt requires.
pub(crate) fn missing_argument(prompt: &str, argument: &str) -> String {
    format!(
        "the prompt \"{prompt}\" needs the argument \"{argument}\", which the request does not give; \
         get it again with a value for \"{argument}\""
    )
}

/// `prompts/get` with an argument whose value does not read as its type.
pub(crate) fn bad_argument(prompt: &str, argument: &str, cause: &str) -> String {
    format!(
        "the argument \"{argument}\" of the prompt \"{prompt}\" does not read: {cause}; get it \
         again with a value that does (completion/complete suggests values)"
    )
}

/// A prompt's function returned an error.
pub(crate) fn prompt_failed(prompt: &str, cause: &str) -> String {
    format!(
        "the prompt \"{prompt}\" failed: {cause}; this is the server's error, not the request's: \
         try again later, or tell the server's maintainers"
    )
}

/// A prompt's function panicked.
pub(crate) fn prompt_panicked(prompt: &str, payload: Option<&str>) -> String {
    match panic_text(payload) {
        Some(payload) => format!(
            "the prompt \"{prompt}\" crashed ({payload}); this is a bug in the server, not in the \
             request: do not get it again with the same arguments, and tell the server's maintainers"
        ),
        None => format!(
            "the prompt \"{prompt}\" crashed; this is a bug in the server, not in the request: do \
             not get it again with the same arguments, and tell the server's maintainers"
        ),
    }
}

/// `resources/read` of a URI that is no resource of the server's and fits none of its
/// templates.
pub(crate) fn unknown_resource<'a>(
    uri: &str,
    available: impl IntoIterator<Item = &'a str>,
) -> String {
    let available: Vec<&str> = available.into_iter().collect();
    let shown = shortened(uri, ECHOED);
    if available.is_empty() {
        return format!("there is no resource at \"{shown}\": this server has no resources");
    }
    format!(
        "there is no resource at \"{shown}\"; this server's resources and templates are: {}. \
         Read one of them (resources/list and resources/templates/list list them)",
        listed(available)
    )
}

/// `resources/read` of a URI that fits a template, with a variable that does not read as its
/// type.
pub(crate) fn bad_variable(uri: &str, template: &str, variable: &str, cause: &str) -> String {
    let shown = shortened(uri, ECHOED);
    format!(
        "the URI \"{shown}\" fits the template \"{template}\", but its variable \"{variable}\" does \
         not read: {cause}; read a URI whose \"{variable}\" does (completion/complete suggests \
         values)"
    )
}

/// A resource's function returned an error.
pub(crate) fn resource_failed(uri: &str, cause: &str) -> String {
    let shown = shortened(uri, ECHOED);
    format!(
        "reading the resource \"{shown}\" failed: {cause}; this is the server's error, not the \
         request's: try again later, or tell the server's maintainers"
    )
}

/// A resource's function panicked.
pub(crate) fn resource_panicked(uri: &str, payload: Option<&str>) -> String {
    let shown = shortened(uri, ECHOED);
    match panic_text(payload) {
        Some(payload) => format!(
            "reading the resource \"{shown}\" crashed ({payload}); this is a bug in the server, \
             not in the request: do not read it again, and tell the server's maintainers"
        ),
        None => format!(
            "reading the resource \"{shown}\" crashed; this is a bug in the server, not in the \
             request: do not read it again, and tell the server's maintainers"
        ),
    }
}

/// A panic's message in one line, when it was a string.
fn panic_text(payload: Option<&str>) -> Option<String> {
    let payload = payload?.split_whitespace().collect::<Vec<_>>().join(" ");
    (!payload.is_empty()).then(|| shortened(&payload, ECHOED * 2).into_owned())
}

/// `completion/complete` for a prompt or template the server does not have.
pub(crate) fn nothing_to_complete(what: &str) -> String {
    format!(
        "there is nothing to complete for {what}: it is none of this server's prompts or resource \
         templates; complete an argument of one they list"
    )
}

/// `resources/subscribe` for a URI the server does not serve.
pub(crate) fn unknown_subscription(uri: &str) -> String {
    let shown = shortened(uri, ECHOED);
    format!(
        "there is no resource at \"{shown}\" to subscribe to; subscribe to one that \
         resources/list lists, or that fits a template of resources/templates/list"
    )
}
