//! Server-sent events: the bytes of an HTTP response body in, whole events out.
//!
//! The format is the WHATWG HTML standard's `text/event-stream`: lines ending in `\n`, `\r\n` or a
//! lone `\r`; a blank line ends an event; `event:` names it, each `data:` line adds a line to its
//! data; a line starting with `:` is a comment (OpenRouter sends `: OPENROUTER PROCESSING` while it
//! waits); `id:` and `retry:` matter only to a browser that reconnects, and are skipped.

use std::borrow::Cow;

/// One server-sent event: its type and its data.
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
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
/// It does no I/O; give it each piece of the body as it arrives. One event may be at most
/// [`max_event_bytes`](Self::with_max_event_bytes) long (8 MiB unless set, as axum's
/// `DefaultBodyLimit` bounds a body): a server that sends more without ending the event is cut
/// off with [`EventTooLarge`], rather than read into memory for as long as it sends.
///
/// ```
/// use skyl::provider::stream::{SseEvent, SseParser};
///
/// let mut parser = SseParser::new();
/// let mut events = Vec::new();
/// for piece in ["event: ping\r\nda", "ta: {}\r\n", "\r\n: a comment\n\ndata: a\ndata: b\n\n"] {
///     parser.feed(piece.as_bytes(), |event| events.push(event.clone()))?;
/// }
/// assert_eq!(
///     events,
///     [
///         SseEvent { event: "ping".into(), data: "{}".into() },
///         SseEvent { event: "message".into(), data: "a\nb".into() },
///     ]
/// );
/// # Ok::<(), skyl::provider::stream::EventTooLarge>(())
/// ```
#[derive(Debug)]
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
    /// The most bytes one event may take, its lines and fields together.
    max_event_bytes: usize,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser {
            partial: Vec::new(),
            after_cr: false,
            started: false,
            event: SseEvent::default(),
            has_data: false,
            max_event_bytes: Self::DEFAULT_MAX_EVENT_BYTES,
        }
    }
}

/// An event longer than an [`SseParser`] reads: the server went on sending one event past the
/// limit. Its `Display` names the limit and the setting that raises it.
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventTooLarge {
    /// The limit, in bytes.
    pub limit: usize,
}

impl std::fmt::Display for EventTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "one server-sent event is longer than {} bytes, the most this stream reads of one event; if the provider's events are this large, raise the limit (SseParser::with_max_event_bytes, HttpModelBuilder::max_event_bytes)",
            self.limit
        )
    }
}

impl std::error::Error for EventTooLarge {}

/// Why [`SseParser::try_feed`] stopped: the error the caller's `on_event` returned, or an event
/// longer than the parser reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedError<E> {
    /// `on_event` returned this error.
    Event(E),
    /// An event was longer than the limit.
    TooLarge(EventTooLarge),
}

impl<E: std::fmt::Display> std::fmt::Display for FeedError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FeedError::Event(error) => error.fmt(f),
            FeedError::TooLarge(error) => error.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for FeedError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FeedError::Event(error) => error.source(),
            FeedError::TooLarge(_) => None,
        }
    }
}

impl<E> From<EventTooLarge> for FeedError<E> {
    fn from(error: EventTooLarge) -> Self {
        FeedError::TooLarge(error)
    }
}

impl SseParser {
    /// The longest event a parser reads unless told otherwise: 8 MiB, far above any answer's
    /// event (a whole image a model draws included) and far below a machine's memory.
    pub const DEFAULT_MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same parser, reading events of at most `max` bytes.
    pub fn with_max_event_bytes(mut self, max: usize) -> Self {
        self.max_event_bytes = max;
        self
    }

    /// Reads the next piece of the stream and passes every event it completes to `on_event`, in
    /// order. The event is lent: clone it to keep it. An event longer than the limit ends the
    /// reading with [`EventTooLarge`]; the stream is then to be abandoned.
    pub fn feed(
        &mut self,
        bytes: &[u8],
        mut on_event: impl FnMut(&SseEvent),
    ) -> Result<(), EventTooLarge> {
        self.try_feed(bytes, |event| {
            on_event(event);
            Ok::<(), std::convert::Infallible>(())
        })
        .map_err(|error| match error {
            FeedError::TooLarge(error) => error,
            FeedError::Event(never) => match never {},
        })
    }

    /// [`feed`](Self::feed), stopping at the first error `on_event` returns, or at an event
    /// longer than the limit. The rest of `bytes` is not read: after an error, the stream is
    /// expected to be abandoned.
    pub fn try_feed<E>(
        &mut self,
        mut bytes: &[u8],
        mut on_event: impl FnMut(&SseEvent) -> Result<(), E>,
    ) -> Result<(), FeedError<E>> {
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
        self.check_size()?;
        Ok(())
    }

    /// An error once the event being read (its fields, and the line not yet ended) is over the
    /// limit.
    fn check_size(&self) -> Result<(), EventTooLarge> {
        let size = self.partial.len() + self.event.data.len() + self.event.event.len();
        if size > self.max_event_bytes {
            return Err(EventTooLarge {
                limit: self.max_event_bytes,
            });
        }
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
    ) -> Result<(), FeedError<E>> {
        if !self.started {
            self.started = true;
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch(on_event).map_err(FeedError::Event);
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
                self.check_size()?;
            }
            b"event" => {
                self.event.event.clear();
                self.event.event.push_str(&text(value));
                self.check_size()?;
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
            parser
                .feed(piece, |event| events.push(event.clone()))
                .unwrap();
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
        parser.feed(b"data: {\"a\": 1}\n", |_| count += 1).unwrap();
        assert_eq!(count, 0);
        assert!(parser.has_partial_event());
        parser.feed(b"\n", |_| count += 1).unwrap();
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
        assert_eq!(result, Err(FeedError::Event("stop")));
        assert_eq!(seen, ["1", "2"]);
    }

    #[test]
    fn an_event_longer_than_the_limit_stops_the_reading() {
        let too_large = Err(EventTooLarge { limit: 16 });
        // In one line that never ends, in many data lines, and in a name.
        for pieces in [
            vec!["data: 0123456789", "0123456789"],
            vec!["data: 01234\n", "data: 56789\n", "data: abcde\n"],
            vec!["event: a-name-longer-than-sixteen"],
        ] {
            let mut parser = SseParser::new().with_max_event_bytes(16);
            let mut seen = 0;
            let results: Vec<_> = pieces
                .iter()
                .map(|piece| parser.feed(piece.as_bytes(), |_| seen += 1))
                .collect();
            assert_eq!(results.last(), Some(&too_large), "{pieces:?}");
            assert_eq!(seen, 0);
        }
        // Events up to the limit pass, however many there are.
        let mut parser = SseParser::new().with_max_event_bytes(16);
        let mut seen = 0;
        for _ in 0..100 {
            parser.feed(b"data: 0123456789\n\n", |_| seen += 1).unwrap();
        }
        assert_eq!(seen, 100);
        let mut parser = SseParser::new().with_max_event_bytes(4);
        assert_eq!(
            parser.try_feed(b"data: 12345\n\n", |_| Ok::<(), &str>(())),
            Err(FeedError::TooLarge(EventTooLarge { limit: 4 }))
        );
        assert_eq!(
            EventTooLarge { limit: 4 }.to_string(),
            "one server-sent event is longer than 4 bytes, the most this stream reads of one event; if the provider's events are this large, raise the limit (SseParser::with_max_event_bytes, HttpModelBuilder::max_event_bytes)"
        );
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(
            events(&[b"data: a\xffb\n\n"]),
            vec![event("message", "a\u{fffd}b")]
        );
    }
}
