//! Agents that call agents: an [`Agent`] as a tool of another ([`AgentTool`]), whose run is
//! journaled inside the calling run's journal, pauses the top run when a call deep inside it
//! waits for a person, and reports its events under the call that runs it.
//!
//! The sub-agent's run is an ordinary run of its agent. Journaled, its id is the effect key of
//! the call that runs it (`{run}/{step}/{call id}`), so a sub-sub-agent's is the run id, then the
//! path of calls down to it; a crash anywhere resumes each run from its own journal, where it
//! was. A run that waits for a person travels, as it stopped, in the slot of the call that ran
//! it (`turn/slot.rs`), up to the top run, which stops with
//! [`Stop::AwaitingApproval`](super::Stop::AwaitingApproval) and serializes whole. The person
//! decides on the top run ([`Run::waiting`] says who waits and where, [`Run::approve_at`]
//! decides), and the top run resumed hands each saved run back to the call that runs it.
//!
//! The feature's entry points on the types it acts on are written here beside it:
//! [`Agent::as_tool`], and `Run`'s [`waiting`](Run::waiting), [`sub_run`](Run::sub_run) and
//! the `*_at` decisions.

use std::error::Error;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::arguments::parse_declared;
use crate::message::{Message, ToolCall};
use crate::prose::run as prose;
use crate::schema::{canonical_schema_for, output_schema_for};
use crate::tool::{CallContext, RichOutcome, Tool, ToolDefinition, ToolFuture, ToolOutput};

use crate::agent::agent::Agent;
use crate::agent::approval::NotAwaiting;
use crate::agent::asking::{self, Desk};
use crate::agent::driver::{RunBuilder, drive_expecting, drive_journaled_expecting};
use crate::agent::event::Event;
use crate::agent::hooks::points::Hooks;
use crate::agent::journal::error::DurableRunError;
use crate::agent::journal::seam::Journal;
use crate::agent::question::{Question, Reply};
use crate::agent::run::Run;
use crate::agent::stop::Stop;
use crate::agent::typed::{DEFAULT_CORRECTIONS, Expected, read};

/// An [`Agent`] as a tool of another agent: the tool's arguments are a typed input `I`, its
/// result the sub-agent's final answer read into `O` (as [`answer_as`](super::RunBuilder::answer_as)
/// reads one), and the sub-agent keeps its own model, tools, hooks and limits.
///
/// Its limits include its [`Budget`](super::Budget). What it spends is its own run's
/// [`usage`](super::Run::usage) and [`cost`](super::Run::cost), and counts in the calling run's
/// [`tree_usage`](super::Run::tree_usage) and [`tree_cost`](super::Run::tree_cost); a budget
/// of the calling run (of any run above it) bounds the whole tree: each of the sub-agent's
/// requests is checked against what every budget above it has left before it is sent, and the
/// sub-agent stops ([`Stop::Budget`]) rather than send one that could pass a limit. Give a
/// sub-agent a budget of its own to bound what one call of it may spend besides.
///
/// Each call starts a run of the sub-agent from one user message: the arguments as JSON, or the
/// text [`with_prompt`](Self::with_prompt) makes of them. What comes of the run is the call's
/// result: the answer as JSON; or a failure the model reads when the run stopped short (its step
/// limit, its breaker), its answer could not be read, or its model failed.
///
/// - **Durable**: with [`journaled`](Self::journaled) (the journal of the runs that call it),
///   the sub-agent's run is journaled under the call's effect key, so that a crash at any instant
///   resumes it where it was: its model is asked nothing it answered, its tools' results are
///   reused, and no effect happens twice. Running such a call again only replays it, so the tool
///   says it is idempotent, and a run that is resumed runs the call again instead of answering it
///   as outcome-unknown.
/// - **Approvals from inside**: a call inside the sub-agent (at any depth) that waits for a
///   person pauses the top run, which serializes with the sub-agent's run inside it.
///   [`Run::waiting`] lists who waits and where, [`Run::approve_at`] and [`Run::deny_at`]
///   decide, and the top run resumed (in any process) goes on down to the call. Approvals bind
///   as they do in any run: to the call, its arguments, its tool's definition, the sub-agent's
///   run id, once and until their expiry.
/// - **Events**: with an event callback on the top run, the sub-agent's events come as
///   [`Event::Nested`] under the call that runs it.
///
/// ```
/// use serde_json::json;
/// use skyl::agent::{Agent, AgentTool, Stop};
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, ToolCall, Toolbox};
///
/// /// What to look into.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Topic {
///     /// The subject.
///     subject: String,
/// }
///
/// /// What was found.
/// #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
/// struct Finding {
///     summary: String,
/// }
///
/// let researcher = Agent::new(
///     ScriptedModel::new().reply_text(r#"{"summary": "Gulu is in northern Uganda."}"#),
///     Toolbox::new(),
///     "small-model",
/// );
/// let research: AgentTool<Topic, Finding> =
///     AgentTool::new("research", "Looks a subject up and sums it up.", researcher);
///
/// let model = ScriptedModel::new()
///     .reply_calls([ToolCall::new("c1", "research", json!({"subject": "Gulu"}))])
///     .reply_text("Gulu is in northern Uganda.");
/// let agent = Agent::new(model, Toolbox::new().with(research), "large-model");
/// let run = agent.run(vec![Message::user("Where is Gulu?")]).blocking()?;
/// assert_eq!(run.stop(), &Stop::Answered);
/// assert_eq!(
///     run.transcript()[2].tool_results().next().unwrap().content,
///     r#"{"summary":"Gulu is in northern Uganda."}"#
/// );
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
pub struct AgentTool<I, O, S = (), H = ()> {
    agent: Agent<S, H>,
    definition: ToolDefinition,
    journal: Option<Arc<dyn Journal>>,
    prompt: Option<Prompt<I>>,
    corrections: u32,
    types: PhantomData<fn(I) -> O>,
}

