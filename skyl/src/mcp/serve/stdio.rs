//! skyl's own line transport for stdio: newline-delimited JSON-RPC read with a bounded reader,
//! and the answers JSON-RPC 2.0 asks for given to what is not a message, before rmcp sees it.
//!
//! rmcp's own stdio transport drops a line that is not JSON (and a message nested too deep to
//! parse) without a word, and skips an over-long line without one, so a client that sent one
//! waits for its own timeout. rmcp's reason is an error storm: a peer that echoes what it cannot
//! read back as more unreadable data. The answers here are well-formed JSON-RPC responses, which
//! a peer never answers, so they cannot start one.
//!
//! Each line costs time linear in its length and memory bounded by [`MAX_MESSAGE`]: a longer
//! line is skipped as it is read, its `id` looked for on the way by [`IdFinder`], which keeps a
//! few counters and at most [`ID_BYTES`] bytes.

use std::io;
use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ErrorData, JsonRpcMessage, RequestId, ServerResult};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::mcp::serve::jsonrpc::{INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, error_response};
use crate::mcp::serve::legacy_tasks::wire as legacy_tasks;

/// The most bytes one message may have on stdio, its newline not counted: 16 MiB, the limit
/// rmcp's own stdio transport and its HTTP client keep, so that a message one of them takes is
/// taken here too. A tool's arguments and a client's answers (an elicitation's form, a sampled
/// image) fit with room to spare; a longer line is answered and skipped without being kept.
pub(crate) const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// The deepest nesting serde_json parses (its recursion limit), for the parse error's wording.
const MAX_DEPTH: usize = 128;

/// A server's transport over a reader and a writer of newline-delimited JSON-RPC.
pub(crate) struct Lines<R, W> {
    input: BufReader<R>,
    /// The line being read, at most `max` bytes.
    line: Vec<u8>,
    /// A line over `max` bytes, being skipped to its end.
    skipping: Option<Skipped>,
    max: usize,
    output: Arc<Mutex<Output<W>>>,
    /// An answer of the transport's own, not yet handed to the output.
    answer: Option<Vec<u8>>,
    /// Whether an answer handed to the output may not have been written whole yet (the
    /// `receive` that wrote it was cancelled).
    unflushed: bool,
}

impl<R: AsyncRead, W> Lines<R, W> {
    /// A transport reading `input` and writing `output`, with messages of at most `max` bytes.
    pub(crate) fn new(input: R, output: W, max: usize) -> Self {
        Lines {
            input: BufReader::new(input),
            line: Vec::new(),
            skipping: None,
            max,
            output: Arc::new(Mutex::new(Output {
                writer: Some(output),
                pending: Vec::new(),
                written: 0,
            })),
            answer: None,
            unflushed: false,
        }
    }
}

/// What reading one line gave.
enum Read {
    /// A whole line is in `Lines::line`, its newline included.
    Line,
    /// A line over the limit was skipped.
    TooLong { bytes: usize, id: Option<Value> },
    /// The client closed its end, or reading failed: either way, nothing more will come.
    End,
}

/// A line over the limit: how long it is so far, and its `id` if it has shown one.
struct Skipped {
    bytes: usize,
    id: IdFinder,
}

