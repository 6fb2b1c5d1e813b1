//! The agent loop, end to end on a scripted model: every stop condition, every hook decision,
//! approval across a serialized pause, the breaker, and a model error mid-run.
//!
//! The promise checked throughout: after every step of every run, the transcript encodes on all
//! four adapters (so every call has exactly one result, in place), and so does every request the
//! model received.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::YieldTimes;
use crate::support::adapters;
use serde_json::{Value, json};
use skyl::agent::{
    Agent, AnsweredBy, Decision, Event, Hooks, Run, RunError, Step, Stop, StopWhen, hooks,
};
use skyl::model::{ModelError, ModelErrorKind};
use skyl::provider::{
    Adapter, Request, Response, StopReason, ToolChoice, Usage, stream::StreamEvent,
};
use skyl::testing::ScriptedModel;
use skyl::{
    Message, Part, Role, Tool, ToolCall, ToolDefinition, ToolFailure, ToolResult, Toolbox,
    tool::{ToolAnnotations, ToolFuture},
};

// ---------------------------------------------------------------------------------------------
// Tools

/// Get the current weather for a city.
#[skyl::tool]
fn get_weather(
    /// The city.
    city: String,
) -> String {
    format!("22C and sunny in {city}")
}

/// Divides `a` by `b`.
#[skyl::tool]
fn divide(
    /// The dividend.
    a: f64,
    /// The divisor.
    b: f64,
) -> Result<f64, ToolFailure> {
    if b == 0.0 {
        Err(ToolFailure::retry_with_other_arguments("division by zero"))
    } else {
        Ok(a / b)
    }
}

/// Gives the final answer and ends the conversation.
#[skyl::tool]
fn final_answer(
    /// The answer for the user.
    answer: String,
) -> String {
    answer
}

/// Answers with `label` after being polled `polls` more times.
#[skyl::tool]
async fn slow(
    /// What to answer.
    label: String,
    /// How many polls to wait.
    polls: u32,
) -> String {
    YieldTimes(polls as usize).await;
    label
}

/// A tool with annotations, written by hand (the macro does not take annotations).
struct Annotated(ToolDefinition);

impl Annotated {
    fn new(name: &str, annotations: ToolAnnotations) -> Self {
        Annotated(
            ToolDefinition::new(
                name,
                format!("The {name} tool."),
                json!({
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                    "additionalProperties": false
                }),
            )
            .with_annotations(annotations),
        )
    }
}

impl Tool for Annotated {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }

    fn call<'a>(&'a self, arguments: &'a Value, _: &'a ()) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(format!("{} {}", self.0.name, arguments["path"])))
    }
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(GetWeather)
        .with(Divide)
        .with(FinalAnswer)
        .with(Slow)
}

// ---------------------------------------------------------------------------------------------
// The promise, checked after every step

/// Asserts that `messages` encodes on all four adapters, with `tools` offered.
fn assert_encodes(messages: &[Message], tools: &[ToolDefinition], when: &str) {
    let request = Request::new("any-model", messages).with_tools(tools);
    for adapter in adapters() {
        if let Err(error) = adapter.encode(&request) {
            panic!(
                "{when}: {} refuses the transcript: {error}\n{messages:#?}",
                adapter.provider()
            );
        }
    }
}

/// Hooks that check, after every step, that the transcript so far encodes everywhere.
struct EncodesEveryStep(Vec<ToolDefinition>);

impl Hooks for EncodesEveryStep {
    async fn after_step(&self, step: &Step<'_>) {
        assert_encodes(
            step.transcript(),
            &self.0,
            &format!("after step {}", step.number()),
        );
    }
}

/// An agent whose every step is checked, with `hooks` running first.
fn agent<H: Hooks>(model: &ScriptedModel, hooks: H) -> Agent<(), (H, EncodesEveryStep)> {
    agent_with(model, toolbox(), hooks)
}

fn agent_with<H: Hooks>(
    model: &ScriptedModel,
    toolbox: Toolbox,
    hooks: H,
) -> Agent<(), (H, EncodesEveryStep)> {
    let definitions = toolbox.definitions().to_vec();
    Agent::new(model.clone(), toolbox, "any-model")
        .with_hooks((hooks, EncodesEveryStep(definitions)))
}

