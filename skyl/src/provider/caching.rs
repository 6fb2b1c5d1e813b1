//! Prompt caching: where skyl asks each provider to keep the start of a request ([`Caching`]),
//! a start that stays byte for byte the same from one step to the next (an agent's tools in
//! name order, schemas with their keys sorted), and what broke it when it did not
//! ([`CacheWatch`]).

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{DefaultHasher, Hasher};

use serde_json::{Map, Value};

use super::{Provider, Request, encode};
use crate::content::Content;
use crate::message::Part;
use crate::tool::ToolDefinition;

/// The most `cache_control` breakpoints Anthropic takes in one request.
pub const MAX_BREAKPOINTS: usize = 4;

/// Where a request asks its provider to cache its start ([`Request::caching`],
/// [`Agent::with_caching`](crate::agent::Agent::with_caching)).
///
/// The default places Anthropic's four breakpoints (the tools, the system prompt, the newest two
/// user turns) and asks nothing more of the others, whose caching needs nothing on the wire.
///
/// What each provider is asked, by default and as an option:
///
/// | provider | default | options |
/// |---|---|---|
/// | [`Anthropic`](crate::provider::Anthropic) | `cache_control: {"type": "ephemeral"}` on the last tool, on the system prompt, and on the newest two user turns: four breakpoints, the API's limit | each breakpoint off, a breakpoint pinned on a message ([`Caching::at_message`]), how many newest turns, an hour's lifetime ([`CacheTtl::OneHour`]) |
/// | [`OpenAiChat`](crate::provider::OpenAiChat), [`OpenAiResponses`](crate::provider::OpenAiResponses) | nothing on the wire: OpenAI caches every prompt of 1024 tokens or more by itself, at no charge | `prompt_cache_key` ([`Caching::key`]), `prompt_cache_retention` ([`Caching::retention`]) |
/// | [`Gemini`](crate::provider::Gemini) | nothing on the wire: Gemini's implicit caching keeps recent prefixes by itself | `cachedContent` ([`Caching::cached_content`]), a cache made beforehand with the `cachedContents` API |
///
/// Anthropic bills a cache write at 1.25 times the input price (twice for the hour's lifetime)
/// and a read at a tenth of it: in an agent loop, whose every step resends the last one's
/// request, a step's write is read at the next step, so the breakpoints are on unless turned off
/// ([`Caching::off`]).
///
/// A breakpoint only pays while the bytes before it stay the same. An agent sends its tools sorted
/// by name, and the tools its local [`ToolSearch`](crate::agent::ToolSearch) found after them in
/// the order they were found (so that a find appends to the list and leaves the bytes before it
/// cached); the adapters send each schema with its keywords in sorted order (a `properties`
/// object keeps its order: it is the order the model writes the arguments in). So neither the
/// order the tools were added in nor the order a schema's generator wrote its keys changes the
/// request. What a person changes (a tool, the system prompt, an earlier message, a setting
/// Anthropic keeps its message cache under) still does: [`CacheWatch`] says which, and an agent
/// run reports it as [`Event::CacheBroken`](crate::agent::Event::CacheBroken).
///
/// Each breakpoint can be turned off or moved:
///
/// ```
/// use serde_json::json;
/// use skyl::provider::{Adapter, Anthropic, Request, caching::Caching};
/// use skyl::Message;
///
/// let transcript = vec![
///     Message::user("Here is the contract: ..."),
///     Message::assistant("Read."),
///     Message::user("Who signs it?"),
/// ];
/// // One breakpoint, after the contract; none on the newest turns.
/// let request = Request::new("claude-sonnet-4-5", transcript.as_slice()).with_caching(Caching::default().newest_turns(0).at_message(0));
/// let body = Anthropic.encode(&request).unwrap();
/// assert_eq!(
///     body["messages"][0]["content"][0],
///     json!({"type": "text", "text": "Here is the contract: ...", "cache_control": {"type": "ephemeral"}})
/// );
/// assert_eq!(body["messages"][2]["content"][0], json!({"type": "text", "text": "Who signs it?"}));
///
/// // Nothing asked of any provider:
/// let body = Anthropic.encode(&request.with_caching(Caching::off())).unwrap();
/// assert!(body["messages"][0]["content"][0].get("cache_control").is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Caching {
    /// Anthropic: a breakpoint on the last tool (in the order sent: by name), caching the tools.
    pub tools: bool,
    /// Anthropic: a breakpoint on the system prompt, caching the tools and the system prompt.
    pub system: bool,
    /// Anthropic: breakpoints on the newest this many user messages, which slide forward as the
    /// transcript grows. Two keep the breakpoint of the step before in place, so the next step
    /// reads it however many blocks the step added (Anthropic looks back only 20 blocks for an
    /// earlier breakpoint).
    pub newest_turns: u8,
    /// Anthropic: breakpoints pinned on these messages of the transcript (their indices in
    /// [`Request::messages`]), on the last block each sends: after a long document, say.
    pub pinned: Vec<usize>,
    /// Anthropic: how long a cached prefix lives.
    pub ttl: CacheTtl,
    /// OpenAI: `prompt_cache_key`, which routes requests of one key to the same cache (requests
    /// sharing a long prefix, from one user or one task).
    pub key: Option<String>,
    /// OpenAI: `prompt_cache_retention`.
    pub retention: Option<Retention>,
    /// Gemini: `cachedContent`, the name of a cache made with the `cachedContents` API
    /// (`cachedContents/...`). The cache holds the system instruction and the tools, so a request
    /// that names one sends neither (Gemini refuses a request that does).
    pub cached_content: Option<String>,
}