impl Skipped {
    fn see(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len();
        self.id.see(bytes);
    }
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin,
{
    /// Reads the next line into `self.line`, or skips it when it is over the limit.
    ///
    /// Cancel-safe, as `receive` must be (rmcp polls it in a `select!`): `fill_buf` takes nothing
    /// when dropped, and what is taken is kept in `self` with no await in between, so a cancelled
    /// read resumes where it stopped.
    async fn read_line(&mut self) -> Read {
        loop {
            let chunk = match self.input.fill_buf().await {
                Ok(chunk) => chunk,
                Err(_) => return Read::End,
            };
            if chunk.is_empty() {
                // The client closed its end; a last line without a newline is still a line.
                if let Some(skipped) = self.skipping.take() {
                    return Read::TooLong {
                        bytes: skipped.bytes,
                        id: skipped.id.id(),
                    };
                }
                if self.line.is_empty() {
                    return Read::End;
                }
                return Read::Line;
            }
            let newline = memchr::memchr(b'\n', chunk);
            let taken = newline.map_or(chunk.len(), |at| at + 1);
            let ended = newline.is_some();
            if let Some(skipped) = &mut self.skipping {
                skipped.see(&chunk[..taken]);
            } else if self.line.len() + newline.unwrap_or(taken) > self.max {
                let mut skipped = Skipped {
                    bytes: 0,
                    id: IdFinder::default(),
                };
                skipped.see(&self.line);
                skipped.see(&chunk[..taken]);
                self.line = Vec::new();
                self.skipping = Some(skipped);
            } else {
                self.line.extend_from_slice(&chunk[..taken]);
            }
            self.input.consume(taken);
            if ended {
                return match self.skipping.take() {
                    Some(skipped) => Read::TooLong {
                        // The newline is not part of the message.
                        bytes: skipped.bytes - 1,
                        id: skipped.id.id(),
                    },
                    None => Read::Line,
                };
            }
        }
    }
}

/// What one line is.
enum Judged {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Not one: the transport answers it with this JSON-RPC error response.
    Answer(Value),
    /// Nothing to pass on and nothing to answer: a blank line, or a notification rmcp cannot
    /// read (JSON-RPC never answers a notification).
    Nothing,
}

/// Reads one line (its newline, a carriage return before it and a byte-order mark removed).
fn judge(line: &[u8]) -> Judged {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Judged::Nothing;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(error) => {
            let cause = if error.to_string().starts_with("recursion limit exceeded") {
                format!("the message nests arrays and objects deeper than {MAX_DEPTH} levels")
            } else {
                format!("the message is not JSON ({error})")
            };
            return Judged::Answer(error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {cause}"),
            ));
        }
    };
    let object = match value {
        Value::Object(object) => object,
        Value::Array(items) if items.is_empty() => {
            return invalid(Value::Null, "an empty array is not a message");
        }
        Value::Array(_) => {
            return invalid(
                Value::Null,
                "MCP has no batches (since 2025-06-18); send one message a line",
            );
        }
        _ => return invalid(Value::Null, "a message is a JSON object"),
    };
    judge_object(object)
}

/// Reads a JSON object as a message, as JSON-RPC 2.0's rules for a request object say.
fn judge_object(object: Map<String, Value>) -> Judged {
    let id = readable_id(object.get("id"));
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(id, "`jsonrpc` must be \"2.0\"");
    }
    match object.get("method") {
        Some(Value::String(_)) => {}
        Some(_) => return invalid(id, "`method` must be a string"),
        None if object.contains_key("result") || object.contains_key("error") => {
            return response(object);
        }
        None => {
            return invalid(
                id,
                "a message has a `method` (a request or a notification), or a `result` or an `error` (a response)",
            );
        }
    }
    let notification = !object.contains_key("id");
    if !notification && id.is_none() {
        return invalid(Value::Null, "`id` must be a string or an integer");
    }
    // JSON-RPC allows an array too, but MCP's params are always an object.
    if let Some(params) = object.get("params")
        && !matches!(params, Value::Object(_) | Value::Null)
    {
        if notification {
            return Judged::Nothing;
        }
        let message = format!(
            "Invalid params for `{}`: they must be an object, but they were {}",
            object["method"].as_str().unwrap_or_default(),
            crate::prose::arguments::describe(params)
        );
        return Judged::Answer(error_response(
            id.unwrap_or(Value::Null),
            INVALID_PARAMS,
            &message,
        ));
    }
    let mut object = object;
    if !notification {
        legacy_tasks::rename(&mut object);
    }
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        Ok(message) => Judged::Message(Box::new(message)),
        Err(_) if notification => Judged::Nothing,
        Err(error) => invalid(id.unwrap_or(Value::Null), &error.to_string()),
    }
}

/// A client's response (to a ping, an elicitation, a sampling request): rmcp's if it reads, else
/// an error for the request it answers, so that what waits for it fails instead of waiting.
fn response(object: Map<String, Value>) -> Judged {
    let id = object
        .get("id")
        .cloned()
        .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(object)) {
        Ok(message) => Judged::Message(Box::new(message)),
        Err(error) => match id {
            Some(id) => Judged::Message(Box::new(ClientJsonRpcMessage::error(
                ErrorData::invalid_request(
                    format!("the client's answer could not be read: {error}"),
                    None,
                ),
                Some(id),
            ))),
            None => Judged::Nothing,
        },
    }
}

/// An `id` worth echoing: a string or a number.
fn readable_id(id: Option<&Value>) -> Option<Value> {
    id.filter(|id| id.is_string() || id.is_number()).cloned()
}

fn invalid(id: impl Into<Option<Value>>, cause: &str) -> Judged {
    Judged::Answer(error_response(
        id.into().unwrap_or(Value::Null),
        INVALID_REQUEST,
        &format!("Invalid Request: {cause}"),
    ))
}