/// Makes a sub-agent's first user message of a call's input.
type Prompt<I> = Box<dyn Fn(&I) -> String + Send + Sync>;

impl<I, O, S, H> AgentTool<I, O, S, H>
where
    I: DeserializeOwned + JsonSchema + 'static,
    O: DeserializeOwned + Serialize + JsonSchema + 'static,
    S: Send + Sync + 'static,
    H: Hooks + 'static,
{
    /// A tool named `name`, described to the model by `description`, whose calls run `agent`.
    ///
    /// Its parameters are `I`'s schema, its output schema `O`'s; it says it is not destructive
    /// (the sub-agent's own tools ask for approval, as its agent's rules say).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        agent: Agent<S, H>,
    ) -> Self {
        let mut parameters = canonical_schema_for::<I>();
        // The tool's description is what the model reads about the whole call, as a `#[tool]`'s.
        if let Value::Object(root) = &mut parameters {
            root.remove("description");
        }
        let mut definition = ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters,
            output_schema: Some(output_schema_for::<O>()),
            ..Default::default()
        };
        definition.annotations.destructive = Some(false);
        AgentTool {
            agent,
            definition,
            journal: None,
            prompt: None,
            corrections: DEFAULT_CORRECTIONS,
            types: PhantomData,
        }
    }

    /// Journals the sub-agent's runs in `journal` (the journal of the runs that call the tool),
    /// each under the effect key of the call that runs it; see [`AgentTool`].
    ///
    /// A call outside a journaled run has no effect key, and its sub-agent's run is not
    /// journaled. A tool without a journal refuses a call in a journaled run (the model reads
    /// that it failed, and why): its sub-agent's run would start over after a crash, repeating
    /// its effects.
    pub fn journaled(mut self, journal: Arc<dyn Journal>) -> Self {
        self.journal = Some(journal);
        // Running the call again replays the sub-agent's run from its journal.
        self.definition.annotations.idempotent = Some(true);
        self
    }

    /// Makes the sub-agent's first user message of the call's input with `prompt`, instead of
    /// the arguments as JSON.
    pub fn with_prompt(mut self, prompt: impl Fn(&I) -> String + Send + Sync + 'static) -> Self {
        self.prompt = Some(Box::new(prompt));
        self
    }

    /// Sends a final answer that does not read as `O` back to the sub-agent at most
    /// `corrections` times (as [`TypedRun::with_corrections`](super::TypedRun::with_corrections)).
    pub fn with_corrections(mut self, corrections: u32) -> Self {
        self.corrections = corrections;
        self
    }

    /// The sub-agent.
    pub fn agent(&self) -> &Agent<S, H> {
        &self.agent
    }

    /// Runs the sub-agent for the call `call`, from `prompt` or from the saved run the resumed
    /// turn hands it.
    async fn answer(&self, prompt: String, call: CallContext) -> RichOutcome {
        let name = self.definition.name.as_str();
        // The desk of the turn that runs this call: where a saved run is handed to it, where its
        // run is left when it waits for a person, and where its events go.
        let desk = asking::current_desk();
        let builder = self.start(prompt, &call, desk.as_deref());
        let expected = Expected::of::<O>(self.corrections);
        let journaled = match (&self.journal, call.effect_key()) {
            (Some(journal), Some(key)) => Some((journal, key.to_owned())),
            // Unjournaled, the sub-agent's run would start over after a crash of the run that
            // calls it, repeating its effects and its approved calls.
            (None, Some(_)) => return Err(prose::sub_agent_unjournaled(name)),
            (_, None) => None,
        };
        let work = async {
            match journaled {
                Some((journal, key)) => {
                    drive_journaled_expecting(builder, &**journal, key, &expected).await
                }
                None => drive_expecting(builder, &expected)
                    .await
                    .map_err(DurableRunError::Model),
            }
        };
        // The sub-agent's spans nest under the span of the call that runs it (feature `tracing`).
        let finished = match desk.as_ref().and_then(|desk| desk.span(call.call_id())) {
            Some(span) => span.instrument(work).await,
            None => work.await,
        };
        // What the sub-agent's run used counts in the calling run's tree; a run that waits for a
        // person is counted where it waits, in the call's slot.
        let spent = |run: &Run| {
            if let Some(desk) = &desk
                && run.stop() != &Stop::AwaitingApproval
            {
                desk.spend(call.call_id(), run.tree());
            }
        };
        match &finished {
            Ok(run) => spent(run),
            Err(DurableRunError::Model(error)) => spent(error.run()),
            Err(_) => {}
        }
        let run = match finished {
            Ok(run) => run,
            // Another worker runs the sub-agent's run, or its store failed: the run that calls
            // it stops as on a failure of its own journal, recording nothing for the call.
            Err(DurableRunError::Journal(error)) => {
                let failure = prose::sub_agent_failed(name, &chain(&error));
                if let Some(desk) = &desk {
                    desk.halt(call.call_id(), error);
                }
                return Err(failure);
            }
            Err(DurableRunError::Model(error)) => {
                let failed = error.model_error();
                return Err(prose::sub_agent_model_failed(
                    name,
                    &failed.to_string(),
                    failed.is_retryable(),
                    &self.completed_effects(error.run()),
                ));
            }
            Err(error) => return Err(prose::sub_agent_failed(name, &chain(&error))),
        };
        self.outcome(run, &call, desk.as_deref(), &expected)
    }

    /// The sub-agent's run for the call `call`: the saved run the resumed turn hands it at
    /// `desk`, or a new one from `prompt`; under the budgets of the runs above it, and its
    /// events passed up nested in the call's.
    fn start(
        &self,
        prompt: String,
        call: &CallContext,
        desk: Option<&Desk>,
    ) -> RunBuilder<'_, S, H> {
        let name = self.definition.name.as_str();
        let saved = desk.and_then(|desk| desk.handed(call.call_id()));
        let mut builder = match saved {
            Some(saved) => self.agent.resume(saved),
            None => self.agent.run(vec![Message::user(prompt)]),
        };
        if let Some(desk) = desk {
            builder = builder.under(desk.ledgers());
        }
        if let Some(events) = desk.and_then(|desk| desk.events()) {
            let (call_id, tool) = (call.call_id().to_owned(), name.to_owned());
            builder = builder.on_event(move |event| {
                events(Event::Nested {
                    call_id: call_id.clone(),
                    name: tool.clone(),
                    event: Box::new(event),
                });
            });
        }
        builder
    }

    /// The call's outcome of the sub-agent's `run`, which stopped: its answer read as `O`, or
    /// the run left at `desk` to wait for a person, or why it stopped short.
    fn outcome(
        &self,
        run: Run,
        call: &CallContext,
        desk: Option<&Desk>,
        expected: &Expected,
    ) -> RichOutcome {
        let name = self.definition.name.as_str();
        match run.stop() {
            Stop::Answered => match read::<O>(&run.text(), expected.schema.wraps_answer()) {
                Ok(value) => serde_json::to_string(&value)
                    .map(ToolOutput::from)
                    .map_err(|error| prose::sub_agent_failed(name, &error.to_string())),
                Err(reason) => Err(prose::sub_agent_unreadable(
                    name,
                    &expected.schema.name,
                    &reason,
                    &self.completed_effects(&run),
                )),
            },
            Stop::AwaitingApproval => match desk {
                Some(desk) => {
                    desk.park_run(call.call_id(), run);
                    Err(prose::sub_agent_waits(name))
                }
                None => Err(prose::sub_agent_unasked(name)),
            },
            stop @ (Stop::Budget { .. } | Stop::Unpriced { .. }) => {
                Err(prose::sub_agent_out_of_budget(
                    name,
                    &stop.to_string(),
                    &self.completed_effects(&run),
                ))
            }
            stop => Err(prose::sub_agent_stopped(
                name,
                &stop.to_string(),
                &self.completed_effects(&run),
            )),
        }
    }

    /// The calls of `run` with effects (of tools not marked read-only, sub-agents included) that
    /// completed (their result is not an error), as a failure of the call lists them: calling
    /// the sub-agent again would do them again.
    fn completed_effects(&self, run: &Run) -> Vec<String> {
        let transcript = run.transcript();
        let succeeded: Vec<&str> = transcript
            .iter()
            .flat_map(Message::tool_results)
            .filter(|result| !result.is_error)
            .map(|result| result.call_id.as_str())
            .collect();
        let toolbox = &self.agent.toolbox;
        transcript
            .iter()
            .flat_map(Message::tool_calls)
            .filter(|call| succeeded.contains(&call.id.as_str()))
            .filter(|call| {
                let read_only = toolbox
                    .definition(&call.name)
                    .is_some_and(|definition| definition.annotations.is_read_only());
                !read_only
            })
            .map(|call| prose::completed_call(&call.name, &call.id))
            .collect()
    }
}

