//! The provider-neutral message model: who said what, which tools were called, and what they answered.
//!
//! Every adapter in [`provider`](crate::provider) maps these types onto one provider's wire format.
//! A transcript is a `Vec<Message>`; [`transcript::validate`](crate::transcript::validate) checks
//! that it obeys the ordering rules every provider enforces.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::ResultContent;

pub(crate) mod call_arguments;

/// Who a [`Message`] comes from.
///
/// Serialized in lower case (`"system"`, `"user"`, `"assistant"`, `"tool"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions from the application. Adapters move them to where each provider wants them.
    System,
    /// The person talking to the model.
    User,
    /// The model: text and [`ToolCall`]s.
    Assistant,
    /// The application answering the model's tool calls with [`ToolResult`]s.
    Tool,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        })
    }
}

/// One turn of a conversation: a role and the parts it said.
///
/// Build one directly, or with [`Message::system`], [`Message::user`], [`Message::assistant`],
/// [`tool_result_message`] and [`tool_error_message`].
///
/// ```
/// use skyl::{Message, Part, Role, ToolCall};
/// use serde_json::json;
///
/// let turn = Message {
///     role: Role::Assistant,
///     parts: vec![
///         Part::Text("Checking.".into()),
///         Part::ToolCall(ToolCall::new("call_1", "get_weather", json!({"city": "Kampala"}))),
///     ],
/// };
/// assert_eq!(turn.tool_calls().count(), 1);
/// ```
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said, in order.
    pub parts: Vec<Part>,
}

impl Message {
    /// A message of `role` holding one text part.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Message {
            role,
            parts: vec![Part::Text(text.into())],
        }
    }

    /// A system message holding one text part.
    ///
    /// ```
    /// let m = skyl::Message::system("You are terse.");
    /// assert_eq!(m.role, skyl::Role::System);
    /// ```
    pub fn system(text: impl Into<String>) -> Self {
        Message::text(Role::System, text)
    }

    /// A user message holding one text part.
    ///
    /// ```
    /// let m = skyl::Message::user("Weather in Kampala?");
    /// assert_eq!(m.text_content(), "Weather in Kampala?");
    /// ```
    pub fn user(text: impl Into<String>) -> Self {
        Message::text(Role::User, text)
    }

    /// An assistant message holding one text part.
    ///
    /// ```
    /// let m = skyl::Message::assistant("22C and sunny.");
    /// assert_eq!(m.role, skyl::Role::Assistant);
    /// ```
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::text(Role::Assistant, text)
    }

    /// The tool calls in this message, in order.
    ///
    /// ```
    /// use skyl::{Message, Part, Role, ToolCall};
    ///
    /// let turn = Message {
    ///     role: Role::Assistant,
    ///     parts: vec![
    ///         Part::ToolCall(ToolCall::new("a", "first", serde_json::json!({}))),
    ///         Part::ToolCall(ToolCall::new("b", "second", serde_json::json!({}))),
    ///     ],
    /// };
    /// let names: Vec<&str> = turn.tool_calls().map(|c| c.name.as_str()).collect();
    /// assert_eq!(names, ["first", "second"]);
    /// ```
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> + '_ {
        self.parts.iter().filter_map(|part| match part {
            Part::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// The tool results in this message, in order.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResult> + '_ {
        self.parts.iter().filter_map(|part| match part {
            Part::ToolResult(result) => Some(result),
            _ => None,
        })
    }

    /// The rich content beside the result of `call_id` ([`Part::ResultContent`]), if the
    /// message has any.
    pub fn result_content(&self, call_id: &str) -> Option<&ResultContent> {
        self.parts.iter().find_map(|part| match part {
            Part::ResultContent(content) if content.call_id == call_id => Some(content),
            _ => None,
        })
    }

    /// All text parts ([`Part::text`]) joined with no separator (most messages have one text
    /// part).
    pub fn text_content(&self) -> String {
        self.parts.iter().filter_map(Part::text).collect()
    }
}

