//! Server-sent events: the bytes of an HTTP response body in, whole events out.
//!
//! The format is the WHATWG HTML standard's `text/event-stream`: lines ending in `\n`, `\r\n` or a
//! lone `\r`; a blank line ends an event; `event:` names it, each `data:` line adds a line to its
//! data; a line starting with `:` is a comment (OpenRouter sends `: OPENROUTER PROCESSING` while it
//! waits); `id:` and `retry:` matter only to a browser that reconnects, and are skipped.

use std::borrow::Cow;

/// One server-sent event: its type and its data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, or `"message"` (the format's default) when the event has none.
    pub event: String,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

/// Splits a byte stream into [`SseEvent`]s, whatever the chunk boundaries: a line, a `\r\n` or a
/// UTF-8 character may be cut anywhere between two calls to [`feed`](Self::feed).
///
/// It does no I/O; give it each piece of the body as it arrives.
///
/// ```
/// use skyl::provider::{SseEvent, SseParser};
///
/// let mut parser = SseParser::new();
/// let mut events = Vec::new();
/// for piece in ["event: ping\r\nda", "ta: {}\r\n", "\r\n: a comment\n\ndata: a\ndata: b\n\n"] {
///     parser.feed(piece.as_bytes(), |event| events.push(event.clone()));
/// }
/// assert_eq!(
///     events,
///     [
///         SseEvent { event: "ping".into(), data: "{}".into() },
///         SseEvent { event: "message".into(), data: "a\nb".into() },
///     ]
/// );
/// ```
#[derive(Debug, Default)]
pub struct SseParser {
    /// The start of a line whose end has not arrived yet.
    partial: Vec<u8>,
    /// The last piece ended in `\r`: a `\n` opening the next piece ends nothing.
    after_cr: bool,
    /// The first line has been read (a byte-order mark before it is skipped).
    started: bool,
    /// The event being read.
    event: SseEvent,
    /// The event being read has a `data:` field (an event without one is not dispatched).
    has_data: bool,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next piece of the stream and passes every event it completes to `on_event`, in
    /// order. The event is lent: clone it to keep it.
    pub fn feed(&mut self, bytes: &[u8], mut on_event: impl FnMut(&SseEvent)) {
        let _ = self.try_feed(bytes, |event| {
            on_event(event);
            Ok::<(), std::convert::Infallible>(())
        });
    }

    /// [`feed`](Self::feed), stopping at the first error `on_event` returns. The rest of `bytes`
    /// is not read: after an error, the stream is expected to be abandoned.
    pub fn try_feed<E>(
        &mut self,
        mut bytes: &[u8],
        mut on_event: impl FnMut(&SseEvent) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            let (line, rest) = bytes.split_at(end);
            let crlf = rest.starts_with(b"\r\n");
            if rest[0] == b'\r' && rest.len() == 1 {
                self.after_cr = true;
            }
            bytes = &rest[if crlf { 2 } else { 1 }..];
            if self.partial.is_empty() {
                self.line(line, &mut on_event)?;
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(line);
                let result = self.line(&whole, &mut on_event);
                whole.clear();
                self.partial = whole;
                result?;
            }
        }
        self.partial.extend_from_slice(bytes);
        Ok(())
    }

    /// Whether the stream, were it to end here, would leave an event unfinished: a line or an
    /// event without its closing blank line. The format drops such an event.
    pub fn has_partial_event(&self) -> bool {
        !self.partial.is_empty() || self.has_data || !self.event.event.is_empty()
    }

    fn line<E>(
        &mut self,
        mut line: &[u8],
        on_event: &mut impl FnMut(&SseEvent) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.started {
            self.started = true;
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch(on_event);
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.event.data.push('\n');
                }
                self.has_data = true;
                self.event.data.push_str(&text(value));
            }
            b"event" => {
                self.event.event.clear();
                self.event.event.push_str(&text(value));
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch<E>(
        &mut self,
        on_event: &mut impl FnMut(&SseEvent) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.has_data {
            self.event.event.clear();
            return Ok(());
        }
        if self.event.event.is_empty() {
            self.event.event.push_str("message");
        }
        let result = on_event(&self.event);
        self.event.event.clear();
        self.event.data.clear();
        self.has_data = false;
        result
    }
}

/// The bytes as text; a stream that is not UTF-8 is read with replacement characters, as the
/// format says.
fn text(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(pieces: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        for piece in pieces {
            parser.feed(piece, |event| events.push(event.clone()));
        }
        events
    }

    fn event(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn every_line_ending_ends_a_line() {
        let expected = vec![event("a", "1"), event("message", "2\n3")];
        for ending in ["\n", "\r\n", "\r"] {
            let stream = ["event: a", "data: 1", "", "data: 2", "data: 3", "", ""].join(ending);
            assert_eq!(events(&[stream.as_bytes()]), expected, "{ending:?}");
        }
    }

    #[test]
    fn a_stream_cut_at_every_byte_gives_the_same_events() {
        let stream = "\u{feff}: hello\r\nevent: content_block_delta\r\ndata: {\"text\": \"caf\u{e9} \u{1f600}\"}\r\n\r\nid: 7\nretry: 10\ndata\ndata:x\n\nevent: only a name\n\n";
        let whole = events(&[stream.as_bytes()]);
        assert_eq!(
            whole,
            vec![
                event("content_block_delta", "{\"text\": \"caf\u{e9} \u{1f600}\"}"),
                event("message", "\nx"),
            ]
        );
        let bytes = stream.as_bytes();
        for cut in 0..=bytes.len() {
            assert_eq!(
                events(&[&bytes[..cut], &bytes[cut..]]),
                whole,
                "cut at {cut}"
            );
        }
        let one_by_one: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(events(&one_by_one), whole);
    }

    #[test]
    fn an_unfinished_event_is_not_dispatched() {
        let mut parser = SseParser::new();
        let mut count = 0;
        parser.feed(b"data: {\"a\": 1}\n", |_| count += 1);
        assert_eq!(count, 0);
        assert!(parser.has_partial_event());
        parser.feed(b"\n", |_| count += 1);
        assert_eq!(count, 1);
        assert!(!parser.has_partial_event());
    }

    #[test]
    fn an_error_stops_the_reading() {
        let mut parser = SseParser::new();
        let mut seen = Vec::new();
        let result = parser.try_feed(b"data: 1\n\ndata: 2\n\ndata: 3\n\n", |event| {
            seen.push(event.data.clone());
            if event.data == "2" {
                Err("stop")
            } else {
                Ok(())
            }
        });
        assert_eq!(result, Err("stop"));
        assert_eq!(seen, ["1", "2"]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(
            events(&[b"data: a\xffb\n\n"]),
            vec![event("message", "a\u{fffd}b")]
        );
    }
}