/// The JSON-RPC error answering `message`, a whole message received some other way than stdio
/// (an HTTP request's body), if it is not a message rmcp can read; the same answer a line of it
/// would get on stdio.
#[cfg(feature = "mcp-http")]
pub(in crate::mcp) fn refusal(message: &[u8]) -> Option<Value> {
    match judge(message) {
        Judged::Answer(answer) => Some(answer),
        Judged::Message(_) | Judged::Nothing => None,
    }
}

/// The JSON-RPC error answering a message over `max` bytes whose length and `id` are not known.
#[cfg(feature = "mcp-http")]
pub(in crate::mcp) fn too_long_answer(max: usize) -> Value {
    error_response(
        Value::Null,
        INVALID_REQUEST,
        &format!(
            "Invalid Request: the message is over this server's limit of {max} bytes; it was not read"
        ),
    )
}

/// The answer to a line over the limit.
fn too_long(bytes: usize, max: usize, id: Option<Value>) -> Value {
    error_response(
        id.unwrap_or(Value::Null),
        INVALID_REQUEST,
        &format!(
            "Invalid Request: the message is {bytes} bytes, over this server's limit of {max} bytes; it was not read"
        ),
    )
}

fn line_of(message: &impl serde::Serialize) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).expect("a JSON-RPC message serializes");
    line.push(b'\n');
    line
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let line = match &item {
            // 2025-11-25's `tasks` capability, which rmcp's result has no field for.
            JsonRpcMessage::Response(response)
                if matches!(response.result, ServerResult::InitializeResult(_)) =>
            {
                let mut message =
                    serde_json::to_value(&item).expect("a JSON-RPC message serializes");
                if let Some(result) = message.get_mut("result") {
                    legacy_tasks::declare_capability(result);
                }
                line_of(&message)
            }
            _ => line_of(&item),
        };
        let output = Arc::clone(&self.output);
        async move { output.lock().await.write_line(line).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.answer.is_some() || self.unflushed {
                let mut output = self.output.lock().await;
                // Handed over with no await in between: once the output has it, a cancelled
                // write is finished by whoever writes next.
                if let Some(answer) = self.answer.take() {
                    output.queue(answer);
                    self.unflushed = true;
                }
                if output.finish().await.is_err() {
                    return None;
                }
                self.unflushed = false;
            }
            let judged = match self.read_line().await {
                Read::Line => {
                    let judged = judge(&self.line);
                    self.line.clear();
                    judged
                }
                Read::TooLong { bytes, id } => Judged::Answer(too_long(bytes, self.max, id)),
                Read::End => return None,
            };
            match judged {
                Judged::Message(message) => return Some(*message),
                Judged::Answer(answer) => self.answer = Some(line_of(&answer)),
                Judged::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        let mut output = self.output.lock().await;
        let finished = output.finish().await;
        output.writer = None;
        finished
    }
}

/// The writing end, shared by the sends rmcp runs at once and the transport's own answers: one
/// line at a time, and a line whose writer was cancelled is finished by the next writer before
/// its own, so that no two lines are ever interleaved.
struct Output<W> {
    writer: Option<W>,
    /// The line being written.
    pending: Vec<u8>,
    /// How much of it is written.
    written: usize,
}

impl<W: AsyncWrite + Unpin> Output<W> {
    /// Writes the line left unfinished, if any, then `line`.
    async fn write_line(&mut self, line: Vec<u8>) -> io::Result<()> {
        self.finish().await?;
        self.queue(line);
        self.finish().await
    }

    /// Makes `line` the one to write; the one before must be finished.
    fn queue(&mut self, line: Vec<u8>) {
        debug_assert!(self.pending.is_empty());
        self.pending = line;
        self.written = 0;
    }

    /// Writes the rest of the pending line and flushes it.
    async fn finish(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let Some(writer) = self.writer.as_mut() else {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the transport is closed",
            ));
        };
        while self.written < self.pending.len() {
            // Each `write` either writes or, dropped while pending, writes nothing: `written`
            // is always what reached the writer.
            let wrote = writer.write(&self.pending[self.written..]).await?;
            if wrote == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            self.written += wrote;
        }
        writer.flush().await?;
        self.pending = Vec::new();
        self.written = 0;
        Ok(())
    }
}

/// The most bytes of an `id`'s value [`IdFinder`] keeps: far more than any string or number a
/// client uses as an id.
const ID_BYTES: usize = 256;