impl Default for Caching {
    fn default() -> Self {
        Caching {
            tools: true,
            system: true,
            newest_turns: 2,
            pinned: Vec::new(),
            ttl: CacheTtl::default(),
            key: None,
            retention: None,
            cached_content: None,
        }
    }
}

impl Caching {
    /// Nothing asked of any provider: no breakpoint, no key, no cache named. (OpenAI and Gemini
    /// still cache by themselves.)
    pub fn off() -> Self {
        Caching {
            tools: false,
            system: false,
            newest_turns: 0,
            ..Caching::default()
        }
    }

    /// Turns the breakpoint on the tools on or off.
    pub fn tools(mut self, on: bool) -> Self {
        self.tools = on;
        self
    }

    /// Turns the breakpoint on the system prompt on or off.
    pub fn system(mut self, on: bool) -> Self {
        self.system = on;
        self
    }

    /// Puts the sliding breakpoints on the newest `turns` user messages (0 turns them off).
    pub fn newest_turns(mut self, turns: u8) -> Self {
        self.newest_turns = turns;
        self
    }

    /// Pins a breakpoint on message `index` of the transcript.
    pub fn at_message(mut self, index: usize) -> Self {
        self.pinned.push(index);
        self
    }

    /// Sets how long Anthropic keeps what the breakpoints cache.
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sends OpenAI's `prompt_cache_key`.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Sends OpenAI's `prompt_cache_retention`.
    pub fn retention(mut self, retention: Retention) -> Self {
        self.retention = Some(retention);
        self
    }

    /// Names a Gemini cache (`cachedContents/...`) holding the system instruction and tools.
    pub fn cached_content(mut self, name: impl Into<String>) -> Self {
        self.cached_content = Some(name.into());
        self
    }

    /// The breakpoints a request gets, within [`MAX_BREAKPOINTS`]: the tools', the system
    /// prompt's, the pinned ones (lowest index first), then the newest turns'.
    pub(crate) fn plan(&self, has_tools: bool, has_system: bool, messages: usize) -> Plan {
        let mut left = MAX_BREAKPOINTS;
        let tools = self.tools && has_tools;
        left -= usize::from(tools);
        let system = self.system && has_system;
        left -= usize::from(system);
        let mut pinned: Vec<usize> = self
            .pinned
            .iter()
            .copied()
            .filter(|&index| index < messages)
            .collect();
        pinned.sort_unstable();
        pinned.dedup();
        pinned.truncate(left);
        left -= pinned.len();
        Plan {
            tools,
            system,
            pinned,
            newest: usize::from(self.newest_turns).min(left),
        }
    }