/// An error and its causes, each level's sentence in turn.
fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        text.push_str(": ");
        text.push_str(&error.to_string());
        cause = error.source();
    }
    text
}

impl<T, I, O, S, H> Tool<T> for AgentTool<I, O, S, H>
where
    I: DeserializeOwned + JsonSchema + 'static,
    O: DeserializeOwned + Serialize + JsonSchema + 'static,
    S: Send + Sync + 'static,
    H: Hooks + 'static,
{
    crate::tool::invoked::invoked_tool!(T, |self, arguments, invocation| {
        let input = match parse_declared::<I>(arguments, &self.definition.parameters) {
            Ok(input) => input,
            Err(failure) => return ToolFuture::ready(Err(failure)),
        };
        let prompt = match &self.prompt {
            Some(prompt) => prompt(&input),
            None => arguments.to_string(),
        };
        let call = invocation.context();
        ToolFuture::new_output(self.answer(prompt, call))
    });
}

impl<I, O, S, H> fmt::Debug for AgentTool<I, O, S, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentTool")
            .field("name", &self.definition.name)
            .field("agent", &self.agent)
            .field("journaled", &self.journal.is_some())
            .finish_non_exhaustive()
    }
}

impl<S: Send + Sync + 'static, H: Hooks + 'static> Agent<S, H> {
    /// This agent as a tool of another: [`AgentTool::new`]`(name, description, self)`.
    ///
    /// ```
    /// # use skyl::agent::{Agent, AgentTool};
    /// # use skyl::testing::ScriptedModel;
    /// # use skyl::Toolbox;
    /// # #[derive(serde::Deserialize, schemars::JsonSchema)] struct Topic { subject: String }
    /// let researcher = Agent::new(ScriptedModel::new(), Toolbox::new(), "small-model");
    /// let research = researcher.as_tool::<Topic, String>("research", "Looks a subject up.");
    /// let toolbox = Toolbox::new().with(research);
    /// # let _ = toolbox;
    /// ```
    pub fn as_tool<I, O>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> AgentTool<I, O, S, H>
    where
        I: DeserializeOwned + JsonSchema + 'static,
        O: DeserializeOwned + Serialize + JsonSchema + 'static,
    {
        AgentTool::new(name, description, self)
    }
}

