//! The spans, with the `tracing` feature.

use std::future::Future;

use tracing::field;

use crate::agent::stop::Stop;
use crate::message::{ToolCall, ToolResult};
use crate::model::{ModelError, ModelErrorKind};
use crate::provider::{Response, StopReason, Usage, caching::CacheBreak};

/// The span of a run or of one model request.
pub(crate) struct Span {
    span: tracing::Span,
}

impl Span {
    /// The span of a whole run.
    pub(crate) fn agent(name: Option<&str>, model: &str) -> Span {
        let full_name = match name {
            Some(name) => format!("invoke_agent {name}"),
            None => "invoke_agent".to_owned(),
        };
        Span {
            span: tracing::info_span!(
                "invoke_agent",
                otel.name = %full_name,
                otel.kind = "internal",
                gen_ai.operation.name = "invoke_agent",
                gen_ai.agent.name = name,
                gen_ai.request.model = model,
                gen_ai.usage.input_tokens = field::Empty,
                gen_ai.usage.output_tokens = field::Empty,
                skyl.agent.steps = field::Empty,
                skyl.agent.stop = field::Empty,
                error.type = field::Empty,
            ),
        }
    }

    /// The span of one model request.
    pub(crate) fn chat(model: &str) -> Span {
        Span {
            span: tracing::info_span!(
                "chat",
                otel.name = %format_args!("chat {model}"),
                otel.kind = "client",
                gen_ai.operation.name = "chat",
                gen_ai.request.model = model,
                gen_ai.response.id = field::Empty,
                gen_ai.response.model = field::Empty,
                gen_ai.response.finish_reasons = field::Empty,
                gen_ai.usage.input_tokens = field::Empty,
                gen_ai.usage.output_tokens = field::Empty,
                skyl.cache_break = field::Empty,
                error.type = field::Empty,
            ),
        }
    }

    /// Why the request's start differs from what the request before it cached.
    pub(crate) fn record_cache_break(&self, causes: &[CacheBreak]) {
        self.span.record(
            "skyl.cache_break",
            crate::agent::telemetry::cache_break_line(causes).as_str(),
        );
    }

    /// Runs `future` inside this span.
    pub(crate) fn instrument<F: Future>(&self, future: F) -> impl Future<Output = F::Output> {
        tracing::Instrument::instrument(future, self.span.clone())
    }

    /// What a model's answer said about itself.
    pub(crate) fn record_response(&self, response: &Response) {
        let finish_reason = match &response.stop_reason {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::MaxTokens => "max_tokens",
            StopReason::StopSequence => "stop_sequence",
            StopReason::ContentFilter => "content_filter",
            StopReason::Refusal => "refusal",
            StopReason::Other(other) => other.as_str(),
        };
        let span = &self.span;
        span.record("gen_ai.response.finish_reasons", finish_reason);
        if let Some(id) = &response.id {
            span.record("gen_ai.response.id", id.as_str());
        }
        if let Some(model) = &response.model {
            span.record("gen_ai.response.model", model.as_str());
        }
        self.record_usage(&response.usage);
    }

    /// Tokens used.
    fn record_usage(&self, usage: &Usage) {
        self.span
            .record("gen_ai.usage.input_tokens", usage.input_tokens);
        self.span
            .record("gen_ai.usage.output_tokens", usage.output_tokens);
    }

    /// How a run ended.
    pub(crate) fn record_end(&self, steps: u32, usage: &Usage, stop: &Stop) {
        self.record_usage(usage);
        self.span.record("skyl.agent.steps", steps);
        let stop = match stop {
            Stop::Answered => "answered",
            Stop::StepLimit { .. } => "step_limit",
            Stop::ToolCalled { .. } => "tool_called",
            Stop::TokenBudget { .. } => "token_budget",
            Stop::Budget { .. } => "budget",
            Stop::Unpriced { .. } => "unpriced",
            Stop::Condition { .. } => "condition",
            Stop::Breaker { .. } => "breaker",
            Stop::AwaitingApproval => "awaiting_approval",
            Stop::Failed { .. } => "failed",
        };
        self.span.record("skyl.agent.stop", stop);
    }

    /// A failed model request, as a short error type: the provider's own, the HTTP status, or
    /// what kind of failure it was.
    pub(crate) fn record_model_error(&self, error: &ModelError) {
        let kind = match error.kind() {
            ModelErrorKind::Encode => "encode",
            ModelErrorKind::Connection => "connection",
            ModelErrorKind::Timeout => "timeout",
            ModelErrorKind::Provider => "provider",
            ModelErrorKind::Decode => "decode",
            ModelErrorKind::Other => "_OTHER",
        };
        let error_type = match (error.error_type(), error.status()) {
            (Some(error_type), _) => error_type.to_owned(),
            (None, Some(status)) => status.to_string(),
            (None, None) => kind.to_owned(),
        };
        self.span.record("error.type", error_type);
    }
}

