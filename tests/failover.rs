//! A run on a [`Failover`] over the HTTP transport, against two real HTTP servers on 127.0.0.1
//! (`http_server.rs`), one per provider: the primary answers a tool call and then fails (with a
//! 5xx, or a stream cut off mid-answer), and the secondary, on another provider's wire, finishes
//! the run.
//!
//! What it proves: the run ends as if one model had answered; each request body is the one its
//! provider takes (compared whole: the other provider's call ids made valid, its signatures and
//! reasoning left out), and the tool ran once, also when the run is journaled and started again
//! after a crash.

use std::future::IntoFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use skyl::agent::{Agent, AnsweredBy, DurableRunError, Event, Hooks, Stop, hooks};
use skyl::http::{HttpModel, RetryPolicy};
use skyl::model::{Failover, Member};
use skyl::provider::author::Api;
use skyl::provider::{Anthropic, OpenAiChat, stream::StreamEvent};
use skyl::{Message, Toolbox};

use crate::support::http_server::{End, Reply, Server};
use crate::support::journal::dies_before_results;
use crate::support::scratch::TempDir;

/// What the tools did.
#[derive(Default)]
struct Effects {
    sent: Mutex<Vec<String>>,
}

/// Sends an email.
#[skyl::tool(idempotent = false)]
fn send_email(#[state] effects: &Effects, to: String) -> String {
    effects.sent.lock().unwrap().push(to.clone());
    format!("sent to {to}")
}

fn toolbox() -> Toolbox<Effects> {
    Toolbox::with_state(Effects::default()).with(SendEmail)
}

/// A model of `api` at `server`, retrying what may pass `retries` times (with no wait to speak
/// of) before it gives up.
fn http(api: impl Api + 'static, server: &Server, retries: u32) -> HttpModel {
    HttpModel::builder(api)
        .api_key("sk-test")
        .base_url(&server.url)
        .retry(
            RetryPolicy::default()
                .with_max_retries(retries)
                .with_initial_delay(Duration::from_millis(1))
                .with_max_delay(Duration::from_millis(1)),
        )
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// Claude thinks (a signed thinking block) and calls `send_email`.
const CLAUDE_CALLS: &str = r#"{
  "id": "msg_01FailoverCallsA", "type": "message", "role": "assistant",
  "model": "claude-sonnet-4-5-20250929", "stop_reason": "tool_use", "stop_sequence": null,
  "usage": {"input_tokens": 380, "output_tokens": 61},
  "content": [
    {"type": "thinking", "thinking": "Ada asked for the report by email.", "signature": "EqQBCkYIBxgCKkBsig=="},
    {"type": "text", "text": "Sending it now."},
    {"type": "tool_use", "id": "toolu_01Fa9Lq2Mx7Rt4Bw8Kd3Vn", "name": "send_email", "input": {"to": "ada"}}
  ]
}"#;

const CLAUDE_OVERLOADED: &str =
    r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;

/// GPT answers from the result.
const GPT_ANSWER: &str = r#"{
  "id": "chatcmpl-Failover1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "Sent to Ada."}, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 96, "completion_tokens": 5, "total_tokens": 101}
}"#;

/// The tool's definition as Anthropic takes it, marked as the end of the cached tools.
fn claude_tools() -> Value {
    json!([{
        "name": "send_email",
        "description": "Sends an email.",
        "input_schema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {"to": {"type": "string"}},
            "required": ["to"]
        },
        "cache_control": {"type": "ephemeral"}
    }])
}

/// The tool's definition as OpenAI Chat takes it.
fn gpt_tools() -> Value {
    json!([{
        "type": "function",
        "function": {
            "name": "send_email",
            "description": "Sends an email.",
            "parameters": {
                "type": "object",
                "additionalProperties": false,
                "properties": {"to": {"type": "string"}},
                "required": ["to"]
            }
        }
    }])
}

/// The path and body of each request `server` received.
fn received(server: &Server) -> Vec<(String, Value)> {
    server
        .requests()
        .into_iter()
        .map(|request| (request.path, request.body))
        .collect()
}

/// The user's message as Anthropic takes it, marked as one of the two newest turns cached.
fn claude_user() -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": "Email Ada the report.", "cache_control": {"type": "ephemeral"}}]})
}

