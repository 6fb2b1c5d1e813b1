//! Why a request could not be built ([`EncodeError`]) or a response not read ([`DecodeError`]).
//!
//! Every `Display` text names the provider, says what is wrong and where (the message index and
//! call id, the tool and field, the JSON path) and says what to do about it.

use std::fmt;

use super::Provider;
use super::dialect::LoweringError;
use crate::tool::ToolDefinition;
use crate::transcript::TranscriptError;

/// Why an adapter refused to build a request body: the provider would have answered it with a
/// 400.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The transcript breaks an ordering rule every provider enforces.
    Transcript {
        /// The adapter.
        provider: Provider,
        /// The rule broken, with the message index and call id.
        error: TranscriptError,
    },
    /// A tool's name breaks the provider's naming rule.
    ToolName {
        /// The adapter.
        provider: Provider,
        /// The name as given.
        tool: String,
        /// The rule, in words.
        rule: &'static str,
        /// A name that follows the rule, and every other provider's.
        suggestion: String,
    },
    /// A tool's schema cannot be lowered to the provider's dialect.
    Schema {
        /// The adapter.
        provider: Provider,
        /// The tool whose schema it is.
        tool: String,
        /// Where in the schema: field names joined with `.`, `[]` for array items, `$defs.Name`
        /// for a definition; empty for the root.
        path: String,
        /// What cannot be expressed.
        problem: String,
        /// What to change.
        fix: String,
    },
    /// The schema of the answer ([`Request::output`](super::Request::output)) cannot be
    /// expressed in the provider's dialect.
    OutputSchema {
        /// The adapter.
        provider: Provider,
        /// The schema's name.
        name: String,
        /// Where in the schema, as [`LoweringError::path`].
        path: String,
        /// What cannot be expressed.
        problem: String,
        /// What to change.
        fix: String,
    },
    /// The tool choice cannot be honoured with the request's tools.
    ToolChoice {
        /// The adapter.
        provider: Provider,
        /// The tool the choice names; `None` for [`ToolChoice::Required`](super::ToolChoice::Required)
        /// without tools.
        tool: Option<String>,
        /// The names of the request's tools.
        available: Vec<String>,
    },
    /// Nothing is left to send once system messages moved out and empty ones were dropped.
    NoMessages {
        /// The adapter.
        provider: Provider,
    },
    /// The request defers tools ([`Request::deferred_tools`](super::Request::deferred_tools))
    /// that the provider cannot search for.
    ToolSearch {
        /// The adapter.
        provider: Provider,
        /// A deferred name that is not among the request's tools; `None` when the provider has
        /// no tool search of its own.
        tool: Option<String>,
    },
}

/// How a strict-mode lowering error ends, for a tool.
const STRICT_OFF: &str = ", or leave strict mode off for this adapter";

impl EncodeError {
    /// The error for a tool whose schema `error` says cannot be lowered to `provider`'s dialect.
    pub(crate) fn schema(provider: Provider, tool: &ToolDefinition, error: LoweringError) -> Self {
        EncodeError::Schema {
            provider,
            tool: tool.name.clone(),
            path: error.path,
            problem: error.problem,
            fix: error.fix,
        }
    }

    pub(crate) fn output_schema(provider: Provider, name: &str, error: LoweringError) -> Self {
        // An answer's schema is always strict on OpenAI: the way out that tools have (their
        // adapter's strict mode off) is not one here.
        let fix = match error.fix.strip_suffix(STRICT_OFF) {
            Some(fix) => fix.to_owned(),
            None => error.fix,
        };
        EncodeError::OutputSchema {
            provider,
            name: name.to_owned(),
            path: error.path,
            problem: error.problem,
            fix,
        }
    }

    /// The adapter that refused the request.
    pub fn provider(&self) -> Provider {
        match self {
            EncodeError::Transcript { provider, .. }
            | EncodeError::ToolName { provider, .. }
            | EncodeError::Schema { provider, .. }
            | EncodeError::OutputSchema { provider, .. }
            | EncodeError::ToolChoice { provider, .. }
            | EncodeError::NoMessages { provider }
            | EncodeError::ToolSearch { provider, .. } => *provider,
        }
    }

    /// The index of the message at fault, for a transcript error.
    pub fn index(&self) -> Option<usize> {
        match self {
            EncodeError::Transcript { error, .. } => Some(error.index()),
            _ => None,
        }
    }

