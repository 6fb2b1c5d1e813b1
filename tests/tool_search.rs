//! Large toolboxes behind a search: the model is offered `find_tools`, finds tools, and each
//! found tool is offered from the next step on, appended, so that every provider's encoded tool
//! list of a step begins with the whole list of the step before (its cached prefix holds).

use serde_json::{Value, json};
use skyl::agent::{Agent, Stop, ToolSearch};
use skyl::provider::Provider;
use skyl::testing::ScriptedModel;
use skyl::{DynamicTool, Message, ToolCall, ToolDefinition, Toolbox};

use crate::providers::support::assert_golden;
use crate::support::adapters;

/// `count` tools of a mounted server, `tool_0` to `tool_<count-1>`, each about its own topic,
/// then `get_weather`.
fn toolbox(count: usize) -> Toolbox {
    let mut toolbox = Toolbox::new();
    for n in 0..count {
        let definition = ToolDefinition::new(
            format!("tool_{n}"),
            format!("Manages the records of topic {n}."),
            json!({
                "type": "object",
                "properties": {"id": {"type": "string", "description": "The record."}},
                "required": ["id"],
            }),
        );
        toolbox = toolbox.with(DynamicTool::from_fn(definition, |arguments: Value| {
            format!("record {}", arguments["id"])
        }));
    }
    let weather = ToolDefinition::new(
        "get_weather",
        "Gets the weather forecast for a city.",
        json!({
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city."}},
            "required": ["city"],
        }),
    );
    toolbox.with(DynamicTool::from_fn(weather, |arguments: Value| {
        format!("22C in {}", arguments["city"].as_str().unwrap_or_default())
    }))
}

fn script() -> ScriptedModel {
    ScriptedModel::new()
        .reply_calls([ToolCall::new(
            "c1",
            "find_tools",
            json!({"query": "weather forecast"}),
        )])
        .reply_calls([ToolCall::new(
            "c2",
            "get_weather",
            json!({"city": "Kampala"}),
        )])
        .reply_text("22C in Kampala.")
}

fn offered(model: &ScriptedModel) -> Vec<Vec<String>> {
    model
        .requests()
        .iter()
        .map(|request| request.tools.iter().map(|tool| tool.name.clone()).collect())
        .collect()
}