/// Checks that Claude was asked `step1`, then `step2` twice (its transport's one retry), and
/// nothing else.
fn assert_claude_retried(claude: &Server, step1: Value, step2: Value) {
    let messages = "/v1/messages".to_owned();
    assert_eq!(
        received(claude),
        [
            (messages.clone(), step1),
            (messages.clone(), step2.clone()),
            (messages, step2)
        ]
    );
}

/// Anthropic's body of step 1, and of step 2 after Claude's call got `result`.
fn claude_bodies(result: &str) -> (Value, Value) {
    let step1 = claude_body(json!([claude_user()]));
    let step2 = claude_body(json!([
        claude_user(),
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Ada asked for the report by email.", "signature": "EqQBCkYIBxgCKkBsig=="},
            {"type": "text", "text": "Sending it now."},
            {"type": "tool_use", "id": "toolu_01Fa9Lq2Mx7Rt4Bw8Kd3Vn", "name": "send_email", "input": {"to": "ada"}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Fa9Lq2Mx7Rt4Bw8Kd3Vn", "is_error": false, "content": result, "cache_control": {"type": "ephemeral"}}
        ]}
    ]));
    (step1, step2)
}

/// Anthropic's body of a step whose transcript is `messages`.
fn claude_body(messages: Value) -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 512,
        "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
        "tools": claude_tools(),
        "tool_choice": {"type": "auto"}
    })
}

/// OpenAI Chat's body of step 2, with `result` as the content of the tool message: Claude's call
/// id is one OpenAI takes as it is, and its thinking (signed for Anthropic only) is left out.
fn gpt_body(result: &str) -> Value {
    json!({
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Email Ada the report."},
            {"role": "assistant", "content": "Sending it now.", "tool_calls": [{
                "id": "toolu_01Fa9Lq2Mx7Rt4Bw8Kd3Vn",
                "type": "function",
                "function": {"name": "send_email", "arguments": "{\"to\":\"ada\"}"}
            }]},
            {"role": "tool", "tool_call_id": "toolu_01Fa9Lq2Mx7Rt4Bw8Kd3Vn", "content": result}
        ],
        "tools": gpt_tools(),
        "tool_choice": "auto",
        "max_tokens": 512
    })
}

/// Claude, which answers step 1 with a call and is then overloaded past its one retry, and GPT,
/// which answers.
async fn overloaded_claude_and_gpt() -> (Server, Server) {
    let claude = Server::start(vec![
        Reply::json(200, CLAUDE_CALLS),
        Reply::json(529, CLAUDE_OVERLOADED),
        Reply::json(529, CLAUDE_OVERLOADED),
    ])
    .await;
    let gpt = Server::start(vec![Reply::json(200, GPT_ANSWER)]).await;
    (claude, gpt)
}

#[tokio::test]
async fn a_primary_answering_5xx_after_a_call_hands_the_run_to_another_provider_and_no_call_runs_twice()
 {
    // The primary answers step 1 with a call, then is overloaded past its one retry.
    let (claude, gpt) = overloaded_claude_and_gpt().await;
    let (agent, answered) = recording(claude_then_gpt(&claude, &gpt));

    let run = agent
        .run(vec![Message::user("Email Ada the report.")])
        .await
        .unwrap();

    assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 2));
    assert_eq!(run.text(), "Sent to Ada.");
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
    assert_eq!(
        *answered.lock().unwrap(),
        [Some("claude".to_owned()), Some("gpt".to_owned())]
    );
    // Claude was asked step 1, then step 2 twice (its transport's one retry); GPT step 2 once.
    let (step1, step2) = claude_bodies("sent to ada");
    assert_claude_retried(&claude, step1, step2);
    assert_eq!(
        received(&gpt),
        [("/chat/completions".to_owned(), gpt_body("sent to ada"))]
    );
}