/// One piece of a [`Message`].
///
/// Serialized externally tagged: `{"text": "hi"}`, `{"tool_call": {...}}`, `{"tool_result": {...}}`,
/// `{"provider_text": {...}}`, `{"provider": {...}}`, `{"result_content": {...}}`.
///
/// Provider data that belongs to one part travels inside that part: a call's in
/// [`ToolCall::provider_data`], a text's in [`Part::ProviderText`]. Only what stands on its own in
/// the provider's answer (a thinking block, a reasoning item) is a part of its own,
/// [`Part::Provider`]. So editing a transcript (dropping a part, trimming history) can never pair
/// one part's provider data with another part.
///
/// Non-exhaustive: a kind of part may be added (images, files); match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Part {
    /// Plain text.
    Text(String),
    /// The model asks the application to run a tool.
    ToolCall(ToolCall),
    /// The application's answer to a [`ToolCall`].
    ToolResult(ToolResult),
    /// Text that came with provider data the provider needs back on that same text: a Gemini
    /// `thoughtSignature` on a text part, the id of the OpenAI Responses message item that held
    /// the text. It is text like [`Part::Text`] ([`Part::text`] and [`Message::text_content`]
    /// read both); the adapter of `provider_data.provider` sends the data back with the text, and
    /// the others send the text alone.
    ProviderText {
        /// The text.
        text: String,
        /// The provider data that belongs to this text.
        provider_data: ProviderData,
    },
    /// Something a provider returned that skyl does not interpret but that must be sent back to
    /// the same provider as it came: an Anthropic thinking block, an OpenAI Responses reasoning
    /// item. Adapters for other providers skip it.
    Provider(ProviderData),
    /// What a tool answered beside its prose (images, audio, documents, resources, structured
    /// JSON), in a tool message right after the [`ToolResult`] of the same call id. See
    /// [`Content`](crate::Content) for how each adapter puts it on its wire.
    ResultContent(ResultContent),
}

impl Part {
    /// The text of a [`Part::Text`] or a [`Part::ProviderText`].
    ///
    /// ```
    /// use skyl::Part;
    ///
    /// assert_eq!(Part::Text("hi".into()).text(), Some("hi"));
    /// assert_eq!(skyl::transcript::tool_result_message("c", "22C").parts[0].text(), None);
    /// ```
    pub fn text(&self) -> Option<&str> {
        match self {
            Part::Text(text) | Part::ProviderText { text, .. } => Some(text),
            _ => None,
        }
    }
}

impl From<ToolCall> for Part {
    fn from(call: ToolCall) -> Self {
        Part::ToolCall(call)
    }
}

impl From<ResultContent> for Part {
    fn from(content: ResultContent) -> Self {
        Part::ResultContent(content)
    }
}

impl From<ToolResult> for Part {
    fn from(result: ToolResult) -> Self {
        Part::ToolResult(result)
    }
}

/// Which provider's wire format something belongs to: one per
/// [`Adapter`](crate::provider::Adapter).
///
/// An open set: the four built-in adapters have theirs as constants ([`Provider::Anthropic`],
/// [`Provider::OpenAiChat`], [`Provider::OpenAiResponses`], [`Provider::Gemini`]), and a provider
/// written outside skyl makes its own, a constant too, from a [`ProviderInfo`]. Two providers
/// are the same when their ids and names are. It is one pointer wide, so every error that names
/// its provider stays small.
///
/// Serialized as its [`as_str`](Self::as_str) id, which is how [`ProviderData`] names its owner in
/// a saved transcript; displayed as the provider's name, as error messages say it.
///
/// ```
/// use skyl::provider::{Provider, ProviderInfo};
///
/// assert_eq!(Provider::OpenAiChat.as_str(), "openai_chat");
/// assert_eq!(Provider::OpenAiChat.to_string(), "OpenAI Chat");
/// assert_eq!(serde_json::to_value(Provider::Gemini).unwrap(), "gemini");
///
/// // A provider of your own: a constant, matched like the built-in ones.
/// const OLLAMA: Provider = Provider::new(&ProviderInfo::new("ollama", "Ollama"));
/// match OLLAMA {
///     Provider::Anthropic => unreachable!(),
///     OLLAMA => assert_eq!(OLLAMA.name(), "Ollama"),
///     _ => unreachable!(),
/// }
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Provider(&'static ProviderInfo);

/// What names a [`Provider`]: its id and its name. Made in a constant, where
/// [`Provider::new`] takes a reference to it.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ProviderInfo {
    id: &'static str,
    name: &'static str,
}

