//! [`Failover`]: a model made of several, which moves to the next when one fails in a way that
//! may pass.

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value};

use super::{
    BoxFuture, EventSink, Model, ModelError, ModelErrorKind, Request, Response, StreamEvent,
};

/// One model of a [`Failover`]: the model, the name events and errors give it, and what of the
/// request is its own (the model name it asks for, the provider-specific fields).
///
/// ```
/// use serde_json::json;
/// use skyl::model::Member;
/// use skyl::testing::ScriptedModel;
///
/// let member = Member::new(ScriptedModel::new())
///     .named("claude")
///     .model_name("claude-sonnet-4-5")
///     .extra(json!({"temperature": 0.2}).as_object().unwrap().clone());
/// assert_eq!(member.name(), Some("claude"));
/// ```
pub struct Member {
    model: Box<dyn Model>,
    name: Option<String>,
    model_name: Option<String>,
    extra: Option<Map<String, Value>>,
}

impl Member {
    /// `model` as a member that sends the request as it comes (the agent's model name and
    /// fields) until [`model_name`](Self::model_name) or [`extra`](Self::extra) say otherwise.
    pub fn new(model: impl Model + 'static) -> Member {
        Member {
            model: Box::new(model),
            name: None,
            model_name: None,
            extra: None,
        }
    }

    /// Names it in [`StreamEvent::Failover`], [`Response::answered_by`] and
    /// [`ModelError::failed_over`]. Without a name it is called by its model name, or else
    /// `model 1`, `model 2`, … by its place in the list.
    pub fn named(mut self, name: impl Into<String>) -> Member {
        self.name = Some(name.into());
        self
    }

    /// Asks for `model_name` ([`Request::model`]) in place of the request's: each provider names
    /// its models its own way, so a member of another provider needs its own.
    pub fn model_name(mut self, model_name: impl Into<String>) -> Member {
        self.model_name = Some(model_name.into());
        self
    }

    /// Sends `extra` as the request's provider-specific fields ([`Request::extra`]) in place of
    /// the request's own: fields one provider takes (Anthropic's `thinking`, OpenAI's `store`)
    /// are refused by another, so with members of several providers keep them here rather than
    /// on the agent.
    pub fn extra(mut self, extra: Map<String, Value>) -> Member {
        self.extra = Some(extra);
        self
    }

    /// The name given with [`named`](Self::named), if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// `request` as this member sends it: borrowed as it is when nothing of it is the member's.
    fn request<'r>(&'r self, request: &'r Request<'_>) -> Cow<'r, Request<'r>> {
        if self.model_name.is_none() && self.extra.is_none() {
            return Cow::Borrowed(request);
        }
        Cow::Owned(Request {
            model: Cow::Borrowed(self.model_name.as_deref().unwrap_or(&request.model)),
            system: request.system.as_deref().map(Cow::Borrowed),
            messages: Cow::Borrowed(&request.messages),
            tools: Cow::Borrowed(&request.tools),
            tool_choice: request.tool_choice.clone(),
            output: request.output.as_deref().map(Cow::Borrowed),
            max_tokens: request.max_tokens,
            extra: self.extra.as_ref().unwrap_or(&request.extra).clone(),
            deferred_tools: Cow::Borrowed(&request.deferred_tools),
            caching: request.caching.clone(),
        })
    }
}

impl fmt::Debug for Member {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Member")
            .field("name", &self.name)
            .field("model_name", &self.model_name)
            .field("extra", &self.extra)
            .finish_non_exhaustive()
    }
}

