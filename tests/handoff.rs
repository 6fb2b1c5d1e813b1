//! Handoffs: an agent hands the conversation to another, on another provider, which goes on
//! with it under its own instructions and tools; the request the new agent sends is valid on
//! its provider's wire (compared whole), the first provider's own data left out.

use serde_json::{Value, json};
use skyl::agent::{Agent, Handoff, Stop, TakeOverError};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, Provider, Response, caching::Caching,
};
use skyl::testing::ScriptedModel;
use skyl::{Message, Part, ToolCall, Toolbox, transcript::ProviderData};

/// Finds an invoice.
#[skyl::tool(read_only)]
fn find_invoice(
    /// The customer.
    customer: String,
) -> String {
    format!("invoice 7 of {customer}: 120 EUR, paid")
}

/// Refunds an invoice.
#[skyl::tool]
fn refund(
    /// The invoice.
    invoice: u32,
) -> String {
    format!("invoice {invoice} refunded")
}

/// The parameters schema of [`refund`], as every provider's wire sends it.
fn refund_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {"invoice": {
            "type": "integer",
            "description": "The invoice.",
            "minimum": 0,
            "maximum": 4294967295_u64
        }},
        "required": ["invoice"],
        "additionalProperties": false
    })
}

/// The triage agent, on Anthropic: it looks the invoice up, then thinks (a thinking block only
/// Anthropic reads back) and hands over to billing.
fn triage() -> (ScriptedModel, Agent) {
    let mut handing =
        Response::calls([ToolCall::new("toolu_02", "transfer_to_billing", json!({}))]);
    handing.message.parts.insert(
        0,
        Part::Provider(ProviderData::new(
            Provider::Anthropic,
            json!({"type": "thinking", "thinking": "A refund: billing.", "signature": "sig"}),
        )),
    );
    let model = ScriptedModel::new()
        .reply_calls([ToolCall::new(
            "toolu_01",
            "find_invoice",
            json!({"customer": "Ada"}),
        )])
        .reply(handing);
    let agent = Agent::new(
        model.clone(),
        Toolbox::new().with(FindInvoice),
        "claude-sonnet-4-5",
    )
    .with_system("You sort customers' questions.")
    .with_handoff(Handoff::to("billing", "Refunds and payments."));
    (model, agent)
}

#[test]
fn a_handed_over_conversation_goes_on_with_the_other_agent_on_its_own_providers_wire() {
    let (_, triage) = triage();
    let run = triage
        .run(vec![Message::user("Refund my invoice, I am Ada.")])
        .blocking()
        .unwrap();
    assert_eq!(
        run.stop(),
        &Stop::ToolCalled {
            name: "transfer_to_billing".into()
        }
    );
    assert_eq!(run.handed_to(), Some("billing"));

    let model = ScriptedModel::new().reply_text("Invoice 7 is refunded.");
    let billing = Agent::new(model.clone(), Toolbox::new().with(Refund), "gpt-5-mini")
        .with_system("You handle refunds.");
    let after = billing.take_over(&run).unwrap().blocking().unwrap();
    assert_eq!(after.text(), "Invoice 7 is refunded.");
    assert_eq!(
        after.transcript()[..run.transcript().len()],
        *run.transcript()
    );

    let request = &model.requests()[0];
    let body = OpenAiChat::default().encode(request).unwrap();
    let tool_message =
        |id: &str, content: &str| json!({"role": "tool", "tool_call_id": id, "content": content});
    let assistant_call = |id: &str, name: &str, arguments: &str| {
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ]})
    };
    assert_eq!(
        body,
        json!({
            "model": "gpt-5-mini",
            "messages": [
                {"role": "system", "content": "You handle refunds."},
                {"role": "user", "content": "Refund my invoice, I am Ada."},
                assistant_call("toolu_01", "find_invoice", r#"{"customer":"Ada"}"#),
                tool_message("toolu_01", "invoice 7 of Ada: 120 EUR, paid"),
                assistant_call("toolu_02", "transfer_to_billing", "{}"),
                tool_message(
                    "toolu_02",
                    "The conversation was handed to billing, which answers the user from here."
                ),
            ],
            "tools": [{"type": "function", "function": {
                "name": "refund",
                "description": "Refunds an invoice.",
                "parameters": refund_parameters()
            }}],
            "tool_choice": "auto"
        })
    );
    // The thinking block is Anthropic's alone: OpenAI's body above has none of it. Gemini takes
    // the same conversation too.
    let gemini: Value = Gemini::default().encode(request).unwrap();
    assert_eq!(gemini["contents"].as_array().unwrap().len(), 5);
}

/// A handoff is a tool the model reads: its description says to whom it hands and what for.
#[test]
fn a_handoff_is_described_to_the_model_by_the_agent_it_hands_to_and_what_that_agent_is_for() {
    let (model, triage) = triage();
    triage
        .run(vec![Message::user("Refund my invoice, I am Ada.")])
        .blocking()
        .unwrap();
    let request = &model.requests()[0];
    let handoff = request
        .tools
        .iter()
        .find(|tool| tool.name == "transfer_to_billing")
        .unwrap();
    assert_eq!(
        handoff.description,
        "Hands the conversation to billing, which answers from here. Refunds and payments."
    );
}

