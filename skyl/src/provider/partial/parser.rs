//! The incremental parser: JSON text in, one delta at a time, each byte read once.
//!
//! The parser keeps no text it has read. What grows is what the text means: the containers open
//! around the point it has reached (each with its members or items complete so far, as
//! [`Value`]s built once), and the one scalar being read (a string's decoded text, a number's
//! characters). A delta costs what its own bytes cost, whatever came before it.
//!
//! It agrees with `serde_json::from_str::<Value>` on the joined text: the same value, or an error
//! where `serde_json` has one (its nesting limit and its refusal of lone surrogates included).

use serde_json::{Map, Value};

use super::error::{BrokenArguments, Found};

/// The deepest nesting `serde_json` reads: its 128th nested container is an error.
const MAX_DEPTH: usize = 127;

/// A tool call's arguments, parsed as their deltas arrive: readable at any point, at a cost that
/// grows with each delta, not with the text so far.
///
/// [`push`](Self::push) each piece of the arguments' JSON text as it streams in (the
/// `arguments` of [`StreamEvent::ToolCallDelta`](crate::provider::stream::StreamEvent::ToolCallDelta));
/// between pushes, read what is known: the members that are complete ([`get`](Self::get),
/// [`member`](Self::member), [`members`](Self::members)), the member being written
/// ([`open_member`](Self::open_member), [`str_so_far`](Self::str_so_far)), or everything as one
/// [`Partial`](super::Partial) tree ([`partial`](Self::partial)). Reading borrows what the parser
/// holds and builds nothing; [`to_value`](Self::to_value) builds a [`Value`] for a reader that
/// wants one.
///
/// When the text is complete, [`finish`](Self::finish) gives exactly what
/// `serde_json::from_str::<Value>` gives for the joined text. Text that stops being JSON does
/// not panic and poisons nothing: [`error`](Self::error) says where it broke, what came before
/// stays readable, and later deltas are ignored.
///
/// [`PartialCalls`](super::PartialCalls) keeps one for each call of a stream.
///
/// ```
/// use skyl::provider::partial::PartialArguments;
///
/// let mut arguments = PartialArguments::new();
/// arguments.push(r#"{"path": "notes/to"#);
/// assert_eq!(arguments.get::<String>("path"), None); // not complete yet
/// assert_eq!(arguments.str_so_far("path"), Some("notes/to"));
///
/// arguments.push(r##"do.md", "content": "# To do\n- wr"##);
/// assert_eq!(arguments.get::<String>("path").as_deref(), Some("notes/todo.md"));
/// assert_eq!(arguments.str_so_far("content"), Some("# To do\n- wr"));
///
/// arguments.push(r#"ite the tests\n"}"#);
/// assert_eq!(
///     arguments.finish().unwrap(),
///     serde_json::json!({"path": "notes/todo.md", "content": "# To do\n- write the tests\n"})
/// );
/// ```
#[derive(Clone, Debug, Default)]
pub struct PartialArguments {
    /// The containers open around the point reached, outermost first.
    pub(super) stack: Vec<Frame>,
    pub(super) state: State,
    /// Whether the string being read is an object's key.
    pub(super) in_key: bool,
    /// The decoded text of the string being read.
    pub(super) text: String,
    /// The characters of the number being read.
    pub(super) number: String,
    /// Where the number being read began, for the error should it not be one.
    number_at: usize,
    /// The value of the `\u` escape being read, and how many of its hex digits are still to come.
    unicode: u16,
    digits: u8,
    /// Where the escape being read began.
    escape_at: usize,
    /// A leading surrogate whose trailing half is still to come.
    leading: Option<u16>,
    /// The first bytes of a UTF-8 character that [`push_bytes`](Self::push_bytes) had to cut.
    pub(super) cut: [u8; 4],
    pub(super) cut_len: u8,
    /// The whole value, once it is complete.
    pub(super) root: Option<Value>,
    /// How many bytes of text were read before the current delta.
    pub(super) read: usize,
    pub(super) broken: Option<BrokenArguments>,
}