/// A [`Model`] made of several, of any providers: each request goes to the first, and moves on
/// to the next when one fails in a way that may pass.
///
/// **When it moves on.** When a member's error is [retryable](ModelError::is_retryable): a rate
/// limit, an overload, a 5xx, a timeout, a refused connection, or a stream cut before the answer
/// was complete. That is after the member's own retries (an `HttpModel`, feature `http`, retries
/// what may pass before it gives up), so a member is left only once its transport has
/// done what it can. Any other error (a 400, a refused key, a transcript an adapter will not
/// encode) is the request's or the configuration's, which another model would not fix: it is
/// returned at once. When every member failed, the last one's error is returned, with each
/// earlier member's name and error in [`ModelError::failed_over`].
///
/// **Where a request starts.** By default every request starts at the first member: a run moves
/// back to the primary at its next step, and a primary that is down costs each step its own
/// retries before the next member answers. [`sticky`](Self::sticky) makes a request start at the
/// member that answered last instead, for as long as this `Failover` lives (share one across runs
/// and they all stay; build one per run to be sticky for that run only).
///
/// **What the caller sees.** A streaming caller receives [`StreamEvent::Failover`] (who failed,
/// who answers now, why) before the next member's events: what the failed member had streamed
/// is dropped, as its answer never reaches the transcript. The answer says which member gave it
/// in [`Response::answered_by`] ([`Step::answered_by`](crate::agent::Step::answered_by) in a run).
/// With the `tracing` feature each move is also logged as a warning.
///
/// **The transcript across providers.** A run's transcript holds the answers of every member
/// that answered. Each adapter encodes it for its own provider: call ids minted by one provider
/// are made valid for the other's rules (Anthropic's `^[a-zA-Z0-9_-]+$`), and provider data
/// (Anthropic thinking signatures, OpenAI Responses reasoning items and item ids, Gemini thought
/// signatures) is sent back only to the provider that gave it. A member replaces the request's
/// model name and provider-specific fields with its own ([`Member::model_name`],
/// [`Member::extra`]).
///
/// Two provider rules ask for data that exists only when their own model wrote the turn.
/// Anthropic with extended thinking enabled refuses a final assistant message of calls that
/// does not open with a thinking block: its adapter sends the calls of that message, and their
/// results, as text ([`Anthropic`](crate::provider::Anthropic)'s encoding), so the next member
/// reads what was called and what came back. Gemini 3 refuses a call of the current turn without
/// its thought signature: moving to it in the middle of a turn of another provider's calls is
/// answered 400 (returned, not failed over on); put such a member first, or without thinking,
/// or end the turn first.
///
/// **No call runs twice.** The loop runs an answer's calls only once the whole answer has come,
/// so a failed or cut answer runs nothing; the next member is asked the same request, whose
/// transcript holds every call already answered with its result. In a journaled run the journal
/// keeps each answer and each result as before: a call cut off by a crash is answered as the
/// journal says, whichever member asks next.
///
/// ```
/// use skyl::agent::Agent;
/// use skyl::model::{Failover, Member, ModelError};
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, Toolbox};
///
/// // With HttpModels this is `HttpModel::from_env(Anthropic)?` and so on.
/// let primary = ScriptedModel::new().fail(ModelError::provider(529, "Overloaded"));
/// let secondary = ScriptedModel::new().reply_text("Hello!");
/// let model = Failover::new([
///     Member::new(primary).model_name("claude-sonnet-4-5"),
///     Member::new(secondary.clone()).model_name("gpt-4.1"),
/// ]);
/// let agent = Agent::new(model, Toolbox::new(), "claude-sonnet-4-5");
/// let run = agent.run(vec![Message::user("Hi")]).blocking()?;
/// assert_eq!(run.text(), "Hello!");
/// assert_eq!(secondary.requests()[0].model, "gpt-4.1");
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
pub struct Failover {
    /// Each member with the name it goes by.
    members: Vec<(String, Member)>,
    sticky: bool,
    /// The member that answered last, where a sticky failover starts.
    current: AtomicUsize,
}

impl Failover {
    /// A model made of `members`, tried in order. An empty list fails every request with a
    /// [`ModelErrorKind::Other`] error saying so.
    pub fn new(members: impl IntoIterator<Item = Member>) -> Failover {
        let members = members
            .into_iter()
            .enumerate()
            .map(|(index, member)| {
                let name = member
                    .name
                    .clone()
                    .or_else(|| member.model_name.clone())
                    .unwrap_or_else(|| format!("model {}", index + 1));
                (name, member)
            })
            .collect();
        Failover {
            members,
            sticky: false,
            current: AtomicUsize::new(0),
        }
    }

    /// Starts each request at the member that answered last rather than at the first; when that
    /// one fails, the ones after it are tried, then the ones before it.
    pub fn sticky(mut self) -> Failover {
        self.sticky = true;
        self
    }

