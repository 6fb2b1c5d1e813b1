//! What a model, or a tool, can make a toolbox do: bounds on arguments, outputs and concurrency.

use std::num::NonZeroUsize;

use serde_json::Value;

use super::measure::{self, Exceeded};
use crate::message::ToolResult;
use crate::prose;

/// The bounds a [`Toolbox`](crate::Toolbox) keeps, whatever the model sends or a tool returns.
///
/// Every toolbox has them; [`Toolbox::with_limits`](crate::Toolbox::with_limits) changes them.
///
/// | limit | default | what happens past it |
/// |---|---|---|
/// | [output](Self::with_max_output_bytes) | 100 KiB (102,400 bytes) | the output is cut, and a note says how much was kept |
/// | [argument size](Self::with_max_argument_bytes) | 1 MiB (1,048,576 bytes) of compact JSON | the call is refused before its arguments are read |
/// | [argument depth](Self::with_max_argument_depth) | 64 levels of arrays and objects | the call is refused before its arguments are read |
/// | [concurrent calls](Self::with_max_concurrent_calls) | unbounded | the next call of the turn waits for one to finish |
/// | [media](Self::with_max_media_bytes) | 3.75 MiB (3,932,160 bytes) per image, clip or document | the part is left out, and a note says so |
///
/// Why these:
///
/// - **100 KiB of output** is about 25,000 tokens: a long page, a few hundred rows. It leaves most
///   of a 128k-token context for the conversation, and one runaway result (a whole log, a table
///   dump) cannot fill a context window, whose overflow the provider answers with an error that
///   ends the conversation. A tool that returns more should page.
/// - **1 MiB of arguments** is several times what a model writes in one answer (the longest
///   outputs are a few tens of thousands of tokens), so no model's honest call reaches it, while a
///   hostile or broken one cannot make a tool parse and hold an unbounded document.
/// - **64 levels** is far beyond any tool's schema, and below serde_json's parser's own 128, so
///   the refusal is a sentence the model can act on rather than a parse error; it also bounds the
///   recursion of everything that reads the arguments afterwards.
/// - **Unbounded concurrency** keeps `answer` running every call of a turn at once, as it always
///   has: a turn holds a handful of calls, synchronous tools run one after another anyway, and a
///   bound would make calls that wait on each other (two sides of a handshake) wait forever. Set
///   one when the tools share a scarce resource, such as a connection pool or a rate limit.
/// - **3.75 MiB of media per part** is 5 MiB once base64-encoded, the most Anthropic's API takes
///   of one image (the strictest of the four built-in providers; OpenAI and Gemini take more per
///   request), so a part the toolbox lets through is not refused by any of them for its size. A
///   20 MB screenshot never goes out whole: it is left out with a note that tells the model to
///   ask for less. Raise the limit for a provider that takes more.
///
/// ```
/// use skyl::{Limits, Toolbox};
///
/// let toolbox = Toolbox::new().with_limits(
///     Limits::default()
///         .with_max_output_bytes(20_000)
///         .with_max_concurrent_calls(4),
/// );
/// assert_eq!(toolbox.limits().max_output_bytes(), 20_000);
/// assert_eq!(toolbox.limits().max_argument_depth(), 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    output_bytes: usize,
    argument_bytes: usize,
    argument_depth: usize,
    concurrent_calls: Option<NonZeroUsize>,
    media_bytes: usize,
}

impl Limits {
    /// The default bound on a result's content, in bytes: 100 KiB.
    pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 100 * 1024;
    /// The default bound on a call's arguments written as compact JSON, in bytes: 1 MiB.
    pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 1024 * 1024;
    /// The default bound on how deep a call's arguments nest arrays and objects: 64.
    pub const DEFAULT_MAX_ARGUMENT_DEPTH: usize = 64;
    /// The default bound on one part of a result's content that carries bytes (an image, a clip,
    /// a document), in bytes: 3.75 MiB, which is 5 MiB in base64.
    pub const DEFAULT_MAX_MEDIA_BYTES: usize = 5 * 1024 * 1024 / 4 * 3;