    /// The call id involved, for a transcript error that has one.
    pub fn call_id(&self) -> Option<&str> {
        match self {
            EncodeError::Transcript { error, .. } => error.call_id(),
            _ => None,
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode the {} request: ", self.provider())?;
        match self {
            // What is wrong, where and what to do is the cause's to say (`source()`).
            EncodeError::Transcript { .. } => {
                f.write_str("the transcript breaks an ordering rule every provider enforces")
            }
            EncodeError::ToolName {
                tool,
                rule,
                suggestion,
                ..
            } => write!(
                f,
                "the tool name \"{tool}\" breaks the rule for tool names ({rule}); give the tool's ToolDefinition a name every provider accepts, for example \"{suggestion}\" (a Toolbox refuses such a name when the tool is added, and a #[tool] function's when it compiles, so this definition came from neither)"
            ),
            EncodeError::Schema {
                tool,
                path,
                problem,
                fix,
                ..
            } if path.is_empty() => {
                write!(f, "the schema of tool \"{tool}\": {problem}; {fix}")
            }
            EncodeError::Schema {
                tool,
                path,
                problem,
                fix,
                ..
            } => write!(
                f,
                "the schema of tool \"{tool}\", at `{path}`: {problem}; {fix}"
            ),
            EncodeError::OutputSchema {
                name,
                path,
                problem,
                fix,
                ..
            } => {
                write!(f, "the schema \"{name}\" of the answer")?;
                if !path.is_empty() {
                    write!(f, ", at `{path}`")?;
                }
                write!(f, ": {problem}; {fix}")
            }
            EncodeError::ToolChoice {
                tool: Some(tool),
                available,
                ..
            } => write!(
                f,
                "tool_choice names the tool \"{tool}\", which is not among the request's tools ({}); add it to Request::tools or choose one of those",
                list(available)
            ),
            EncodeError::ToolChoice { tool: None, .. } => f.write_str(
                "tool_choice is Required but the request has no tools; add the tools to Request::tools or use ToolChoice::Auto",
            ),
            EncodeError::NoMessages { .. } => f.write_str(
                "there is no message to send once system messages are moved out and empty messages dropped; add a user message",
            ),
            EncodeError::ToolSearch { tool: None, .. } => f.write_str(
                "the request defers tools (Request::deferred_tools), and this API has no tool search of its own; leave deferred_tools empty and give the agent a ToolSearch, which searches for the tools in skyl",
            ),
            EncodeError::ToolSearch {
                tool: Some(tool), ..
            } => write!(
                f,
                "Request::deferred_tools names the tool \"{tool}\", which is not among the request's tools; add it to Request::tools or take it out of deferred_tools"
            ),
        }
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

impl std::error::Error for EncodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EncodeError::Transcript { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Why an adapter could not read a response body.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The body is the provider's error object, not an answer.
    Provider {
        /// The adapter.
        provider: Provider,
        /// The provider's error type or status (`invalid_request_error`, `INVALID_ARGUMENT`), when
        /// it gave one.
        kind: Option<String>,
        /// The provider's message, verbatim.
        message: String,
    },
    /// A value in the body does not have the shape the provider documents.
    Shape {
        /// The adapter.
        provider: Provider,
        /// Where: `choices[0].message.tool_calls[1].function.name`.
        path: String,
        /// What was expected there (`a string`, `a non-empty array`).
        expected: &'static str,
        /// What was there instead (`a number`, `nothing`).
        found: &'static str,
    },
    /// Gemini returned no candidate at all: it blocked the prompt.
    Blocked {
        /// The adapter.
        provider: Provider,
        /// `promptFeedback.blockReason`, when given.
        reason: Option<String>,
    },
}

impl DecodeError {
    /// The adapter that could not read the body.
    pub fn provider(&self) -> Provider {
        match self {
            DecodeError::Provider { provider, .. }
            | DecodeError::Shape { provider, .. }
            | DecodeError::Blocked { provider, .. } => *provider,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let provider = self.provider();
        match self {
            DecodeError::Provider {
                kind: Some(kind),
                message,
                ..
            } => write!(
                f,
                "the {provider} API answered with an error ({kind}): {message}"
            ),
            DecodeError::Provider {
                kind: None,
                message,
                ..
            } => write!(f, "the {provider} API answered with an error: {message}"),
            DecodeError::Shape {
                path,
                expected,
                found,
                ..
            } => write!(
                f,
                "cannot read the {provider} response: {path}: expected {expected}, found {found}; is this body from the {provider} API?"
            ),
            DecodeError::Blocked {
                reason: Some(reason),
                ..
            } => write!(
                f,
                "the {provider} response has no candidate: the prompt was blocked ({reason}); change the prompt or the request's safetySettings"
            ),
            DecodeError::Blocked { reason: None, .. } => write!(
                f,
                "the {provider} response has no candidate and gives no block reason; retry the request"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}