    /// How far a request's cached start reaches: through its last breakpoint. On OpenAI and
    /// Gemini, which cache any prefix by themselves, the sliding breakpoints stand for the
    /// whole transcript.
    fn reach(&self, request: &Request<'_>) -> Reach {
        let messages = request.messages.len();
        let plan = self.plan(
            !request.tools.is_empty(),
            !encode::system_texts(request).is_empty(),
            messages,
        );
        if plan.newest > 0 && messages > 0 {
            Reach::Messages(messages - 1)
        } else if let Some(&last) = plan.pinned.last() {
            Reach::Messages(last)
        } else if plan.system {
            Reach::System
        } else if plan.tools {
            Reach::Tools
        } else {
            Reach::Nothing
        }
    }
}

/// The breakpoints of one request.
pub(crate) struct Plan {
    pub(crate) tools: bool,
    pub(crate) system: bool,
    pub(crate) pinned: Vec<usize>,
    pub(crate) newest: usize,
}

/// How long Anthropic keeps a cached prefix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheTtl {
    /// Five minutes, renewed by every read (the API's default: no `ttl` is sent).
    #[default]
    FiveMinutes,
    /// An hour (`"ttl": "1h"`), for steps further apart than five minutes (a person answering
    /// an approval); its writes cost twice the input price.
    OneHour,
}

/// OpenAI's `prompt_cache_retention`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Retention {
    /// `"in_memory"`: minutes, up to an hour.
    InMemory,
    /// `"24h"`: extended caching, up to a day.
    Day,
}

impl Retention {
    /// The value on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Retention::InMemory => "in_memory",
            Retention::Day => "24h",
        }
    }
}

/// Anthropic's `cache_control` for `ttl`.
pub(crate) fn cache_control(ttl: CacheTtl) -> Value {
    let mut control = Map::with_capacity(2);
    control.insert("type".into(), "ephemeral".into());
    if ttl == CacheTtl::OneHour {
        control.insert("ttl".into(), "1h".into());
    }
    Value::Object(control)
}

/// Puts an agent's tools in the order they are sent: by name, so that the order they were added
/// to a toolbox in (or a hook's reordering) does not change the request's bytes; then `found`
/// (the tools a local tool search found), in the order they were found, so that a tool found
/// later is appended and the bytes before it stay as the provider cached them. Clones nothing
/// when the tools already are in that order, as they are at every step after the first.
pub(crate) fn wire_order(tools: &mut std::borrow::Cow<'_, [ToolDefinition]>, found: &[String]) {
    let key = |tool: &ToolDefinition| {
        let at = found.iter().position(|name| *name == tool.name);
        (at, tool.name.clone())
    };
    let in_order = tools.windows(2).all(|pair| key(&pair[0]) <= key(&pair[1]));
    if !in_order {
        tools.to_mut().sort_by_cached_key(key);
    }
}

/// `schema` with the keys of every object in sorted order, except that the members of a
/// `properties` object keep theirs (the order a model writes the arguments in), their schemas
/// sorted in turn. Two schemas equal as JSON are then equal as bytes, whatever order their
/// generator wrote the keys in.
///
/// ```
/// use serde_json::json;
/// use skyl::provider::caching::canonical_schema;
///
/// let a = json!({"type": "object", "properties": {"b": {"type": "string", "description": "B"}, "a": {"type": "integer"}}});
/// let b = json!({"properties": {"b": {"description": "B", "type": "string"}, "a": {"type": "integer"}}, "type": "object"});
/// assert_eq!(canonical_schema(&a).to_string(), canonical_schema(&b).to_string());
/// assert_eq!(
///     canonical_schema(&a).to_string(),
///     r#"{"properties":{"b":{"description":"B","type":"string"},"a":{"type":"integer"}},"type":"object"}"#
/// );
/// ```
pub fn canonical_schema(schema: &Value) -> Value {
    canonical(schema, false)
}

fn canonical(value: &Value, keep_order: bool) -> Value {
    match value {
        Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            if !keep_order {
                keys.sort();
            }
            let mut sorted = Map::with_capacity(members.len());
            for key in keys {
                // The keys of `properties` are names, not keywords; the schema under each is one.
                let names = !keep_order && key == "properties";
                sorted.insert(key.clone(), canonical(&members[key], names));
            }
            Value::Object(sorted)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|item| canonical(item, false)).collect())
        }
        _ => value.clone(),
    }
}

