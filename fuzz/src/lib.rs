//! What the fuzz targets share: a toolbox of tools with every kind of parameter, the checks every
//! result must pass, a transcript built from raw bytes, and streams built from raw bytes with the
//! checks every streaming decoder must pass, and the checks of a call's arguments parsed as they
//! stream.

use serde_json::{Value, json};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request,
    partial::{Partial, PartialArguments, PartialCalls},
    stream::{SseParser, StreamEvent, Streaming},
};
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
    let (name, arguments) = name_and_arguments(data);
    let arguments = arguments.unwrap_or_else(|| Value::String(String::new()));
    ToolCall::new("call_1", name, arguments)
}

/// A tool name and the arguments from fuzz input: the name up to the first zero byte (or the
/// first 8 bytes), the rest as JSON when it is JSON and as a string otherwise; `None` when
/// nothing is left.
pub fn name_and_arguments(data: &[u8]) -> (String, Option<Value>) {
    let (name, arguments) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&data[..data.len().min(8)], &data[data.len().min(8)..]),
    };
    let name = String::from_utf8_lossy(name).into_owned();
    if arguments.is_empty() {
        return (name, None);
    }
    let arguments = serde_json::from_slice::<Value>(arguments)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(arguments).into_owned()));
    (name, Some(arguments))
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
    ToolDefinition::new(
        "get_weather",
        "Current weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
}

/// Encodes `messages` on `adapter` and checks that a body is built only for a valid transcript.
pub fn encode(adapter: &dyn Adapter, messages: &[Message]) {
    let tools = [weather_tool()];
    let request = Request::new("m", messages).with_tools(tools.as_slice());
    if adapter.encode(&request).is_ok() {
        assert!(
            skyl::transcript::validate_complete(messages).is_ok(),
            "{} encoded a transcript that breaks the rules",
            adapter.provider()
        );
    }
}

/// The streaming adapter a fuzz input's first byte picks.
pub fn streaming(selector: u8) -> Box<dyn Streaming> {
    match selector % 4 {
        0 => Box::new(Anthropic),
        1 => Box::new(OpenAiChat::default()),
        2 => Box::new(OpenAiResponses::default()),
        _ => Box::new(Gemini::default()),
    }
}

/// An event sequence from fuzz bytes: the first byte picks the provider, the rest is event names
/// and data in turn, separated by zero bytes. Event data may hold what no server-sent event can
/// carry (blank lines, a lone `\r`), so the decoders meet it here too.
pub fn stream_events(data: &[u8]) -> (Box<dyn Streaming>, Vec<(String, String)>) {
    let Some((&selector, rest)) = data.split_first() else {
        return (streaming(0), Vec::new());
    };
    let mut fields = rest
        .split(|&b| b == 0)
        .map(|field| String::from_utf8_lossy(field).into_owned());
    let mut events = Vec::new();
    while let Some(name) = fields.next() {
        events.push((name, fields.next().unwrap_or_default()));
    }
    (streaming(selector), events)
}

/// The bytes of `events` as [`stream_events`] reads them back: how the seed corpus is written.
pub fn stream_events_bytes(selector: u8, events: &[(String, String)]) -> Vec<u8> {
    let mut bytes = vec![selector];
    for (n, (name, data)) in events.iter().enumerate() {
        if n > 0 {
            bytes.push(0);
        }
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(data.as_bytes());
    }
    bytes
}

/// A response body from fuzz bytes, as pieces the way a network delivers them: the first byte
/// picks the provider, the second where the body is cut (0: not at all), the rest is the body.
pub fn sse_pieces(data: &[u8]) -> (Box<dyn Streaming>, Vec<&[u8]>) {
    let selector = data.first().copied().unwrap_or(0);
    let cuts = data.get(1).copied().unwrap_or(0);
    let mut body = data.get(2..).unwrap_or_default();
    let mut pieces = Vec::new();
    // A small xorshift from the second byte: piece lengths of 1 to 32 bytes, in no pattern.
    let mut state = u32::from(cuts) | 0x9e37_7900;
    while !body.is_empty() {
        let len = if cuts == 0 {
            body.len()
        } else {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state % 32 + 1) as usize
        };
        let (piece, rest) = body.split_at(len.min(body.len()));
        pieces.push(piece);
        body = rest;
    }
    (streaming(selector), pieces)
}

/// Parses `pieces` with an [`SseParser`], checking that the cuts change nothing, and returns the
/// events.
pub fn parse_sse(pieces: &[&[u8]]) -> Vec<(String, String)> {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    // Fuzz inputs are far below the limit of one event (8 MiB), so no piece is refused.
    for piece in pieces {
        parser
            .feed(piece, |event| {
                events.push((event.event.clone(), event.data.clone()))
            })
            .expect("an event below the limit");
    }
    let mut whole = SseParser::new();
    let mut unbroken = Vec::new();
    whole
        .feed(&pieces.concat(), |event| {
            unbroken.push((event.event.clone(), event.data.clone()))
        })
        .expect("an event below the limit");
    assert_eq!(events, unbroken, "the cuts changed the events");
    assert_eq!(parser.has_partial_event(), whole.has_partial_event());
    events
}

