//! A stand-in tool, written against the `Tool` trait so that a name can be given at run time:
//! what the dispatch and peers benches fill a toolbox of many tools with.

use serde_json::Value;
use skyl::{Tool, ToolDefinition, tool::ToolFuture};

/// A tool of `definition` that answers every call with nothing.
pub struct Filler(pub ToolDefinition);

impl Tool for Filler {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }

    fn call<'a>(&'a self, _: &'a Value, _: &'a ()) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(String::new()))
    }
}
