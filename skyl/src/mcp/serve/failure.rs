//! Why a served prompt or resource could not be given.

use std::fmt;

/// Why a served prompt or resource could not be given: an argument (or a URI's variable) that
/// does not read, or the function's own error.
///
/// A prompt or resource function returning `Result<_, E>` fails with `E`'s `Display` as the
/// cause; [`DynamicPrompt`](crate::mcp::DynamicPrompt) and [`DynamicResource`](crate::mcp::DynamicResource)
/// closures and hand-written [`ServedPrompt`](crate::mcp::ServedPrompt)s return it. The server answers
/// with the protocol's error (invalid params for an argument, internal error otherwise), its
/// message naming the prompt or resource, the cause and what to do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// The function failed.
    Failed(String),
    /// An argument or variable does not read as its type.
    Argument { name: String, cause: String },
    /// A required argument was not given.
    Missing(String),
}

impl Failure {
    /// The function failed, because of `cause`.
    pub fn new(cause: impl fmt::Display) -> Self {
        Failure {
            kind: Kind::Failed(cause.to_string()),
        }
    }

    /// The argument (or the URI's variable) `name` does not read, because of `cause`: the
    /// request's fault, which the client can correct.
    pub fn argument(name: impl Into<String>, cause: impl fmt::Display) -> Self {
        Failure {
            kind: Kind::Argument {
                name: name.into(),
                cause: cause.to_string(),
            },
        }
    }

    /// The required argument `name` was not given.
    pub fn missing(name: impl Into<String>) -> Self {
        Failure {
            kind: Kind::Missing(name.into()),
        }
    }

    /// Whether the request is at fault (an argument), rather than the server.
    pub fn is_argument(&self) -> bool {
        !matches!(self.kind, Kind::Failed(_))
    }

    /// The argument at fault and why, when the request is at fault; `None` for a missing
    /// argument's cause.
    pub(in crate::mcp) fn argument_of(&self) -> Option<(&str, Option<&str>)> {
        match &self.kind {
            Kind::Failed(_) => None,
            Kind::Argument { name, cause } => Some((name, Some(cause))),
            Kind::Missing(name) => Some((name, None)),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Failed(cause) => f.write_str(cause),
            Kind::Argument { name, cause } => write!(f, "\"{name}\" does not read: {cause}"),
            Kind::Missing(name) => write!(f, "the argument \"{name}\" is missing"),
        }
    }
}

impl std::error::Error for Failure {}

/// A tool's failure (what [`ask`](crate::mcp::ask) returns, so that a prompt may ask with `?`), by its
/// message.
impl From<crate::ToolFailure> for Failure {
    fn from(failure: crate::ToolFailure) -> Self {
        Failure::new(failure.message())
    }
}
