//! A 30-step run whose requests change between steps as real ones do: the tools reordered, a
//! schema's keys written in another order, a tool added, one removed, one redefined, the system
//! prompt edited, an earlier message edited. Where nothing a provider caches changed, each
//! request starts with the bytes its predecessor cached, on every wire; where something did, the
//! run reports it, with its cause, and nowhere else.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use skyl::agent::{Agent, Event, Stop, hooks};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses,
    caching::{CacheBreak, CachePrefix},
};
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, ToolDefinition, Toolbox, transcript::tool_result_message};

/// Echoes.
#[skyl::tool]
fn echo() -> &'static str {
    "echo"
}

const STEPS: u32 = 30;

/// A tool of the scripted toolbox as step `step` sends it: its schema's keys in one order on
/// even steps and another on odd ones, as two schema generators would write them; `t3`
/// redefined from step 18.
fn definition(name: &str, step: u32) -> ToolDefinition {
    let parameters = if step.is_multiple_of(2) {
        json!({
            "type": "object",
            "properties": {"path": {"type": "string", "description": "A path."}, "depth": {"type": "integer"}},
            "required": ["path"]
        })
    } else {
        json!({
            "required": ["path"],
            "properties": {"path": {"description": "A path.", "type": "string"}, "depth": {"type": "integer"}},
            "type": "object"
        })
    };
    let description = if name == "t3" && step >= 18 {
        "Reads a file, following links.".to_owned()
    } else {
        format!("The tool {name}.")
    };
    ToolDefinition::new(name, description, parameters)
}

/// The tools of step `step`: `t6` added at step 10, `t2` removed at step 14, and from step 5 the
/// whole list reversed on every odd step (a toolbox whose insertion order changes).
fn tools(step: u32, echo: &ToolDefinition) -> Vec<ToolDefinition> {
    let mut names = vec!["t1", "t2", "t3", "t4", "t5"];
    if step >= 10 {
        names.push("t6");
    }
    if step >= 14 {
        names.retain(|name| *name != "t2");
    }
    let mut tools: Vec<ToolDefinition> = names.iter().map(|name| definition(name, step)).collect();
    tools.push(echo.clone());
    if step >= 5 && !step.is_multiple_of(2) {
        tools.reverse();
    }
    tools
}

/// The cache breaks seeded, by step.
fn seeded() -> BTreeMap<u32, Vec<CacheBreak>> {
    BTreeMap::from([
        (10, vec![CacheBreak::ToolAdded { name: "t6".into() }]),
        (14, vec![CacheBreak::ToolRemoved { name: "t2".into() }]),
        (18, vec![CacheBreak::ToolChanged { name: "t3".into() }]),
        (22, vec![CacheBreak::System]),
        (26, vec![CacheBreak::Message { index: 2 }]),
    ])
}

/// Runs the 30 steps; gives the requests as the model got them and the breaks the run reported.
fn run() -> (
    Vec<skyl::provider::Request<'static>>,
    BTreeMap<u32, Vec<CacheBreak>>,
) {
    let mut model = ScriptedModel::new();
    for step in 1..STEPS {
        model = model.reply_calls([ToolCall::new(format!("c{step}"), "echo", json!({}))]);
    }
    model = model.reply_text("Done.");
    let toolbox = Toolbox::new().with(Echo);
    let echo = toolbox.definitions()[0].clone();
    let changes = hooks::before_request(move |step, request| {
        request.tools = Cow::Owned(tools(step, &echo));
        if step >= 22 {
            request.system = Some("Be brief. Today is Tuesday.".into());
        }
        if step >= 26 {
            request.messages.to_mut()[2] = tool_result_message("c1", "echo (edited)");
        }
    });
    let agent = Agent::new(model.clone(), toolbox, "m")
        .with_system("Be brief.")
        .with_max_steps(STEPS)
        .with_hooks(changes);
    let reported = Arc::new(Mutex::new(BTreeMap::new()));
    let sink = Arc::clone(&reported);
    let run = agent
        .run(vec![Message::user("Go.")])
        .on_event(move |event| {
            if let Event::CacheBroken { step, causes } = event {
                sink.lock().unwrap().insert(step, causes);
            }
        })
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    assert_eq!(run.steps(), STEPS);
    let reported = reported.lock().unwrap().clone();
    (model.requests(), reported)
}