/// Kimi (an OpenAI-compatible server) streams a call whose id Anthropic's rules refuse, with its
/// reasoning, which only Kimi takes back.
const KIMI_CALLS: &str = concat!(
    r#"data: {"id":"chatcmpl-kimi1","object":"chat.completion.chunk","model":"kimi-k2","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":"Ada wants the report."},"finish_reason":null}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-kimi1","object":"chat.completion.chunk","model":"kimi-k2","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"functions.send_email:0","type":"function","function":{"name":"send_email","arguments":"{\"to\":\"ada\"}"}}]},"finish_reason":null}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-kimi1","object":"chat.completion.chunk","model":"kimi-k2","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-kimi1","object":"chat.completion.chunk","model":"kimi-k2","choices":[],"usage":{"prompt_tokens":70,"completion_tokens":20,"total_tokens":90}}"#,
    "\n\n",
    "data: [DONE]\n\n",
);

/// Kimi begins its answer and the connection is cut.
const KIMI_CUT: &str = concat!(
    r#"data: {"id":"chatcmpl-kimi2","object":"chat.completion.chunk","model":"kimi-k2","choices":[{"index":0,"delta":{"role":"assistant","content":"I sent"},"finish_reason":null}]}"#,
    "\n\n",
);

/// Claude answers from the result, streamed.
const CLAUDE_STREAMED_ANSWER: &str = concat!(
    "event: message_start\n",
    r#"data: {"type":"message_start","message":{"id":"msg_01FailoverAnswerB","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"output_tokens":1}}}"#,
    "\n\n",
    "event: content_block_start\n",
    r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Ada has "}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"the report."}}"#,
    "\n\n",
    "event: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":0}"#,
    "\n\n",
    "event: message_delta\n",
    r#"data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}"#,
    "\n\n",
    "event: message_stop\n",
    r#"data: {"type":"message_stop"}"#,
    "\n\n",
);

#[tokio::test]
async fn a_stream_cut_after_a_call_hands_the_run_to_another_provider_with_the_call_id_made_valid_for_it()
 {
    let kimi = Server::start(vec![
        Reply::stream(KIMI_CALLS.as_bytes(), End::Close),
        Reply::stream(KIMI_CUT.as_bytes(), End::Drop),
    ])
    .await;
    let claude = Server::start(vec![Reply::stream(
        CLAUDE_STREAMED_ANSWER.as_bytes(),
        End::Close,
    )])
    .await;
    let model = Failover::new([
        Member::new(http(OpenAiChat::default().with_server("kimi"), &kimi, 1)).named("kimi"),
        Member::new(http(Anthropic, &claude, 1))
            .named("claude")
            .model_name("claude-sonnet-4-5"),
    ]);
    let agent = Agent::new(model, toolbox(), "kimi-k2")
        .with_system("You are terse.")
        .with_max_tokens(512);

    let mut events = Vec::new();
    let run = agent
        .run(vec![Message::user("Email Ada the report.")])
        .on_event(|event| events.push(event))
        .into_future()
        .await
        .unwrap();

    assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 2));
    assert_eq!(run.text(), "Ada has the report.");
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);
    let told: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            Event::Model(StreamEvent::Failover { from, to, reason }) => {
                Some((from.as_str(), to.as_str(), reason.as_str()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        told,
        [(
            "kimi",
            "claude",
            "the connection to OpenAI Chat failed: the stream broke after 1 event"
        )]
    );
    // What Kimi streamed of its cut answer came before the move, Claude's answer after it.
    let texts: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            Event::Model(StreamEvent::TextDelta(text)) => Some(text.as_str()),
            Event::Model(StreamEvent::Failover { .. }) => Some("<failover>"),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["I sent", "<failover>", "Ada has ", "the report."]);
    let started = events
        .iter()
        .filter(|event| matches!(event, Event::ToolStarted { .. }))
        .count();
    assert_eq!(started, 1);

    let tools = gpt_tools();
    let kimi_user = [
        json!({"role": "system", "content": "You are terse."}),
        json!({"role": "user", "content": "Email Ada the report."}),
    ];
    let kimi_body = |messages: &[Value]| {
        json!({
            "model": "kimi-k2",
            "messages": messages,
            "tools": tools,
            "tool_choice": "auto",
            "max_tokens": 512,
            "stream": true,
            "stream_options": {"include_usage": true}
        })
    };
    let mut step2 = kimi_user.to_vec();
    // Kimi's reasoning goes back to Kimi, with its call id as Kimi wrote it.
    step2.extend([
        json!({"role": "assistant", "content": "", "reasoning_content": "Ada wants the report.", "tool_calls": [{
            "id": "functions.send_email:0",
            "type": "function",
            "function": {"name": "send_email", "arguments": "{\"to\":\"ada\"}"}
        }]}),
        json!({"role": "tool", "tool_call_id": "functions.send_email:0", "content": "sent to ada"}),
    ]);
    let completions = "/chat/completions".to_owned();
    assert_eq!(
        received(&kimi),
        [
            (completions.clone(), kimi_body(&kimi_user)),
            (completions, kimi_body(&step2))
        ]
    );
    // Claude gets the call under an id its pattern takes, the same on the call and its result,
    // and no reasoning of Kimi's.
    let id = "functions_send_email_0_bf2e7a83";
    assert_eq!(
        received(&claude),
        [("/v1/messages".to_owned(), {
            let mut body = claude_body(json!([
                claude_user(),
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": id, "name": "send_email", "input": {"to": "ada"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": id, "is_error": false, "content": "sent to ada", "cache_control": {"type": "ephemeral"}}
                ]}
            ]));
            body["stream"] = json!(true);
            body
        })]
    );
}