    /// The members' names, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.members.iter().map(|(name, _)| name.as_str())
    }

    /// Asks each member in turn until one answers or fails for good; streams to `events` when
    /// there are events to send.
    async fn ask(
        &self,
        request: &Request<'_>,
        mut events: Option<&mut EventSink<'_>>,
    ) -> Result<Response, ModelError> {
        let count = self.members.len();
        if count == 0 {
            return Err(ModelError::new(
                ModelErrorKind::Other,
                "the failover has no model to ask; give Failover::new at least one Member",
            ));
        }
        let start = if self.sticky {
            self.current.load(Ordering::Relaxed) % count
        } else {
            0
        };
        let mut failed = Vec::new();
        let mut turn = 0;
        loop {
            let index = (start + turn) % count;
            let (name, member) = &self.members[index];
            let request = member.request(request);
            let result = match events.as_deref_mut() {
                Some(sink) => member.model.stream(&request, sink).await,
                None => member.model.complete(&request).await,
            };
            let error = match result {
                Ok(mut response) => {
                    if self.sticky {
                        self.current.store(index, Ordering::Relaxed);
                    }
                    response.answered_by = Some(name.clone());
                    // A member that is a failover itself said which of its own answered.
                    response
                        .requested_model
                        .get_or_insert_with(|| request.model.to_string());
                    return Ok(response);
                }
                Err(error) => error,
            };
            turn += 1;
            if !error.is_retryable() || turn == count {
                return Err(error.with_failed_over(failed));
            }
            let next = &self.members[(start + turn) % count].0;
            let reason = error.to_string();
            log_failover(name, next, &reason);
            if let Some(sink) = events.as_deref_mut() {
                sink(StreamEvent::Failover {
                    from: name.clone(),
                    to: next.clone(),
                    reason,
                });
            }
            failed.push((name.clone(), error));
        }
    }
}

/// A warning that the request moved from `from` to `to`, and why (feature `tracing`).
#[cfg(feature = "tracing")]
fn log_failover(from: &str, to: &str, reason: &str) {
    tracing::warn!(
        skyl.failover.from = from,
        skyl.failover.to = to,
        error.message = reason,
        "the model {from} failed ({reason}); the request goes to {to}"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_failover(_: &str, _: &str, _: &str) {}

impl fmt::Debug for Failover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Failover")
            .field("members", &self.members)
            .field("sticky", &self.sticky)
            .finish_non_exhaustive()
    }
}