impl ProviderInfo {
    /// `id` names the provider in saved provider data (`"ollama"`; keep it stable, a saved
    /// transcript holds it); `name` is how people and error messages say it (`"Ollama"`).
    pub const fn new(id: &'static str, name: &'static str) -> ProviderInfo {
        ProviderInfo { id, name }
    }
}

#[allow(non_upper_case_globals)] // Named as the variants of the enum this type was, which code matches on.
impl Provider {
    /// The Anthropic Messages API ([`Anthropic`](crate::provider::Anthropic)).
    pub const Anthropic: Provider = Provider(&ProviderInfo::new("anthropic", "Anthropic"));
    /// OpenAI Chat Completions and the servers compatible with it
    /// ([`OpenAiChat`](crate::provider::OpenAiChat)).
    pub const OpenAiChat: Provider = Provider(&ProviderInfo::new("openai_chat", "OpenAI Chat"));
    /// The OpenAI Responses API ([`OpenAiResponses`](crate::provider::OpenAiResponses)).
    pub const OpenAiResponses: Provider =
        Provider(&ProviderInfo::new("openai_responses", "OpenAI Responses"));
    /// Gemini `generateContent` ([`Gemini`](crate::provider::Gemini)).
    pub const Gemini: Provider = Provider(&ProviderInfo::new("gemini", "Gemini"));

    /// The provider `info` names.
    pub const fn new(info: &'static ProviderInfo) -> Provider {
        Provider(info)
    }

    /// The id: `"anthropic"`, `"openai_chat"`, `"openai_responses"`, `"gemini"`, or the one given
    /// to [`ProviderInfo::new`].
    pub const fn as_str(self) -> &'static str {
        self.0.id
    }

    /// The name people use: `"Anthropic"`, `"OpenAI Chat"`, `"OpenAI Responses"`, `"Gemini"`, or
    /// the one given to [`ProviderInfo::new`].
    pub const fn name(self) -> &'static str {
        self.0.name
    }
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Provider").field(&self.0.id).finish()
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Provider {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Opaque data one provider needs back verbatim on the next request.
///
/// It names the adapter that produced it by its [`Provider`]'s id; an adapter only ever reads
/// data that names its own ([`of`](Self::of)), so a transcript can move between providers without
/// sending one provider's secrets to another.
///
/// ```
/// use serde_json::json;
/// use skyl::transcript::ProviderData;
/// use skyl::provider::Provider;
///
/// let data = ProviderData::new(Provider::Gemini, json!({"thoughtSignature": "sig"}));
/// assert_eq!(data.of(Provider::Gemini), Some(&json!({"thoughtSignature": "sig"})));
/// assert_eq!(data.of(Provider::OpenAiChat), None);
/// assert_eq!(serde_json::to_value(&data).unwrap(), json!({"provider": "gemini", "data": {"thoughtSignature": "sig"}}));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProviderData {
    /// The id of the provider that produced and will read this data. Owned only when read back
    /// from a saved transcript, where the id may be one no code of this process names.
    provider: Cow<'static, str>,
    /// The data, as the provider sent it.
    pub data: Value,
}

