//! Budgets that cannot overshoot, and what runs cost: a run stops before a request that could
//! pass a limit (the model never sees it), says which limit with the numbers, and sums each
//! step's cost at the user's prices.
//!
//! The model here gives the size of each request as 400 bytes a message
//! ([`Model::encoded_len`]), so the bounds are known numbers: at 2 bytes a token, 200 input
//! tokens a message, and once an answer reported its input, that count plus 200 a message added.

use std::sync::{Arc, Mutex};

use serde_json::json;
use skyl::agent::{Agent, Budget, BudgetLimit, Run, Step, Stop, StopWhen, hooks};
use skyl::http::HttpModel;
use skyl::model::{BoxFuture, EventSink, Failover, Member, Model, ModelError};
use skyl::model::{Cost, Price, Prices};
use skyl::provider::Anthropic;
use skyl::provider::{Request, Response, Usage};
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox};

use crate::support::http_server::{Reply, Server};

/// Get the current weather for a city.
#[skyl::tool]
fn get_weather(
    /// The city.
    city: String,
) -> String {
    format!("22C and sunny in {city}")
}

/// A scripted model whose requests are 400 bytes a message.
struct Sized(ScriptedModel);

impl Model for Sized {
    fn complete<'a>(
        &'a self,
        request: &'a Request<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        self.0.complete(request)
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request<'_>,
        events: &'a mut EventSink<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        self.0.stream(request, events)
    }

    fn encoded_len(&self, request: &Request<'_>) -> Option<usize> {
        Some(400 * request.messages.len())
    }
}

/// The stop for `limit`: its `max`, `used` of it, and `next`, the most the request would take.
fn budget(limit: BudgetLimit, max: u64, used: u64, next: u64) -> Stop {
    Stop::Budget {
        limit,
        max,
        used,
        next,
    }
}

/// A model that calls `get_weather` at every step, each answer reporting `usage`.
fn calling(usages: &[Usage]) -> ScriptedModel {
    usages
        .iter()
        .enumerate()
        .fold(ScriptedModel::new(), |model, (n, usage)| {
            let mut response = Response::calls([ToolCall::new(
                format!("c{n}"),
                "get_weather",
                json!({"city": format!("City {n}")}),
            )]);
            response.usage = usage.clone();
            model.reply(response)
        })
}

fn agent(model: &ScriptedModel) -> Agent {
    Agent::new(Sized(model.clone()), Toolbox::new().with(GetWeather), "m").with_max_steps(10)
}

fn go(agent: &Agent) -> Run {
    agent.run(vec![Message::user("Go")]).blocking().unwrap()
}

#[test]
fn a_request_that_could_read_past_the_input_limit_is_not_sent() {
    let model = calling(&[Usage::new(250, 10), Usage::new(640, 10), Usage::new(1, 1)]);
    let run = go(&agent(&model).with_budget(Budget::new().input_tokens(1000)));
    // Step 1: 1 message, up to 200 tokens. Step 2: 3 messages, up to 250 + 400 = 650, and
    // 250 + 650 is within 1000. Step 3: 5 messages, up to 640 + 400 = 1040 after 890 read.
    assert_eq!(
        run.stop(),
        &budget(BudgetLimit::InputTokens, 1000, 890, 1040)
    );
    assert_eq!(
        run.stop().to_string(),
        "the run stopped before a request that could read up to 1040 input tokens, since it has read 890 of its limit of 1000"
    );
    assert_eq!(model.requests().len(), 2, "the third request was not sent");
    assert_eq!(model.remaining(), 1);
    assert_eq!(run.steps(), 2);
    // Every call has its result: the run can go on in a new run, or be stored.
    assert_eq!(run.transcript().len(), 5);
    let saved = serde_json::to_string(&run).unwrap();
    assert_eq!(serde_json::from_str::<Run>(&saved).unwrap(), run);
}

#[test]
fn a_run_within_its_input_limit_is_not_stopped_by_it() {
    let model = calling(&[Usage::new(250, 10), Usage::new(640, 10)]).reply_text("Done.");
    let run = go(&agent(&model).with_budget(Budget::new().input_tokens(2000)));
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(model.requests().len(), 3);
}

#[test]
fn an_answer_that_could_pass_the_output_limit_is_not_asked_for() {
    let model = calling(&[Usage::new(10, 100), Usage::new(10, 100), Usage::new(1, 1)]);
    let run = go(&agent(&model)
        .with_max_tokens(100)
        .with_budget(Budget::new().output_tokens(250)));
    assert_eq!(
        run.stop(),
        &budget(BudgetLimit::OutputTokens, 250, 200, 100)
    );
    assert_eq!(
        run.stop().to_string(),
        "the run stopped before a request whose answer could generate up to 100 output tokens (its max_tokens), since it has generated 200 of its limit of 250"
    );
    assert_eq!(model.requests().len(), 2);
}