#[test]
fn hundreds_of_tools_are_offered_as_the_model_finds_them() {
    let model = script();
    let agent = Agent::new(model.clone(), toolbox(300), "m")
        .with_tool_search(ToolSearch::new().always(["tool_7"]));
    let run = agent
        .run(vec![Message::user("Weather in Kampala?")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(
        offered(&model),
        // By name, and what was found after, in the order found.
        [
            vec!["find_tools", "tool_7"],
            vec!["find_tools", "tool_7", "get_weather"],
            vec!["find_tools", "tool_7", "get_weather"],
        ]
    );
    assert_eq!(
        model.requests()[0].tools[0].description,
        "Finds tools for a task among 300 more tools that are not shown yet, by words of their names and descriptions. The tools found can be called from your next turn. Search before saying that you cannot do something."
    );
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap().content,
        "Found 1 tool for \"weather forecast\"; you can call it from your next turn:\n- get_weather: Gets the weather forecast for a city."
    );
    assert_eq!(
        run.transcript()[4].tool_results().next().unwrap().content,
        "22C in Kampala"
    );
}

#[test]
fn a_search_that_finds_nothing_says_so_and_offers_nothing_new() {
    let model = ScriptedModel::new()
        .reply_calls([ToolCall::new(
            "c1",
            "find_tools",
            json!({"query": "spreadsheet"}),
        )])
        .reply_text("No such tool.");
    let agent = Agent::new(model.clone(), toolbox(3), "m").with_tool_search(ToolSearch::new());
    let run = agent
        .run(vec![Message::user("Sum A1:A3")])
        .blocking()
        .unwrap();
    assert_eq!(
        run.transcript()[2].tool_results().next().unwrap().content,
        "No tool matches \"spreadsheet\". Search again with other words for what you want to do, or go on without a tool."
    );
    assert_eq!(offered(&model), [vec!["find_tools"], vec!["find_tools"]]);
}

/// The tool list of an encoded body, less Anthropic's cache breakpoint: it sits on the last
/// tool, so it moves to a tool found, and the cache reads the tools before it all the same (the
/// API looks for a cached prefix at the block boundaries before a breakpoint).
fn tools(provider: Provider, body: &Value) -> Vec<Value> {
    let tools = match provider {
        Provider::Gemini => &body["tools"][0]["functionDeclarations"],
        _ => &body["tools"],
    };
    let mut tools = tools.as_array().cloned().unwrap_or_default();
    for tool in &mut tools {
        if let Some(tool) = tool.as_object_mut() {
            tool.remove("cache_control");
        }
    }
    tools
}

#[test]
fn a_found_tool_is_appended_on_every_wire_and_the_tools_before_it_keep_their_bytes() {
    let model = script();
    let agent = Agent::new(model.clone(), toolbox(2), "claude-sonnet-4-5")
        .with_tool_search(ToolSearch::new().always(["tool_1"]));
    agent
        .run(vec![Message::user("Weather in Kampala?")])
        .blocking()
        .unwrap();
    let requests = model.requests();
    for adapter in adapters() {
        let provider = adapter.provider();
        let bodies: Vec<Value> = requests
            .iter()
            .map(|request| adapter.encode(request).unwrap())
            .collect();
        let (before, after) = (tools(provider, &bodies[0]), tools(provider, &bodies[1]));
        assert_eq!(after.len(), before.len() + 1, "{provider:?}");
        assert_eq!(after[..before.len()], before[..], "{provider:?}");
        let before = serde_json::to_string(&before).unwrap();
        let after = serde_json::to_string(&after).unwrap();
        assert!(
            after.starts_with(&before[..before.len() - 1]),
            "{provider:?}: the encoded list of step 2 begins with the bytes of step 1's"
        );
        assert_golden(
            &format!("tool_search/{}_step_2", provider.as_str()),
            &bodies[1],
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The providers' own tool search: deferred tools on the wire.

use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request};

/// The two tools of the recorded tool-search conversations (pydantic-ai's cassettes).
fn exchange_tools() -> Vec<ToolDefinition> {
    let tool = |name: &str, description: &str, properties: &[&str]| {
        ToolDefinition::new(
            name,
            description,
            json!({
                "type": "object",
                "properties": properties
                    .iter()
                    .map(|p| (p.to_string(), json!({"type": "string"})))
                    .collect::<serde_json::Map<_, _>>(),
                "required": properties,
                "additionalProperties": false,
            }),
        )
    };
    vec![
        tool(
            "get_exchange_rate",
            "Look up the current exchange rate between two currencies.",
            &["from_currency", "to_currency"],
        ),
        tool(
            "stock_lookup",
            "Look up stock price by ticker symbol.",
            &["symbol"],
        ),
    ]
}

fn deferring(model: &str, messages: Vec<Message>) -> Request<'static> {
    Request::new(model.to_owned(), messages)
        .with_tools(exchange_tools())
        .with_deferred_tools(vec![
            "get_exchange_rate".to_owned(),
            "stock_lookup".to_owned(),
        ])
        .with_max_tokens(4096)
        // As recorded: the recorded requests asked for no cache.
        .with_caching(skyl::provider::caching::Caching::off())
}

fn question() -> Message {
    Message::user("What is the current USD to EUR exchange rate?")
}

#[test]
fn anthropic_deferred_tools_and_its_search_tool_are_the_recorded_request() {
    let body = Anthropic
        .encode(&deferring("claude-sonnet-4-6", vec![question()]))
        .unwrap();
    // The request the API accepted, as recorded (less `"stream": true`).
    assert_eq!(
        body,
        json!({
            "max_tokens": 4096,
            "messages": [{"content": [{"text": "What is the current USD to EUR exchange rate?", "type": "text"}], "role": "user"}],
            "model": "claude-sonnet-4-6",
            "tool_choice": {"type": "auto"},
            "tools": [
                {"defer_loading": true, "description": "Look up the current exchange rate between two currencies.", "input_schema": {"additionalProperties": false, "properties": {"from_currency": {"type": "string"}, "to_currency": {"type": "string"}}, "required": ["from_currency", "to_currency"], "type": "object"}, "name": "get_exchange_rate"},
                {"defer_loading": true, "description": "Look up stock price by ticker symbol.", "input_schema": {"additionalProperties": false, "properties": {"symbol": {"type": "string"}}, "required": ["symbol"], "type": "object"}, "name": "stock_lookup"},
                {"name": "tool_search_tool_bm25", "type": "tool_search_tool_bm25_20251119"}
            ]
        })
    );
}

#[test]
fn anthropic_a_found_tool_is_called_and_the_search_goes_back_verbatim_with_the_same_tools() {
    // The recorded answer: a search on the server, its result, then a call of the tool found.
    let answer = Anthropic
        .decode(&crate::providers::support::fixture(
            "stream/anthropic",
            "tool_search_then_call",
        ))
        .unwrap();
    let calls: Vec<&str> = answer
        .message
        .tool_calls()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        calls,
        ["get_exchange_rate"],
        "the server's search is not a call to answer"
    );
    let call_id = answer.message.tool_calls().next().unwrap().id.clone();
    let first = Anthropic
        .encode(&deferring("claude-sonnet-4-6", vec![question()]))
        .unwrap();
    let next = Anthropic
        .encode(&deferring(
            "claude-sonnet-4-6",
            vec![
                question(),
                answer.message,
                skyl::transcript::tool_result_message(call_id.as_str(), "1 USD = 0.92 EUR"),
            ],
        ))
        .unwrap();
    // The recorded second request, except that skyl sends a result's text as a string.
    assert_eq!(
        next["messages"],
        json!([
            {"content": [{"text": "What is the current USD to EUR exchange rate?", "type": "text"}], "role": "user"},
            {"content": [
                {"text": "Let me search for a tool that can provide current exchange rate information.", "type": "text"},
                {"id": "srvtoolu_01S5swZdBmTzLDVzwcT5LbHp", "input": {"query": "USD EUR exchange rate currency conversion"}, "name": "tool_search_tool_bm25", "type": "server_tool_use"},
                {"content": {"tool_references": [{"tool_name": "get_exchange_rate", "type": "tool_reference"}], "type": "tool_search_tool_search_result"}, "tool_use_id": "srvtoolu_01S5swZdBmTzLDVzwcT5LbHp", "type": "tool_search_tool_result"},
                {"text": "I found the right tool! Let me fetch the current USD to EUR exchange rate for you.", "type": "text"},
                {"id": "toolu_01EFn5wTNBYA8Reni8rbmnHT", "input": {"from_currency": "USD", "to_currency": "EUR"}, "name": "get_exchange_rate", "type": "tool_use"}
            ], "role": "assistant"},
            {"content": [{"content": "1 USD = 0.92 EUR", "is_error": false, "tool_use_id": "toolu_01EFn5wTNBYA8Reni8rbmnHT", "type": "tool_result"}], "role": "user"}
        ])
    );
    assert_eq!(
        next["tools"], first["tools"],
        "finding a tool changes no tool"
    );
}

#[test]
fn openai_responses_deferred_tools_and_tool_search_are_the_recorded_request() {
    // Strict, as the recorded tools were.
    let body = OpenAiResponses::default()
        .with_strict(true)
        .encode(&deferring("gpt-5.4", vec![question()]))
        .unwrap();
    assert_eq!(
        body,
        json!({
        "model": "gpt-5.4",
        "input": [{"role": "user", "content": "What is the current USD to EUR exchange rate?"}],
        "tools": [
            {"type": "function", "defer_loading": true, "description": "Look up the current exchange rate between two currencies.", "name": "get_exchange_rate", "parameters": {"additionalProperties": false, "properties": {"from_currency": {"type": "string"}, "to_currency": {"type": "string"}}, "required": ["from_currency", "to_currency"], "type": "object"}, "strict": true},
            {"type": "function", "defer_loading": true, "description": "Look up stock price by ticker symbol.", "name": "stock_lookup", "parameters": {"additionalProperties": false, "properties": {"symbol": {"type": "string"}}, "required": ["symbol"], "type": "object"}, "strict": true},
            {"type": "tool_search"}
        ],
        "tool_choice": "auto",
        "max_output_tokens": 4096
        })
    );
}

#[test]
fn providers_without_a_tool_search_refuse_deferred_tools_and_say_what_to_use() {
    let request = deferring("m", vec![question()]);
    assert_eq!(
        OpenAiChat::default()
            .encode(&request)
            .unwrap_err()
            .to_string(),
        "cannot encode the OpenAI Chat request: the request defers tools (Request::deferred_tools), and this API has no tool search of its own; leave deferred_tools empty and give the agent a ToolSearch, which searches for the tools in skyl"
    );
    assert!(Gemini::default().encode(&request).is_err());
    let mut unknown = deferring("m", vec![question()]);
    unknown.deferred_tools = vec!["stock_lookpu".to_owned()].into();
    assert_eq!(
        Anthropic.encode(&unknown).unwrap_err().to_string(),
        "cannot encode the Anthropic request: Request::deferred_tools names the tool \"stock_lookpu\", which is not among the request's tools; add it to Request::tools or take it out of deferred_tools"
    );
}

#[test]
fn a_native_search_sends_every_tool_deferring_all_but_the_ones_always_offered() {
    let model = ScriptedModel::new().reply_text("Hi");
    let agent = Agent::new(model.clone(), toolbox(3), "m")
        .with_tool_search(ToolSearch::new().always(["get_weather"]).native());
    agent.run(vec![Message::user("Hi")]).blocking().unwrap();
    let request = &model.requests()[0];
    let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["get_weather", "tool_0", "tool_1", "tool_2"]);
    assert_eq!(request.deferred_tools[..], ["tool_0", "tool_1", "tool_2"]);
}