/// A call waiting for a person's decision, anywhere in a run: in the run itself, or inside a
/// sub-agent's call at any depth ([`Run::waiting`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    path: Vec<ToolCall>,
    run: Option<String>,
    question: Option<Question>,
}

impl Waiting {
    /// The calls from the top run's down to the one that waits (the last), each inside the
    /// sub-agent of the one before.
    pub fn path(&self) -> &[ToolCall] {
        &self.path
    }

    /// The call that waits.
    pub fn call(&self) -> &ToolCall {
        self.path.last().expect("a waiting call has a path")
    }

    /// The ids of the calls of [`path`](Self::path), as [`Run::approve_at`] takes them.
    pub fn ids(&self) -> Vec<&str> {
        self.path.iter().map(|call| call.id.as_str()).collect()
    }

    /// Where the call waits, for a person to read: each call of the path as
    /// `"{call id} {tool}"`, such as `["c1 research", "c3 send_email"]`.
    pub fn describe(&self) -> Vec<String> {
        self.path
            .iter()
            .map(|call| format!("{} {}", call.id, call.name))
            .collect()
    }

    /// The id of the journaled run the call belongs to (a sub-agent's: the top run's id and
    /// the path of calls down to it), `None` when it is not journaled.
    pub fn run_id(&self) -> Option<&str> {
        self.run.as_deref()
    }

