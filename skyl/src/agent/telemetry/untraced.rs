//! The spans without the `tracing` feature: the functions of `traced.rs`, doing nothing.

use std::future::Future;

use crate::agent::stop::Stop;
use crate::message::{ToolCall, ToolResult};
use crate::model::ModelError;
use crate::provider::{Response, Usage, caching::CacheBreak};

/// No span.
pub(crate) struct Span;

impl Span {
    pub(crate) fn agent(_: Option<&str>, _: &str) -> Span {
        Span
    }

    pub(crate) fn chat(_: &str) -> Span {
        Span
    }

    #[inline]
    pub(crate) fn instrument<F: Future>(&self, future: F) -> impl Future<Output = F::Output> {
        future
    }

    pub(crate) fn record_response(&self, _: &Response) {}

    pub(crate) fn record_cache_break(&self, _: &[CacheBreak]) {}

    pub(crate) fn record_end(&self, _: u32, _: &Usage, _: &Stop) {}

    pub(crate) fn record_model_error(&self, _: &ModelError) {}
}

/// No span.
#[derive(Clone)]
pub(crate) struct CallSpan;

impl CallSpan {
    #[inline]
    pub(crate) fn instrument<F: Future>(&self, future: F) -> impl Future<Output = F::Output> {
        future
    }
}

/// No spans.
pub(crate) struct ToolSpans;

impl ToolSpans {
    pub(crate) fn start(_: &[&ToolCall]) -> ToolSpans {
        ToolSpans
    }

    pub(crate) fn finish(&mut self, _: usize, _: &ToolResult) {}

    #[inline]
    pub(crate) fn call_span(&self, _: usize) -> Option<CallSpan> {
        None
    }
}

pub(crate) fn tool_changed(_: &str, _: &str, _: bool) {}