/// Every request the model received encodes everywhere, and so does a finished run's transcript.
fn assert_kept_the_promise(run: &Run, model: &ScriptedModel) {
    for (number, request) in model.requests().iter().enumerate() {
        assert_encodes(
            &request.messages,
            &request.tools,
            &format!("request {}", number + 1),
        );
    }
    if run.stop() != &Stop::AwaitingApproval {
        assert_encodes(
            run.transcript(),
            toolbox().definitions(),
            "at the end of the run",
        );
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

fn assistant(parts: Vec<Part>) -> Message {
    Message {
        role: Role::Assistant,
        parts,
    }
}

fn calls_turn(calls: &[ToolCall]) -> Message {
    assistant(calls.iter().cloned().map(Part::ToolCall).collect())
}

fn results(results: Vec<ToolResult>) -> Message {
    Message {
        role: Role::Tool,
        parts: results.into_iter().map(Part::ToolResult).collect(),
    }
}

fn usage(input: u64, output: u64) -> Usage {
    Usage::new(input, output)
}

fn with_usage(mut response: Response, input: u64, output: u64) -> Response {
    response.usage = usage(input, output);
    response
}

// ---------------------------------------------------------------------------------------------
// Runs

#[test]
fn a_two_step_run_calls_a_tool_then_answers() {
    let weather = call("call_1", "get_weather", json!({"city": "Kampala"}));
    let model = ScriptedModel::new()
        .reply(with_usage(Response::calls([weather.clone()]), 50, 10))
        .reply(with_usage(
            Response::text("22C and sunny in Kampala."),
            70,
            8,
        ));
    let agent = agent(&model, ()).with_system("Be terse.");

    let run = agent
        .run(vec![Message::user("Weather in Kampala?")])
        .blocking()
        .unwrap();

    let expected = vec![
        Message::user("Weather in Kampala?"),
        calls_turn(std::slice::from_ref(&weather)),
        results(vec![ToolResult::success(
            "call_1",
            "22C and sunny in Kampala",
        )]),
        Message::assistant("22C and sunny in Kampala."),
    ];
    assert_eq!(run.transcript(), expected);
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(run.steps(), 2);
    assert_eq!(run.usage(), &usage(120, 18));
    assert_eq!(run.text(), "22C and sunny in Kampala.");

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(*requests[0].messages, expected[..1]);
    assert_eq!(*requests[1].messages, expected[..3]);
    for request in &requests {
        assert_eq!(request.model, "any-model");
        assert_eq!(request.system.as_deref(), Some("Be terse."));
        // An agent sends its tools by name, whatever order they were added in.
        let mut by_name = toolbox().definitions().to_vec();
        by_name.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(*request.tools, by_name);
        assert_eq!(request.tool_choice, ToolChoice::Auto);
    }
    assert_kept_the_promise(&run, &model);
}

#[test]
fn parallel_calls_run_concurrently_and_their_results_keep_call_order() {
    let calls = [
        call("a", "slow", json!({"label": "first", "polls": 3})),
        call("b", "slow", json!({"label": "second", "polls": 1})),
        call("c", "get_weather", json!({"city": "Gulu"})),
    ];
    let model = ScriptedModel::new()
        .reply_calls(calls.clone())
        .reply_text("Done.");
    let agent = agent(&model, ());
    let events = Mutex::new(Vec::new());

    let run = agent
        .run(vec![Message::user("Go")])
        .on_event(|event| {
            if let Event::ToolStarted { call } = &event {
                events.lock().unwrap().push(format!("started {}", call.id));
            }
            if let Event::ToolFinished { result, .. } = &event {
                events
                    .lock()
                    .unwrap()
                    .push(format!("finished {}", result.call_id));
            }
        })
        .blocking()
        .unwrap();

    assert_eq!(
        run.transcript()[2],
        results(vec![
            ToolResult::success("a", "first"),
            ToolResult::success("b", "second"),
            ToolResult::success("c", "22C and sunny in Gulu"),
        ])
    );
    // All three started before any finished, and the quicker call finished first.
    assert_eq!(
        events.into_inner().unwrap(),
        [
            "started a",
            "started b",
            "started c",
            "finished c",
            "finished b",
            "finished a"
        ]
    );
    assert_kept_the_promise(&run, &model);
}

/// Runs `agent(model, ())` on one user message to its end.
fn run_to_end(model: &ScriptedModel, prompt: &str) -> Run {
    agent(model, ())
        .run(vec![Message::user(prompt)])
        .blocking()
        .unwrap()
}

/// A run whose first call (`c1`) fails and whose second (`c2`) succeeds: the failure reaches the
/// model as `error`, the run goes on, and the model answers at the third step.
fn assert_recovers(first: ToolCall, second: ToolCall, prompt: &str, error: &str, success: &str) {
    let model = ScriptedModel::new()
        .reply_calls([first])
        .reply_calls([second])
        .reply_text("Done.");
    let run = run_to_end(&model, prompt);

    assert_eq!(
        run.transcript()[2],
        results(vec![ToolResult::error("c1", error)])
    );
    assert_eq!(
        run.transcript()[4],
        results(vec![ToolResult::success("c2", success)])
    );
    assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 3));
    assert_kept_the_promise(&run, &model);
}

#[test]
fn the_model_recovers_from_a_failing_tool() {
    assert_recovers(
        call("c1", "divide", json!({"a": 1, "b": 0})),
        call("c2", "divide", json!({"a": 1, "b": 4})),
        "1/0, or else 1/4?",
        "ERROR: divide failed: division by zero. Call divide again with different arguments.",
        "0.25",
    );
}

#[test]
fn an_unknown_tool_mid_run_gets_an_error_result_and_the_run_goes_on() {
    assert_recovers(
        call("c1", "get_wether", json!({"city": "Jinja"})),
        call("c2", "get_weather", json!({"city": "Jinja"})),
        "Weather in Jinja?",
        "ERROR: there is no tool named \"get_wether\". Did you mean \"get_weather\"? The available tools are: divide, final_answer, get_weather, slow. Call one of them by its exact name.",
        "22C and sunny in Jinja",
    );
}

// ---------------------------------------------------------------------------------------------
// Stop conditions

/// A model that calls `get_weather` at every request, with a new id each time.
fn always_calling(times: usize) -> ScriptedModel {
    (0..times).fold(ScriptedModel::new(), |model, n| {
        model.reply(with_usage(
            Response::calls([call(
                &format!("c{n}"),
                "get_weather",
                json!({"city": format!("City {n}")}),
            )]),
            100,
            10,
        ))
    })
}