/// Streams `events` through a decoder of `adapter` and checks what a decoder promises: no
/// panic, each call started once before it finishes and finished at most once, an error that
/// sticks, and after a successful `finish`, the calls told finished are exactly the answer's,
/// followed by the usage and the end.
pub fn decode_stream(adapter: &dyn Streaming, events: &[(String, String)]) {
    let mut decoder = adapter.stream_decoder();
    let mut told = Vec::new();
    let mut failed = None;
    for (name, data) in events {
        if let Err(error) = decoder.push(name, data, &mut |event| told.push(event)) {
            failed = Some(error);
            break;
        }
    }
    check_told(&told);
    check_partial_calls(&told);
    if let Some(error) = failed {
        let again = decoder.push("message", "{}", &mut |event| told.push(event));
        assert_eq!(again, Err(error.clone()), "an error does not stick");
        assert!(!decoder.is_complete());
        let before = told.len();
        assert_eq!(decoder.finish(&mut |event| told.push(event)), Err(error));
        assert_eq!(
            told.len(),
            before,
            "a failed stream told more at its finish"
        );
        return;
    }
    let before = told.len();
    let finished = decoder.finish(&mut |event| told.push(event));
    check_told(&told);
    let Ok(response) = finished else {
        assert_eq!(told.len(), before, "a finish that fails told something");
        return;
    };
    assert_eq!(response.message.role, Role::Assistant);
    let mut finished: Vec<&ToolCall> = told
        .iter()
        .filter_map(|event| match event {
            StreamEvent::ToolCallFinished { call, .. } => Some(call),
            _ => None,
        })
        .collect();
    let mut expected: Vec<&ToolCall> = response.message.tool_calls().collect();
    let key = |call: &&ToolCall| {
        (
            call.id.clone(),
            call.name.clone(),
            call.arguments.to_string(),
        )
    };
    finished.sort_by_key(key);
    expected.sort_by_key(key);
    assert_eq!(
        finished, expected,
        "the calls told finished are not the answer's"
    );
    for call in &expected {
        assert!(!call.id.is_empty(), "a streamed call has no id");
    }
    assert_eq!(
        &told[told.len() - 2..],
        &[
            StreamEvent::Usage(response.usage.clone()),
            StreamEvent::Done {
                stop_reason: response.stop_reason.clone()
            }
        ],
        "the stream does not end with the usage and the end"
    );
}

/// What the events told so far must show, finished or not: each call started once, with
/// indexes in order, and finished at most once after its start, under the same id and name.
fn check_told(told: &[StreamEvent]) {
    let mut started: Vec<(&str, &str)> = Vec::new();
    let mut finished = Vec::new();
    for event in told {
        match event {
            StreamEvent::ToolCallStarted { index, id, name } => {
                assert_eq!(*index, started.len(), "calls started out of order");
                started.push((id, name));
            }
            StreamEvent::ToolCallDelta { index, .. } => {
                assert!(*index < started.len(), "a delta for a call not started");
                assert!(!finished.contains(index), "a delta after its call finished");
            }
            StreamEvent::ToolCallFinished { index, call } => {
                assert!(!finished.contains(index), "call {index} finished twice");
                finished.push(*index);
                assert_eq!(
                    started.get(*index).copied(),
                    Some((call.id.as_str(), call.name.as_str())),
                    "call {index} finished as another call than it started"
                );
            }
            _ => {}
        }
    }
}

/// Reads `told` with a [`PartialCalls`] and checks that each finished call's arguments are what
/// `serde_json` makes of its deltas joined (the finished call's own, for a call without deltas).
pub fn check_partial_calls(told: &[StreamEvent]) {
    let mut calls = PartialCalls::new();
    let mut joined: Vec<(usize, String)> = Vec::new();
    for event in told {
        if let StreamEvent::ToolCallDelta { index, arguments } = event {
            match joined.iter_mut().find(|(known, _)| known == index) {
                Some((_, text)) => text.push_str(arguments),
                None => joined.push((*index, arguments.clone())),
            }
        }
        let partial = calls.read(event);
        let StreamEvent::ToolCallFinished { index, call } = event else {
            continue;
        };
        let partial = partial.expect("a finished call was started");
        assert!(partial.is_finished());
        let arguments = partial.arguments();
        let text = joined
            .iter()
            .find(|(known, _)| known == index)
            .map_or("", |(_, text)| text.as_str());
        if text.trim().is_empty() {
            assert_eq!(arguments.value(), Some(&call.arguments));
            continue;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(whole) => assert_eq!(arguments.value(), Some(&whole), "{text:?}"),
            Err(_) => assert!(arguments.error().is_some(), "{text:?} read as JSON"),
        }
    }
}