/// A container still open: what it holds so far.
#[derive(Clone, Debug)]
pub(super) enum Frame {
    Object {
        members: Map<String, Value>,
        /// The key of the member being written, once the key is complete.
        key: Option<String>,
    },
    Array(Vec<Value>),
}

/// What the parser expects next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum State {
    /// The whole value, with whitespace before it.
    #[default]
    Start,
    /// A value: after a colon, or after a comma in an array.
    Value,
    /// After `[`: an item or `]`.
    FirstItem,
    /// After `{`: a key or `}`.
    FirstKey,
    /// After a comma in an object: a key.
    Key,
    /// After a key: its colon.
    Colon,
    /// After a value in a container: a comma or the container's end.
    Next,
    /// Inside a string.
    String,
    /// After a backslash inside a string.
    Escape,
    /// Inside a `\u` escape's hex digits.
    Unicode,
    /// After a leading surrogate's escape: the backslash of its trailing half.
    TrailingBackslash,
    /// The `u` of the trailing half.
    TrailingU,
    /// Inside a number.
    Number,
    /// Inside `true`, `false` or `null`: the word and how much of it has been read.
    Literal(&'static str, u8),
    /// After the whole value: nothing but whitespace.
    Done,
}

impl PartialArguments {
    /// A parser that has read nothing.
    pub fn new() -> PartialArguments {
        PartialArguments::default()
    }

    /// Reads the next piece of the arguments' JSON text.
    ///
    /// Does nothing once the text has stopped being JSON ([`error`](Self::error)).
    // Always inlined: most deltas take the fast path, a few instructions that a call (with the
    // registers it saves for `push_text`) cost as much as again.
    #[inline(always)]
    pub fn push(&mut self, delta: &str) {
        // Most deltas of a long call fall inside one string and hold no quote or backslash: they
        // are its next characters, and nothing else changes.
        let mut scanned = None;
        if matches!(self.state, State::String) && self.cut_len == 0 && self.broken.is_none() {
            let plain = plain_len(delta.as_bytes());
            if plain == delta.len() {
                self.text.push_str(delta);
                self.read += delta.len();
                return;
            }
            scanned = Some(plain);
        }
        self.push_text(delta, scanned);
    }

    /// [`push`](Self::push), for a delta that does more than grow a string. `scanned`, when the
    /// string's plain run was measured already: its first bytes are the string's next characters,
    /// and the byte after them ends the run.
    pub(super) fn push_text(&mut self, delta: &str, scanned: Option<usize>) {
        if self.broken.is_some() {
            return;
        }
        if self.cut_len > 0 {
            // The character cut at the end of the last bytes must go on here.
            return self.push_bytes(delta.as_bytes());
        }
        let bytes = delta.as_bytes();
        let mut i = 0;
        // Whether the run before the byte at `i` is read already, so that it is not measured twice.
        let mut run_read = false;
        if let Some(plain) = scanned {
            if plain > 0 {
                // `plain` stops before an ASCII byte: a character boundary.
                self.text.push_str(&delta[..plain]);
                i = plain;
            }
            run_read = true;
        }
        while i < bytes.len() {
            if matches!(self.state, State::String) {
                // A string's plain runs and its short escapes, read here without a state change.
                loop {
                    if !run_read {
                        let plain = plain_len(&bytes[i..]);
                        if plain > 0 {
                            // `plain` stops before an ASCII byte or at the end: a character
                            // boundary.
                            self.text.push_str(&delta[i..i + plain]);
                            i += plain;
                        }
                    }
                    run_read = false;
                    let Some(&byte) = bytes.get(i) else { break };
                    if byte == b'"' {
                        self.end_string();
                        i += 1;
                        break;
                    }
                    if byte != b'\\' {
                        return self.fail(i, "a string's next character", Found::Control(byte));
                    }
                    match bytes.get(i + 1).and_then(|&escape| short_escape(escape)) {
                        Some(decoded) => {
                            self.text.push(decoded);
                            i += 2;
                        }
                        None => {
                            // A `\u` escape, an escape cut by the delta's end, or a wrong one.
                            self.escape_at = self.read + i;
                            self.state = State::Escape;
                            i += 1;
                            break;
                        }
                    }
                }
                continue;
            }
            match self.step(bytes[i], i) {
                Ok(true) => i += 1,
                Ok(false) => {}
                Err((expected, found)) => return self.fail(i, expected, found),
            }
            if self.broken.is_some() {
                return;
            }
        }
        self.read += bytes.len();
    }