/// Finds the top-level `"id"` member of a JSON object seen in pieces, without keeping the
/// object: a line too long to read whole may still say which request it was.
///
/// It follows strings (and their escapes) and nesting, not the whole grammar: on text that is
/// not JSON it may find nothing, or an id the text does not really have, which is then only
/// echoed in an error response.
#[derive(Default)]
struct IdFinder {
    /// How many arrays and objects are open.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// Where in a member of the top-level object the finder is.
    place: Place,
    /// The current top-level key, while it is short enough to be `id`.
    key: Vec<u8>,
    /// The value of the `id` member being read.
    value: Vec<u8>,
    /// The last whole `id` value seen.
    found: Option<Vec<u8>>,
}

#[derive(Default, PartialEq, Clone, Copy)]
enum Place {
    /// Outside the top-level object.
    #[default]
    Outside,
    /// Before or in a key.
    Key,
    /// In the value of a member that is not `id`.
    Value,
    /// In the value of `id`.
    Id,
    /// In the value of `id`, which is too long or not a string or number.
    BadId,
}

impl IdFinder {
    fn see(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.step(byte);
        }
    }

    fn step(&mut self, byte: u8) {
        let top = self.depth == 1;
        if top && self.place == Place::Id {
            if self.value.len() < ID_BYTES {
                self.value.push(byte);
            } else {
                self.place = Place::BadId;
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                return;
            }
            if top && self.place == Place::Key && self.key.len() <= 2 {
                self.key.push(byte);
            }
            return;
        }
        match byte {
            b'"' => {
                self.in_string = true;
                if top && self.place == Place::Key {
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                if self.depth == 0 && byte == b'{' {
                    self.place = Place::Key;
                    self.key.clear();
                } else if top && self.place == Place::Id {
                    self.place = Place::BadId;
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                if top {
                    self.end_member();
                    self.place = Place::Outside;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if top && self.place == Place::Key => {
                self.place = if self.key == b"id" {
                    self.value.clear();
                    Place::Id
                } else {
                    Place::Value
                };
            }
            b',' if top => {
                self.end_member();
                self.place = Place::Key;
                self.key.clear();
            }
            _ => {}
        }
    }

    /// At the `,` or `}` after a member: keeps the value if it was `id`'s.
    fn end_member(&mut self) {
        if self.place == Place::Id {
            // The `,` or `}` that ended it was pushed too.
            self.value.pop();
            self.found = Some(std::mem::take(&mut self.value));
        }
    }

    /// The `id` found, if it is a string or a number.
    fn id(&self) -> Option<Value> {
        let found = self.found.as_deref()?;
        let value = serde_json::from_slice::<Value>(found).ok()?;
        readable_id(Some(&value))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn find(text: &str, piece: usize) -> Option<Value> {
        let mut finder = IdFinder::default();
        for chunk in text.as_bytes().chunks(piece) {
            finder.see(chunk);
        }
        finder.id()
    }

    #[test]
    fn the_id_is_found_wherever_it_is_and_however_the_line_is_cut() {
        let cases = [
            (r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#, Some(json!(7))),
            (
                r#"{"method":"x","params":{"id":1,"a":[{"id":2}]},"id":"abc"}"#,
                Some(json!("abc")),
            ),
            (
                r#"{ "params" : "a \" ,\"id\": 3" , "id" : -4.5 }"#,
                Some(json!(-4.5)),
            ),
            (r#"{"id":"a,}b"}"#, Some(json!("a,}b"))),
            (r#"{"id":null,"method":"x"}"#, None),
            (r#"{"id":{"n":1}}"#, None),
            (r#"{"idx":1,"params":{"id":5}}"#, None),
            (r#"[{"id":1}]"#, None),
            ("not json at all", None),
        ];
        for (text, id) in cases {
            for piece in [1, 3, 1000] {
                assert_eq!(find(text, piece), id, "{text} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn a_response_that_does_not_read_fails_the_request_it_answers() {
        let Judged::Message(message) = judge(br#"{"jsonrpc":"2.0","id":3,"error":"no"}"#) else {
            panic!("not passed on");
        };
        assert_eq!(
            serde_json::to_value(&*message).unwrap(),
            json!({"jsonrpc": "2.0", "id": 3, "error": {
                "code": -32600,
                "message": "the client's answer could not be read: unrecognized JSON-RPC message"
            }})
        );
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","error":"no"}"#),
            Judged::Nothing
        ));
    }

    #[test]
    fn an_id_longer_than_any_real_one_is_not_kept() {
        let long = "x".repeat(ID_BYTES);
        assert_eq!(find(&format!(r#"{{"id":"{long}"}}"#), 7), None);
    }
}