    /// The question the call asked while it ran, if it asked one.
    pub fn question(&self) -> Option<&Question> {
        self.question.as_ref()
    }
}

/// Agents inside a run: the calls that wait at any depth, and the decisions about them.
///
/// ```
/// use serde_json::json;
/// use skyl::agent::{hooks, Agent, Decision, Stop};
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, ToolCall, Toolbox};
///
/// /// Sends an email.
/// #[skyl::tool]
/// fn send_email(to: String) -> String {
///     format!("sent to {to}")
/// }
///
/// let mailer = Agent::new(
///     ScriptedModel::new()
///         .reply_calls([ToolCall::new("m1", "send_email", json!({"to": "ada@example.com"}))])
///         .reply_text(r#""Sent.""#),
///     Toolbox::new().with(SendEmail),
///     "small-model",
/// )
/// .with_hooks(hooks::before_tool_call(|_, _| Decision::Pause));
/// let agent = Agent::new(
///     ScriptedModel::new()
///         .reply_calls([ToolCall::new("c1", "mail", json!({"to": "Ada"}))])
///         .reply_text("Done."),
///     Toolbox::new().with(mailer.as_tool::<serde_json::Value, String>("mail", "Sends mail.")),
///     "large-model",
/// );
///
/// let mut run = agent.run(vec![Message::user("Mail Ada")]).blocking()?;
/// assert_eq!(run.stop(), &Stop::AwaitingApproval);
/// let waiting = run.waiting();
/// assert_eq!(waiting[0].describe(), ["c1 mail", "m1 send_email"]);
///
/// run.approve_at(&["c1", "m1"]).unwrap();
/// let run = agent.resume(run).blocking()?;
/// assert_eq!(run.text(), "Done.");
/// assert_eq!(run.transcript()[2].tool_results().next().unwrap().content, r#""Sent.""#);
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
impl Run {
    /// The saved run of the sub-agent that the paused call `call_id` runs, while it waits for a
    /// person.
    pub fn sub_run(&self, call_id: &str) -> Option<&Run> {
        self.paused_calls()
            .find(|(call, _)| call.id == call_id)
            .and_then(|(_, slot)| slot.sub_run())
    }

    /// [`sub_run`](Self::sub_run), to decide about the calls that wait in it.
    pub fn sub_run_mut(&mut self, call_id: &str) -> Option<&mut Run> {
        let message = self.transcript.last()?;
        let at = message.tool_calls().position(|call| call.id == call_id)?;
        self.turn.as_mut()?.slots.get_mut(at)?.sub_run_mut()
    }