    /// Ends the text: the whole value, exactly as `serde_json::from_str::<Value>` reads the
    /// joined deltas, or where they stopped being JSON (ended too soon, when all was JSON but the
    /// end).
    pub fn finish(mut self) -> Result<Value, BrokenArguments> {
        self.end();
        match (self.root, self.broken) {
            (_, Some(broken)) => Err(broken),
            (Some(value), None) => Ok(value),
            (None, None) => Err(BrokenArguments::new(self.read, "a value", Found::End)),
        }
    }

    /// Ends the text in place: a number at the end completes, anything else unfinished is
    /// [`BrokenArguments`] cut short.
    pub(super) fn end(&mut self) {
        if self.broken.is_some() {
            return;
        }
        if self.cut_len > 0 {
            return self.fail(0, "the rest of a UTF-8 character", Found::End);
        }
        if self.state == State::Number && self.stack.is_empty() {
            self.end_number();
        }
        if self.state != State::Done && self.broken.is_none() {
            let expected = self.expected();
            self.fail(0, expected, Found::End);
        }
    }

    /// A parser that has read the whole `value`.
    pub(super) fn whole(value: Value) -> PartialArguments {
        PartialArguments {
            root: Some(value),
            state: State::Done,
            ..PartialArguments::default()
        }
    }

    /// Whether nothing but whitespace has been read.
    pub(super) fn is_untouched(&self) -> bool {
        self.state == State::Start && self.broken.is_none()
    }

    /// Where the text broke, if it did.
    pub fn error(&self) -> Option<&BrokenArguments> {
        self.broken.as_ref()
    }

    /// Whether the whole value has been read (a number at the very end completes only at
    /// [`finish`](Self::finish), since more digits could follow).
    pub fn is_complete(&self) -> bool {
        self.root.is_some()
    }

    /// The whole value, once it is complete.
    pub fn value(&self) -> Option<&Value> {
        self.root.as_ref()
    }

    /// How many bytes of text have been read, up to the last delta.
    pub fn bytes_read(&self) -> usize {
        self.read
    }