/// The span of one tool call, for what the call runs (a sub-agent's run) to nest under.
#[derive(Clone)]
pub(crate) struct CallSpan(tracing::Span);

impl CallSpan {
    /// Runs `future` inside the call's span.
    pub(crate) fn instrument<F: Future>(&self, future: F) -> impl Future<Output = F::Output> {
        tracing::Instrument::instrument(future, self.0.clone())
    }
}

/// The spans of the tool calls of one step that run, each open until its call has a result.
pub(crate) struct ToolSpans {
    spans: Vec<Option<tracing::Span>>,
}

impl ToolSpans {
    /// Opens a span for each of `calls`.
    pub(crate) fn start(calls: &[&ToolCall]) -> ToolSpans {
        let spans = calls
            .iter()
            .map(|call| {
                Some(tracing::info_span!(
                    "execute_tool",
                    otel.name = %format_args!("execute_tool {}", call.name),
                    otel.kind = "internal",
                    gen_ai.operation.name = "execute_tool",
                    gen_ai.tool.name = call.name.as_str(),
                    gen_ai.tool.call.id = call.id.as_str(),
                    gen_ai.tool.type = "function",
                    error.type = field::Empty,
                ))
            })
            .collect();
        ToolSpans { spans }
    }

    /// The span of the `k`th call, while it is open.
    pub(crate) fn call_span(&self, k: usize) -> Option<CallSpan> {
        self.spans.get(k)?.clone().map(CallSpan)
    }

    /// Closes the span of the `k`th call, which has `result`.
    pub(crate) fn finish(&mut self, k: usize, result: &ToolResult) {
        // Taking the span out closes it, whatever the result.
        if let Some(span) = self.spans.get_mut(k).and_then(Option::take)
            && result.is_error
        {
            span.record("error.type", "tool_error");
        }
    }
}