    /// The defaults (see the type's documentation).
    pub const fn new() -> Self {
        Limits {
            output_bytes: Self::DEFAULT_MAX_OUTPUT_BYTES,
            argument_bytes: Self::DEFAULT_MAX_ARGUMENT_BYTES,
            argument_depth: Self::DEFAULT_MAX_ARGUMENT_DEPTH,
            concurrent_calls: None,
            media_bytes: Self::DEFAULT_MAX_MEDIA_BYTES,
        }
    }

    /// No bounds at all: every output whole, every argument read, every call at once. For a
    /// toolbox whose callers are trusted; arguments are then not walked at all, which saves a
    /// dispatch about a tenth of its cost.
    pub const fn none() -> Self {
        Limits {
            output_bytes: usize::MAX,
            argument_bytes: usize::MAX,
            argument_depth: usize::MAX,
            concurrent_calls: None,
            media_bytes: usize::MAX,
        }
    }

    /// Cuts a result's content to its first `bytes` bytes and appends a note that says so.
    ///
    /// Text is cut on a character boundary. JSON (an object, an array or a string, as
    /// [`Json`](crate::Json), a `Vec` or a `serde_json::Value` return it) is cut where a value
    /// ends, so that what the model reads still parses; the note counts the array items, object
    /// members and strings that were left out. A failure keeps its sentence: its cause is cut
    /// inside it, so the model still reads what to do next. The note adds a few hundred bytes past
    /// the limit, and a result is never left empty by a cut.
    ///
    /// ```
    /// use skyl::{Limits, ToolCall, Toolbox};
    ///
    /// /// Lists the files.
    /// #[skyl::tool]
    /// fn list_files() -> Vec<String> {
    ///     (1..=100).map(|n| format!("file{n}.txt")).collect()
    /// }
    ///
    /// let toolbox = Toolbox::new()
    ///     .with(ListFiles)
    ///     .with_limits(Limits::default().with_max_output_bytes(40));
    /// let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "list_files", serde_json::json!({})));
    /// assert_eq!(
    ///     result.content,
    ///     "[\"file1.txt\",\"file2.txt\",\"file3.txt\"]\n\n\
    ///      [The output of list_files was cut from 1293 to 37 bytes where a value ends, so it is \
    ///      still valid JSON; left out at the end: 97 array items. If you need the rest, call \
    ///      list_files again with arguments that select less.]"
    /// );
    /// ```
    pub const fn with_max_output_bytes(mut self, bytes: usize) -> Self {
        self.output_bytes = bytes;
        self
    }

    /// Refuses a call whose arguments, written as compact JSON, take more than `bytes` bytes.
    ///
    /// The arguments are measured where they are, without writing them out, and the walk stops
    /// as soon as it passes the limit; the tool never sees them. The result names the tool and
    /// the limit and asks for smaller arguments.
    pub const fn with_max_argument_bytes(mut self, bytes: usize) -> Self {
        self.argument_bytes = bytes;
        self
    }

    /// Refuses a call whose arguments nest arrays and objects more than `levels` deep (`{}` is
    /// one level, `{"a": []}` two). Arguments sent as a string of JSON count the brackets in it.
    pub const fn with_max_argument_depth(mut self, levels: usize) -> Self {
        self.argument_depth = levels;
        self
    }

    /// Runs at most `calls` calls of one [`answer`](crate::Toolbox::answer) at a time (and of
    /// one agent step, which answers through the toolbox); the others wait, in call order, for
    /// one to finish. Results keep call order and every call still gets exactly one. A call's
    /// timeout counts from when it starts, not from when it was queued.
    ///
    /// # Panics
    ///
    /// If `calls` is 0: no call would ever run.
    #[track_caller]
    pub const fn with_max_concurrent_calls(mut self, calls: usize) -> Self {
        match NonZeroUsize::new(calls) {
            Some(calls) => self.concurrent_calls = Some(calls),
            None => panic!(
                "Limits::with_max_concurrent_calls: 0 would never run a call; use 1 to run calls one at a time"
            ),
        }
        self
    }