    /// Reads one byte outside a string's plain run. Returns whether the byte was used (a byte
    /// that ends a number is read again in the state after it).
    fn step(&mut self, byte: u8, i: usize) -> Result<bool, (&'static str, Found)> {
        match self.state {
            State::Start | State::Value | State::FirstItem => {
                if is_whitespace(byte) {
                    return Ok(true);
                }
                if byte == b']' && self.state == State::FirstItem {
                    self.close();
                    return Ok(true);
                }
                self.begin_value(byte, i)?;
            }
            State::FirstKey | State::Key => match byte {
                b' ' | b'\n' | b'\t' | b'\r' => {}
                b'"' => {
                    self.in_key = true;
                    self.state = State::String;
                }
                b'}' if self.state == State::FirstKey => self.close(),
                _ => return Err(("a key (a string in double quotes)", found(byte))),
            },
            State::Colon => match byte {
                b' ' | b'\n' | b'\t' | b'\r' => {}
                b':' => self.state = State::Value,
                _ => return Err(("`:`", found(byte))),
            },
            State::Next => match (byte, self.stack.last()) {
                (b' ' | b'\n' | b'\t' | b'\r', _) => {}
                (b',', Some(Frame::Object { .. })) => self.state = State::Key,
                (b',', _) => self.state = State::Value,
                (b'}', Some(Frame::Object { .. })) | (b']', Some(Frame::Array(_))) => self.close(),
                (_, Some(Frame::Object { .. })) => return Err(("`,` or `}`", found(byte))),
                (_, _) => return Err(("`,` or `]`", found(byte))),
            },
            // `push` reads strings in runs: a string begun by this byte's predecessor goes there.
            State::String => return Ok(false),
            State::Escape => match (byte, short_escape(byte)) {
                (_, Some(decoded)) => {
                    self.text.push(decoded);
                    self.state = State::String;
                }
                (b'u', None) => self.begin_unicode(),
                _ => return Err(("an escape (one of `\"\\/bfnrtu`)", found(byte))),
            },
            State::Unicode => {
                let digit = match byte {
                    b'0'..=b'9' => byte - b'0',
                    b'a'..=b'f' => byte - b'a' + 10,
                    b'A'..=b'F' => byte - b'A' + 10,
                    _ => return Err(("a hex digit", found(byte))),
                };
                self.unicode = self.unicode << 4 | u16::from(digit);
                self.digits -= 1;
                if self.digits == 0 {
                    self.end_unicode();
                }
            }
            State::TrailingBackslash => match byte {
                b'\\' => self.state = State::TrailingU,
                _ => return Err(("the trailing surrogate's `\\u`", found(byte))),
            },
            State::TrailingU => match byte {
                b'u' => self.begin_unicode(),
                _ => return Err(("the trailing surrogate's `\\u`", found(byte))),
            },
            State::Number => match byte {
                b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' => {
                    self.number.push(char::from(byte))
                }
                _ => {
                    self.end_number();
                    // The byte after the number belongs to what follows it.
                    return Ok(false);
                }
            },
            State::Literal(word, matched) => {
                if word.as_bytes().get(usize::from(matched)) != Some(&byte) {
                    let expected = match word {
                        "true" => "`true`",
                        "false" => "`false`",
                        _ => "`null`",
                    };
                    return Err((expected, found(byte)));
                }
                let matched = matched + 1;
                if usize::from(matched) == word.len() {
                    self.complete(match word {
                        "true" => Value::Bool(true),
                        "false" => Value::Bool(false),
                        _ => Value::Null,
                    });
                } else {
                    self.state = State::Literal(word, matched);
                }
            }
            State::Done => {
                if !is_whitespace(byte) {
                    return Err(("nothing after the arguments", found(byte)));
                }
            }
        }
        Ok(true)
    }

    /// The first byte of a value.
    fn begin_value(&mut self, byte: u8, i: usize) -> Result<(), (&'static str, Found)> {
        match byte {
            b'{' | b'[' => {
                if self.stack.len() == MAX_DEPTH {
                    return Err(("at most 127 nested objects and arrays", Found::TooDeep));
                }
                if byte == b'{' {
                    self.stack.push(Frame::Object {
                        members: Map::new(),
                        key: None,
                    });
                    self.state = State::FirstKey;
                } else {
                    self.stack.push(Frame::Array(Vec::new()));
                    self.state = State::FirstItem;
                }
            }
            b'"' => {
                self.in_key = false;
                self.state = State::String;
            }
            b'-' | b'0'..=b'9' => {
                self.number.clear();
                self.number.push(char::from(byte));
                self.number_at = self.read + i;
                self.state = State::Number;
            }
            b't' => self.state = State::Literal("true", 1),
            b'f' => self.state = State::Literal("false", 1),
            b'n' => self.state = State::Literal("null", 1),
            _ => return Err(("a value", found(byte))),
        }
        Ok(())
    }

    fn begin_unicode(&mut self) {
        self.unicode = 0;
        self.digits = 4;
        self.state = State::Unicode;
    }

    /// A `\u` escape's four digits are read: a character, or half of one.
    fn end_unicode(&mut self) {
        let unit = self.unicode;
        let code = match (self.leading.take(), unit) {
            (Some(leading), 0xDC00..=0xDFFF) => {
                0x1_0000 + ((u32::from(leading) - 0xD800) << 10 | (u32::from(unit) - 0xDC00))
            }
            (Some(leading), _) => {
                return self.broken_escape("a trailing surrogate", leading);
            }
            (None, 0xDC00..=0xDFFF) => return self.broken_escape("a character", unit),
            (None, 0xD800..=0xDBFF) => {
                self.leading = Some(unit);
                self.state = State::TrailingBackslash;
                return;
            }
            (None, unit) => u32::from(unit),
        };
        // Every code above is a scalar value: surrogates were paired or refused above.
        self.text
            .push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
        self.state = State::String;
    }

    /// A `\u` escape stands for half a character: the text broke where the escape began (the
    /// first half's, for a pair whose second half is not one).
    fn broken_escape(&mut self, expected: &'static str, unit: u16) {
        let at = self.escape_at;
        self.broken = Some(BrokenArguments::new(
            at,
            expected,
            Found::LoneSurrogate(unit),
        ));
    }

    fn end_string(&mut self) {
        let text = std::mem::take(&mut self.text);
        if self.in_key {
            self.in_key = false;
            if let Some(Frame::Object { key, .. }) = self.stack.last_mut() {
                *key = Some(text);
            }
            self.state = State::Colon;
        } else {
            self.complete(Value::String(text));
        }
    }

    /// The number being read has ended.
    fn end_number(&mut self) {
        // serde_json reads the number's text exactly as it reads a number inside a document.
        match serde_json::from_str::<Value>(&self.number) {
            Ok(number @ Value::Number(_)) => self.complete(number),
            _ => {
                let at = self.number_at;
                let text = std::mem::take(&mut self.number);
                self.broken = Some(BrokenArguments::new(at, "a number", Found::Number(text)));
            }
        }
    }

    /// A value is complete: it becomes a member or an item of the innermost container, or the
    /// whole value.
    fn complete(&mut self, value: Value) {
        match self.stack.last_mut() {
            None => {
                self.root = Some(value);
                self.state = State::Done;
            }
            Some(Frame::Object { members, key }) => {
                members.insert(key.take().unwrap_or_default(), value);
                self.state = State::Next;
            }
            Some(Frame::Array(items)) => {
                items.push(value);
                self.state = State::Next;
            }
        }
    }

    /// The innermost container has ended.
    fn close(&mut self) {
        let value = match self.stack.pop() {
            Some(Frame::Object { members, .. }) => Value::Object(members),
            Some(Frame::Array(items)) => Value::Array(items),
            None => return,
        };
        self.complete(value);
    }

    /// What the state needs next, for an end that comes too soon.
    fn expected(&self) -> &'static str {
        match self.state {
            State::Start | State::Value => "a value",
            State::FirstItem => "an item or `]`",
            State::FirstKey => "a key or `}`",
            State::Key => "a key",
            State::Colon => "`:`",
            State::Next => match self.stack.last() {
                Some(Frame::Object { .. }) => "`,` or `}`",
                _ => "`,` or `]`",
            },
            State::String | State::Escape | State::Unicode => "the rest of a string",
            State::TrailingBackslash | State::TrailingU => "a trailing surrogate",
            State::Number => "the rest of the arguments after a number",
            State::Literal("true", _) => "`true`",
            State::Literal("false", _) => "`false`",
            State::Literal(..) => "`null`",
            State::Done => "nothing",
        }
    }

    /// The text stopped being JSON `i` bytes into the current delta.
    pub(super) fn fail(&mut self, i: usize, expected: &'static str, found: Found) {
        if self.broken.is_none() {
            self.broken = Some(BrokenArguments::new(self.read + i, expected, found));
        }
    }
}