/// A log line (a warning) saying that the journal of run `run` was written by a build whose tool
/// `name` the toolbox replaying it defines otherwise, or lacks (`gone`).
pub(crate) fn tool_changed(run: &str, name: &str, gone: bool) {
    tracing::warn!(
        skyl.run.id = run,
        gen_ai.tool.name = name,
        "{}",
        crate::agent::telemetry::tool_changed_line(run, name, gone)
    );
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    use serde_json::{Value, json};
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    use crate::agent::Agent;
    use crate::message::{Message, ToolCall};
    use crate::model::ModelError;
    use crate::provider::{Response, Usage};
    use crate::testing::ScriptedModel;
    use crate::tool::{Tool, ToolDefinition, ToolFailure, ToolFuture};
    use crate::toolbox::Toolbox;

    /// Every span: its fields as text, and the name of its parent.
    #[derive(Clone, Default)]
    struct Spans(Arc<Mutex<SpansInner>>);

    #[derive(Default)]
    struct SpansInner {
        spans: Vec<(BTreeMap<String, String>, Option<usize>)>,
        entered: Vec<usize>,
        /// Every event (log line): its level and its fields as text.
        events: Vec<(tracing::Level, BTreeMap<String, String>)>,
    }

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), value.to_owned());
        }
    }

    impl Subscriber for Spans {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }

        fn new_span(&self, attributes: &Attributes<'_>) -> Id {
            let mut inner = self.0.lock().unwrap();
            let mut fields = BTreeMap::new();
            fields.insert("name".to_owned(), attributes.metadata().name().to_owned());
            attributes.record(&mut Fields(&mut fields));
            let parent = inner.entered.last().copied();
            inner.spans.push((fields, parent));
            Id::from_u64(inner.spans.len() as u64)
        }

        fn record(&self, span: &Id, values: &Record<'_>) {
            let mut inner = self.0.lock().unwrap();
            let index = span.into_u64() as usize - 1;
            values.record(&mut Fields(&mut inner.spans[index].0));
        }

        fn record_follows_from(&self, _: &Id, _: &Id) {}

        fn event(&self, event: &Event<'_>) {
            let mut fields = BTreeMap::new();
            event.record(&mut Fields(&mut fields));
            let level = *event.metadata().level();
            self.0.lock().unwrap().events.push((level, fields));
        }

        fn enter(&self, span: &Id) {
            let index = span.into_u64() as usize - 1;
            self.0.lock().unwrap().entered.push(index);
        }

        fn exit(&self, _: &Id) {
            self.0.lock().unwrap().entered.pop();
        }
    }

    struct Echo(ToolDefinition);

    impl Tool for Echo {
        fn definition(&self) -> &ToolDefinition {
            &self.0
        }

        fn call<'a>(&'a self, arguments: &'a Value, _: &'a ()) -> ToolFuture<'a> {
            ToolFuture::ready(match arguments.get("fail") {
                Some(_) => Err(ToolFailure::do_not_retry("asked to fail")),
                None => Ok("echo".to_owned()),
            })
        }
    }

    #[test]
    fn spans_follow_the_genai_conventions() {
        let mut calls = Response::calls([
            ToolCall::new("c1", "echo", json!({})),
            ToolCall::new("c2", "echo", json!({"fail": true})),
        ]);
        calls.id = Some("resp_1".into());
        calls.model = Some("m-2025".into());
        calls.usage = Usage {
            input_tokens: 12,
            output_tokens: 3,
            ..Usage::default()
        };
        let model = ScriptedModel::new()
            .reply(calls)
            .fail(ModelError::provider(429, "slow down").with_error_type("rate_limit_error"));
        let echo = Echo(ToolDefinition {
            name: "echo".into(),
            description: "Echoes.".into(),
            parameters: json!({"type": "object"}),
            ..Default::default()
        });
        let agent = Agent::new(model, Toolbox::new().with(echo), "m").with_name("helper");

        let spans = Spans::default();
        let error = crate::testing::tracing_capture::capture(spans.clone(), || {
            agent.run(vec![Message::user("Hi")]).blocking().unwrap_err()
        });
        assert_eq!(error.step(), 2);

        let inner = spans.0.lock().unwrap();
        let text = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
                .collect()
        };
        let expected = vec![
            (
                text(&[
                    ("name", "invoke_agent"),
                    ("otel.name", "invoke_agent helper"),
                    ("otel.kind", "internal"),
                    ("gen_ai.operation.name", "invoke_agent"),
                    ("gen_ai.agent.name", "helper"),
                    ("gen_ai.request.model", "m"),
                    ("gen_ai.usage.input_tokens", "12"),
                    ("gen_ai.usage.output_tokens", "3"),
                    ("skyl.agent.steps", "1"),
                    ("skyl.agent.stop", "failed"),
                    ("error.type", "rate_limit_error"),
                ]),
                None,
            ),
            (
                text(&[
                    ("name", "chat"),
                    ("otel.name", "chat m"),
                    ("otel.kind", "client"),
                    ("gen_ai.operation.name", "chat"),
                    ("gen_ai.request.model", "m"),
                    ("gen_ai.response.id", "resp_1"),
                    ("gen_ai.response.model", "m-2025"),
                    ("gen_ai.response.finish_reasons", "tool_use"),
                    ("gen_ai.usage.input_tokens", "12"),
                    ("gen_ai.usage.output_tokens", "3"),
                ]),
                Some(0),
            ),
            (
                text(&[
                    ("name", "execute_tool"),
                    ("otel.name", "execute_tool echo"),
                    ("otel.kind", "internal"),
                    ("gen_ai.operation.name", "execute_tool"),
                    ("gen_ai.tool.name", "echo"),
                    ("gen_ai.tool.call.id", "c1"),
                    ("gen_ai.tool.type", "function"),
                ]),
                Some(0),
            ),
            (
                text(&[
                    ("name", "execute_tool"),
                    ("otel.name", "execute_tool echo"),
                    ("otel.kind", "internal"),
                    ("gen_ai.operation.name", "execute_tool"),
                    ("gen_ai.tool.name", "echo"),
                    ("gen_ai.tool.call.id", "c2"),
                    ("gen_ai.tool.type", "function"),
                    ("error.type", "tool_error"),
                ]),
                Some(0),
            ),
            (
                text(&[
                    ("name", "chat"),
                    ("otel.name", "chat m"),
                    ("otel.kind", "client"),
                    ("gen_ai.operation.name", "chat"),
                    ("gen_ai.request.model", "m"),
                    ("error.type", "rate_limit_error"),
                ]),
                Some(0),
            ),
        ];
        assert_eq!(inner.spans, expected);
    }

    /// A journal in memory.
    #[derive(Default)]
    struct Memory(Mutex<Vec<crate::agent::Entry>>);

    impl crate::agent::Journal for Memory {
        fn load<'a>(
            &'a self,
            _: &'a str,
        ) -> crate::model::BoxFuture<'a, Result<Vec<crate::agent::Entry>, crate::agent::JournalError>>
        {
            Box::pin(std::future::ready(Ok(self.0.lock().unwrap().clone())))
        }

        fn append<'a>(
            &'a self,
            _: &'a str,
            entries: Vec<crate::agent::Entry>,
            _: bool,
        ) -> crate::model::BoxFuture<'a, Result<(), crate::agent::JournalError>> {
            self.0.lock().unwrap().extend(entries);
            Box::pin(std::future::ready(Ok(())))
        }
    }

    #[test]
    fn a_journal_written_by_a_toolbox_that_defined_a_tool_otherwise_is_logged_as_a_warning() {
        let echo = |description: &str| {
            Echo(ToolDefinition {
                name: "echo".into(),
                description: description.into(),
                parameters: json!({"type": "object"}),
                ..Default::default()
            })
        };
        let journal = Memory::default();
        let model = ScriptedModel::new().reply_text("Hi!");
        Agent::new(model, Toolbox::new().with(echo("Echoes.")), "m")
            .run(vec![Message::user("Hi")])
            .journaled(&journal, "r1")
            .blocking()
            .unwrap();

        let rebuilt = Agent::new(
            ScriptedModel::new(),
            Toolbox::new().with(echo("Echoes, louder.")),
            "m",
        );
        let spans = Spans::default();
        crate::testing::tracing_capture::capture(spans.clone(), || {
            rebuilt
                .run(vec![Message::user("Hi")])
                .journaled(&journal, "r1")
                .blocking()
                .unwrap()
        });
        let fields: BTreeMap<String, String> = [
            ("skyl.run.id", "r1"),
            ("gen_ai.tool.name", "echo"),
            (
                "message",
                "run \"r1\" was journaled by a build that defined the tool echo otherwise (its description, schema or annotations changed): the run goes on, its recorded results of echo stand, a call of echo cut off mid-run is decided by what that build promised, and a new call runs the tool as it is now",
            ),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
        assert_eq!(
            spans.0.lock().unwrap().events,
            [(tracing::Level::WARN, fields)]
        );
    }

    #[test]
    fn a_request_that_breaks_the_cached_start_says_why_on_its_chat_span() {
        use crate::agent::hooks;

        let model = ScriptedModel::new()
            .reply_calls([ToolCall::new("c1", "echo", json!({}))])
            .reply_text("Done.");
        let echo = Echo(ToolDefinition {
            name: "echo".into(),
            description: "Echoes.".into(),
            parameters: json!({"type": "object"}),
            ..Default::default()
        });
        let edit = hooks::before_request(|step, request| {
            if step == 2 {
                request.system = Some("Be terse.".into());
                request.messages.to_mut()[0] = Message::user("Hello");
            }
        });
        let agent = Agent::new(model, Toolbox::new().with(echo), "m")
            .with_system("Be brief.")
            .with_hooks(edit);

        let spans = Spans::default();
        crate::testing::tracing_capture::capture(spans.clone(), || {
            agent.run(vec![Message::user("Hi")]).blocking().unwrap()
        });
        let breaks: Vec<Option<String>> = spans
            .0
            .lock()
            .unwrap()
            .spans
            .iter()
            .filter(|(fields, _)| fields["name"] == "chat")
            .map(|(fields, _)| fields.get("skyl.cache_break").cloned())
            .collect();
        assert_eq!(
            breaks,
            [
                None,
                Some(
                    "the system prompt changed; message 0 of the transcript was edited or removed"
                        .to_owned()
                )
            ]
        );
    }

    #[test]
    fn a_sub_agents_spans_nest_under_the_span_of_the_call_that_runs_it() {
        let inner = Agent::new(
            ScriptedModel::new().reply_text(r#""found""#),
            Toolbox::new(),
            "small",
        )
        .with_name("researcher");
        let model = ScriptedModel::new()
            .reply_calls([ToolCall::new("c1", "research", json!({}))])
            .reply_text("Done.");
        let research = inner.as_tool::<Value, String>("research", "Looks up.");
        let agent = Agent::new(model, Toolbox::new().with(research), "large").with_name("lead");

        let spans = Spans::default();
        crate::testing::tracing_capture::capture(spans.clone(), || {
            agent.run(vec![Message::user("Hi")]).blocking().unwrap()
        });
        let inner = spans.0.lock().unwrap();
        let named: Vec<(String, Option<String>)> = inner
            .spans
            .iter()
            .map(|(fields, parent)| {
                let name = |fields: &BTreeMap<String, String>| fields["otel.name"].clone();
                (name(fields), parent.map(|at| name(&inner.spans[at].0)))
            })
            .collect();
        let pair = |name: &str, parent: Option<&str>| (name.to_owned(), parent.map(str::to_owned));
        assert_eq!(
            named,
            [
                pair("invoke_agent lead", None),
                pair("chat large", Some("invoke_agent lead")),
                pair("execute_tool research", Some("invoke_agent lead")),
                pair("invoke_agent researcher", Some("execute_tool research")),
                pair("chat small", Some("invoke_agent researcher")),
                pair("chat large", Some("invoke_agent lead")),
            ]
        );
    }
}