#[test]
fn every_seeded_cache_break_is_reported_with_its_cause_and_no_other() {
    let (_, reported) = run();
    assert_eq!(reported, seeded());
}

#[test]
fn where_nothing_cached_changed_each_request_starts_with_what_the_one_before_cached() {
    let (requests, _) = run();
    assert_eq!(requests.len(), STEPS as usize);
    let seeded = seeded();
    let adapters: [&dyn Adapter; 4] = [
        &Anthropic,
        &OpenAiChat::default(),
        &OpenAiResponses::default(),
        &Gemini::default(),
    ];
    for adapter in adapters {
        let prefixes: Vec<CachePrefix> = requests
            .iter()
            .map(|request| CachePrefix::of(adapter.provider(), &adapter.encode(request).unwrap()))
            .collect();
        for (index, pair) in prefixes.windows(2).enumerate() {
            let step = index as u32 + 2;
            let (before, now) = (&pair[0], &pair[1]);
            assert!(before.cached() > 0, "{} step {step}", adapter.provider());
            if seeded.contains_key(&step) {
                assert!(
                    now.reused(before) < before.cached(),
                    "{} step {step}: a seeded change left the cached start whole",
                    adapter.provider()
                );
            } else {
                // Byte for byte: every segment through the last breakpoint.
                let through = before
                    .segments()
                    .iter()
                    .rposition(|segment| segment.breakpoint)
                    .unwrap();
                // (Where the marks sit may differ: the sliding breakpoints move on.)
                let bytes = |prefix: &CachePrefix| -> Vec<Vec<u8>> {
                    prefix.segments()[..=through]
                        .iter()
                        .map(|segment| segment.bytes.clone())
                        .collect()
                };
                assert!(
                    bytes(now) == bytes(before),
                    "{} step {step}: the start differs",
                    adapter.provider()
                );
                assert_eq!(
                    now.reused(before),
                    before.cached(),
                    "{} step {step}",
                    adapter.provider()
                );
            }
        }
    }
}

/// Draws a chart.
#[skyl::tool(read_only)]
fn chart() -> (&'static str, skyl::content::Image) {
    ("drawn", skyl::content::Image::png(b"\x89PNG\r\n\x1a\n"))
}

#[test]
fn a_hook_changing_the_tool_choice_or_the_thinking_and_a_new_image_are_each_reported_as_a_break() {
    // Steps 1-7: echo, echo, echo, echo, chart (an image in its result), echo; then the answer.
    let mut model = ScriptedModel::new();
    for step in 1..7 {
        let tool = if step == 5 { "chart" } else { "echo" };
        model = model.reply_calls([ToolCall::new(format!("c{step}"), tool, json!({}))]);
    }
    model = model.reply_text("Done.");
    // As the hooks guide does: from step 3 a call is required; from step 4 Claude thinks.
    let changes = hooks::before_request(|step, request| {
        if step >= 3 {
            request.tool_choice = skyl::provider::ToolChoice::Required;
        }
        if step >= 4 {
            request.extra.insert(
                "thinking".into(),
                json!({"type": "enabled", "budget_tokens": 1024}),
            );
        }
    });
    let agent = Agent::new(model, Toolbox::new().with(Echo).with(Chart), "m")
        .with_system("Be brief.")
        .with_hooks(changes);
    let mut reported = BTreeMap::new();
    let run = agent
        .run(vec![Message::user("Go.")])
        .on_event(|event| {
            if let Event::CacheBroken { step, causes } = event {
                reported.insert(step, causes);
            }
        })
        .blocking()
        .unwrap();
    assert_eq!(run.steps(), 7);
    assert_eq!(
        reported,
        BTreeMap::from([
            (3, vec![CacheBreak::ToolChoice]),
            (4, vec![CacheBreak::Thinking]),
            (
                6,
                vec![CacheBreak::Images {
                    previous: 0,
                    now: 1
                }]
            ),
        ])
    );
    assert_eq!(
        [
            CacheBreak::ToolChoice.to_string(),
            CacheBreak::Thinking.to_string(),
            CacheBreak::Images {
                previous: 0,
                now: 1
            }
            .to_string()
        ],
        [
            "the tool choice changed",
            "the thinking settings changed",
            "the transcript's images went from 0 to 1"
        ]
    );
}