/// Claude then GPT, as in the 5xx case, at these servers.
fn claude_then_gpt(claude: &Server, gpt: &Server) -> Failover {
    Failover::new([
        Member::new(http(Anthropic, claude, 1)).named("claude"),
        Member::new(http(OpenAiChat::default().with_compatible(true), gpt, 1))
            .named("gpt")
            .model_name("gpt-4o-mini"),
    ])
}

/// The name of the member that answered each step, as the steps come.
type AnsweredBys = Arc<Mutex<Vec<Option<String>>>>;

/// The agent of these tests on `model`, with Claude's model name, and the name of the member
/// that answered each of its steps, as they come.
fn recording(model: Failover) -> (Agent<Effects, impl Hooks>, AnsweredBys) {
    let answered = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&answered);
    let agent = Agent::new(model, toolbox(), "claude-sonnet-4-5")
        .with_system("You are terse.")
        .with_max_tokens(512)
        .with_hooks(hooks::after_step(move |step| {
            seen.lock()
                .unwrap()
                .push(step.answered_by().map(str::to_owned));
        }));
    (agent, answered)
}

#[tokio::test]
async fn a_journaled_run_cut_off_in_a_call_resumes_on_the_secondary_with_the_call_answered_as_the_journal_says()
 {
    let dir = TempDir::new("failover-journaled");
    let (claude, gpt) = overloaded_claude_and_gpt().await;

    // The process dies after the email was sent, before its result was written.
    let dying = dies_before_results(dir.worker_journal());
    let agent = Agent::new(
        claude_then_gpt(&claude, &gpt),
        toolbox(),
        "claude-sonnet-4-5",
    )
    .with_system("You are terse.")
    .with_max_tokens(512);
    let error = agent
        .run(vec![Message::user("Email Ada the report.")])
        .journaled(&dying, "r1")
        .await
        .unwrap_err();
    assert!(matches!(error, DurableRunError::Journal(_)), "{error}");
    assert_eq!(*agent.toolbox().state().sent.lock().unwrap(), ["ada"]);

    // Started again in a "new process": Claude's answer comes from the journal, the email is
    // outcome-unknown and not sent again, Claude is overloaded and GPT answers.
    let journal = dir.worker_journal();
    let (agent, steps) = recording(claude_then_gpt(&claude, &gpt));
    let run = agent
        .run(vec![Message::user("Email Ada the report.")])
        .journaled(&journal, "r1")
        .await
        .unwrap();
    assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 2));
    assert_eq!(run.text(), "Sent to Ada.");
    assert!(agent.toolbox().state().sent.lock().unwrap().is_empty());
    let unknown = "ERROR: the outcome of this send_email call is unknown: it was started, and the process running it stopped before it finished, so it may or may not have taken effect. It was not run again, so that its effect is not repeated. Before calling send_email again, check whether it took effect (with a tool that reads the state it changes, or by asking the user); call it again only if it did not.";
    let (step1, _) = claude_bodies("");
    let step2 = {
        let mut body = claude_bodies("").1;
        body["messages"][2]["content"][0] = json!({
            "type": "tool_result",
            "tool_use_id": "toolu_01Fa9Lq2Mx7Rt4Bw8Kd3Vn",
            "is_error": true,
            "content": unknown,
            "cache_control": {"type": "ephemeral"}
        });
        body
    };
    assert_claude_retried(&claude, step1, step2);
    assert_eq!(
        received(&gpt),
        // A wire without an error flag says it in the content.
        [(
            "/chat/completions".to_owned(),
            gpt_body(&format!("error: {unknown}"))
        )]
    );

    // Started once more, the finished run asks no model and runs nothing: its call is answered
    // from the journal.
    let mut answered = Vec::new();
    let again = agent
        .run(vec![Message::user("Email Ada the report.")])
        .journaled(&journal, "r1")
        .on_event(|event| {
            if let Event::ToolAnswered { by, .. } = event {
                answered.push(by);
            }
        })
        .into_future()
        .await
        .unwrap();
    assert_eq!(again.transcript(), run.transcript());
    assert_eq!((claude.requests().len(), gpt.requests().len()), (3, 1));
    assert!(agent.toolbox().state().sent.lock().unwrap().is_empty());
    assert_eq!(answered, [AnsweredBy::Journal]);
    // Which model answered each step is journaled with the answer: the first run's step by
    // Claude, the second's by GPT, and the replay reads both back.
    let claude_gpt = [Some("claude".to_owned()), Some("gpt".to_owned())];
    assert_eq!(
        *steps.lock().unwrap(),
        [claude_gpt.clone(), claude_gpt].concat()
    );
}