/// The stop of a run ended by the condition `label`.
fn condition(label: &str) -> Stop {
    Stop::Condition {
        label: label.into(),
    }
}

#[test]
fn the_step_limit_stops_a_run_after_its_calls_have_results() {
    let model = always_calling(5);
    let run = agent(&model, ())
        .with_max_steps(3)
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::StepLimit { steps: 3 });
    assert_eq!(run.steps(), 3);
    assert_eq!(model.requests().len(), 3);
    assert_eq!(run.transcript().len(), 7);
    assert_eq!(
        run.transcript().last(),
        Some(&results(vec![ToolResult::success(
            "c2",
            "22C and sunny in City 2"
        )]))
    );
    assert_kept_the_promise(&run, &model);
}

#[test]
fn the_default_step_limit_is_ten() {
    let model = always_calling(12);
    let run = run_to_end(&model, "Go");
    assert_eq!(run.stop(), &Stop::StepLimit { steps: 10 });
    assert_eq!(model.requests().len(), 10);
    assert_kept_the_promise(&run, &model);
}

#[test]
fn a_final_answer_tool_ends_the_run_with_its_result() {
    let model = ScriptedModel::new()
        .reply_calls([call("c1", "get_weather", json!({"city": "Mbale"}))])
        .reply_calls([call(
            "c2",
            "final_answer",
            json!({"answer": "Sunny in Mbale."}),
        )])
        .reply_text("never sent");
    let run = agent(&model, ())
        .with_stop(StopWhen::tool_called("final_answer"))
        .run(vec![Message::user("Weather in Mbale?")])
        .blocking()
        .unwrap();
    assert_eq!(
        run.stop(),
        &Stop::ToolCalled {
            name: "final_answer".into()
        }
    );
    assert_eq!(
        run.transcript().last(),
        Some(&results(vec![ToolResult::success("c2", "Sunny in Mbale.")]))
    );
    assert_eq!(model.remaining(), 1);
    assert_kept_the_promise(&run, &model);
}

#[test]
fn a_token_budget_stops_the_run_after_the_step_that_spends_it() {
    let model = always_calling(5);
    let run = agent(&model, ())
        .with_stop(StopWhen::token_budget(300))
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
    // 110 tokens a step: 330 after the third.
    assert_eq!(
        run.stop(),
        &Stop::TokenBudget {
            budget: 300,
            used: 330
        }
    );
    assert_eq!(run.steps(), 3);
    assert_kept_the_promise(&run, &model);
}

#[test]
fn a_predicate_stops_the_run_with_its_label() {
    let model = always_calling(5);
    let run = agent(&model, ())
        .with_stop(StopWhen::predicate("two steps", |step| step.number() == 2))
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &condition("two steps"));
    assert_eq!(run.steps(), 2);
    assert_kept_the_promise(&run, &model);
}

#[test]
fn conditions_are_checked_in_the_order_they_were_added() {
    let model = always_calling(2);
    let run = agent(&model, ())
        .with_stop(StopWhen::predicate("first", |_| true))
        .with_stop(StopWhen::tool_called("get_weather"))
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &condition("first"));
}

#[test]
fn an_answer_without_a_call_ends_the_run_before_any_condition() {
    let model = ScriptedModel::new().reply(with_usage(Response::text("Hi."), 500, 5));
    let run = agent(&model, ())
        .with_stop(StopWhen::token_budget(10))
        .with_stop(StopWhen::predicate("always", |_| true))
        .run(vec![Message::user("Hi")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
}

// ---------------------------------------------------------------------------------------------
// The breaker

/// A model that calls `divide` once with each of `arguments`, with a new id each time.
fn calls_divide(arguments: impl IntoIterator<Item = Value>) -> ScriptedModel {
    arguments
        .into_iter()
        .enumerate()
        .fold(ScriptedModel::new(), |model, (n, arguments)| {
            model.reply_calls([call(&format!("c{n}"), "divide", arguments)])
        })
}

/// The stop of a run whose breaker tripped on `divide` after `failures` failures.
fn divide_breaker(failures: u32) -> Stop {
    Stop::Breaker {
        tool: "divide".into(),
        failures,
    }
}

#[test]
fn the_breaker_stops_a_model_repeating_a_failing_call() {
    let model = calls_divide(vec![json!({"a": 1, "b": 0}); 6]);
    let run = run_to_end(&model, "1/0?");
    assert_eq!(run.stop(), &divide_breaker(3));
    assert_eq!(run.steps(), 3);
    assert_eq!(
        run.stop().to_string(),
        "the model called divide with the same arguments 3 times and it failed each time"
    );
    assert_kept_the_promise(&run, &model);
}

#[test]
fn the_breaker_counts_only_the_same_arguments_and_can_be_turned_off() {
    // Different arguments each time: no breaker.
    let model = calls_divide((0..4).map(|n| json!({"a": n, "b": 0})));
    let run = agent(&model, ())
        .with_max_steps(4)
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::StepLimit { steps: 4 });

    let model = calls_divide(vec![json!({"a": 1, "b": 0}); 4]);
    let run = agent(&model, ())
        .with_breaker(0)
        .with_max_steps(4)
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::StepLimit { steps: 4 });

    let model = calls_divide(vec![json!({"a": 1, "b": 0}); 2]);
    let run = agent(&model, ())
        .with_breaker(2)
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &divide_breaker(2));
}

