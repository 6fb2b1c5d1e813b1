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
        let definition = ToolDefinition {
            name: format!("tool_{n}"),
            description: format!("Manages the records of topic {n}."),
            parameters: json!({
                "type": "object",
                "properties": {"id": {"type": "string", "description": "The record."}},
                "required": ["id"],
            }),
            ..Default::default()
        };
        toolbox = toolbox.with(DynamicTool::from_fn(definition, |arguments: Value| {
            format!("record {}", arguments["id"])
        }));
    }
    let weather = ToolDefinition {
        name: "get_weather".into(),
        description: "Gets the weather forecast for a city.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city."}},
            "required": ["city"],
        }),
        ..Default::default()
    };
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
        [
            vec!["tool_7", "find_tools"],
            vec!["tool_7", "find_tools", "get_weather"],
            vec!["tool_7", "find_tools", "get_weather"],
        ]
    );
    assert_eq!(
        model.requests()[0].tools[1].description,
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

/// The tool list of an encoded body.
fn tools(provider: Provider, body: &Value) -> Vec<Value> {
    let tools = match provider {
        Provider::Gemini => &body["tools"][0]["functionDeclarations"],
        _ => &body["tools"],
    };
    tools.as_array().cloned().unwrap_or_default()
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
