//! Spans for a run, named and attributed as OpenTelemetry's semantic conventions for generative
//! AI say (feature `tracing`); without the feature, nothing here costs anything.
//!
//! One `invoke_agent` span per run (or resume), one `chat {model}` span per model request and one
//! `execute_tool {name}` span per tool call that runs. `tracing` names spans statically, so each
//! span carries its full name in `otel.name`, which `tracing-opentelemetry` uses as the span's
//! name. Message contents and tool arguments are not recorded: the conventions make them opt-in,
//! and hooks can record them where an application wants them.
//!
//! Two modules with one face: `traced.rs` with the feature, `untraced.rs` (the same functions,
//! doing nothing) without it, so that the loop calls them with no `cfg` of its own.

#[cfg(feature = "tracing")]
mod traced;
#[cfg(feature = "tracing")]
pub(crate) use traced::{CallSpan, Span, ToolSpans, tool_changed};

#[cfg(not(feature = "tracing"))]
mod untraced;
#[cfg(not(feature = "tracing"))]
pub(crate) use untraced::{CallSpan, Span, ToolSpans, tool_changed};

/// The log line of [`tool_changed`]: which run, which tool, what changed and what the run does
/// about it.
#[cfg_attr(not(feature = "tracing"), allow(dead_code))]
pub(crate) fn tool_changed_line(run: &str, name: &str, gone: bool) -> String {
    if gone {
        format!(
            "run \"{run}\" was journaled by a build with the tool {name}, which this toolbox lacks (renamed or removed): the run goes on, its recorded results of {name} stand, and a new call of {name} is answered as a call of an unknown tool"
        )
    } else {
        format!(
            "run \"{run}\" was journaled by a build that defined the tool {name} otherwise (its description, schema or annotations changed): the run goes on, its recorded results of {name} stand, a call of {name} cut off mid-run is decided by what that build promised, and a new call runs the tool as it is now"
        )
    }
}

/// The `skyl.cache_break` field of a chat span: each cause, joined with "; ".
#[cfg_attr(not(feature = "tracing"), allow(dead_code))]
pub(crate) fn cache_break_line(causes: &[crate::provider::caching::CacheBreak]) -> String {
    causes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}