fn found(byte: u8) -> Found {
    if byte.is_ascii() {
        Found::Char(char::from(byte))
    } else {
        // The first byte of a multi-byte character; where it stands, any of them is wrong.
        Found::NonAscii
    }
}

/// The character of a one-letter escape (`\n`, `\"`, ...); `None` for `u` and for what is not
/// an escape.
#[inline]
fn short_escape(letter: u8) -> Option<char> {
    Some(match letter {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\n' | b'\t' | b'\r')
}

/// The length of the run at the start of `bytes` that a string takes as it is: up to a quote, a
/// backslash or a control character. Eight bytes at a time, as serde_json does.
#[inline]
fn plain_len(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut chunks = bytes.chunks_exact(8);
    let mut start = 0;
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let word = u64::from_le_bytes(word);
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        // A byte's high bit is set where it is zero after the xor (the quote, the backslash) or
        // below 0x20; the lowest such bit is exact (borrows only run upwards).
        let special = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(ONES * 0x20) & !word);
        let special = special & HIGH;
        if special != 0 {
            return start + (special.trailing_zeros() / 8) as usize;
        }
        start += 8;
    }
    let rest = chunks.remainder();
    start
        + rest
            .iter()
            .position(|&byte| SPECIAL[usize::from(byte)])
            .unwrap_or(rest.len())
}