/// One piece of a request body in the order its provider's cache reads it: a tool's
/// declaration, the system prompt, a message.
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Which piece: `tools[name]`, `system`, `messages[3]` (the key its provider gives it).
    pub name: String,
    /// Its bytes as sent, without its `cache_control` marks (a mark moved elsewhere does not
    /// change what is cached).
    pub bytes: Vec<u8>,
    /// Whether a cached prefix may end after it: it carries a `cache_control` mark (Anthropic),
    /// or always (the providers that cache any prefix).
    pub breakpoint: bool,
}

/// A request body cut into [`Segment`]s in the order its provider's cache reads them, to tell
/// how much of one request the next can read from the cache.
///
/// The orders: Anthropic's tools, system, messages (as its documentation says it builds the
/// cache); OpenAI Chat's tools then messages; Responses' tools, `instructions`, then `input`;
/// Gemini's `systemInstruction`, tools, `contents`. The settings around them (model, token
/// limit, tool choice) are not segments.
///
/// ```
/// use skyl::provider::{Adapter, Anthropic, Provider, Request, caching::CachePrefix};
/// use skyl::Message;
///
/// let mut transcript = vec![Message::user("Hello")];
/// let request = |messages: &[Message]| Request::new("claude-sonnet-4-5", messages.to_vec()).with_system("Be brief.");
/// let first = CachePrefix::of(Provider::Anthropic, &Anthropic.encode(&request(&transcript)).unwrap());
/// transcript.push(Message::assistant("Hi."));
/// transcript.push(Message::user("Bye"));
/// let second = CachePrefix::of(Provider::Anthropic, &Anthropic.encode(&request(&transcript)).unwrap());
/// // The second request reads all of the first from the cache.
/// assert_eq!(second.reused(&first), first.cached());
/// assert!(second.reused(&first) < second.len());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachePrefix {
    segments: Vec<Segment>,
}