    /// Every call that waits for a person's decision, in call order, those inside sub-agents'
    /// calls (at any depth) in place of the call that runs them, each with its path.
    pub fn waiting(&self) -> Vec<Waiting> {
        let mut waiting = Vec::new();
        self.collect_waiting(&mut Vec::new(), &mut waiting);
        waiting
    }

    fn collect_waiting(&self, path: &mut Vec<ToolCall>, into: &mut Vec<Waiting>) {
        for (call, slot) in self.paused_calls() {
            path.push(call.clone());
            if let Some(run) = slot.sub_run() {
                run.collect_waiting(path, into);
            } else if slot.is_waiting() {
                into.push(Waiting {
                    path: path.clone(),
                    run: self.id.clone(),
                    // A call that waits and asked a question still asks it.
                    question: slot.question().cloned(),
                });
            }
            path.pop();
        }
    }

    /// The run of the sub-agent at the end of `calls` (each a call of the sub-agent of the one
    /// before), or the error naming the first call that runs no waiting sub-agent.
    fn sub_run_at(&mut self, calls: &[&str]) -> Result<&mut Run, NotAwaiting> {
        let Some((first, rest)) = calls.split_first() else {
            return Ok(self);
        };
        if self.sub_run(first).is_none() {
            return Err(self.not_awaiting(first));
        }
        self.sub_run_mut(first)
            .expect("the sub-run just found")
            .sub_run_at(rest)
    }

    /// [`approve`](Self::approve) the call at the end of `path` (a [`Waiting::ids`]): each id
    /// a call of the sub-agent of the call before. The approval binds to the sub-agent's run
    /// (its id, in a journaled run), as [`approve`](Self::approve) says.
    pub fn approve_at(&mut self, path: &[&str]) -> Result<(), NotAwaiting> {
        let Some((last, calls)) = path.split_last() else {
            return Err(self.not_awaiting(""));
        };
        self.sub_run_at(calls)?.approve(last)
    }

    /// [`approve_until`](Self::approve_until) the call at the end of `path`; see
    /// [`approve_at`](Self::approve_at).
    pub fn approve_at_until(
        &mut self,
        path: &[&str],
        expiry: std::time::SystemTime,
    ) -> Result<(), NotAwaiting> {
        let Some((last, calls)) = path.split_last() else {
            return Err(self.not_awaiting(""));
        };
        self.sub_run_at(calls)?.approve_until(last, expiry)
    }

    /// [`deny`](Self::deny) the call at the end of `path`; see [`approve_at`](Self::approve_at).
    pub fn deny_at(&mut self, path: &[&str], reason: impl Into<String>) -> Result<(), NotAwaiting> {
        let Some((last, calls)) = path.split_last() else {
            return Err(self.not_awaiting(""));
        };
        self.sub_run_at(calls)?.deny(last, reason)
    }

    /// [`reply`](Self::reply) to the question of the call at the end of `path`; see
    /// [`approve_at`](Self::approve_at).
    pub fn reply_at(&mut self, path: &[&str], reply: Reply) -> Result<(), NotAwaiting> {
        let Some((last, calls)) = path.split_last() else {
            return Err(self.not_awaiting(""));
        };
        self.sub_run_at(calls)?.reply(last, reply)
    }
}

