//! How the examples print an error: the error, then each cause below it, so that what a server
//! or the system said reaches the person reading, not only the level that gave up.

use std::error::Error;
use std::fmt::Write;

/// `error`, then each of its causes ([`Error::source`]) on a line of its own.
///
/// An error's `Display` says its own level only (skyl's do): "the model request of step 1
/// failed" is followed by what the provider answered, and that by what the connection said.
pub(crate) fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        let _ = write!(text, "\n  because: {error}");
        cause = error.source();
    }
    text
}