#[test]
fn a_request_without_max_tokens_is_sent_with_the_budgets_answer_tokens() {
    let model = ScriptedModel::new().reply_text("Hi");
    let run =
        go(&agent(&model).with_budget(Budget::new().output_tokens(10_000).answer_tokens(700)));
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(model.requests()[0].max_tokens, Some(700));
}

#[test]
fn each_step_and_the_run_cost_what_the_prices_say_and_the_cost_limit_holds() {
    // 10 a million input tokens (12.5 written to the cache), 100 a million output tokens.
    let prices = Prices::new().with(
        "m",
        Price::per_million_tokens(10.0, 100.0).cache_write(12.5),
    );
    // 1000 input and 100 output: 0.01 + 0.01.
    let model = calling(&[
        Usage::new(1000, 100),
        Usage::new(1000, 100),
        Usage::new(1, 1),
    ]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let run = go(&agent(&model)
        .with_max_tokens(100)
        .with_prices(prices)
        .with_budget(Budget::new().cost(Cost::from_units(0.05)))
        .with_stop(StopWhen::predicate("never", move |step| {
            record.lock().unwrap().push((step.cost(), step.run_cost()));
            false
        })));
    // Step 3 could read 1000 + 400 tokens at 12.5 a million (0.0175) and generate 100 at 100 a
    // million (0.01): 0.0275 after 0.04 spent passes 0.05. Step 2 (0.0275 after 0.02) did not.
    assert_eq!(
        run.stop(),
        &budget(BudgetLimit::Cost, 50_000_000, 40_000_000, 27_500_000)
    );
    assert_eq!(
        run.stop().to_string(),
        "the run stopped before a request that could cost up to 0.0275, since it has spent 0.04 of its cost limit of 0.05"
    );
    assert_eq!(model.requests().len(), 2);
    assert_eq!(run.cost(), Some(Cost::from_units(0.04)));
    let step = Some(Cost::from_units(0.02));
    assert_eq!(
        *seen.lock().unwrap(),
        [(step, step), (step, Some(Cost::from_units(0.04)))]
    );
}

#[test]
fn without_a_price_a_run_costs_nothing_known_and_a_cost_limit_sends_nothing() {
    let model = ScriptedModel::new().reply_text("Hi");
    let run = go(&agent(&model));
    assert_eq!(run.cost(), None);

    let model = ScriptedModel::new().reply_text("Hi");
    let run = go(&agent(&model)
        .with_prices(Prices::new().with("another-model", Price::per_million_tokens(1.0, 1.0)))
        .with_budget(Budget::new().cost(Cost::from_units(1.0))));
    assert_eq!(run.stop(), &Stop::Unpriced { model: "m".into() });
    assert_eq!(
        run.stop().to_string(),
        "the run has a cost limit but no price for the model m, so it sent no request; give the model's price with Agent::with_prices"
    );
    assert!(model.requests().is_empty());
}

#[test]
fn a_model_that_cannot_tell_its_size_is_bounded_by_the_requests_json() {
    let model = ScriptedModel::new().reply_text("Hi");
    let run = Agent::new(model.clone(), Toolbox::new(), "m")
        .with_budget(Budget::new().input_tokens(4000))
        .run(vec![Message::user("a".repeat(10_000))])
        .blocking()
        .unwrap();
    // The message alone is 10 000 bytes: at least 5000 tokens at 2 bytes a token.
    let Stop::Budget {
        limit: BudgetLimit::InputTokens,
        used: 0,
        next,
        ..
    } = run.stop()
    else {
        panic!("stopped because {}", run.stop());
    };
    assert!(*next >= 5000, "{next}");
    assert!(model.requests().is_empty());
}

/// Runs `usages`' script journaled until the budget stops it, then again from the journal with
/// a model that has nothing to say; gives both runs and what the second model was asked.
fn journaled_twice(name: &str, usages: &[Usage]) -> (Run, Run, usize) {
    let dir = std::env::temp_dir().join(format!("skyl-budget-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let journal = skyl::durable::SqliteJournal::open(dir.join("journal.db")).unwrap();
    let budget = || Budget::new().input_tokens(1000);
    let model = calling(usages);
    let first = agent(&model)
        .with_budget(budget())
        .run(vec![Message::user("Go")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    let silent = ScriptedModel::new();
    let again = agent(&silent)
        .with_budget(budget())
        .run(vec![Message::user("Go")])
        .journaled(&journal, "r1")
        .blocking()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (first, again, silent.requests().len())
}

#[test]
fn a_journaled_run_replayed_stops_at_the_same_request_with_the_same_bound() {
    // The answers come from the journal, and the third request is bounded as it was (640 read
    // by the second, 400 bytes a message added), not by its size alone.
    let (first, again, asked) =
        journaled_twice("reported", &[Usage::new(250, 10), Usage::new(640, 10)]);
    assert_eq!(
        first.stop(),
        &budget(BudgetLimit::InputTokens, 1000, 890, 1040)
    );
    assert_eq!(again.stop(), first.stop());
    assert_eq!(asked, 0);
    // Answers without usage count as the most their requests could use, on a replay too.
    let unreported = Usage::unreported_usage();
    let (first, again, asked) = journaled_twice("unreported", &[unreported.clone(), unreported]);
    assert!(
        matches!(first.stop(), Stop::Budget { used: 800, .. }),
        "{}",
        first.stop()
    );
    assert_eq!(again.stop(), first.stop());
    assert_eq!(asked, 0);
}

#[test]
fn an_answer_whose_usage_was_not_reported_counts_as_the_most_its_request_could_use() {
    let unreported = Usage::unreported_usage();
    let model = calling(&[unreported.clone(), unreported.clone(), unreported]);
    let run = go(&agent(&model).with_budget(Budget::new().input_tokens(1000)));
    // Step 1 could read 200 tokens, step 2 (3 messages) 600: 800 counted, though none was
    // reported. Step 3 (5 messages) could read 1000 more.
    assert_eq!(
        run.stop(),
        &budget(BudgetLimit::InputTokens, 1000, 800, 1000)
    );
    assert_eq!(model.requests().len(), 2);
    assert_eq!(
        run.usage().input_tokens,
        0,
        "the run's usage is what was reported"
    );
}

/// A failover whose primary (1 a million tokens) is overloaded and whose secondary (10 a
/// million) answers.
fn cheap_then_dear(secondary: &ScriptedModel) -> (ScriptedModel, Agent) {
    let primary = ScriptedModel::new().fail(ModelError::provider(529, "Overloaded"));
    let model = Failover::new([
        Member::new(primary.clone()).model_name("cheap"),
        Member::new(Sized(secondary.clone())).model_name("dear"),
    ]);
    let prices = Prices::new()
        .with("cheap", Price::per_million_tokens(1.0, 1.0))
        .with("dear", Price::per_million_tokens(10.0, 10.0));
    let agent = Agent::new(model, Toolbox::new(), "cheap").with_prices(prices);
    (primary, agent)
}

#[test]
fn an_answer_of_a_failover_costs_what_the_member_that_gave_it_costs() {
    let mut answer = Response::text("Hi");
    answer.usage = Usage::new(1_000_000, 0);
    let secondary = ScriptedModel::new().reply(answer);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let (primary, agent) = cheap_then_dear(&secondary);
    let agent = agent.with_hooks(hooks::after_step(move |step: &Step<'_>| {
        let answered_by = step.answered_by().map(str::to_owned);
        record.lock().unwrap().push((answered_by, step.cost()));
    }));
    let run = agent.run(vec![Message::user("Go")]).blocking().unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(primary.requests().len(), 1);
    // A million input tokens at the secondary's 10 a million, not the agent's model's 1.
    assert_eq!(run.cost(), Some(Cost::from_units(10.0)));
    assert_eq!(
        *seen.lock().unwrap(),
        [(Some("dear".to_owned()), Some(Cost::from_units(10.0)))]
    );
}

#[test]
fn a_budget_bounds_a_failovers_request_at_the_dearest_member_that_may_answer_it() {
    let secondary = ScriptedModel::new().reply_text("Hi");
    let (primary, agent) = cheap_then_dear(&secondary);
    // 400 bytes (200 tokens) and 100 output tokens: 0.0003 at the primary's prices, 0.003 at
    // the secondary's, which may answer it.
    let agent = agent
        .with_max_tokens(100)
        .with_budget(Budget::new().cost(Cost::from_units(0.001)));
    let run = go(&agent);
    assert_eq!(
        run.stop(),
        &budget(BudgetLimit::Cost, 1_000_000, 0, 3_000_000)
    );
    assert!(primary.requests().is_empty() && secondary.requests().is_empty());

    // A member without a price stops a run with a cost limit before its request, naming it.
    let model = Failover::new([
        Member::new(ScriptedModel::new()).model_name("cheap"),
        Member::new(ScriptedModel::new()).model_name("unpriced"),
    ]);
    let run = go(&Agent::new(model, Toolbox::new(), "cheap")
        .with_prices(Prices::new().with("cheap", Price::per_million_tokens(1.0, 1.0)))
        .with_budget(Budget::new().cost(Cost::from_units(1.0))));
    assert_eq!(
        run.stop(),
        &Stop::Unpriced {
            model: "unpriced".into()
        }
    );
}

#[test]
fn a_priced_run_its_budget_stopped_before_its_first_request_cost_zero() {
    let model = ScriptedModel::new().reply_text("Hi");
    let run = go(&agent(&model)
        .with_prices(Prices::new().with("m", Price::per_million_tokens(1.0, 1.0)))
        .with_budget(Budget::new().input_tokens(10)));
    assert_eq!(run.stop(), &budget(BudgetLimit::InputTokens, 10, 0, 200));
    assert!(model.requests().is_empty());
    assert_eq!(run.cost(), Some(Cost::ZERO));
}

/// Claude's answer to a small first request.
const CLAUDE_HI: &str = r#"{
  "id": "msg_01BudgetHi", "type": "message", "role": "assistant",
  "model": "claude-sonnet-4-5-20250929", "stop_reason": "end_turn", "stop_sequence": null,
  "usage": {"input_tokens": 402, "output_tokens": 3},
  "content": [{"type": "text", "text": "Hi."}]
}"#;

#[tokio::test]
async fn a_first_anthropic_request_with_tools_is_bounded_with_the_tool_use_system_prompt() {
    let server = Server::start(vec![Reply::json(200, CLAUDE_HI)]).await;
    let model = HttpModel::builder(Anthropic)
        .api_key("sk-test")
        .base_url(&server.url)
        .build()
        .unwrap();
    let agent = |limit: u64| {
        Agent::new(
            model.clone(),
            Toolbox::new().with(GetWeather),
            "claude-sonnet-4-5",
        )
        .with_max_tokens(100)
        .with_budget(Budget::new().input_tokens(limit))
    };
    let hi = || vec![Message::user("Hi")];
    // Within a limit that holds it, the request is sent: its body gives its size.
    let run = agent(100_000).run(hi()).await.unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    let requests = server.requests();
    let bytes = serde_json::to_vec(&requests[0].body).unwrap().len() as u64;
    // Anthropic adds its tool-use system prompt, 346 tokens for a Claude 4 model with `auto`,
    // which the body does not hold: the bound is the body at 2 bytes a token, plus those.
    let bound = bytes.div_ceil(2) + 346;
    let run = agent(bound - 1).run(hi()).await.unwrap();
    assert_eq!(
        run.stop(),
        &budget(BudgetLimit::InputTokens, bound - 1, 0, bound)
    );
    assert_eq!(
        server.requests().len(),
        1,
        "the second request was not sent"
    );
}

#[test]
fn a_request_a_hook_trimmed_is_bounded_afresh_from_its_bytes_and_never_passes_the_limit() {
    // Each answer reports few input tokens (a tokenizer that read sparse text), and the hook
    // keeps only the first message and the newest turn: the third request is not the second
    // one with messages added, so its bound is its own bytes at 2 a token, not the second's
    // count plus the bytes added (none: it is shorter).
    let trim = |request: &mut Request<'_>| {
        let messages = request.messages.to_vec();
        if messages.len() > 3 {
            let newest = &messages[messages.len() - 2..];
            let kept: Vec<Message> = std::iter::once(messages[0].clone())
                .chain(newest.iter().cloned())
                .collect();
            request.messages = kept.into();
        }
    };
    let model = calling(&[Usage::new(10, 1), Usage::new(10, 1), Usage::new(10_000, 1)]);
    let trimmed = {
        // The third request as the hook leaves it, to know its size.
        let run = Agent::new(
            calling(&[Usage::new(10, 1), Usage::new(10, 1)]),
            Toolbox::new().with(GetWeather),
            "m",
        )
        .with_max_steps(2)
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
        let mut request = Request::new("", run.transcript().to_vec());
        trim(&mut request);
        request.messages.to_vec()
    };
    let bytes = serde_json::to_vec(&trimmed).unwrap().len() as u64
        + serde_json::to_vec(&Toolbox::new().with(GetWeather).definitions())
            .unwrap()
            .len() as u64
        + "m".len() as u64
        + 2; // `extra`, an empty object.
    let fresh = bytes.div_ceil(2);
    let limit = 20 + fresh - 1;
    let agent = Agent::new(model.clone(), Toolbox::new().with(GetWeather), "m")
        .with_max_steps(10)
        .with_budget(Budget::new().input_tokens(limit))
        .with_hooks(hooks::before_request(
            move |_, request: &mut Request<'_>| trim(request),
        ));
    let run = agent.run(vec![Message::user("Go")]).blocking().unwrap();
    assert_eq!(
        run.stop(),
        &budget(BudgetLimit::InputTokens, limit, 20, fresh)
    );
    assert_eq!(model.requests().len(), 2);
    assert!(run.usage().input_tokens <= limit);
}