impl CachePrefix {
    /// The segments of `body`, a body built by `provider`'s adapter. Keys a provider does not
    /// have are skipped, so a body of another provider gives few segments rather than an error.
    pub fn of(provider: Provider, body: &Value) -> CachePrefix {
        let mut segments = Vec::new();
        let explicit = provider == Provider::Anthropic;
        let mut add = |name: String, value: &Value| {
            let (bytes, marked) = unmarked_bytes(value);
            segments.push(Segment {
                name,
                bytes,
                breakpoint: marked || !explicit,
            });
        };
        let tools = |add: &mut dyn FnMut(String, &Value), tools: Option<&Value>| {
            for tool in tools.and_then(Value::as_array).into_iter().flatten() {
                let name = tool
                    .get("name")
                    .or_else(|| tool.pointer("/function/name"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                add(format!("tools[{name}]"), tool);
            }
        };
        let items = |add: &mut dyn FnMut(String, &Value), key: &str| {
            for (index, item) in body[key].as_array().into_iter().flatten().enumerate() {
                add(format!("{key}[{index}]"), item);
            }
        };
        if provider == Provider::Anthropic {
            tools(&mut add, body.get("tools"));
            if let Some(system) = body.get("system") {
                add("system".into(), system);
            }
            items(&mut add, "messages");
        } else if provider == Provider::OpenAiChat {
            tools(&mut add, body.get("tools"));
            items(&mut add, "messages");
        } else if provider == Provider::OpenAiResponses {
            tools(&mut add, body.get("tools"));
            if let Some(instructions) = body.get("instructions") {
                add("instructions".into(), instructions);
            }
            items(&mut add, "input");
        } else if provider == Provider::Gemini {
            if let Some(system) = body.get("systemInstruction") {
                add("systemInstruction".into(), system);
            }
            tools(&mut add, body.pointer("/tools/0/functionDeclarations"));
            items(&mut add, "contents");
        }
        CachePrefix { segments }
    }

    /// The segments, in the order the cache reads them.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The bytes of all segments.
    pub fn len(&self) -> usize {
        self.segments
            .iter()
            .map(|segment| segment.bytes.len())
            .sum()
    }

    /// Whether there are no segments.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The bytes through the last breakpoint: what this request may write to the cache.
    pub fn cached(&self) -> usize {
        let mut total = 0;
        let mut cached = 0;
        for segment in &self.segments {
            total += segment.bytes.len();
            if segment.breakpoint {
                cached = total;
            }
        }
        cached
    }

    /// The bytes of this request's start that `previous` cached: the longest run of leading
    /// segments the two share, ending at one of `previous`'s breakpoints.
    pub fn reused(&self, previous: &CachePrefix) -> usize {
        let mut total = 0;
        let mut reused = 0;
        for (now, then) in self.segments.iter().zip(&previous.segments) {
            if now.bytes != then.bytes {
                break;
            }
            total += now.bytes.len();
            if then.breakpoint {
                reused = total;
            }
        }
        reused
    }
}

/// The bytes of a segment without its `cache_control` marks (on itself or on the blocks of its
/// `content`), and whether it had one.
fn unmarked_bytes(value: &Value) -> (Vec<u8>, bool) {
    fn strip(value: &mut Value) -> bool {
        match value {
            Value::Object(members) => {
                let mut marked = members.shift_remove("cache_control").is_some();
                if let Some(Value::Array(blocks)) = members.get_mut("content") {
                    for block in blocks {
                        if let Value::Object(block) = block {
                            marked |= block.shift_remove("cache_control").is_some();
                        }
                    }
                }
                marked
            }
            Value::Array(blocks) => blocks.iter_mut().fold(false, |marked, block| {
                let removed = block
                    .as_object_mut()
                    .is_some_and(|block| block.shift_remove("cache_control").is_some());
                marked | removed
            }),
            _ => false,
        }
    }
    let mut value = value.clone();
    let marked = strip(&mut value);
    (serde_json::to_vec(&value).unwrap_or_default(), marked)
}

/// How far a request's cached start reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach {
    Nothing,
    Tools,
    System,
    /// Through the message at this index.
    Messages(usize),
}

/// What a request's start was made of, to compare it with the next.
#[derive(Clone, Debug)]
struct Fingerprint {
    model: String,
    tools: BTreeMap<String, u64>,
    system: u64,
    /// The settings Anthropic keeps its message cache under: the tool choice, the `thinking`
    /// field, how many images the transcript holds.
    tool_choice: u64,
    thinking: u64,
    images: usize,
    messages: Vec<u64>,
    reach: Reach,
}

impl Fingerprint {
    fn of(request: &Request<'_>) -> Self {
        Fingerprint {
            model: request.model.to_string(),
            tools: request
                .tools
                .iter()
                .map(|tool| {
                    let wire = (
                        &tool.name,
                        &tool.description,
                        canonical_schema(&tool.parameters),
                    );
                    (tool.name.clone(), digest(&wire))
                })
                .collect(),
            system: digest(&encode::system_texts(request)),
            tool_choice: digest(&request.tool_choice),
            thinking: digest(&request.extra.get("thinking")),
            images: request
                .messages
                .iter()
                .flat_map(|message| &message.parts)
                .filter_map(|part| match part {
                    Part::ResultContent(content) => Some(&content.content),
                    _ => None,
                })
                .flatten()
                .filter(|part| matches!(part, Content::Image(_)))
                .count(),
            messages: request.messages.iter().map(digest).collect(),
            reach: request.caching.reach(request),
        }
    }
}

/// A digest of `value`'s JSON, stable within a process. The JSON is fed to the hasher as it is
/// written, so a long transcript is not copied at every step.
pub(crate) fn digest(value: &impl serde::Serialize) -> u64 {
    struct Feed(DefaultHasher);
    impl std::io::Write for Feed {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.write(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut feed = Feed(DefaultHasher::new());
    // Writing to a hasher cannot fail, and the shapes hashed here always serialize.
    let _ = serde_json::to_writer(&mut feed, value);
    feed.0.finish()
}

/// Why the start of a request differs from the start the request before it cached.
///
/// What each provider's cache is keyed on, from its documentation: Anthropic's is a hierarchy
/// (tools, then system, then messages), where a change of the tools invalidates every level, of
/// the system prompt the system and message levels, and of the tool choice, the `thinking`
/// parameters, or the images anywhere in the prompt (one added or removed) the message level
/// alone. OpenAI's and Gemini's cache a prefix of the prompt read exactly: the tools and the
/// images in it must be identical, the settings around it are not part of it. The watch reports
/// by Anthropic's rules, the strictest; the three settings ([`ToolChoice`](Self::ToolChoice),
/// [`Thinking`](Self::Thinking), [`Images`](Self::Images)) break Anthropic's cache alone.
///
/// Non-exhaustive: match it with a wildcard arm. `Display` says it in a short sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheBreak {
    /// The request asks another model, whose cache is its own.
    Model {
        /// The model asked before.
        previous: String,
        /// The model asked now.
        now: String,
    },
    /// A tool was added.
    ToolAdded {
        /// Its name.
        name: String,
    },
    /// A tool was removed.
    ToolRemoved {
        /// Its name.
        name: String,
    },
    /// A tool's name is the same, its description or schema not.
    ToolChanged {
        /// Its name.
        name: String,
    },
    /// The system prompt changed.
    System,
    /// The message at `index` of the transcript was edited or removed.
    Message {
        /// Its index in [`Request::messages`].
        index: usize,
    },
    /// The tool choice changed ([`Request::tool_choice`]): Anthropic's message cache is kept
    /// under one tool choice.
    ToolChoice,
    /// The `thinking` field of [`Request::extra`] changed (extended thinking turned on or off,
    /// or its budget changed): Anthropic's message cache is kept under one.
    Thinking,
    /// An image was added to or removed from the transcript: Anthropic's message cache is kept
    /// for one set of images.
    Images {
        /// How many images the transcript held before.
        previous: usize,
        /// How many it holds now.
        now: usize,
    },
}

impl fmt::Display for CacheBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheBreak::Model { previous, now } => {
                write!(f, "the model changed from {previous} to {now}")
            }
            CacheBreak::ToolAdded { name } => write!(f, "the tool {name} was added"),
            CacheBreak::ToolRemoved { name } => write!(f, "the tool {name} was removed"),
            CacheBreak::ToolChanged { name } => {
                write!(f, "the definition of the tool {name} changed")
            }
            CacheBreak::System => f.write_str("the system prompt changed"),
            CacheBreak::Message { index } => {
                write!(f, "message {index} of the transcript was edited or removed")
            }
            CacheBreak::ToolChoice => f.write_str("the tool choice changed"),
            CacheBreak::Thinking => f.write_str("the thinking settings changed"),
            CacheBreak::Images { previous, now } => {
                write!(f, "the transcript's images went from {previous} to {now}")
            }
        }
    }
}