/// A run that moved from Anthropic to OpenAI Responses to Gemini: each answer with its provider's
/// own data (a signed thinking block; an encrypted reasoning item and the call's item id; a
/// signed call without an id, which skyl minted), each call answered.
fn transcript_of_three_providers() -> Vec<Message> {
    use skyl::provider::{Adapter, Gemini, OpenAiResponses};
    let claude = Anthropic
        .decode(&serde_json::from_str(CLAUDE_CALLS).unwrap())
        .unwrap();
    let gpt = OpenAiResponses::default()
        .decode(&json!({
            "id": "resp_01d311e2", "object": "response", "status": "completed", "model": "gpt-5",
            "output": [
                {"type": "reasoning", "id": "rs_01d311e2", "summary": [], "encrypted_content": "gAAAAABo-6wE"},
                {"type": "function_call", "id": "fc_01d311e2", "call_id": "call_cp3x6W9e", "name": "send_email", "arguments": "{\"to\":\"bo\"}", "status": "completed"}
            ],
            "usage": {"input_tokens": 40, "output_tokens": 148, "total_tokens": 188}
        }))
        .unwrap();
    let gemini = Gemini::default()
        .decode(&json!({
            "candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "send_email", "args": {"to": "cy"}}, "thoughtSignature": "EpwICpkI"}
            ]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 29, "candidatesTokenCount": 10, "totalTokenCount": 39},
            "modelVersion": "gemini-3-pro-preview", "responseId": "QUVVadTS"
        }))
        .unwrap();
    let mut transcript = vec![Message::user("Email Ada, Bo and Cy the report.")];
    for answer in [claude, gpt, gemini] {
        let call = answer.message.tool_calls().next().unwrap().clone();
        transcript.push(answer.message);
        let to = call.arguments["to"].as_str().unwrap().to_owned();
        transcript.push(skyl::transcript::tool_result_message(
            call.id,
            format!("sent to {to}"),
        ));
    }
    transcript
}

/// What `send_email` answers for an email to `to`.
fn sent(to: &str) -> String {
    format!("sent to {to}")
}