    /// Lifts the bound on concurrent calls (the default).
    pub const fn with_unbounded_concurrency(mut self) -> Self {
        self.concurrent_calls = None;
        self
    }

    /// Leaves a part of a result's content that carries more than `bytes` bytes (an image, an
    /// audio clip, a document, a binary resource) out of the result, and appends a note to its
    /// text that says what was left out and how to get less.
    ///
    /// ```
    /// use skyl::{Limits, ToolCall, Toolbox, content::Image};
    ///
    /// /// Takes a screenshot.
    /// #[skyl::tool]
    /// fn screenshot() -> (&'static str, Image) {
    ///     let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    ///     png.resize(2_000, 0);
    ///     ("The screen:", Image::png(png))
    /// }
    ///
    /// let toolbox = Toolbox::new()
    ///     .with(Screenshot)
    ///     .with_limits(Limits::default().with_max_media_bytes(1_000));
    /// let turn = skyl::Message {
    ///     role: skyl::Role::Assistant,
    ///     parts: vec![ToolCall::new("c1", "screenshot", serde_json::json!({})).into()],
    /// };
    /// let answer = toolbox.answer_blocking(&turn);
    /// assert_eq!(answer.result_content("c1"), None);
    /// assert_eq!(
    ///     answer.tool_results().next().unwrap().content,
    ///     "The screen:\n[screenshot also returned an image (image/png, 2000 bytes), which was left \
    ///      out: it is larger than 1000 bytes, the most this application sends of one part. If you \
    ///      need it, call screenshot again with arguments that make it smaller.]"
    /// );
    /// ```
    pub const fn with_max_media_bytes(mut self, bytes: usize) -> Self {
        self.media_bytes = bytes;
        self
    }

    /// The bound on one part of a result's content that carries bytes.
    pub const fn max_media_bytes(&self) -> usize {
        self.media_bytes
    }

    /// The bound on a result's content, in bytes.
    pub const fn max_output_bytes(&self) -> usize {
        self.output_bytes
    }

    /// The bound on a call's arguments as compact JSON, in bytes.
    pub const fn max_argument_bytes(&self) -> usize {
        self.argument_bytes
    }

    /// The bound on how deep a call's arguments nest.
    pub const fn max_argument_depth(&self) -> usize {
        self.argument_depth
    }

    /// How many calls of one turn run at once; `None` when all of them do.
    pub const fn max_concurrent_calls(&self) -> Option<usize> {
        match self.concurrent_calls {
            Some(calls) => Some(calls.get()),
            None => None,
        }
    }

    /// The refusal for a call to `tool` whose arguments are past the bounds, if they are.
    #[inline(always)]
    pub(crate) fn refuse(
        &self,
        tool: &str,
        call_id: &str,
        arguments: &Value,
    ) -> Option<ToolResult> {
        if self.argument_bytes == usize::MAX && self.argument_depth == usize::MAX {
            // Nothing to bound: `Limits::none()` costs no walk.
            return None;
        }
        match measure::check(arguments, self.argument_bytes, self.argument_depth) {
            Ok(()) => None,
            Err(exceeded) => Some(self.refusal(tool, call_id, exceeded)),
        }
    }

    #[cold]
    fn refusal(&self, tool: &str, call_id: &str, exceeded: Exceeded) -> ToolResult {
        let prose = match exceeded {
            Exceeded::Size => prose::arguments_too_large(tool, self.argument_bytes),
            Exceeded::Depth => prose::arguments_too_deep(tool, self.argument_depth),
        };
        ToolResult::error(call_id, prose)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::new()
    }
}