/// The `partial_arguments` target: the first byte chooses how the rest, taken as the text of a
/// call's arguments, is cut into deltas.
pub fn partial_arguments(data: &[u8]) {
    let Some((&seed, text)) = data.split_first() else {
        return;
    };
    let longest = usize::from(seed % 16) + 1;
    let mut state = u32::from(seed) | 1;
    let mut cuts = Vec::new();
    let mut at = 0;
    while at < text.len() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        at += 1 + (state >> 16) as usize % longest;
        cuts.push(at.min(text.len()));
    }
    check_partial_arguments(text, &cuts);
}

/// Feeds `text` to a [`PartialArguments`] in pieces cut at `cuts` (byte offsets, ascending), as
/// bytes and, where the text is UTF-8, as text cut at character boundaries, and checks that
/// every view on the way is part of what `serde_json::from_slice` reads of the whole, that the
/// text breaks only if serde_json refuses it, and that the end is serde_json's value.
pub fn check_partial_arguments(text: &[u8], cuts: &[usize]) {
    let expected = serde_json::from_slice::<Value>(text);
    // A repeated key replaces a member already complete: the views before it showed the first.
    let unique = serde_json::from_slice::<UniqueKeys>(text).is_ok_and(|unique| unique.0);
    let mut arguments = PartialArguments::new();
    let mut start = 0;
    for cut in cuts.iter().copied().chain([text.len()]) {
        let cut = cut.clamp(start, text.len());
        arguments.push_bytes(&text[start..cut]);
        start = cut;
        if let Ok(whole) = &expected {
            assert_eq!(arguments.error(), None, "JSON broke at byte {cut}");
            if unique {
                check_view(arguments.partial(), whole);
            }
        }
        drop(arguments.to_value());
    }
    let result = arguments.finish();
    match (&result, &expected) {
        (Ok(value), Ok(whole)) => assert_eq!(value, whole),
        (Err(_), Err(_)) => {}
        _ => panic!("the partial parse and serde_json disagree: {result:?}, {expected:?}"),
    }
    if let Ok(text) = std::str::from_utf8(text) {
        let mut arguments = PartialArguments::new();
        let mut start = 0;
        for cut in cuts.iter().copied().chain([text.len()]) {
            let mut cut = cut.clamp(start, text.len());
            while !text.is_char_boundary(cut) {
                cut += 1;
            }
            arguments.push(&text[start..cut]);
            start = cut;
        }
        assert_eq!(arguments.finish(), result, "text and bytes disagree");
    }
}

/// Checks that what `partial` shows is part of `whole`: complete members and items equal to
/// its own and in its order, strings so far its strings' beginnings.
fn check_view(partial: Partial<'_>, whole: &Value) {
    match partial {
        Partial::Nothing => {}
        Partial::Complete(value) => assert_eq!(value, whole),
        Partial::Text(text) => assert!(
            whole.as_str().is_some_and(|whole| whole.starts_with(text)),
            "{text:?} does not begin {whole}"
        ),
        Partial::Number(_) => assert!(whole.is_number(), "{whole} is no number"),
        Partial::Literal(start) => {
            let word = match whole {
                Value::Bool(true) => "true",
                Value::Bool(false) => "false",
                Value::Null => "null",
                other => panic!("{start:?} begins {other}"),
            };
            assert!(word.starts_with(start));
        }
        Partial::Object(object) => {
            let Value::Object(members) = whole else {
                panic!("an object where the whole has {whole}");
            };
            assert!(
                object
                    .members()
                    .iter()
                    .eq(members.iter().take(object.members().len())),
                "{:?} do not begin {whole}",
                object.members()
            );
            if let Some(open) = object.open() {
                assert!(!object.members().contains_key(open.key));
                check_view(open.value, &members[open.key]);
            }
        }
        Partial::Array(array) => {
            let Value::Array(items) = whole else {
                panic!("an array where the whole has {whole}");
            };
            let done = array.items().len();
            assert_eq!(array.items(), &items[..done]);
            if let Some(open) = array.open() {
                check_view(open, &items[done]);
            }
        }
    }
}

/// Whether no object of a JSON text repeats a key.
struct UniqueKeys(bool);

impl<'de> serde::Deserialize<'de> for UniqueKeys {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeysVisitor)
    }
}

struct UniqueKeysVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueKeysVisitor {
    type Value = UniqueKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(true))
    }

    fn visit_i64<E>(self, _: i64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(true))
    }

    fn visit_u64<E>(self, _: u64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(true))
    }

    fn visit_f64<E>(self, _: f64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(true))
    }

    fn visit_str<E>(self, _: &str) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(true))
    }

    fn visit_unit<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(true))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<UniqueKeys, A::Error> {
        let mut unique = true;
        while let Some(UniqueKeys(item)) = items.next_element()? {
            unique &= item;
        }
        Ok(UniqueKeys(unique))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<UniqueKeys, A::Error> {
        let mut keys = std::collections::HashSet::new();
        let mut unique = true;
        while let Some(key) = map.next_key::<String>()? {
            unique &= keys.insert(key);
            unique &= map.next_value::<UniqueKeys>()?.0;
        }
        Ok(UniqueKeys(unique))
    }
}
