//! The OpenAI Responses API (`POST /v1/responses`).

#[cfg(doc)]
use crate::message::Part;
use crate::provider::Provider;
#[cfg(doc)]
use crate::provider::Request;

mod api;
mod decode;
mod encode;
mod stream;

const PROVIDER: Provider = Provider::OpenAiResponses;

/// The OpenAI Responses API.
///
/// Encoding:
///
/// - [`Request::system`] is the top-level `instructions`; [`Role::System`](crate::Role::System) messages of the
///   transcript stay in place as `role: "system"` input messages.
/// - A call is a `function_call` item (arguments as a JSON string) and a
///   [`ToolResult`](crate::ToolResult) a `function_call_output` item. The error flag is lossy
///   exactly as on [`OpenAiChat`](crate::provider::OpenAiChat): `"error: "` prefixed to the output, the flag
///   lost when the content is empty, and never an `is_error` key.
/// - A result with [content](crate::Content) has a list as its `output`: the prose as
///   `input_text`, then `input_image` per image (a data URL or the URL), `input_file` per PDF
///   (`file_data` as a data URL, or `file_url`), and `input_text` for each other part. Audio,
///   which a function call's output cannot hold, is a line saying it was left out.
/// - A call decoded from this API keeps its `fc_` item id and is sent back with it, after the
///   `reasoning` items that came before it in the same answer, verbatim. Reasoning items of an
///   answer without calls are not sent back: the API needs them only with tool calls ("any
///   reasoning items returned in model responses with tool calls must also be passed back"), and
///   a reasoning item without the item that followed it is a 400.
/// - The text of a `message` item decodes as [`Part::ProviderText`] carrying the item's id. It
///   goes back as that item, id included, when the reasoning item before it goes back too (the
///   API refuses either without the other); otherwise as plain assistant text.
/// - Tools are flat `{"type": "function", "name", ...}` and always carry `strict` explicitly
///   (the API would otherwise try to make them strict on its own): `false` by default, `true`
///   with [`with_strict(true)`](Self::with_strict), which lowers the schema with
///   [`dialect::openai_strict`](crate::provider::dialect::openai_strict).
/// - [`Request::max_tokens`] is `max_output_tokens`.
///
/// To receive encrypted reasoning with `store: false`, add `"include":
/// ["reasoning.encrypted_content"]` to [`Request::extra`].
///
/// ```
/// use skyl::provider::{Adapter, OpenAiResponses, Request};
///
/// let body = OpenAiResponses::default()
///     .encode(&Request::new("gpt-5", vec![skyl::Message::user("Hi")]).with_system("Be terse."))
///     .unwrap();
/// assert_eq!(body["instructions"], "Be terse.");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenAiResponses {
    strict: bool,
}

impl OpenAiResponses {
    /// Turns OpenAI strict mode on or off for every tool (off by default; `strict` is always sent).
    pub fn with_strict(self, strict: bool) -> Self {
        OpenAiResponses { strict }
    }
}