impl ProviderData {
    /// Data for `provider`.
    pub fn new(provider: Provider, data: Value) -> Self {
        ProviderData {
            provider: Cow::Borrowed(provider.as_str()),
            data,
        }
    }

    /// The id of the provider the data belongs to ([`Provider::as_str`]).
    pub fn provider_id(&self) -> &str {
        &self.provider
    }

    /// The data, when it belongs to `provider`.
    #[inline]
    pub fn of(&self, provider: Provider) -> Option<&Value> {
        (*self.provider == *provider.as_str()).then_some(&self.data)
    }
}

/// A model's request to run one tool.
///
/// ```
/// let call = skyl::ToolCall::new("call_1", "get_weather", serde_json::json!({"city": "Kampala"}));
/// assert_eq!(call.arguments["city"], "Kampala");
/// ```
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id the provider gave the call; its [`ToolResult::call_id`] must repeat it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them. Normally a JSON object; a provider that sends
    /// arguments as a string which is not valid JSON leaves that string here, so dispatching the
    /// call tells the model what was wrong instead of losing the call.
    pub arguments: Value,
    /// Provider data that belongs to this call (a Gemini `thoughtSignature`, an OpenAI Responses
    /// `fc_` item id). `None` for calls made by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_data: Option<ProviderData>,
}

impl ToolCall {
    /// A call with no provider data.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
            provider_data: None,
        }
    }
}

/// The answer to one [`ToolCall`].
///
/// `is_error` is lossy on the wire: it reaches the model as a real flag only on Anthropic. The
/// OpenAI adapters prefix `"error: "` to the content and Gemini drops it, so the content itself
/// must say that the tool failed and what to do next. Never leave `content` empty on a failure.
///
/// ```
/// use skyl::ToolResult;
///
/// let ok = ToolResult { call_id: "call_1".into(), content: "22C and sunny".into(), is_error: false };
/// assert!(ok.validate().is_ok());
///
/// let orphan = ToolResult { call_id: String::new(), content: "22C".into(), is_error: false };
/// assert!(orphan.validate().is_err());
/// ```
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ToolResult {
    /// The [`ToolCall::id`] this result answers. Required.
    pub call_id: String,
    /// The tool's output, as text.
    pub content: String,
    /// The tool failed.
    #[serde(default)]
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result.
    pub fn success(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ToolResult {
            call_id: call_id.into(),
            content: content.into(),
            is_error: false,
        }
    }

    /// A failed result. Make `content` say what failed and what the model should do next.
    pub fn error(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ToolResult {
            call_id: call_id.into(),
            content: content.into(),
            is_error: true,
        }
    }

    /// Checks the result on its own: it must name the call it answers.
    pub fn validate(&self) -> Result<(), InvalidToolResult> {
        if self.call_id.is_empty() {
            return Err(InvalidToolResult::EmptyCallId);
        }
        Ok(())
    }
}

/// Why [`ToolResult::validate`] refused a result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidToolResult {
    /// `call_id` is empty, so no provider can match the result to its call.
    EmptyCallId,
}

impl fmt::Display for InvalidToolResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidToolResult::EmptyCallId => f.write_str(
                "the tool result has an empty call_id; set it to the id of the ToolCall it answers (call.id)",
            ),
        }
    }
}

impl std::error::Error for InvalidToolResult {}

/// A [`Role::Tool`] message holding one successful result.
///
/// ```
/// let reply = skyl::transcript::tool_result_message("call_1", "22C and sunny in Kampala");
/// assert_eq!(reply.role, skyl::Role::Tool);
/// ```
pub fn tool_result_message(call_id: impl Into<String>, content: impl Into<String>) -> Message {
    Message {
        role: Role::Tool,
        parts: vec![Part::ToolResult(ToolResult::success(call_id, content))],
    }
}