/// Watches the requests of a conversation, one after the other, and says when one's start
/// differs from what the request before it cached (through its last breakpoint, as its
/// [`Request::caching`] placed them), and why.
///
/// An agent run keeps one and reports what it finds as
/// [`Event::CacheBroken`](crate::agent::Event::CacheBroken); code driving a provider itself can
/// keep its own.
///
/// ```
/// use skyl::provider::{Request, caching::{CacheBreak, CacheWatch}};
/// use skyl::Message;
///
/// let mut watch = CacheWatch::new();
/// let mut transcript = vec![Message::user("Hello"), Message::assistant("Hi."), Message::user("Bye")];
/// let request = |transcript: &[Message]| Request::new("m", transcript.to_vec());
/// assert!(watch.observe(&request(&transcript)).is_empty());
/// transcript.push(Message::assistant("Bye."));
/// assert!(watch.observe(&request(&transcript)).is_empty());
/// transcript[1] = Message::assistant("Hello!");
/// assert_eq!(watch.observe(&request(&transcript)), [CacheBreak::Message { index: 1 }]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CacheWatch {
    previous: Option<Fingerprint>,
}

impl CacheWatch {
    /// A watch that has seen no request.
    pub fn new() -> Self {
        CacheWatch::default()
    }

    /// What in `request` differs from the start the request observed before it cached, in the
    /// order the start is read: the model, the tools (by name), the system prompt, the settings
    /// the message cache is kept under (the tool choice, the thinking, the images), then the
    /// first message that differs. Empty when the start holds, and for the first request.
    pub fn observe(&mut self, request: &Request<'_>) -> Vec<CacheBreak> {
        let now = Fingerprint::of(request);
        let breaks = self
            .previous
            .as_ref()
            .map_or_else(Vec::new, |previous| breaks(previous, &now));
        self.previous = Some(now);
        breaks
    }
}

