//! Newline-delimited JSON (`application/x-ndjson`): the bytes of a response body in, one JSON
//! document a line out. Ollama's own API streams this way.

/// Splits a byte stream into its lines, whatever the chunk boundaries: a line, a `\r\n` or a
/// UTF-8 character may be cut anywhere between two calls to [`try_feed`](Self::try_feed). Blank
/// lines are skipped and a `\r` before the `\n` is dropped.
///
/// It does no I/O; give it each piece of the body as it arrives, then call
/// [`try_finish`](Self::try_finish) for a last line the body did not end with a line break.
///
/// ```
/// use skyl::provider::stream::JsonLinesParser;
///
/// let mut parser = JsonLinesParser::new();
/// let mut lines = Vec::new();
/// let mut keep = |line: &str| -> Result<(), ()> {
///     lines.push(line.to_owned());
///     Ok(())
/// };
/// for piece in ["{\"a\":", "1}\r\n\n{\"b\"", ":2}\n{\"c\":3}"] {
///     parser.try_feed(piece.as_bytes(), &mut keep).unwrap();
/// }
/// parser.try_finish(&mut keep).unwrap();
/// assert_eq!(lines, [r#"{"a":1}"#, r#"{"b":2}"#, r#"{"c":3}"#]);
/// ```
#[derive(Debug, Default)]
pub struct JsonLinesParser {
    /// The start of a line whose end has not arrived yet.
    partial: Vec<u8>,
}

impl JsonLinesParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next piece of the stream and passes every line it completes to `on_line`, in
    /// order, stopping at the first error `on_line` returns (the rest of `bytes` is not read:
    /// after an error, the stream is expected to be abandoned).
    pub fn try_feed<E>(
        &mut self,
        mut bytes: &[u8],
        mut on_line: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(end) = memchr::memchr(b'\n', bytes) {
            let (line, rest) = (&bytes[..end], &bytes[end + 1..]);
            bytes = rest;
            if self.partial.is_empty() {
                emit(line, &mut on_line)?;
            } else {
                self.partial.extend_from_slice(line);
                let line = std::mem::take(&mut self.partial);
                emit(&line, &mut on_line)?;
            }
        }
        self.partial.extend_from_slice(bytes);
        Ok(())
    }

    /// Ends the stream: passes a last line that no line break ended to `on_line`.
    pub fn try_finish<E>(
        &mut self,
        mut on_line: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        let line = std::mem::take(&mut self.partial);
        emit(&line, &mut on_line)
    }
}

/// Passes `line` on without its `\r`, unless it is blank. A line that is not UTF-8 is passed with
/// the bad bytes replaced, so that the decoder says it is not JSON.
fn emit<E>(line: &[u8], on_line: &mut impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    on_line(&String::from_utf8_lossy(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(pieces: &[&[u8]]) -> Vec<String> {
        let mut parser = JsonLinesParser::new();
        let mut out = Vec::new();
        for piece in pieces {
            parser.try_feed(piece, |line| keep(&mut out, line)).unwrap();
        }
        parser.try_finish(|line| keep(&mut out, line)).unwrap();
        out
    }

    fn keep(out: &mut Vec<String>, line: &str) -> Result<(), ()> {
        out.push(line.to_owned());
        Ok(())
    }

    #[test]
    fn a_character_cut_between_pieces_is_whole_in_its_line() {
        let text = "{\"t\":\"é\"}\n".as_bytes();
        let cut = text.iter().position(|&b| b >= 0x80).unwrap() + 1;
        assert_eq!(lines(&[&text[..cut], &text[cut..]]), ["{\"t\":\"é\"}"]);
    }

    #[test]
    fn every_split_of_a_body_gives_the_same_lines() {
        let body = b"{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}";
        for cut in 0..=body.len() {
            assert_eq!(
                lines(&[&body[..cut], &body[cut..]]),
                ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn an_error_stops_the_reading() {
        let mut parser = JsonLinesParser::new();
        let mut seen = 0;
        let result = parser.try_feed(b"1\n2\n3\n", |_| {
            seen += 1;
            if seen == 2 { Err("stop") } else { Ok(()) }
        });
        assert_eq!((result, seen), (Err("stop"), 2));
    }
}
