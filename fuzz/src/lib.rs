//! What the fuzz targets share: a toolbox of tools with every kind of parameter, the checks every
//! result must pass, and a transcript built from raw bytes.

use serde_json::{Value, json};
use skyl::provider::{Adapter, Request};
use skyl::{Message, Part, Role, ToolCall, ToolDefinition, ToolResult, Toolbox};

/// Adds two numbers.
#[skyl::tool]
fn add(a: i64, b: i64) -> i64 {
    a.saturating_add(b)
}

/// Searches notes.
#[skyl::tool]
fn search(
    /// What to look for.
    query: String,
    /// How many results.
    #[serde(default)]
    limit: u8,
    /// Only notes with these tags.
    tags: Option<Vec<String>>,
) -> Result<String, String> {
    if query.is_empty() {
        return Err("the query is empty".into());
    }
    Ok(format!("{} results for {query} {tags:?}", limit))
}

/// Crashes when asked to.
#[skyl::tool]
fn fragile(crash: bool) -> &'static str {
    assert!(!crash, "asked to crash");
    "fine"
}

/// Waits, then answers.
#[skyl::tool]
async fn slow(steps: u8) -> u8 {
    for _ in 0..steps.min(3) {
        YieldOnce(false).await;
    }
    steps
}

struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            std::task::Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }
}

/// The toolbox every dispatch target uses.
pub fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(Add)
        .with(Search)
        .with(Fragile)
        .with(Slow)
}

/// Checks what dispatch promises about one result.
pub fn check_result(call: &ToolCall, result: &ToolResult, toolbox: &Toolbox) {
    assert_eq!(result.call_id, call.id, "the result answers another call");
    if result.is_error {
        assert!(result.content.starts_with("ERROR: "), "{}", result.content);
        let known = toolbox.names().any(|name| name == call.name);
        if known {
            assert!(result.content.contains(&call.name), "{}", result.content);
        }
    }
}

/// Splits fuzz input into a tool name and the arguments, parsed as JSON when they are JSON and
/// passed as a string otherwise (the shape a model's malformed arguments arrive in).
pub fn call_from_bytes(data: &[u8]) -> ToolCall {
    let (name, arguments) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&data[..data.len().min(8)], &data[data.len().min(8)..]),
    };
    let name = String::from_utf8_lossy(name).into_owned();
    let arguments = serde_json::from_slice::<Value>(arguments)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(arguments).into_owned()));
    ToolCall::new("call_1", name, arguments)
}

/// Decodes `data` as a response body, when it is JSON, and checks what a decoded answer promises.
pub fn decode(adapter: &dyn Adapter, data: &[u8]) {
    let Ok(body) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    if let Ok(response) = adapter.decode(&body) {
        assert_eq!(response.message.role, Role::Assistant);
        for call in response.message.tool_calls() {
            assert!(!call.id.is_empty(), "a decoded call has no id");
        }
    }
}

/// A reader of fuzz bytes that never fails: past the end it reads zeros.
pub struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    /// Reads from `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Bytes(data)
    }

    /// The next byte.
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&first, rest)) => {
                self.0 = rest;
                first
            }
            None => 0,
        }
    }

    /// Whether input is left.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A short string: a byte for its length, then that many bytes.
    pub fn text(&mut self) -> String {
        let len = usize::from(self.byte() % 16).min(self.0.len());
        let (text, rest) = self.0.split_at(len);
        self.0 = rest;
        String::from_utf8_lossy(text).into_owned()
    }
}

/// A transcript built from fuzz bytes: any roles, any parts, ids from a small set so that calls
/// and results often meet.
pub fn transcript(bytes: &mut Bytes<'_>) -> Vec<Message> {
    let mut messages = Vec::new();
    while !bytes.is_empty() && messages.len() < 24 {
        let role =
            [Role::User, Role::Assistant, Role::Tool, Role::System][usize::from(bytes.byte() % 4)];
        let mut parts = Vec::new();
        for _ in 0..bytes.byte() % 4 {
            let id = ["call_1", "call_2", "", "call.3:x", "call_1"][usize::from(bytes.byte() % 5)];
            parts.push(match bytes.byte() % 4 {
                0 => Part::Text(bytes.text()),
                1 => Part::ToolCall(ToolCall::new(
                    id,
                    "get_weather",
                    json!({"city": bytes.text()}),
                )),
                2 => Part::ToolResult(ToolResult::success(id, bytes.text())),
                _ => Part::ToolResult(ToolResult::error(id, bytes.text())),
            });
        }
        messages.push(Message { role, parts });
    }
    messages
}

/// The one tool the transcripts call.
pub fn weather_tool() -> ToolDefinition {
    ToolDefinition {
        name: "get_weather".into(),
        description: "Current weather in a city.".into(),
        parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        ..Default::default()
    }
}

/// Encodes `messages` on `adapter` and checks that a body is built only for a valid transcript.
pub fn encode(adapter: &dyn Adapter, messages: &[Message]) {
    let tools = [weather_tool()];
    let request = Request {
        model: "m".into(),
        messages: messages.into(),
        tools: tools.as_slice().into(),
        ..Default::default()
    };
    if adapter.encode(&request).is_ok() {
        assert!(
            skyl::transcript::validate_complete(messages).is_ok(),
            "{} encoded a transcript that breaks the rules",
            adapter.name()
        );
    }
}
