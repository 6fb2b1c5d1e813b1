//! skyl's agent runs on [Restate](https://restate.dev), a durable-execution engine: a run
//! survives the death of the process (or machine) that started it, and goes on in another one,
//! without a tool running twice and without a person's approval getting lost.
//!
//! # The design
//!
//! A run is a Restate **workflow**, keyed by the run's id. A workflow rather than a virtual
//! object keyed by conversation, because a run is one execution with a beginning and an end:
//! Restate runs a workflow's `run` handler exactly once per key (a second start of the same run
//! is refused, not queued behind it), gives it durable promises by name (a paused call waits on
//! one, and the person's decision resolves it through a shared handler, with no awakeable id to
//! hand around), and lets shared handlers read its state while it runs. A conversation of many
//! runs is many workflow keys.
//!
//! The handlers are three functions a workflow of yours calls ([`run_agent`], [`decide`],
//! [`status`]); the example `agent_service` is a whole service:
//!
//! ```no_run
//! use restate_sdk::prelude::*;
//! use skyl::agent::{Agent, Run};
//! use skyl::Message;
//! use skyl_restate::{Decision, Status};
//!
//! struct AgentRun {
//!     agent: Agent,
//! }
//!
//! #[restate_sdk::workflow]
//! impl AgentRun {
//!     #[handler]
//!     async fn run(&self, ctx: WorkflowContext<'_>, prompt: String) -> Result<Json<Run>, HandlerError> {
//!         let run = skyl_restate::run_agent(&ctx, &self.agent, vec![Message::user(prompt)]).await?;
//!         Ok(Json(run))
//!     }
//!
//!     #[handler]
//!     async fn decide(&self, ctx: SharedWorkflowContext<'_>, decision: Json<Decision>) -> Result<(), HandlerError> {
//!         skyl_restate::decide(&ctx, decision.into_inner()).await
//!     }
//!
//!     #[handler]
//!     async fn status(&self, ctx: SharedWorkflowContext<'_>) -> Result<Json<Status>, HandlerError> {
//!         Ok(Json(skyl_restate::status(&ctx).await?))
//!     }
//! }
//! ```
//!
//! The run is skyl's own journaled run ([`RunBuilder::journaled`](skyl::agent::RunBuilder::journaled)),
//! with its rules unchanged, on a [`RestateJournal`]: skyl's journal kept inside Restate's journal
//! of the `run` invocation. Each group of records the loop appends (a model's answer; a call's
//! intent, just before a call that can have effects starts; a result) is one `ctx.run` whose value
//! is the group, so it is in Restate before the loop goes on. When Restate retries the invocation
//! (the service died, or Restate moved it to another process), the handler starts again and reads
//! the journal back by replaying those `ctx.run`s; then the loop replays: the model is asked
//! nothing it answered, a recorded result is reused, and a call with an intent and no result runs
//! again only if its tool is read-only or idempotent, and is otherwise answered as
//! outcome-unknown. No Restate retry can run an effect a second time. Each call's
//! [`effect_key`](skyl::agent::effect_key) is `{run id}/{step}/{call id}`, stable across attempts.
//!
//! A call the hooks pause (or a destructive tool, with
//! [`Agent::with_approval_for_destructive`](skyl::agent::Agent::with_approval_for_destructive))
//! stops the loop; the handler lists the calls in the workflow's state and waits on one durable
//! promise per call. A [`Decision`] posted to the decision handler over Restate's ingress resolves
//! it, and the run resumes with skyl's binding rules: the approval is bound to the call's id, its
//! tool, its arguments and the tool's definition, is used once, and may expire.
//!
//! The decision handler answers once the run has taken the decision, and says what became of it:
//!
//! | the decision | HTTP status | and then |
//! |---|---|---|
//! | taken | 200 | the call runs (or, denied, is answered with the reason) |
//! | posted while another one about the call was taken (two at once: exactly one is taken) | 409, naming the decision that stands | nothing changes |
//! | an approval of other arguments than the call's, or one that expired | 422, saying which | the call waits for another decision |
//! | an approval taken by a rebuilt service that defines the tool otherwise than when the call paused | 409, saying so | the call waits for another decision |
//! | about a call the run does not wait on | 404, listing the calls it waits on | nothing changes |
//! | for a key no run was started under (so is the status handler's answer) | 404, saying so | nothing changes |
//! | not a decision's JSON | 400 (Restate's) | nothing changes |
//!
//! In Rust, each of these is the `Err` of [`decide`] (or [`status`]): a [`TerminalError`](restate_sdk::errors::TerminalError)
//! with that status code, which Restate does not retry and its ingress answers with.
//!
//! # Compatibility data
//!
//! What Restate journals for a run must be read back by whichever build of the service resumes
//! it: a rebuilt service issues the same names, with values in the same shapes, or Restate
//! refuses the replay.
//!
//! | what | name | value |
//! |---|---|---|
//! | the journal | `ctx.run` named [`JOURNAL_RUN`] (`skyl-journal`), every one | `{"skyl": "open"}`, `{"skyl": "close"}`, or `{"skyl": "entries", "entries": [{"key": ..., "body": ...}]}`, the bodies skyl's records (versioned: `"format": 2`) |
//! | that the run started | workflow state [`STARTED_STATE`] (`skyl-started`), set first | `true` |
//! | the definitions of the waiting calls' tools when the run paused | `ctx.run` named [`PAUSED_RUN`] (`skyl-paused`), once per pause | a list of tool definitions (`null` for a tool the service lacked), in the order of the calls |
//! | the calls waiting | workflow state [`WAITING_STATE`] (`skyl-waiting`) | a list of [`WaitingCall`] |
//! | a decision | durable promise `skyl-approval/{pause}/{call id}` ([`APPROVAL_PROMISE`]; `{pause}` counts the run's pauses from 1) | a [`Decision`], with `"decided_by"`: the invocation id of the decision handler that posted it |
//! | whether a decision counts | `ctx.run` named [`VERDICT_RUN`] (`skyl-verdict`), once per decision taken | `{"verdict": "counts"}` or `{"verdict": "refused", "status": 422, "message": "..."}` |
//! | the answer to a decision | durable promise `skyl-verdict/{pause}/{call id}` ([`VERDICT_PROMISE`]) | resolved with `{"verdict": "counts"}`, or rejected with the status and message of the refusal |
//! | the calls of the last pause, decided | workflow state [`DECIDED_STATE`] (`skyl-decided`) | a list of [`WaitingCall`] |
//!
//! The workflow's and its handlers' names are yours (the example's are `AgentRun`, `run`,
//! `decide`, `status`); they are compatibility data too.
//!
//! The rows `skyl-started`, `skyl-paused`, `skyl-verdict` and `skyl-decided` are new in this
//! version, and a replay issues them where an earlier version's journal has other steps: let the
//! runs an earlier version started finish (or cancel them) before a service on this version takes
//! their place.
//!
//! # What Restate could not express
//!
//! - Reading a journal. Restate gives no random access to an invocation's journal: a `ctx.run`
//!   returns its recorded value only when the handler issues it at the same position again. skyl's
//!   seam reads the whole journal first ([`Journal::load`](skyl::agent::Journal::load)); here that
//!   read issues `ctx.run`s until one runs its closure (nothing was recorded past it), which
//!   records an `open` marker. That is why every journal run has one name: the reader cannot know
//!   which group comes next, and Restate checks a replayed run's name.
//! - A pause. After a pause the handler's own steps (state, promises) sit in Restate's journal
//!   between two parts of skyl's, and a read must not run into them: the handler records a
//!   `close` marker where the loop stopped, and a later read stops there.
//! - Writes that need not wait. skyl asks for durability per group (only answers and intents must
//!   be on stable storage before the loop goes on); a `ctx.run` always waits for Restate to have
//!   its value, and a result kept back in memory would die with the process, so every group waits.
//! - Conflicts. Restate runs one attempt of an invocation at a time and fences the others, so
//!   [`JournalError::Conflict`](skyl::agent::JournalError::Conflict) never happens here.
//! - The expiry of an approval is checked against the clock when the call is about to run,
//!   which is not journaled: an attempt that replays the pause after the expiry asks again, unless
//!   the call's intent was recorded (then the journal decides, as everywhere).
//!
//! # When the service comes back: Restate's retry back-off
//!
//! A run whose service died is not resumed the moment the service is back: Restate tries the
//! invocation again on its retry policy, an exponential back-off. With `restate-server` 1.7's
//! defaults (`restate-server --dump-config` prints them) the first retry comes after 500 ms, each
//! wait doubles, and a wait is at most a minute: a service down for a few minutes can sit idle up
//! to a minute after it is back before its runs go on, and a decision posted meanwhile is
//! answered only then. After 70 attempts Restate pauses the invocation, which then goes on only
//! when resumed by hand.
//!
//! To go on at once, resume the invocation: the admin API's `PATCH /invocations/{id}/resume`
//! starts a retry that is backing off. To shorten the wait for good, lower `max-interval` in the
//! server's configuration file:
//!
//! ```toml
//! [default-retry-policy]
//! initial-interval = "100ms"
//! exponentiation-factor = 2.0
//! max-interval = "5s"
//! ```
//!
//! or for the workflow alone, on its attribute (restate-sdk's `invocation_retry_policy`, which the
//! service announces when it is registered; unset fields keep the server's defaults):
//!
//! ```no_run
//! # use restate_sdk::prelude::*;
//! # struct AgentRun;
//! #[restate_sdk::workflow(invocation_retry_policy(initial_interval = "100ms", max_interval = "5s"))]
//! impl AgentRun {
//!     #[handler]
//!     async fn run(&self, _ctx: WorkflowContext<'_>) -> Result<(), HandlerError> {
//!         Ok(())
//!     }
//! }
//! ```
//!
//! The tests' server retries every 50 to 500 ms: the tests kill the service on purpose.
//!
//! # Running it locally
//!
//! npm's `@restatedev/restate-server` is the server (the package ships the binary); the
//! repository's README, section "Beyond one machine", has the commands to run the example. The
//! tests start a server of their own on 127.0.0.1, installed with npm into the target directory
//! on first use (or the binary `SKYL_RESTATE_SERVER` names).

mod journal;
mod workflow;

pub use journal::{JOURNAL_RUN, RestateJournal};
pub use workflow::{
    APPROVAL_PROMISE, DECIDED_STATE, Decision, PAUSED_RUN, STARTED_STATE, Status, VERDICT_PROMISE,
    VERDICT_RUN, WAITING_STATE, WaitingCall, decide, run_agent, status,
};