/// A [`Role::Tool`] message holding one failed result.
///
/// The content is the signal that works on every provider, so say what failed and what to do:
///
/// ```
/// let reply = skyl::transcript::tool_error_message(
///     "call_1",
///     "ERROR: get_weather failed: upstream timeout. Do not retry; tell the user the data is unavailable.",
/// );
/// assert!(reply.tool_results().all(|r| r.is_error));
/// ```
pub fn tool_error_message(call_id: impl Into<String>, content: impl Into<String>) -> Message {
    Message {
        role: Role::Tool,
        parts: vec![Part::ToolResult(ToolResult::error(call_id, content))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip<T>(value: &T, expected: Value)
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + fmt::Debug,
    {
        let json = serde_json::to_value(value).unwrap();
        assert_eq!(json, expected);
        let back: T = serde_json::from_value(json).unwrap();
        assert_eq!(&back, value);
    }

    #[test]
    fn roles_serialize_in_lower_case() {
        for (role, name) in [
            (Role::System, "system"),
            (Role::User, "user"),
            (Role::Assistant, "assistant"),
            (Role::Tool, "tool"),
        ] {
            round_trip(&role, json!(name));
            assert_eq!(role.to_string(), name);
        }
    }

    #[test]
    fn tool_call_round_trips_without_provider_data() {
        let call = ToolCall::new("call_1", "get_weather", json!({"city": "Kampala"}));
        round_trip(
            &call,
            json!({"id": "call_1", "name": "get_weather", "arguments": {"city": "Kampala"}}),
        );
    }

    #[test]
    fn tool_call_round_trips_with_provider_data() {
        let mut call = ToolCall::new("c", "t", json!({}));
        call.provider_data = Some(ProviderData::new(
            Provider::Gemini,
            json!({"thoughtSignature": "sig"}),
        ));
        round_trip(
            &call,
            json!({
                "id": "c", "name": "t", "arguments": {},
                "provider_data": {"provider": "gemini", "data": {"thoughtSignature": "sig"}}
            }),
        );
    }

    #[test]
    fn tool_result_round_trips_and_defaults_is_error() {
        round_trip(
            &ToolResult::error("c", "boom"),
            json!({"call_id": "c", "content": "boom", "is_error": true}),
        );
        let loaded: ToolResult =
            serde_json::from_value(json!({"call_id": "c", "content": "ok"})).unwrap();
        assert_eq!(loaded, ToolResult::success("c", "ok"));
    }

    #[test]
    fn every_part_round_trips() {
        round_trip(&Part::Text("hi".into()), json!({"text": "hi"}));
        round_trip(
            &Part::from(ToolCall::new("c", "t", json!({"a": 1}))),
            json!({"tool_call": {"id": "c", "name": "t", "arguments": {"a": 1}}}),
        );
        round_trip(
            &Part::from(ToolResult::success("c", "ok")),
            json!({"tool_result": {"call_id": "c", "content": "ok", "is_error": false}}),
        );
        round_trip(
            &Part::ProviderText {
                text: "Let me check.".into(),
                provider_data: ProviderData::new(
                    Provider::Gemini,
                    json!({"thoughtSignature": "sig"}),
                ),
            },
            json!({"provider_text": {
                "text": "Let me check.",
                "provider_data": {"provider": "gemini", "data": {"thoughtSignature": "sig"}}
            }}),
        );
        round_trip(
            &Part::Provider(ProviderData::new(
                Provider::Anthropic,
                json!({"type": "thinking"}),
            )),
            json!({"provider": {"provider": "anthropic", "data": {"type": "thinking"}}}),
        );
    }

    #[test]
    fn a_transcript_round_trips() {
        let transcript = vec![
            Message::system("Be terse."),
            Message::user("Weather?"),
            Message {
                role: Role::Assistant,
                parts: vec![ToolCall::new("c", "get_weather", json!({"city": "Kampala"})).into()],
            },
            tool_result_message("c", "22C"),
        ];
        let json = serde_json::to_string(&transcript).unwrap();
        let back: Vec<Message> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, transcript);
        assert_eq!(
            serde_json::to_value(&transcript[3]).unwrap(),
            json!({"role": "tool", "parts": [{"tool_result": {"call_id": "c", "content": "22C", "is_error": false}}]})
        );
    }

    #[test]
    fn constructors_build_what_they_say() {
        assert_eq!(
            Message::user("hi"),
            Message {
                role: Role::User,
                parts: vec![Part::Text("hi".into())]
            }
        );
        assert_eq!(Message::system("s").role, Role::System);
        assert_eq!(Message::assistant("a").role, Role::Assistant);
        assert_eq!(
            tool_result_message("c", "ok"),
            Message {
                role: Role::Tool,
                parts: vec![Part::ToolResult(ToolResult::success("c", "ok"))]
            }
        );
        assert_eq!(
            tool_error_message("c", "bad"),
            Message {
                role: Role::Tool,
                parts: vec![Part::ToolResult(ToolResult {
                    call_id: "c".into(),
                    content: "bad".into(),
                    is_error: true
                })]
            }
        );
    }

    #[test]
    fn tool_calls_and_results_are_listed_in_order() {
        let m = Message {
            role: Role::Assistant,
            parts: vec![
                Part::Text("a".into()),
                ToolCall::new("1", "x", json!({})).into(),
                Part::ProviderText {
                    text: "b".into(),
                    provider_data: ProviderData::new(Provider::Gemini, json!({})),
                },
                Part::Provider(ProviderData::new(Provider::Anthropic, json!({}))),
                ToolCall::new("2", "y", json!({})).into(),
            ],
        };
        let ids: Vec<_> = m.tool_calls().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["1", "2"]);
        assert_eq!(m.text_content(), "ab");
        assert_eq!(m.tool_results().count(), 0);
    }

    #[test]
    fn providers_serialize_as_their_id_and_display_their_name() {
        for (provider, id, name) in [
            (Provider::Anthropic, "anthropic", "Anthropic"),
            (Provider::OpenAiChat, "openai_chat", "OpenAI Chat"),
            (
                Provider::OpenAiResponses,
                "openai_responses",
                "OpenAI Responses",
            ),
            (Provider::Gemini, "gemini", "Gemini"),
        ] {
            assert_eq!(serde_json::to_value(provider).unwrap(), json!(id));
            assert_eq!((provider.as_str(), provider.to_string()), (id, name.into()));
        }
    }

    #[test]
    fn provider_data_of_a_provider_outside_skyl_survives_a_saved_transcript() {
        const OLLAMA: Provider = Provider::new(&ProviderInfo::new("ollama", "Ollama"));
        let data = ProviderData::new(OLLAMA, json!({"k": 1}));
        let saved = serde_json::to_value(&data).unwrap();
        assert_eq!(saved, json!({"provider": "ollama", "data": {"k": 1}}));
        let read: ProviderData = serde_json::from_value(saved).unwrap();
        assert_eq!(read, data);
        assert_eq!(read.provider_id(), "ollama");
        assert_eq!(read.of(OLLAMA), Some(&json!({"k": 1})));
        assert_eq!(read.of(Provider::Gemini), None);
    }

    #[test]
    fn provider_data_is_read_only_by_its_provider() {
        let data = ProviderData::new(Provider::Gemini, json!({"thoughtSignature": "sig"}));
        assert_eq!(
            data.of(Provider::Gemini),
            Some(&json!({"thoughtSignature": "sig"}))
        );
        assert_eq!(data.of(Provider::OpenAiChat), None);
    }

    #[test]
    fn validate_requires_a_call_id() {
        assert_eq!(
            ToolResult::success("", "x").validate(),
            Err(InvalidToolResult::EmptyCallId)
        );
        assert_eq!(ToolResult::success("c", "").validate(), Ok(()));
        assert_eq!(
            InvalidToolResult::EmptyCallId.to_string(),
            "the tool result has an empty call_id; set it to the id of the ToolCall it answers (call.id)"
        );
    }
}