#[test]
fn a_run_waiting_for_approval_cannot_be_taken_over() {
    let model =
        ScriptedModel::new().reply_calls([ToolCall::new("c1", "refund", json!({"invoice": 7}))]);
    let agent =
        Agent::new(model, Toolbox::new().with(Refund), "m").with_approval_for_destructive(true);
    let run = agent
        .run(vec![Message::user("Refund 7")])
        .blocking()
        .unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    let other = Agent::new(ScriptedModel::new(), Toolbox::new(), "m");
    let error = other.take_over(&run).unwrap_err();
    assert!(matches!(error, TakeOverError::Waiting));
    assert_eq!(
        error.to_string(),
        "the run waits for approval, so its last calls have no results; decide about them and resume it, then hand its conversation over"
    );
}

/// The triage agent on OpenAI: the same calls as [`triage`]'s, with no thinking block.
fn triage_on_openai() -> Agent {
    let model = ScriptedModel::new()
        .reply_calls([ToolCall::new(
            "call_01",
            "find_invoice",
            json!({"customer": "Ada"}),
        )])
        .reply_calls([ToolCall::new("call_02", "transfer_to_billing", json!({}))]);
    Agent::new(model, Toolbox::new().with(FindInvoice), "gpt-5-mini")
        .with_system("You sort customers' questions.")
        .with_handoff(Handoff::to("billing", "Refunds and payments."))
}

/// The body an agent on `model` taking over `run` sends first, on Anthropic's wire.
fn anthropic_body_after(
    run: &skyl::agent::Run,
    model: &ScriptedModel,
    agent: impl FnOnce(ScriptedModel) -> Agent,
) -> Value {
    let agent = agent(model.clone());
    agent.take_over(run).unwrap().blocking().unwrap();
    Anthropic.encode(&model.requests()[0]).unwrap()
}

/// A model of the agent taking over, which answers once.
fn answering() -> ScriptedModel {
    ScriptedModel::new().reply_text("Invoice 7 is paid.")
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

#[test]
fn an_agent_without_tools_takes_over_a_conversation_with_calls_declaring_those_tools_refused() {
    let run = triage_on_openai()
        .run(vec![Message::user("Was my invoice paid? I am Ada.")])
        .blocking()
        .unwrap();
    // Anthropic refuses `tool_use` and `tool_result` blocks in a request without tools: the
    // tools the history called are declared, with the tool choice `none`.
    let billing = |model| {
        Agent::new(model, Toolbox::new(), "claude-haiku-4-5")
            .with_system("You answer billing questions.")
            .with_caching(Caching::off())
    };
    let declared = |name: &str| {
        json!({
            "name": name,
            "description": format!("{name} was called earlier in this conversation, by another agent; it cannot be called now."),
            "input_schema": {"type": "object", "properties": {}}
        })
    };
    assert_eq!(
        anthropic_body_after(&run, &answering(), billing),
        json!({
            "model": "claude-haiku-4-5",
            "max_tokens": 4096,
            "system": "You answer billing questions.",
            "messages": [
                {"role": "user", "content": [text("Was my invoice paid? I am Ada.")]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "call_01", "name": "find_invoice", "input": {"customer": "Ada"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_01", "is_error": false, "content": "invoice 7 of Ada: 120 EUR, paid"}
                ]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "call_02", "name": "transfer_to_billing", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_02", "is_error": false, "content": "The conversation was handed to billing, which answers the user from here."}
                ]},
            ],
            "tools": [declared("find_invoice"), declared("transfer_to_billing")],
            "tool_choice": {"type": "none"}
        })
    );
}

#[test]
fn an_anthropic_agent_with_thinking_takes_over_with_the_last_turn_of_another_models_calls_as_text()
{
    let run = triage_on_openai()
        .run(vec![Message::user("Refund my invoice, I am Ada.")])
        .blocking()
        .unwrap();
    // With extended thinking, Anthropic wants the final assistant message to open with a
    // thinking block, which only its own model writes: that turn's call goes as text; the
    // turns before keep their calls.
    let billing = |model| {
        Agent::new(model, Toolbox::new().with(Refund), "claude-sonnet-4-5")
            .with_caching(Caching::off())
            .with_request_field(
                "thinking",
                json!({"type": "enabled", "budget_tokens": 1024}),
            )
    };
    assert_eq!(
        anthropic_body_after(&run, &answering(), billing),
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "messages": [
                {"role": "user", "content": [text("Refund my invoice, I am Ada.")]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "call_01", "name": "find_invoice", "input": {"customer": "Ada"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_01", "is_error": false, "content": "invoice 7 of Ada: 120 EUR, paid"}
                ]},
                {"role": "assistant", "content": [text(
                    "[Earlier call call_02 of the tool transfer_to_billing, with the arguments {}]"
                )]},
                {"role": "user", "content": [text(
                    "[Earlier call call_02 returned:]\nThe conversation was handed to billing, which answers the user from here."
                )]},
            ],
            "tools": [{
                "name": "refund",
                "description": "Refunds an invoice.",
                "input_schema": refund_parameters()
            }],
            "tool_choice": {"type": "auto"},
            "thinking": {"type": "enabled", "budget_tokens": 1024}
        })
    );

    // Anthropic's own turn, opening with its thinking block, is sent as it came.
    let (_, triage) = triage();
    let run = triage
        .run(vec![Message::user("Refund my invoice, I am Ada.")])
        .blocking()
        .unwrap();
    let body = anthropic_body_after(&run, &answering(), billing);
    assert_eq!(
        body["messages"][3],
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "A refund: billing.", "signature": "sig"},
            {"type": "tool_use", "id": "toolu_02", "name": "transfer_to_billing", "input": {}}
        ]})
    );
}
