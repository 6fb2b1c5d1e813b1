//! The [`Agent`]: a model, its tools and the rules of the loop, built once and run many times.

use std::fmt;

use serde_json::{Map, Value};

use crate::arguments::canonical::fingerprint;
use crate::message::Message;
use crate::provider::caching::Caching;
use crate::toolbox::Toolbox;

use crate::agent::budget::Budget;
use crate::agent::driver::RunBuilder;
use crate::agent::hooks::points::Hooks;
use crate::agent::run::Run;
use crate::agent::step::ResponseMeta;
use crate::agent::stop::StopWhen;
use crate::agent::tool_search::ToolSearch;
use crate::model::{Model, Price, Prices};

/// A model, a toolbox and the rules of the loop between them.
///
/// [`run`](Agent::run) drives the loop: send the transcript → read the answer → answer every
/// tool call → append → repeat, until a stop condition holds. The agent does no I/O of its own:
/// the [`Model`] does, and the tools do.
///
/// Build an agent once and share it: it is `Send + Sync`, and each run keeps its own state in its
/// [`Run`], so many runs can go on at once (`Arc<Agent>` across tasks, or `&Agent` within one).
///
/// ```
/// use serde_json::json;
/// use skyl::agent::{Agent, Stop};
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, ToolCall, Toolbox};
///
/// /// Get the current weather for a city.
/// #[skyl::tool]
/// fn get_weather(
///     /// The city.
///     city: String,
/// ) -> String {
///     format!("22C and sunny in {city}")
/// }
///
/// // A model that first calls the tool, then answers with what it learnt.
/// let model = ScriptedModel::new()
///     .reply_calls([ToolCall::new("call_1", "get_weather", json!({"city": "Kampala"}))])
///     .reply_text("It is 22C and sunny in Kampala.");
///
/// let agent = Agent::new(model, Toolbox::new().with(GetWeather), "claude-sonnet-4-5")
///     .with_system("You are a terse weather assistant.")
///     .with_max_steps(5);
///
/// let run = agent.run(vec![Message::user("Weather in Kampala?")]).blocking()?;
/// assert_eq!(run.stop(), &Stop::Answered);
/// assert_eq!(run.steps(), 2);
/// assert_eq!(run.text(), "It is 22C and sunny in Kampala.");
/// // user, assistant (call), tool (result), assistant (answer)
/// assert_eq!(run.transcript()[2].tool_results().next().unwrap().content, "22C and sunny in Kampala");
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
///
/// In async code, `.await` the run instead of calling `blocking`:
/// `agent.run(messages).await?`.
pub struct Agent<S = (), H = ()> {
    pub(crate) model: Box<dyn Model>,
    pub(crate) toolbox: Toolbox<S>,
    pub(crate) model_name: String,
    pub(crate) name: Option<String>,
    pub(crate) system: Option<String>,
    pub(crate) max_steps: u32,
    pub(crate) max_tokens: Option<u32>,
    pub(crate) extra: Map<String, Value>,
    pub(crate) caching: Caching,
    pub(crate) stop_when: Vec<StopWhen>,
    pub(crate) breaker: u32,
    pub(crate) approve_destructive: bool,
    pub(crate) prices: Prices,
    pub(crate) budget: Option<Budget>,
    pub(crate) tool_search: Option<ToolSearch>,
    pub(crate) hooks: H,
}

impl<S: Send + Sync + 'static> Agent<S, ()> {
    /// An agent asking `model_name` through `model`, with the tools of `toolbox`.
    ///
    /// The defaults: no system prompt, at most [`DEFAULT_MAX_STEPS`](Self::DEFAULT_MAX_STEPS)
    /// steps, the breaker at [`DEFAULT_BREAKER`](Self::DEFAULT_BREAKER) failures, no hooks, and
    /// every call runs without approval.
    pub fn new(
        model: impl Model + 'static,
        toolbox: Toolbox<S>,
        model_name: impl Into<String>,
    ) -> Self {
        Agent {
            model: Box::new(model),
            toolbox,
            model_name: model_name.into(),
            name: None,
            system: None,
            max_steps: Self::DEFAULT_MAX_STEPS,
            max_tokens: None,
            extra: Map::new(),
            caching: Caching::default(),
            stop_when: Vec::new(),
            breaker: Self::DEFAULT_BREAKER,
            approve_destructive: false,
            prices: Prices::new(),
            budget: None,
            tool_search: None,
            hooks: (),
        }
    }
}