// The questions a call asks come from a mounted MCP server, so these tests need its feature.
#[cfg(all(test, feature = "mcp"))]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::agent::Reply;
    use crate::agent::asking::{QUESTION_EXPIRY, Resume, park};
    use crate::testing::ScriptedModel;
    use crate::tool::Invocation;
    use crate::toolbox::Toolbox;

    /// A tool that asks the person whether to delete, as a mounted MCP server's elicitation does,
    /// and deletes when they accept.
    struct Delete(ToolDefinition);

    impl Tool for Delete {
        fn definition(&self) -> &ToolDefinition {
            &self.0
        }

        fn call<'a>(&'a self, arguments: &'a Value, state: &'a ()) -> ToolFuture<'a> {
            self.invoke(arguments, state, &Invocation::new("delete", ""))
        }

        fn invoke<'a>(&'a self, _: &'a Value, _: &'a (), call: &Invocation<'_>) -> ToolFuture<'a> {
            let call_id = call.call_id().to_owned();
            ToolFuture::new_output(async move {
                let question = Question::new(
                    "files",
                    "Delete notes.txt?",
                    json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}}),
                );
                let resume: Resume = Box::new(|reply| {
                    Box::pin(async move {
                        Ok(ToolOutput::from(match reply {
                            Reply::Accept(_) => "deleted notes.txt",
                            _ => "kept notes.txt",
                        }))
                    })
                });
                match park(&call_id, question, resume, QUESTION_EXPIRY) {
                    Ok(()) => Err(crate::tool::ToolFailure::ask_user("asked")),
                    Err(_) => Err(crate::tool::ToolFailure::do_not_retry("nobody to ask")),
                }
            })
        }
    }

    fn agents() -> Agent {
        let delete = Delete(ToolDefinition {
            name: "delete".into(),
            description: "Deletes a file.".into(),
            parameters: json!({"type": "object", "properties": {}}),
            ..Default::default()
        });
        let cleaner = Agent::new(
            ScriptedModel::new()
                .reply_calls([ToolCall::new("d1", "delete", json!({}))])
                .reply_text(r#""cleaned""#),
            Toolbox::new().with(delete),
            "small",
        );
        Agent::new(
            ScriptedModel::new()
                .reply_calls([ToolCall::new("c1", "clean", json!({}))])
                .reply_text("Clean."),
            Toolbox::new().with(cleaner.as_tool::<Value, String>("clean", "Cleans up.")),
            "large",
        )
    }

    #[test]
    fn a_question_asked_inside_a_sub_agent_pauses_the_top_run_and_its_reply_reaches_the_call() {
        let agent = agents();
        let mut run = agent
            .run(vec![Message::user("Clean up")])
            .blocking()
            .unwrap();
        assert_eq!(run.stop(), &Stop::AwaitingApproval);
        let waiting = run.waiting();
        assert_eq!(waiting.len(), 1);
        assert_eq!(waiting[0].describe(), ["c1 clean", "d1 delete"]);
        let question = waiting[0].question().unwrap();
        assert_eq!(
            (question.from(), question.message()),
            ("files", "Delete notes.txt?")
        );
        // A reply needs a question: the call at the top asked none.
        assert!(run.reply_at(&["c1"], Reply::Decline).is_err());
        run.reply_at(&["c1", "d1"], Reply::Accept(serde_json::Map::new()))
            .unwrap();
        assert!(run.waiting().is_empty());

        // Resumed in this process, which holds the call that asked: it goes on with the reply.
        let mut finished = Vec::new();
        let run = agent
            .resume(run)
            .on_event(|event| {
                if let Event::ToolFinished { result, .. } = event.innermost() {
                    finished.push((event.path(), result.content.clone()));
                }
            })
            .blocking()
            .unwrap();
        assert_eq!(
            finished,
            [
                (vec!["c1 clean".to_owned()], "deleted notes.txt".to_owned()),
                (Vec::new(), r#""cleaned""#.to_owned())
            ]
        );
        assert_eq!(run.stop(), &Stop::Answered);
        assert_eq!(
            run.transcript()[2].tool_results().next().unwrap().content,
            r#""cleaned""#
        );
    }

    #[test]
    fn approving_the_call_of_a_sub_agent_approves_what_waits_inside_it() {
        let agent = agents();
        let mut run = agent
            .run(vec![Message::user("Clean up")])
            .blocking()
            .unwrap();
        run.approve("c1").unwrap();
        assert!(run.waiting().is_empty());
        assert_eq!(run.awaiting_approval().count(), 0);
        let sub = run.sub_run("c1").unwrap();
        assert_eq!(
            sub.question("d1").map(Question::message),
            Some("Delete notes.txt?")
        );
        // The question was accepted with its schema's defaults, and the call deletes.
        let mut finished = Vec::new();
        let run = agent
            .resume(run)
            .on_event(|event| {
                if let Event::ToolFinished { result, .. } = event.innermost() {
                    finished.push(result.content.clone());
                }
            })
            .blocking()
            .unwrap();
        assert_eq!(finished, ["deleted notes.txt", r#""cleaned""#]);
        assert_eq!(run.text(), "Clean.");
        assert_eq!(
            run.transcript()[2].tool_results().next().unwrap().content,
            r#""cleaned""#
        );
    }
}
