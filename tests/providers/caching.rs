//! Prompt caching on the wire, as each provider's documentation describes it: Anthropic's
//! `cache_control` breakpoints (on by default, at most four, each movable or off), OpenAI's
//! `prompt_cache_key` and `prompt_cache_retention`, Gemini's `cachedContent`. Whole bodies.

use crate::support::calling;
use serde_json::{Value, json};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request,
    caching::{CacheTtl, Caching, Retention},
};
use skyl::{Message, Part, Role, ToolDefinition, transcript::tool_result_message};

fn tool(name: &str) -> ToolDefinition {
    ToolDefinition::new(
        name,
        format!("The tool {name}."),
        json!({"type": "object", "properties": {}, "required": []}),
    )
}

/// A system prompt, two tools, and a question answered by one call.
fn request(caching: Caching) -> Request<'static> {
    Request::new(
        "m",
        vec![
            Message::user("Weather?"),
            calling("c1", "zeta", json!({})),
            tool_result_message("c1", "22C"),
        ],
    )
    .with_system("Be brief.")
    .with_tools(vec![tool("alpha"), tool("zeta")])
    .with_caching(caching)
}

fn declaration(name: &str, cache_control: Option<Value>) -> Value {
    let mut declaration = json!({
        "name": name,
        "description": format!("The tool {name}."),
        "input_schema": {"properties": {}, "required": [], "type": "object"}
    });
    if let Some(control) = cache_control {
        declaration["cache_control"] = control;
    }
    declaration
}

/// Anthropic's whole body of `request`: `system` and `messages` as the caching marked them, and
/// `last_tool` the `cache_control` of the last tool's declaration.
fn anthropic_body(system: Value, messages: Value, last_tool: Option<Value>) -> Value {
    json!({
        "model": "m",
        "max_tokens": 4096,
        "system": system,
        "messages": messages,
        "tools": [declaration("alpha", None), declaration("zeta", last_tool)],
        "tool_choice": {"type": "auto"}
    })
}

#[test]
fn anthropic_marks_the_last_tool_the_system_prompt_and_the_newest_two_user_turns_by_default() {
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(
        Anthropic.encode(&request(Caching::default())).unwrap(),
        anthropic_body(
            json!([{"type": "text", "text": "Be brief.", "cache_control": ephemeral}]),
            json!([
                {"role": "user", "content": [{"type": "text", "text": "Weather?", "cache_control": ephemeral}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "zeta", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "is_error": false, "content": "22C", "cache_control": ephemeral}
                ]}
            ]),
            Some(ephemeral.clone()),
        )
    );
}

#[test]
fn anthropic_breakpoints_turn_off_and_move_to_a_pinned_message_with_an_hours_lifetime() {
    let caching = Caching::default()
        .tools(false)
        .system(false)
        .newest_turns(0)
        .at_message(0)
        .ttl(CacheTtl::OneHour);
    assert_eq!(
        Anthropic.encode(&request(caching)).unwrap(),
        anthropic_body(
            json!("Be brief."),
            json!([
                {"role": "user", "content": [
                    {"type": "text", "text": "Weather?", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
                ]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "zeta", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": false, "content": "22C"}]}
            ]),
            None,
        )
    );
    let off = Anthropic.encode(&request(Caching::off())).unwrap();
    assert_eq!(
        off,
        anthropic_body(
            json!("Be brief."),
            json!([
                {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "zeta", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": false, "content": "22C"}]}
            ]),
            None,
        )
    );
}

#[test]
fn anthropic_never_sends_more_than_four_breakpoints() {
    // The tools' and the system prompt's, then the pinned ones by index; the sliding ones get
    // what is left, here nothing.
    let caching = Caching::default().at_message(2).at_message(1).at_message(0);
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(
        Anthropic.encode(&request(caching)).unwrap(),
        anthropic_body(
            json!([{"type": "text", "text": "Be brief.", "cache_control": ephemeral}]),
            json!([
                {"role": "user", "content": [{"type": "text", "text": "Weather?", "cache_control": ephemeral}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "zeta", "input": {}, "cache_control": ephemeral}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": false, "content": "22C"}]}
            ]),
            Some(ephemeral.clone()),
        )
    );
}

#[test]
fn anthropic_puts_no_breakpoint_on_a_thinking_block() {
    // The documentation: thinking blocks cannot carry cache_control. A breakpoint pinned on a
    // message whose last block is thinking goes on the block before it.
    let thinking = json!({"type": "thinking", "thinking": "Hmm.", "signature": "sig"});
    let request = Request::new(
        "m",
        vec![
            Message::user("Hi"),
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Text("Hello.".into()),
                    Part::Provider(skyl::transcript::ProviderData::new(
                        skyl::provider::Provider::Anthropic,
                        thinking.clone(),
                    )),
                ],
            },
            Message::user("Bye"),
        ],
    )
    .with_caching(Caching::default().newest_turns(0).at_message(1));
    assert_eq!(
        Anthropic.encode(&request).unwrap(),
        json!({
            "model": "m",
            "max_tokens": 4096,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Hello.", "cache_control": {"type": "ephemeral"}},
                    thinking
                ]},
                {"role": "user", "content": [{"type": "text", "text": "Bye"}]}
            ]
        })
    );
}

#[test]
fn openai_sends_the_cache_key_and_retention_when_asked_and_nothing_by_default() {
    let caching = Caching::default()
        .key("support-bot")
        .retention(Retention::Day);
    let chat = |caching| {
        OpenAiChat::default()
            .encode(&Request::new("gpt-5", vec![Message::user("Hi")]).with_caching(caching))
            .unwrap()
    };
    assert_eq!(
        chat(caching.clone()),
        json!({
            "model": "gpt-5",
            "messages": [{"role": "user", "content": "Hi"}],
            "prompt_cache_key": "support-bot",
            "prompt_cache_retention": "24h"
        })
    );
    assert_eq!(
        chat(Caching::default()),
        json!({"model": "gpt-5", "messages": [{"role": "user", "content": "Hi"}]})
    );
    assert_eq!(
        OpenAiResponses::default()
            .encode(
                &Request::new("gpt-5", vec![Message::user("Hi")])
                    .with_system("Be brief.")
                    .with_caching(Caching::default().retention(Retention::InMemory))
            )
            .unwrap(),
        json!({
            "model": "gpt-5",
            "instructions": "Be brief.",
            "input": [{"role": "user", "content": "Hi"}],
            "prompt_cache_retention": "in_memory"
        })
    );
}

#[test]
fn gemini_names_a_cached_content_and_leaves_what_it_holds_out() {
    // The cache holds the system instruction and the tools; Gemini refuses a request that names
    // a cache and sets them again.
    let mut request = request(Caching::default().cached_content("cachedContents/abc123"));
    request.messages = vec![Message::user("Weather?")].into();
    assert_eq!(
        Gemini::default().encode(&request).unwrap(),
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Weather?"}]}],
            "cachedContent": "cachedContents/abc123"
        })
    );
    // Implicit caching needs nothing on the wire.
    request.caching = Caching::default();
    let body = Gemini::default().encode(&request).unwrap();
    assert!(body.get("cachedContent").is_none(), "{body}");
    assert_eq!(
        body["systemInstruction"],
        json!({"parts": [{"text": "Be brief."}]})
    );
}