impl<S: Send + Sync + 'static, H: Hooks> Agent<S, H> {
    /// The step limit of a new agent: 10 model requests, as the agent frameworks of other
    /// languages default to.
    pub const DEFAULT_MAX_STEPS: u32 = 10;

    /// How many times a new agent lets the model make the same failing call before it stops the
    /// run: 3.
    pub const DEFAULT_BREAKER: u32 = 3;

    /// Sends `prompt` as the system prompt of every request.
    pub fn with_system(mut self, prompt: impl Into<String>) -> Self {
        self.system = Some(prompt.into());
        self
    }

    /// Names the agent (in traces: `invoke_agent {name}`).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Stops a run after `steps` model requests ([`Stop::StepLimit`](super::Stop::StepLimit)).
    ///
    /// The limit counts every request of the run, across resumes: a run that reached it does
    /// not go on when resumed. To give the model more steps, start a new run from its transcript.
    pub fn with_max_steps(mut self, steps: u32) -> Self {
        self.max_steps = steps;
        self
    }

    /// Asks the model for at most `tokens` tokens per answer
    /// ([`Request::max_tokens`](crate::provider::Request::max_tokens)).
    pub fn with_max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = Some(tokens);
        self
    }

    /// Adds a provider-specific field to every request (`temperature`, `parallel_tool_calls`...):
    /// see [`Request::extra`](crate::provider::Request::extra).
    pub fn with_request_field(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }

    /// Sets where every request asks its provider to cache its start
    /// ([`Request::caching`](crate::provider::Request::caching)); by default Anthropic's
    /// breakpoints on the tools, the system prompt and the newest turns. A run reports each
    /// request whose start differs from what the request before it cached
    /// ([`Event::CacheBroken`](super::Event::CacheBroken)).
    ///
    /// ```
    /// use skyl::agent::Agent;
    /// use skyl::provider::caching::{Caching, Retention};
    /// use skyl::testing::ScriptedModel;
    ///
    /// let agent = Agent::new(ScriptedModel::new(), skyl::Toolbox::new(), "gpt-5")
    ///     .with_caching(Caching::default().key("support-bot").retention(Retention::Day));
    /// # let _ = agent;
    /// ```
    pub fn with_caching(mut self, caching: Caching) -> Self {
        self.caching = caching;
        self
    }

    /// Adds a condition that stops a run after a step. See [`StopWhen`].
    pub fn with_stop(mut self, condition: StopWhen) -> Self {
        self.stop_when.push(condition);
        self
    }

    /// Stops a run once the model has made the same call (same tool, same arguments) `failures`
    /// times and it failed each time ([`Stop::Breaker`](super::Stop::Breaker)). 0 turns the
    /// breaker off.
    pub fn with_breaker(mut self, failures: u32) -> Self {
        self.breaker = failures;
        self
    }

    /// Pauses every call of a tool whose annotations say it may be destructive
    /// ([`ToolAnnotations::is_destructive`](crate::tool::ToolAnnotations::is_destructive)) for a
    /// person's approval. Off by default.
    ///
    /// Under the Model Context Protocol's defaults, a tool that says nothing about itself counts
    /// as destructive: mark the harmless ones `read_only` (or `destructive: Some(false)`) so that
    /// they run unasked. Hooks see this as the decision proposed to them, and may overrule it.
    pub fn with_approval_for_destructive(mut self, on: bool) -> Self {
        self.approve_destructive = on;
        self
    }

    /// Prices the model's tokens with `prices` (looked up by the model name each request asks
    /// for: the agent's, or a [`Failover`](crate::model::Failover) member's own): each
    /// step's and each run's cost ([`Step::cost`](super::Step::cost),
    /// [`Run::cost`](super::Run::cost)) are computed from them, and a budget's cost limit is
    /// checked against them. skyl knows no prices of its own.
    pub fn with_prices(mut self, prices: Prices) -> Self {
        self.prices = prices;
        self
    }

    /// Limits what each run may use ([`Budget`]): before each request, the run stops
    /// ([`Stop::Budget`](super::Stop::Budget)) if the request could take it over a limit.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Offers the model only some of the tools and a search for the others ([`ToolSearch`]),
    /// for a toolbox too large to offer whole: the search tool (`find_tools`) joins the toolbox,
    /// and each tool the model finds is offered from its next step on.
    ///
    /// # Panics
    ///
    /// When the toolbox already has a tool called `find_tools` (unless the search is
    /// [native](ToolSearch::native)), or a tool named in
    /// [`ToolSearch::always`] is not in it.
    pub fn with_tool_search(mut self, search: ToolSearch) -> Self {
        if let Err(error) = self.toolbox.definitions_of(search.always_names()) {
            panic!("Agent::with_tool_search: {error}");
        }
        if !search.is_native() {
            let tool = search.tool(self.toolbox.definitions().to_vec());
            self.toolbox = self.toolbox.with(tool);
        }
        self.tool_search = Some(search);
        self
    }

    /// The price of the model that gave `answer` (the name it was asked under, a failover
    /// member's, or else the agent's), when [`with_prices`](Self::with_prices) gave one.
    pub(crate) fn price_of(&self, answer: &ResponseMeta) -> Option<&Price> {
        let name = answer.requested_model.as_deref();
        self.prices.get(name.unwrap_or(&self.model_name))
    }

    /// The fingerprint of the definition of the tool called `name` (of nothing, for a tool the
    /// toolbox does not have): what an approval and a journal are bound to.
    pub(crate) fn definition_fingerprint(&self, name: &str) -> String {
        let definition = self
            .toolbox
            .definition(name)
            .map(|definition| serde_json::to_value(definition).unwrap_or_default())
            .unwrap_or_default();
        fingerprint(&definition)
    }

    /// Runs `hooks` at each step of every run, replacing the hooks set before. To keep several,
    /// pass a tuple: `(first, second)`.
    pub fn with_hooks<H2: Hooks>(self, hooks: H2) -> Agent<S, H2> {
        Agent {
            model: self.model,
            toolbox: self.toolbox,
            model_name: self.model_name,
            name: self.name,
            system: self.system,
            max_steps: self.max_steps,
            max_tokens: self.max_tokens,
            extra: self.extra,
            caching: self.caching,
            stop_when: self.stop_when,
            breaker: self.breaker,
            approve_destructive: self.approve_destructive,
            prices: self.prices,
            budget: self.budget,
            tool_search: self.tool_search,
            hooks,
        }
    }

    /// The tools.
    pub fn toolbox(&self) -> &Toolbox<S> {
        &self.toolbox
    }

    /// The model's name, as requests carry it.
    pub fn model_name(&self) -> &str {
        &self.model_name
    }

    /// The hooks.
    pub fn hooks(&self) -> &H {
        &self.hooks
    }

    /// Starts a run from `messages` (usually the conversation so far, ending with the user's
    /// message). `.await` the returned [`RunBuilder`], or call its
    /// [`blocking`](RunBuilder::blocking); [`on_event`](RunBuilder::on_event) reports progress.
    ///
    /// The run ends with `Ok(`[`Run`]`)` whatever the model and the tools did, and with a
    /// [`RunError`](super::RunError) only when a model request failed.
    pub fn run(&self, messages: impl Into<Vec<Message>>) -> RunBuilder<'_, S, H> {
        RunBuilder::new(self, Run::start(messages.into()), false)
    }

    /// Goes on with a run that stopped for approval ([`Stop::AwaitingApproval`]) or because a
    /// model request failed ([`Stop::Failed`]), with its step count, tokens and breaker counts.
    ///
    /// For a paused run, record the decisions first ([`Run::approve`], [`Run::deny`]): approved
    /// calls run now, denied ones get their error result, and the loop goes on. A run that
    /// stopped for any other reason is finished and comes back as it is; to go on with the
    /// conversation, start a new run from its transcript.
    ///
    /// A run that was journaled ([`Run::id`] says under which id) goes on with
    /// [`.journaled`](RunBuilder::journaled) and that id, since its journal records what it
    /// already did: under another id it is refused, and without a journal its approvals do not
    /// hold (the calls wait again).
    ///
    /// [`Stop::AwaitingApproval`]: super::Stop::AwaitingApproval
    /// [`Stop::Failed`]: super::Stop::Failed
    pub fn resume(&self, run: Run) -> RunBuilder<'_, S, H> {
        RunBuilder::new(self, run, true)
    }
}

impl<S, H> fmt::Debug for Agent<S, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("model_name", &self.model_name)
            .field("name", &self.name)
            .field("max_steps", &self.max_steps)
            .field("stop_when", &self.stop_when)
            .field("breaker", &self.breaker)
            .field("approve_destructive", &self.approve_destructive)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}
