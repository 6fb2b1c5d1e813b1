//! Every sentence skyl says to a model, in one place.
//!
//! A failed call's content is the only failure signal that reaches the model on every provider
//! (the `is_error` flag survives only on Anthropic), so each sentence does three things: it names
//! the tool, says what went wrong, and says what to do next. They all start with `ERROR:` so that a
//! model (and a person reading a transcript) sees the failure before the details.
//!
//! One file per family, each returning text (or a [`ToolFailure`](crate::ToolFailure) that
//! [`failed`] frames) for the code that needs it to send:
//!
//! - [`call`]: the result of a call that skyl wrote rather than the tool: a name the toolbox does
//!   not have, a tool's failure in skyl's frame, a panic, a timeout, a call that was not run.
//! - [`arguments`]: arguments that are not one JSON object, and how a cause names the argument.
//! - [`content`]: notes about what a tool returned: an output cut to a limit, a part a provider
//!   cannot take or that is too large, media that is not what its type says.
//! - [`run`]: what an agent run tells the model about its final answer and the tools it can
//!   find, and why a budget stopped a run (what its caller reads in the stop reason).
//! - `mcp` (feature `mcp`): a mounted tool whose server does not answer it well.
//! - `served` (feature `mcp`): a served prompt or resource that cannot be given.
//!
//! Three kinds of text live elsewhere on purpose. The wording of a value that does not fit a
//! declared schema is in `schema/validate/wording.rs`: it is made of what the validator found
//! (the schema's own keywords and references), and the schema layer sits below this one. The
//! utilities these sentences are built with (cutting a cause, the nearest name, a duration) are
//! in [`text`](crate::text), which holds no sentence and so can be used from any layer. How a
//! part of a tool's content reads as a line of text (`crate::content::line`) is beside `Content`,
//! since a [`ToolOutput`](crate::tool::ToolOutput) renders itself with it and the tool layer does not
//! reach up here.

pub(crate) mod arguments;
pub(crate) mod call;
pub(crate) mod content;
#[cfg(feature = "mcp")]
pub(crate) mod mcp;
pub(crate) mod run;
#[cfg(feature = "mcp")]
pub(crate) mod served;

#[cfg(feature = "timeout")]
pub(crate) use call::timed_out;
#[cfg(any(test, feature = "testing"))]
pub(crate) use call::{Ended, ended_by};
pub(crate) use call::{
    arguments_too_deep, arguments_too_large, denied, failed, outcome_unknown, panicked,
    question_lost, repeated_call, unknown_tool,
};
pub(crate) use content::{
    LeftOut, blob_not_taken, json_output_cut, media_of_call, media_refused, media_too_large,
    mislabelled, not_taken, output_cut,
};
pub(crate) use run::{
    answer_unreadable, cost_budget, find_tools_description, find_tools_query, input_budget,
    output_budget, tools_found, unpriced,
};