fn breaks(previous: &Fingerprint, now: &Fingerprint) -> Vec<CacheBreak> {
    if previous.reach == Reach::Nothing {
        return Vec::new();
    }
    if previous.model != now.model {
        return vec![CacheBreak::Model {
            previous: previous.model.clone(),
            now: now.model.clone(),
        }];
    }
    let mut breaks = Vec::new();
    let names: std::collections::BTreeSet<&String> =
        previous.tools.keys().chain(now.tools.keys()).collect();
    for name in names {
        let name_owned = || name.clone();
        match (previous.tools.get(name), now.tools.get(name)) {
            (Some(_), None) => breaks.push(CacheBreak::ToolRemoved { name: name_owned() }),
            (None, Some(_)) => breaks.push(CacheBreak::ToolAdded { name: name_owned() }),
            (Some(a), Some(b)) if a != b => {
                breaks.push(CacheBreak::ToolChanged { name: name_owned() });
            }
            _ => {}
        }
    }
    if previous.reach == Reach::Tools {
        return breaks;
    }
    if previous.system != now.system {
        breaks.push(CacheBreak::System);
    }
    if let Reach::Messages(last) = previous.reach {
        if previous.tool_choice != now.tool_choice {
            breaks.push(CacheBreak::ToolChoice);
        }
        if previous.thinking != now.thinking {
            breaks.push(CacheBreak::Thinking);
        }
        if previous.images != now.images {
            breaks.push(CacheBreak::Images {
                previous: previous.images,
                now: now.images,
            });
        }
        let edited =
            (0..=last).find(|&index| previous.messages.get(index) != now.messages.get(index));
        breaks.extend(edited.map(|index| CacheBreak::Message { index }));
    }
    breaks
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::message::Message;

    fn request(
        caching: Caching,
        system: &str,
        tool_description: &str,
        first: &str,
    ) -> Request<'static> {
        Request {
            model: "m".into(),
            system: Some(system.to_owned().into()),
            messages: vec![
                Message::user(first),
                Message::assistant("Hi."),
                Message::user("Go on."),
            ]
            .into(),
            tools: vec![ToolDefinition {
                name: "t".into(),
                description: tool_description.into(),
                parameters: json!({"type": "object"}),
                ..Default::default()
            }]
            .into(),
            caching,
            ..Default::default()
        }
    }

    #[test]
    fn a_watch_compares_only_through_the_last_breakpoint() {
        // Only the tools are cached: an edited system prompt or message breaks nothing cached.
        let tools_only = Caching::off().tools(true);
        let mut watch = CacheWatch::new();
        assert_eq!(
            watch.observe(&request(tools_only.clone(), "A", "T", "Hello")),
            []
        );
        assert_eq!(
            watch.observe(&request(tools_only.clone(), "B", "T", "Howdy")),
            []
        );
        assert_eq!(
            watch.observe(&request(tools_only, "B", "T2", "Howdy")),
            [CacheBreak::ToolChanged { name: "t".into() }]
        );

        // Nothing cached, nothing to break.
        let mut watch = CacheWatch::new();
        assert_eq!(
            watch.observe(&request(Caching::off(), "A", "T", "Hello")),
            []
        );
        assert_eq!(
            watch.observe(&request(Caching::off(), "B", "T2", "Howdy")),
            []
        );

        // Through the system prompt: its edit breaks, a message's does not.
        let system = Caching::off().system(true);
        let mut watch = CacheWatch::new();
        assert_eq!(
            watch.observe(&request(system.clone(), "A", "T", "Hello")),
            []
        );
        assert_eq!(
            watch.observe(&request(system, "B", "T", "Howdy")),
            [CacheBreak::System]
        );
    }

    #[test]
    fn another_model_is_one_break_whatever_else_changed() {
        let mut watch = CacheWatch::new();
        watch.observe(&request(Caching::default(), "A", "T", "Hello"));
        let mut other = request(Caching::default(), "B", "T2", "Howdy");
        other.model = "n".into();
        let breaks = watch.observe(&other);
        assert_eq!(
            breaks,
            [CacheBreak::Model {
                previous: "m".into(),
                now: "n".into()
            }]
        );
        assert_eq!(breaks[0].to_string(), "the model changed from m to n");
    }
}