impl Model for Failover {
    fn complete<'a>(
        &'a self,
        request: &'a Request<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(self.ask(request, None))
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request<'_>,
        events: &'a mut EventSink<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(self.ask(request, Some(events)))
    }

    /// The largest body any member would send: a budget that bounds the next request holds
    /// whichever member answers it.
    fn encoded_len(&self, request: &Request<'_>) -> Option<usize> {
        self.members
            .iter()
            .filter_map(|(_, member)| member.model.encoded_len(&member.request(request)))
            .max()
    }

    /// The most any member's provider adds: whichever member answers, the bound holds.
    fn added_input_tokens(&self, request: &Request<'_>) -> u64 {
        self.members
            .iter()
            .map(|(_, member)| member.model.added_input_tokens(&member.request(request)))
            .max()
            .unwrap_or(0)
    }

    /// Every member's names, in order, each once: any of them may answer.
    fn model_names(&self, request: &Request<'_>) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for (_, member) in &self.members {
            for name in member.model.model_names(&member.request(request)) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use serde_json::json;

    use super::*;
    use crate::executor::block_on;
    use crate::message::Message;
    use crate::provider::StopReason;
    use crate::testing::ScriptedModel;

    fn request() -> Request<'static> {
        Request {
            model: "asked".into(),
            messages: vec![Message::user("Hi")].into(),
            extra: json!({"thinking": {"type": "enabled"}})
                .as_object()
                .unwrap()
                .clone(),
            ..Default::default()
        }
    }

    fn overloaded() -> ModelError {
        ModelError::provider(529, "Overloaded")
    }

    #[test]
    fn a_transient_failure_moves_the_request_to_the_next_member_as_that_member_sends_it() {
        let primary = ScriptedModel::new().fail(overloaded());
        let secondary = ScriptedModel::new().reply_text("Hello");
        let model = Failover::new([
            Member::new(primary.clone()).named("claude"),
            Member::new(secondary.clone())
                .model_name("gpt-4.1")
                .extra(json!({"store": false}).as_object().unwrap().clone()),
        ]);
        let response = block_on(model.complete(&request())).unwrap();
        assert_eq!(response.message, Message::assistant("Hello"));
        assert_eq!(response.answered_by.as_deref(), Some("gpt-4.1"));
        // The primary got the request as it came; the secondary its own model name and fields.
        assert_eq!(primary.requests(), [request()]);
        let mut theirs = request();
        theirs.model = "gpt-4.1".into();
        theirs.extra = json!({"store": false}).as_object().unwrap().clone();
        assert_eq!(secondary.requests(), [theirs]);
    }

    /// A model whose body is as long as the model name it is asked with, times `scale`.
    struct Measured(usize);

    impl Model for Measured {
        fn complete<'a>(
            &'a self,
            _: &'a Request<'_>,
        ) -> BoxFuture<'a, Result<Response, ModelError>> {
            Box::pin(async { Err(overloaded()) })
        }

        fn stream<'a>(
            &'a self,
            request: &'a Request<'_>,
            _: &'a mut EventSink<'_>,
        ) -> BoxFuture<'a, Result<Response, ModelError>> {
            self.complete(request)
        }

        fn encoded_len(&self, request: &Request<'_>) -> Option<usize> {
            (self.0 > 0).then(|| request.model.len() * self.0)
        }
    }

    #[test]
    fn the_body_a_budget_bounds_is_the_largest_any_member_would_send() {
        let model = Failover::new([
            Member::new(Measured(1)),
            // Asked with its own, longer model name.
            Member::new(Measured(2)).model_name("a-longer-model"),
            Member::new(Measured(0)),
        ]);
        assert_eq!(
            model.encoded_len(&request()),
            Some("a-longer-model".len() * 2)
        );
        let unknown = Failover::new([Member::new(Measured(0)), Member::new(ScriptedModel::new())]);
        assert_eq!(unknown.encoded_len(&request()), None);
    }

    #[test]
    fn a_failure_that_would_not_pass_is_returned_without_asking_another() {
        for error in [
            ModelError::provider(400, "messages.1: bad"),
            ModelError::provider(401, "invalid x-api-key"),
            ModelError::new(ModelErrorKind::Encode, "refused"),
            ModelError::new(ModelErrorKind::Decode, "not JSON"),
        ] {
            let status = error.status();
            let secondary = ScriptedModel::new().reply_text("unused");
            let model = Failover::new([
                Member::new(ScriptedModel::new().fail(error)),
                Member::new(secondary.clone()),
            ]);
            let error = block_on(model.complete(&request())).unwrap_err();
            assert_eq!(error.status(), status);
            assert_eq!(error.failed_over().len(), 0);
            assert!(secondary.requests().is_empty(), "{error}");
        }
    }

    #[test]
    fn when_every_member_fails_the_last_error_comes_back_with_the_others_in_order() {
        let cut = ModelError::new(
            ModelErrorKind::Connection,
            "the stream broke after 3 events",
        )
        .with_source(std::io::Error::other("connection reset"));
        let model = Failover::new([
            Member::new(ScriptedModel::new().fail(ModelError::provider(503, "down")))
                .named("primary"),
            Member::new(ScriptedModel::new().fail(overloaded())).named("secondary"),
            Member::new(ScriptedModel::new().fail(cut)).named("tertiary"),
        ]);
        let error = block_on(model.complete(&request())).unwrap_err();
        assert_eq!(error.kind(), ModelErrorKind::Connection);
        assert_eq!(
            error.to_string(),
            "the connection to the model failed: the stream broke after 3 events [after failing over from primary, secondary]"
        );
        // Its own cause stays its cause.
        assert_eq!(
            error.source().map(ToString::to_string).as_deref(),
            Some("connection reset")
        );
        let before: Vec<_> = error
            .failed_over()
            .map(|(name, error)| (name, error.to_string()))
            .collect();
        assert_eq!(
            before,
            [
                ("primary", "the model answered HTTP 503: down".to_owned()),
                (
                    "secondary",
                    "the model answered HTTP 529: Overloaded".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_lasting_failure_after_a_move_stops_there_and_keeps_the_earlier_one() {
        let third = ScriptedModel::new().reply_text("unused");
        let model = Failover::new([
            Member::new(ScriptedModel::new().fail(overloaded())).named("a"),
            Member::new(ScriptedModel::new().fail(ModelError::provider(400, "bad"))).named("b"),
            Member::new(third.clone()).named("c"),
        ]);
        let error = block_on(model.complete(&request())).unwrap_err();
        assert_eq!(error.status(), Some(400));
        assert_eq!(
            error
                .failed_over()
                .map(|(name, _)| name)
                .collect::<Vec<_>>(),
            ["a"]
        );
        assert!(third.requests().is_empty());
    }

    #[test]
    fn each_request_starts_at_the_first_member_unless_sticky() {
        let primary = ScriptedModel::new()
            .fail(overloaded())
            .reply_text("primary again");
        let secondary = ScriptedModel::new().reply_text("secondary");
        let model = Failover::new([Member::new(primary.clone()), Member::new(secondary.clone())]);
        let first = block_on(model.complete(&request())).unwrap();
        let second = block_on(model.complete(&request())).unwrap();
        assert_eq!(
            [first.answered_by, second.answered_by],
            [Some("model 2".to_owned()), Some("model 1".to_owned())]
        );
        assert_eq!(
            (primary.requests().len(), secondary.requests().len()),
            (2, 1)
        );

        // Sticky: the second request starts at the member that answered, and when that one fails
        // the ones before it are tried.
        let primary = ScriptedModel::new()
            .fail(overloaded())
            .reply_text("primary again");
        let secondary = ScriptedModel::new()
            .reply_text("secondary")
            .reply_text("secondary again")
            .fail(overloaded());
        let model = Failover::new([
            Member::new(primary.clone()).named("p"),
            Member::new(secondary.clone()).named("s"),
        ])
        .sticky();
        let answers: Vec<_> = (0..3)
            .map(|_| block_on(model.complete(&request())).unwrap().answered_by)
            .collect();
        assert_eq!(
            answers,
            [
                Some("s".to_owned()),
                Some("s".to_owned()),
                Some("p".to_owned())
            ]
        );
        assert_eq!(
            (primary.requests().len(), secondary.requests().len()),
            (2, 3)
        );
    }

    #[test]
    fn a_streaming_caller_is_told_of_the_move_before_the_next_members_events() {
        let model = Failover::new([
            Member::new(ScriptedModel::new().fail(overloaded())).named("claude"),
            Member::new(ScriptedModel::new().reply_text("Hi")).named("gpt"),
        ]);
        let mut events = Vec::new();
        let request = request();
        let response = block_on(model.stream(&request, &mut |event| events.push(event))).unwrap();
        assert_eq!(response.answered_by.as_deref(), Some("gpt"));
        assert_eq!(
            events,
            [
                StreamEvent::Failover {
                    from: "claude".into(),
                    to: "gpt".into(),
                    reason: "the model answered HTTP 529: Overloaded".into(),
                },
                StreamEvent::TextDelta("Hi".into()),
                StreamEvent::Usage(Default::default()),
                StreamEvent::Done {
                    stop_reason: StopReason::EndTurn
                },
            ]
        );
    }

    /// With the `tracing` feature each move is a warning naming both models and the reason.
    #[cfg(feature = "tracing")]
    #[test]
    fn each_move_is_logged_as_a_warning() {
        use std::collections::BTreeMap;
        use std::sync::{Arc, Mutex};
        use tracing::field::{Field, Visit};
        use tracing::span::{Attributes, Id, Record};
        use tracing::{Event, Level, Metadata, Subscriber};

        type Logged = Vec<(Level, BTreeMap<String, String>)>;

        #[derive(Clone, Default)]
        struct Lines(Arc<Mutex<Logged>>);

        struct Fields<'a>(&'a mut BTreeMap<String, String>);

        impl Visit for Fields<'_> {
            fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
                self.0.insert(field.name().to_owned(), format!("{value:?}"));
            }

            fn record_str(&mut self, field: &Field, value: &str) {
                self.0.insert(field.name().to_owned(), value.to_owned());
            }
        }

        impl Subscriber for Lines {
            fn enabled(&self, _: &Metadata<'_>) -> bool {
                true
            }
            fn new_span(&self, _: &Attributes<'_>) -> Id {
                Id::from_u64(1)
            }
            fn record(&self, _: &Id, _: &Record<'_>) {}
            fn record_follows_from(&self, _: &Id, _: &Id) {}
            fn event(&self, event: &Event<'_>) {
                let mut fields = BTreeMap::new();
                event.record(&mut Fields(&mut fields));
                let level = *event.metadata().level();
                self.0.lock().unwrap().push((level, fields));
            }
            fn enter(&self, _: &Id) {}
            fn exit(&self, _: &Id) {}
        }

        let model = Failover::new([
            Member::new(ScriptedModel::new().fail(overloaded())).named("claude"),
            Member::new(ScriptedModel::new().reply_text("Hi")).named("gpt"),
        ]);
        let lines = Lines::default();
        crate::testing::tracing_capture::capture(lines.clone(), || {
            block_on(model.complete(&request())).unwrap();
        });
        let expected: BTreeMap<String, String> = [
            ("skyl.failover.from", "claude"),
            ("skyl.failover.to", "gpt"),
            ("error.message", "the model answered HTTP 529: Overloaded"),
            (
                "message",
                "the model claude failed (the model answered HTTP 529: Overloaded); the request goes to gpt",
            ),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
        assert_eq!(*lines.0.lock().unwrap(), [(Level::WARN, expected)]);
    }

    #[test]
    fn a_failover_without_members_says_so() {
        let error = block_on(Failover::new([]).complete(&request())).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the model failed: the failover has no model to ask; give Failover::new at least one Member"
        );
    }
}