#[test]
fn the_breaker_trips_on_three_identical_failing_calls_whichever_way_their_arguments_were_encoded() {
    let model = ScriptedModel::new()
        .reply_calls([call("c0", "divide", json!({"a": 1, "b": 0}))])
        .reply_calls([call("c1", "divide", json!(r#"{"b": 0, "a": 1}"#))])
        .reply_calls([call("c2", "divide", json!({"b": 0.0, "a": 1.0}))])
        .reply_text("I cannot divide by zero.");
    let run = run_to_end(&model, "1/0?");
    assert_eq!(run.stop(), &divide_breaker(3));
    assert_eq!(run.steps(), 3);
}

/// Sends an email: every call that runs is counted, and sends another.
struct SendEmail {
    definition: ToolDefinition,
    sent: Arc<Mutex<Vec<String>>>,
}

impl SendEmail {
    fn new(sent: Arc<Mutex<Vec<String>>>) -> Self {
        SendEmail {
            definition: ToolDefinition::new(
                "send_email",
                "Sends an email.",
                json!({
                    "type": "object",
                    "properties": {"to": {"type": "string"}},
                    "required": ["to"]
                }),
            )
            .with_annotations(ToolAnnotations::new().with_idempotent(false)),
            sent,
        }
    }
}

impl Tool for SendEmail {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: &'a Value, _: &'a ()) -> ToolFuture<'a> {
        let to = arguments["to"].as_str().unwrap_or_default().to_owned();
        self.sent.lock().unwrap().push(to.clone());
        ToolFuture::ready(Ok(format!("sent to {to}")))
    }
}

#[test]
fn an_agent_runs_a_non_idempotent_call_repeated_in_one_turn_once() {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new()
        .reply_calls([
            call("c1", "send_email", json!({"to": "ada"})),
            call("c2", "send_email", json!(r#"{"to": "ada"}"#)),
        ])
        .reply_text("Sent.");
    let run = agent_with(&model, toolbox().with(SendEmail::new(sent.clone())), ())
        .run(vec![Message::user("Email Ada")])
        .blocking()
        .unwrap();
    assert_eq!(*sent.lock().unwrap(), ["ada"]);
    assert_eq!(
        run.transcript()[2],
        results(vec![
            ToolResult::success("c1", "sent to ada"),
            ToolResult::error(
                "c2",
                "ERROR: send_email was not run: this call repeats the call `c1` of the same turn with the same arguments, and running send_email twice would repeat its effect. The call `c1` returned: \"sent to ada\". Call send_email again in a later turn only if the user wants it done twice."
            ),
        ])
    );
    assert_kept_the_promise(&run, &model);
}

#[test]
fn every_calls_outcome_is_an_event_whoever_decided_it() {
    let model = ScriptedModel::new().reply_calls([
        call("c1", "get_weather", json!({"city": "Gulu"})),
        call("c2", "divide", json!({"a": 1, "b": 2})),
        call("c3", "pay", json!({"amount": 5})),
        call("c4", "final_answer", json!({"answer": "no"})),
    ]);
    let agent = agent_with(
        &model,
        paying_toolbox(),
        hooks::before_tool_call(|call, proposed| match call.name.as_str() {
            "get_weather" => Decision::answer("cached: 19C"),
            "divide" => Decision::deny("no arithmetic today"),
            "pay" => Decision::Pause,
            _ => proposed,
        }),
    );
    let mut events = Vec::new();
    let run = agent
        .run(vec![Message::user("Go")])
        .on_event(|event| {
            if !matches!(event, Event::Model(_) | Event::StepStarted { .. }) {
                events.push(event)
            }
        })
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    for event in &mut events {
        if let Event::ToolFinished { duration, .. } = event {
            *duration = Duration::ZERO;
        }
    }
    assert_eq!(
        events,
        [
            Event::ToolAnswered {
                name: "get_weather".into(),
                result: ToolResult::success("c1", "cached: 19C"),
                by: AnsweredBy::Hook,
            },
            Event::ToolAnswered {
                name: "divide".into(),
                result: ToolResult::error(
                    "c2",
                    "ERROR: divide was not run: no arithmetic today. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
                ),
                by: AnsweredBy::Hook,
            },
            Event::ToolPaused {
                call: call("c3", "pay", json!({"amount": 5}))
            },
            Event::ToolStarted {
                call: call("c4", "final_answer", json!({"answer": "no"}))
            },
            Event::ToolFinished {
                name: "final_answer".into(),
                result: ToolResult::success("c4", "no"),
                duration: Duration::ZERO,
                content: Vec::new().into(),
            },
        ]
    );

    let mut run = run;
    run.deny("c3", "the user said no").unwrap();
    let model = ScriptedModel::new().reply_text("Fine.");
    let mut events = Vec::new();
    agent_with(&model, paying_toolbox(), ())
        .resume(run)
        .on_event(|event| {
            if let Event::ToolAnswered { .. } = event {
                events.push(event)
            }
        })
        .blocking()
        .unwrap();
    assert_eq!(
        events,
        [Event::ToolAnswered {
            name: "pay".into(),
            result: ToolResult::error(
                "c3",
                "ERROR: pay was not run: the user said no. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
            ),
            by: AnsweredBy::Person,
        }]
    );
}

// ---------------------------------------------------------------------------------------------
// Hook decisions and approval

#[test]
fn a_hook_denies_a_call_and_the_model_reads_why() {
    let model = ScriptedModel::new()
        .reply_calls([
            call("c1", "divide", json!({"a": 6, "b": 3})),
            call("c2", "get_weather", json!({"city": "Lira"})),
        ])
        .reply_text("I may not look up the weather.");
    let run = agent(
        &model,
        hooks::before_tool_call(|call, proposed| {
            if call.name == "get_weather" {
                Decision::deny("weather lookups are turned off.")
            } else {
                proposed
            }
        }),
    )
    .run(vec![Message::user("6/3 and weather?")])
    .blocking()
    .unwrap();
    assert_eq!(
        run.transcript()[2],
        results(vec![
            ToolResult::success("c1", "2"),
            ToolResult::error(
                "c2",
                "ERROR: get_weather was not run: weather lookups are turned off. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
            ),
        ])
    );
    assert_kept_the_promise(&run, &model);
}

#[test]
fn a_hook_answers_a_call_in_the_tools_place() {
    let model = ScriptedModel::new()
        .reply_calls([
            call("c1", "get_weather", json!({"city": "Arua"})),
            call("c2", "divide", json!({"a": 1, "b": 2})),
        ])
        .reply_text("Done.");
    let events = Mutex::new(Vec::new());
    let run = agent(
        &model,
        hooks::before_tool_call(|call, proposed| match call.name.as_str() {
            "get_weather" => Decision::answer("cached: 19C and raining"),
            "divide" => Decision::fail(ToolFailure::ask_user("dividing needs a licence")),
            _ => proposed,
        }),
    )
    .run(vec![Message::user("Go")])
    .on_event(|event| {
        if matches!(
            event,
            Event::ToolStarted { .. } | Event::ToolFinished { .. }
        ) {
            events.lock().unwrap().push(event);
        }
    })
    .blocking()
    .unwrap();
    assert_eq!(
        run.transcript()[2],
        results(vec![
            ToolResult::success("c1", "cached: 19C and raining"),
            ToolResult::error(
                "c2",
                "ERROR: divide failed: dividing needs a licence. Ask the user how to proceed before calling divide again."
            ),
        ])
    );
    assert_eq!(
        events.into_inner().unwrap(),
        [],
        "no tool ran, so none started"
    );
    assert_kept_the_promise(&run, &model);
}

/// Records every hook call, in order, as a line of text.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Recorder {
    fn push(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }

    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// Records every hook, pauses calls to `pay`, and lets the rest run.
struct Recording(Recorder);

impl Hooks for Recording {
    async fn before_request(&self, step: u32, request: &mut Request<'_>) {
        self.0.push(format!(
            "before_request {step} ({} messages)",
            request.messages.len()
        ));
    }

    async fn before_tool_call(&self, call: &ToolCall, proposed: Decision) -> Decision {
        self.0.push(format!("before_tool_call {}", call.id));
        if call.name == "pay" {
            Decision::Pause
        } else {
            proposed
        }
    }

    async fn after_tool_call(&self, call: &ToolCall, result: &ToolResult, _: Duration) {
        self.0.push(format!(
            "after_tool_call {} error={}",
            call.id, result.is_error
        ));
    }

    async fn after_step(&self, step: &Step<'_>) {
        self.0.push(format!(
            "after_step {} ({} calls, results: {})",
            step.number(),
            step.tool_calls().count(),
            step.results().is_some()
        ));
    }
}

#[test]
fn hooks_are_called_in_the_documented_order() {
    let model = ScriptedModel::new()
        .reply_calls([
            call("a", "slow", json!({"label": "A", "polls": 2})),
            call("b", "get_weather", json!({"city": "Gulu"})),
            call("c", "get_wether", json!({})),
        ])
        .reply_text("Done.");
    let recorder = Recorder::default();
    let run = agent(&model, Recording(recorder.clone()))
        .run(vec![Message::user("Go")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(
        recorder.lines(),
        [
            "before_request 1 (1 messages)",
            "before_tool_call a",
            "before_tool_call b",
            "before_tool_call c",
            "after_tool_call a error=false",
            "after_tool_call b error=false",
            "after_tool_call c error=true",
            "after_step 1 (3 calls, results: true)",
            "before_request 2 (3 messages)",
            "after_step 2 (0 calls, results: false)",
        ]
    );
}

/// Pays.
#[skyl::tool]
fn pay(
    /// How much.
    amount: u32,
) -> String {
    format!("paid {amount}")
}

fn paying_toolbox() -> Toolbox {
    toolbox().with(Pay)
}

#[test]
fn a_paused_run_resumes_in_a_fresh_agent_from_its_serialized_state() {
    let turn = [
        call("c1", "get_weather", json!({"city": "Kampala"})),
        call("c2", "pay", json!({"amount": 10})),
        call("c3", "pay", json!({"amount": 99})),
    ];
    let first_model = ScriptedModel::new().reply_calls(turn.clone());
    let first = Recorder::default();
    let run = agent_with(&first_model, paying_toolbox(), Recording(first.clone()))
        .run(vec![Message::user("Weather, then pay 10 and 99")])
        .blocking()
        .unwrap();

    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    assert_eq!(run.steps(), 1);
    let waiting: Vec<&ToolCall> = run.awaiting_approval().collect();
    assert_eq!(waiting, [&turn[1], &turn[2]]);
    // The transcript ends on the turn being answered; the call that could run already did.
    assert_eq!(run.transcript().last(), Some(&calls_turn(&turn)));
    assert_eq!(
        first.lines(),
        [
            "before_request 1 (1 messages)",
            "before_tool_call c1",
            "before_tool_call c2",
            "before_tool_call c3",
            "after_tool_call c1 error=false",
        ]
    );

    let saved = serde_json::to_string(&run).unwrap();
    drop(run);

    // Another process: a new agent, a new model connection.
    let mut run: Run = serde_json::from_str(&saved).unwrap();
    run.approve("c2").unwrap();
    run.deny("c3", "the user refused to pay 99").unwrap();
    assert_eq!(run.awaiting_approval().count(), 0);

    let second_model = ScriptedModel::new().reply_text("Paid 10; the 99 was refused.");
    let second = Recorder::default();
    let run = agent_with(&second_model, paying_toolbox(), Recording(second.clone()))
        .resume(run)
        .blocking()
        .unwrap();

    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(run.steps(), 2);
    assert_eq!(
        run.transcript()[2],
        results(vec![
            ToolResult::success("c1", "22C and sunny in Kampala"),
            ToolResult::success("c2", "paid 10"),
            ToolResult::error(
                "c3",
                "ERROR: pay was not run: the user refused to pay 99. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
            ),
        ])
    );
    assert_eq!(
        second.lines(),
        [
            "after_tool_call c2 error=false",
            "after_tool_call c3 error=true",
            "after_step 1 (3 calls, results: true)",
            "before_request 2 (3 messages)",
            "after_step 2 (0 calls, results: false)",
        ]
    );
    assert_eq!(*second_model.requests()[0].messages, run.transcript()[..3]);
    assert_kept_the_promise(&run, &second_model);
}

#[test]
fn a_run_resumed_with_calls_still_undecided_stays_paused() {
    let model = ScriptedModel::new().reply_calls([
        call("c1", "pay", json!({"amount": 1})),
        call("c2", "pay", json!({"amount": 2})),
    ]);
    let agent = agent_with(
        &model,
        paying_toolbox(),
        hooks::before_tool_call(|_, _| Decision::Pause),
    );
    let mut run = agent
        .run(vec![Message::user("Pay 1 and 2")])
        .blocking()
        .unwrap();
    run.approve("c1").unwrap();

    let mut run = agent.resume(run).blocking().unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    let waiting: Vec<&str> = run.awaiting_approval().map(|c| c.id.as_str()).collect();
    assert_eq!(waiting, ["c2"]);
    assert_eq!(model.requests().len(), 1, "no request while a call waits");

    // c1 ran on the first resume; approving it again is an error that lists what still waits.
    let error = run.approve("c1").unwrap_err();
    assert_eq!(
        error.to_string(),
        "no call \"c1\" is waiting for approval in this run; decide about one of \"c2\" instead"
    );
    run.deny_all("no");
    let model_after = ScriptedModel::new().reply_text("Paid 1.");
    let run = agent_with(&model_after, paying_toolbox(), ())
        .resume(run)
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(
        run.transcript()[2]
            .tool_results()
            .map(|r| r.is_error)
            .collect::<Vec<_>>(),
        [false, true]
    );
    assert_eq!(
        run.clone().approve("c1").unwrap_err().to_string(),
        "no call \"c1\" is waiting for approval in this run; none is, so resume or store the run as it is"
    );
    assert_kept_the_promise(&run, &model_after);
}

#[test]
fn destructive_tools_wait_for_approval_when_the_agent_asks_for_it() {
    let toolbox = || {
        Toolbox::new()
            .with(Annotated::new(
                "read_file",
                ToolAnnotations::new().with_read_only(true),
            ))
            .with(Annotated::new(
                "delete_file",
                ToolAnnotations::new().with_destructive(true),
            ))
    };
    let turn = [
        call("r", "read_file", json!({"path": "a.txt"})),
        call("d", "delete_file", json!({"path": "a.txt"})),
    ];
    let model = ScriptedModel::new()
        .reply_calls(turn.clone())
        .reply_text("Read and deleted.");

    // Off by default: both run.
    let run = agent_with(&model, toolbox(), ())
        .run(vec![Message::user("Read, then delete a.txt")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::Answered);

    let model = ScriptedModel::new()
        .reply_calls(turn.clone())
        .reply_text("Read and deleted.");
    let proposals = Recorder::default();
    let seen = proposals.clone();
    let agent = agent_with(
        &model,
        toolbox(),
        hooks::before_tool_call(move |call, proposed| {
            seen.push(format!("{} {proposed:?}", call.id));
            proposed
        }),
    )
    .with_approval_for_destructive(true);
    let mut run = agent
        .run(vec![Message::user("Read, then delete a.txt")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    assert_eq!(run.awaiting_approval().collect::<Vec<_>>(), [&turn[1]]);
    assert_eq!(proposals.lines(), ["r Run", "d Pause"]);

    run.approve_all();
    let run = agent.resume(run).blocking().unwrap();
    assert_eq!(
        run.transcript()[2],
        results(vec![
            ToolResult::success("r", "read_file \"a.txt\""),
            ToolResult::success("d", "delete_file \"a.txt\""),
        ])
    );
}

#[test]
fn a_stored_run_that_cannot_be_resumed_is_refused_when_loaded() {
    let model = ScriptedModel::new().reply_calls([call("c1", "pay", json!({"amount": 1}))]);
    let run = agent_with(
        &model,
        paying_toolbox(),
        hooks::before_tool_call(|_, _| Decision::Pause),
    )
    .run(vec![Message::user("Pay")])
    .blocking()
    .unwrap();
    let mut stored = serde_json::to_value(&run).unwrap();
    assert_eq!(
        stored,
        json!({
            "transcript": [
                {"role": "user", "parts": [{"text": "Pay"}]},
                {"role": "assistant", "parts": [{"tool_call": {"id": "c1", "name": "pay", "arguments": {"amount": 1}}}]}
            ],
            "stop": "awaiting_approval",
            "steps": 1,
            "usage": {"input_tokens": 0, "output_tokens": 0},
            "turn": {
                "answer": {"stop_reason": "tool_use", "usage": {"input_tokens": 0, "output_tokens": 0}},
                // The fingerprint of pay's definition, which an approval is bound to.
                "slots": [{"paused": {"definition": "103185933da10ce6"}}]
            },
            "format": 2
        })
    );

    // The turn's calls lost from the transcript:
    stored["transcript"].as_array_mut().unwrap().pop();
    let error = serde_json::from_value::<Run>(stored.clone()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "this run cannot be resumed: it waits on 1 tool calls, but the transcript's last message is not an assistant turn with as many calls; store and load the run whole"
    );

    // A finished run whose transcript leaves a call unanswered:
    let unanswered = json!({
        "transcript": [
            {"role": "user", "parts": [{"text": "Pay"}]},
            {"role": "assistant", "parts": [{"tool_call": {"id": "c1", "name": "pay", "arguments": {}}}]},
            {"role": "user", "parts": [{"text": "Well?"}]}
        ],
        "stop": "answered",
        "steps": 1,
        "usage": {"input_tokens": 0, "output_tokens": 0}
    });
    let error = serde_json::from_value::<Run>(unanswered).unwrap_err();
    assert_eq!(
        error.to_string(),
        "this run cannot be resumed: message 1: tool call \"c1\" (pay) has no result before message 2; every call needs one result in the tool messages right after its assistant turn (send skyl::transcript::tool_error_message if the tool could not run)"
    );
}

// ---------------------------------------------------------------------------------------------
// Model errors and resuming

#[test]
fn a_model_error_mid_run_keeps_the_transcript_and_the_run_resumes() {
    let model = ScriptedModel::new()
        .reply(with_usage(
            Response::calls([call("c1", "get_weather", json!({"city": "Soroti"}))]),
            40,
            4,
        ))
        .fail(
            ModelError::provider(529, "Overloaded")
                .with_provider(skyl::provider::Provider::Anthropic)
                .with_error_type("overloaded_error"),
        )
        .reply_text("Sunny in Soroti.");
    let agent = agent(&model, ());

    let error: RunError = agent
        .run(vec![Message::user("Weather in Soroti?")])
        .blocking()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model request of step 2 failed; the run so far is kept in this error: resume it with Agent::resume(error.into_run())"
    );
    assert_eq!(error.step(), 2);
    assert_eq!(error.model_error().status(), Some(529));
    assert_eq!(
        std::error::Error::source(&error).map(ToString::to_string),
        Some("Anthropic answered HTTP 529 (overloaded_error): Overloaded".to_owned())
    );
    assert_eq!(
        error.transcript(),
        [
            Message::user("Weather in Soroti?"),
            calls_turn(&[call("c1", "get_weather", json!({"city": "Soroti"}))]),
            results(vec![ToolResult::success("c1", "22C and sunny in Soroti")]),
        ]
    );
    assert_encodes(
        error.transcript(),
        toolbox().definitions(),
        "after the error",
    );
    let failed = error.into_run();
    assert_eq!((failed.steps(), failed.usage()), (1, &usage(40, 4)));

    // The failed run survives storage too.
    let failed: Run = serde_json::from_value(serde_json::to_value(&failed).unwrap()).unwrap();
    let run = agent.resume(failed).blocking().unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(run.steps(), 2);
    assert_eq!(run.text(), "Sunny in Soroti.");
    assert_eq!(model.requests().len(), 3);
    assert_eq!(
        model.requests()[1],
        model.requests()[2],
        "the same request again"
    );
    assert_kept_the_promise(&run, &model);
}

#[test]
fn resuming_a_finished_run_returns_it_unchanged() {
    let model = always_calling(3);
    let agent = agent(&model, ()).with_max_steps(2);
    let run = agent.run(vec![Message::user("Go")]).blocking().unwrap();
    assert_eq!(run.stop(), &Stop::StepLimit { steps: 2 });
    let again = agent.resume(run.clone()).blocking().unwrap();
    assert_eq!(again, run);
    assert_eq!(model.requests().len(), 2);
}

#[test]
fn a_request_past_the_script_and_an_incomplete_transcript_are_model_errors() {
    let model = ScriptedModel::new();
    let error = Agent::new(model.clone(), toolbox(), "m")
        .run(vec![Message::user("Hi")])
        .blocking()
        .unwrap_err();
    assert_eq!(error.model_error().kind(), ModelErrorKind::Other);
    assert_eq!(
        error.model_error().message(),
        "the script has no answer left for request 1; add one with ScriptedModel::reply_text, reply_calls, reply or reply_with"
    );

    let unanswered = vec![
        Message::user("Hi"),
        calls_turn(&[call("c1", "get_weather", json!({"city": "Gulu"}))]),
    ];
    let error = Agent::new(ScriptedModel::new().reply_text("Hi"), toolbox(), "m")
        .run(unanswered)
        .blocking()
        .unwrap_err();
    assert_eq!(error.model_error().kind(), ModelErrorKind::Encode);
    assert_eq!(
        error.model_error().message(),
        "request 1 would be refused by every provider"
    );
    assert_eq!(
        std::error::Error::source(error.model_error()).map(ToString::to_string),
        Some("message 1: tool call \"c1\" (get_weather) has no result and the transcript ends; answer every call before sending the next request (send skyl::transcript::tool_error_message if the tool could not run)".to_owned())
    );
}

// ---------------------------------------------------------------------------------------------
// Requests, events and the agent's own properties

#[test]
fn a_hook_changes_the_request_and_the_run_keeps_its_own_transcript() {
    let model = ScriptedModel::new()
        .reply_calls([call("c1", "get_weather", json!({"city": "Gulu"}))])
        .reply_text("Sunny.");
    let agent = agent(
        &model,
        hooks::before_request(|step, request| {
            // The second request sees only the tools' part of the history, and must answer.
            request.tools = request
                .tools
                .iter()
                .filter(|tool| tool.name == "get_weather")
                .cloned()
                .collect::<Vec<_>>()
                .into();
            if step == 2 {
                request.messages = request.messages[1..].to_vec().into();
                request.tool_choice = ToolChoice::None;
            }
        }),
    )
    .with_max_tokens(256)
    .with_request_field("temperature", 0.5);
    let run = agent
        .run(vec![Message::user("Weather?")])
        .blocking()
        .unwrap();

    let requests = model.requests();
    let names = |request: &Request<'_>| -> Vec<String> {
        request.tools.iter().map(|tool| tool.name.clone()).collect()
    };
    assert_eq!(names(&requests[0]), ["get_weather"]);
    assert_eq!(requests[0].tool_choice, ToolChoice::Auto);
    assert_eq!(*requests[1].messages, run.transcript()[1..3]);
    assert_eq!(requests[1].tool_choice, ToolChoice::None);
    assert_eq!(requests[1].max_tokens, Some(256));
    assert_eq!(requests[1].extra["temperature"], json!(0.5));
    assert_eq!(run.transcript().len(), 4);
}

#[test]
fn events_report_each_step_as_it_happens() {
    let weather = call("c1", "get_weather", json!({"city": "Gulu"}));
    let model = ScriptedModel::new()
        .reply_calls([weather.clone()])
        .reply_text("Sunny.");
    let mut events = Vec::new();
    let run = agent(&model, ())
        .run(vec![Message::user("Weather?")])
        .on_event(|event| events.push(event))
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    // Durations differ from run to run; the rest is compared whole.
    for event in &mut events {
        if let Event::ToolFinished { duration, .. } = event {
            *duration = Duration::ZERO;
        }
    }
    assert_eq!(
        events,
        [
            Event::StepStarted { step: 1 },
            Event::Model(StreamEvent::ToolCallStarted {
                index: 0,
                id: "c1".into(),
                name: "get_weather".into()
            }),
            Event::Model(StreamEvent::ToolCallDelta {
                index: 0,
                arguments: r#"{"city":"Gulu"}"#.into()
            }),
            Event::Model(StreamEvent::ToolCallFinished {
                index: 0,
                call: weather.clone()
            }),
            Event::Model(StreamEvent::Usage(Usage::default())),
            Event::Model(StreamEvent::Done {
                stop_reason: StopReason::ToolUse
            }),
            Event::ToolStarted {
                call: weather.clone()
            },
            Event::ToolFinished {
                name: "get_weather".into(),
                result: ToolResult::success("c1", "22C and sunny in Gulu"),
                duration: Duration::ZERO,
                content: Vec::new().into(),
            },
            Event::StepStarted { step: 2 },
            Event::Model(StreamEvent::TextDelta("Sunny.".into())),
            Event::Model(StreamEvent::Usage(Usage::default())),
            Event::Model(StreamEvent::Done {
                stop_reason: StopReason::EndTurn
            }),
        ]
    );
}

#[test]
fn an_agent_is_shared_across_threads_and_its_runs_are_send() {
    fn shared<T: Send + Sync>(_: &T) {}
    fn sendable<T: Send>(_: &T) {}

    let model = ScriptedModel::new().reply_text("one").reply_text("two");
    let agent = Arc::new(agent(&model, Recording(Recorder::default())));
    shared(&*agent);
    let future = std::future::IntoFuture::into_future(agent.run(vec![Message::user("Hi")]));
    sendable(&future);
    drop(future);

    let threads: Vec<_> = (0..2)
        .map(|_| {
            let agent = Arc::clone(&agent);
            std::thread::spawn(move || agent.run(vec![Message::user("Hi")]).blocking().unwrap())
        })
        .collect();
    let mut answers: Vec<String> = threads
        .into_iter()
        .map(|thread| thread.join().unwrap().text())
        .collect();
    answers.sort();
    assert_eq!(answers, ["one", "two"]);
}