/// The bytes that end a string's plain run: the quote, the backslash and the control characters.
static SPECIAL: [bool; 256] = {
    let mut special = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        special[byte] = true;
        byte += 1;
    }
    special[b'"' as usize] = true;
    special[b'\\' as usize] = true;
    special
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Parses `text` cut at every byte into two pieces (as bytes), and at every character
    /// boundary (as text), and checks each agrees with serde_json: the same value or an error.
    fn agrees(text: &str) -> Result<Value, BrokenArguments> {
        let expected = serde_json::from_str::<Value>(text);
        let mut whole = PartialArguments::new();
        whole.push(text);
        let result = whole.finish();
        assert_eq!(result.as_ref().ok(), expected.as_ref().ok(), "{text:?}");
        assert_eq!(result.is_err(), expected.is_err(), "{text:?}: {result:?}");
        for cut in 0..=text.len() {
            let mut parser = PartialArguments::new();
            parser.push_bytes(&text.as_bytes()[..cut]);
            parser.push_bytes(&text.as_bytes()[cut..]);
            assert_eq!(parser.finish(), result, "{text:?} cut at byte {cut}");
            if text.is_char_boundary(cut) {
                let mut parser = PartialArguments::new();
                parser.push(&text[..cut]);
                parser.push(&text[cut..]);
                assert_eq!(parser.finish(), result, "{text:?} cut at {cut}");
            }
        }
        let mut bytewise = PartialArguments::new();
        for byte in text.as_bytes() {
            bytewise.push_bytes(std::slice::from_ref(byte));
        }
        assert_eq!(bytewise.finish(), result, "{text:?} byte by byte");
        result
    }

    #[test]
    fn the_end_is_what_serde_json_reads_wherever_the_deltas_are_cut() {
        for text in [
            r#"{"path": "a.txt", "content": "line 1\nline \"2\"\t\\ \/ \b\f\r", "n": -12.5e3}"#,
            r#"{"a": [1, 2.0, -0, 1e400, 18446744073709551616, -9223372036854775809], "b": {}}"#,
            r#" { "t" : true , "f" : false , "n" : null , "e" : [ ] , "o" : { "x" : [ { } ] } } "#,
            r#"{"emoji": "\ud83d\ude00 \u00e9\u4E2D and ë, 中, 😀 as they are"}"#,
            r#"{"t": "Zoë \"日本語\" 😀\n\u00e9\ud83d\ude80\\ \u2705 «fin»", "k": ["é", "\ud83d\ude00"]}"#,
            r#"{"a": 1, "a": 2, "b": 3}"#,
            "[\"top\", \"level\"]",
            "\"a string\"",
            "123",
            "0.5",
            "true",
            "null",
            // Not JSON, as serde_json says.
            "",
            "   ",
            r#"{"a": 1,}"#,
            r#"[1, 2,]"#,
            r#"{"a" 1}"#,
            r#"{"a": 01}"#,
            r#"{"a": 1.}"#,
            r#"{"a": -}"#,
            r#"{"a": 1e}"#,
            r#"{"a": +1}"#,
            r#"{"a": .5}"#,
            r#"{"a": tru}"#,
            r#"{"a": nul"#,
            r#"{"a": "\x"}"#,
            r#"{"a": "\u12"}"#,
            r#"{"a": "\ud83d"}"#,
            r#"{"a": "\ud83d\u0041"}"#,
            r#"{"a": "\ude00"}"#,
            r#"{"a": "\ud83d\n"}"#,
            "{\"a\": \"tab\there\"}",
            r#"{"a": 1} {"b": 2}"#,
            r#"{"a": 1}x"#,
            r#"{"a": "unfinished"#,
            r#"{"a": [1, {"b": 2}"#,
            r#"{1: 2}"#,
            r#"{"a": 1 "b": 2}"#,
            "{\"a\": é}",
            "123abc",
            "-",
            "[1]]",
        ] {
            let _ = agrees(text);
        }
    }

    #[test]
    fn nesting_stops_where_serde_json_stops() {
        for depth in [126, 127, 128, 129] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let result = agrees(&text);
            assert_eq!(result.is_ok(), depth <= MAX_DEPTH, "depth {depth}");
            let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            assert_eq!(agrees(&text).is_ok(), depth <= MAX_DEPTH, "depth {depth}");
        }
    }

    #[test]
    fn a_surrogate_pair_cut_anywhere_is_one_character() {
        let text = r#"{"face": "\ud83d\ude00!"}"#;
        for cut in 0..=text.len() {
            let mut arguments = PartialArguments::new();
            arguments.push(&text[..cut]);
            let so_far = arguments.str_so_far("face").unwrap_or("");
            assert!("😀!".starts_with(so_far), "{so_far:?} at {cut}");
            arguments.push(&text[cut..]);
            assert_eq!(arguments.get::<String>("face").as_deref(), Some("😀!"));
        }
    }

    #[test]
    fn a_break_says_where_and_what_and_keeps_what_came_before() {
        let mut arguments = PartialArguments::new();
        arguments.push(r#"{"path": "a.txt", "#);
        arguments.push(r#""n": 1.2.3, "later": 1}"#);
        let broken = arguments.error().unwrap().clone();
        assert_eq!(broken.at(), 23);
        assert_eq!(broken.expected(), "a number");
        assert_eq!(
            broken.to_string(),
            "the tool call's arguments are not JSON from byte 23 on: expected a number, found `1.2.3`"
        );
        arguments.push(r#"{"ignored": true}"#);
        assert_eq!(arguments.to_value(), Some(json!({"path": "a.txt"})));
        assert_eq!(arguments.finish(), Err(broken));

        // A break inside a string keeps the string so far, and plain text after it is not read.
        let mut control = PartialArguments::new();
        control.push("{\"note\": \"one\u{1}");
        control.push("two");
        assert_eq!(control.error().map(BrokenArguments::at), Some(13));
        assert_eq!(control.str_so_far("note"), Some("one"));
        assert_eq!(control.bytes_read(), 0);

        let mut cut = PartialArguments::new();
        cut.push(r#"{"path": "a."#);
        let end = cut.finish().unwrap_err();
        assert!(end.is_cut_short());
        assert_eq!(
            end.to_string(),
            "the tool call's arguments are not JSON from byte 12 on: expected the rest of a string, found the end of the arguments"
        );

        let mut lone = PartialArguments::new();
        lone.push(r#"{"a": "\udc00"}"#);
        assert_eq!(
            lone.error().unwrap().to_string(),
            "the tool call's arguments are not JSON from byte 7 on: expected a character, found the lone surrogate \\uDC00"
        );
    }

    #[test]
    fn the_plain_run_of_a_string_stops_at_the_first_quote_backslash_or_control_character() {
        let text = "abcdefghijklmnopqrstuvwxyzé0123456789";
        assert_eq!(plain_len(text.as_bytes()), text.len());
        for special in ["\"", "\\", "\n", "\u{1f}"] {
            for at in 0..text.len() {
                if !text.is_char_boundary(at) {
                    continue;
                }
                let with = format!("{}{special}{}", &text[..at], &text[at..]);
                assert_eq!(plain_len(with.as_bytes()), at, "{with:?}");
            }
        }
        // 0x7f and bytes above 0x7f are plain.
        assert_eq!(plain_len("\u{7f}\u{80}\u{ff}".as_bytes()), 5);
    }
}