#[test]
fn a_transcript_of_several_providers_encodes_for_each_with_valid_ids_and_only_its_own_data() {
    use skyl::provider::{Adapter, Gemini, OpenAiResponses, Request};
    let transcript = transcript_of_three_providers();
    // Without Anthropic's cache marks: what this test checks is ids and each provider's data.
    let request = Request::new("m", transcript.as_slice())
        .with_max_tokens(512)
        .with_caching(skyl::provider::caching::Caching::off());
    let encode = |adapter: &dyn Adapter| adapter.encode(&request).unwrap();
    let user = "Email Ada, Bo and Cy the report.";
    // Ids: Claude's and OpenAI's are Anthropic-valid as they are; Gemini gave none, so skyl
    // minted one from its response id.
    let (claude_id, gpt_id, gemini_id) = (
        "toolu_01Fa9Lq2Mx7Rt4Bw8Kd3Vn",
        "call_cp3x6W9e",
        "gemini_QUVVadTS_0",
    );
    let calls = [(claude_id, "ada"), (gpt_id, "bo"), (gemini_id, "cy")];

    // Anthropic: its own signed thinking, no reasoning item, no Gemini signature.
    let mut messages = vec![json!({"role": "user", "content": [{"type": "text", "text": user}]})];
    for (n, (id, to)) in calls.iter().enumerate() {
        let mut content = Vec::new();
        if n == 0 {
            content.push(json!({"type": "thinking", "thinking": "Ada asked for the report by email.", "signature": "EqQBCkYIBxgCKkBsig=="}));
            content.push(json!({"type": "text", "text": "Sending it now."}));
        }
        content
            .push(json!({"type": "tool_use", "id": id, "name": "send_email", "input": {"to": to}}));
        messages.push(json!({"role": "assistant", "content": content}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "is_error": false, "content": sent(to)}
        ]}));
    }
    assert_eq!(
        encode(&Anthropic),
        json!({"model": "m", "max_tokens": 512, "messages": messages})
    );

    // OpenAI Chat: no provider's data at all.
    let mut messages = vec![json!({"role": "user", "content": user})];
    for (n, (id, to)) in calls.iter().enumerate() {
        messages.push(json!({
            "role": "assistant",
            "content": if n == 0 { "Sending it now." } else { "" },
            "tool_calls": [{"id": id, "type": "function", "function": {
                "name": "send_email", "arguments": format!("{{\"to\":\"{to}\"}}")
            }}]
        }));
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": sent(to)}));
    }
    assert_eq!(
        encode(&OpenAiChat::default()),
        json!({"model": "m", "messages": messages, "max_completion_tokens": 512})
    );

    // OpenAI Responses: its own reasoning item and the item id of its own call; the others'
    // calls go without an item id, as the API takes calls it did not make.
    let mut input = vec![
        json!({"role": "user", "content": user}),
        json!({"role": "assistant", "content": "Sending it now."}),
    ];
    for (n, (id, to)) in calls.iter().enumerate() {
        let mut call = json!({"type": "function_call", "call_id": id, "name": "send_email", "arguments": format!("{{\"to\":\"{to}\"}}")});
        if n == 1 {
            input.push(json!({"type": "reasoning", "id": "rs_01d311e2", "summary": [], "encrypted_content": "gAAAAABo-6wE"}));
            call["id"] = json!("fc_01d311e2");
        }
        input.push(call);
        input.push(json!({"type": "function_call_output", "call_id": id, "output": sent(to)}));
    }
    assert_eq!(
        encode(&OpenAiResponses::default()),
        json!({"model": "m", "input": input, "max_output_tokens": 512})
    );

    // Gemini: its own call with its signature and without the id skyl minted for it; the
    // others' calls with their ids, which the Developer API matches results by. (Gemini 3
    // also wants a signature on the others' calls of the current turn: see `Failover`'s docs.)
    let mut contents = vec![json!({"role": "user", "parts": [{"text": user}]})];
    for (n, (id, to)) in calls.iter().enumerate() {
        let mut parts = Vec::new();
        if n == 0 {
            parts.push(json!({"text": "Sending it now."}));
        }
        let (call, response) = if n == 2 {
            (
                json!({"functionCall": {"name": "send_email", "args": {"to": to}}, "thoughtSignature": "EpwICpkI"}),
                json!({"functionResponse": {"name": "send_email", "response": {"output": sent(to)}}}),
            )
        } else {
            (
                json!({"functionCall": {"name": "send_email", "args": {"to": to}, "id": id}}),
                json!({"functionResponse": {"name": "send_email", "response": {"output": sent(to)}, "id": id}}),
            )
        };
        parts.push(call);
        contents.push(json!({"role": "model", "parts": parts}));
        contents.push(json!({"role": "user", "parts": [response]}));
    }
    assert_eq!(
        encode(&Gemini::default()),
        json!({"contents": contents, "generationConfig": {"maxOutputTokens": 512}})
    );
}
