//! Arguments fed as bytes: a piece may end inside a UTF-8 character, whose first bytes wait for
//! the next piece; the rest of a piece is checked once and read as text.

use super::error::Found;
use super::parser::{PartialArguments, State};

impl PartialArguments {
    /// Reads the next piece of the arguments' text as bytes, which may end inside a UTF-8
    /// character: its first bytes are kept until the next piece brings the rest.
    ///
    /// ```
    /// use skyl::provider::partial::PartialArguments;
    ///
    /// let text = r#"{"name": "Zoë"}"#.as_bytes();
    /// let (first, second) = text.split_at(13); // inside the two bytes of `ë`
    /// let mut arguments = PartialArguments::new();
    /// arguments.push_bytes(first);
    /// assert_eq!(arguments.str_so_far("name"), Some("Zo"));
    /// arguments.push_bytes(second);
    /// assert_eq!(arguments.get::<String>("name").as_deref(), Some("Zoë"));
    /// ```
    pub fn push_bytes(&mut self, mut bytes: &[u8]) {
        if self.broken.is_some() {
            return;
        }
        if self.cut_len > 0 {
            let have = usize::from(self.cut_len);
            let width = utf8_width(self.cut[0]);
            let take = (width - have).min(bytes.len());
            self.cut[have..have + take].copy_from_slice(&bytes[..take]);
            self.cut_len += take as u8;
            bytes = &bytes[take..];
            if usize::from(self.cut_len) < width {
                return;
            }
            self.cut_len = 0;
            let cut = self.cut;
            match std::str::from_utf8(&cut[..width]) {
                // A character outside ASCII belongs to a string, as the next of its characters.
                Ok(character) if self.state == State::String => {
                    self.text.push_str(character);
                    self.read += width;
                }
                Ok(character) => self.push_text(character, None),
                Err(_) => return self.fail(0, "UTF-8 text", Found::NotUtf8),
            }
            if self.broken.is_some() {
                return;
            }
        }
        // The bytes before a character cut by the end are checked once, and read as text; the
        // cut character's first bytes wait for the rest.
        let (whole, rest) = bytes.split_at(bytes.len() - cut_len(bytes));
        match std::str::from_utf8(whole) {
            Ok(text) => self.push(text),
            Err(error) => {
                if let Ok(text) = std::str::from_utf8(&whole[..error.valid_up_to()]) {
                    self.push_text(text, None);
                }
                return self.fail(0, "UTF-8 text", Found::NotUtf8);
            }
        }
        if rest.is_empty() || self.broken.is_some() {
            return;
        }
        // What std finds ending too soon is the beginning of a character; anything else (a byte
        // that begins none, a wrong second byte) is not UTF-8 whatever follows.
        match std::str::from_utf8(rest) {
            Err(error) if error.error_len().is_none() => {
                self.cut[..rest.len()].copy_from_slice(rest);
                self.cut_len = rest.len() as u8;
            }
            _ => self.fail(0, "UTF-8 text", Found::NotUtf8),
        }
    }
}

/// How many bytes a UTF-8 character takes, from its first byte (a byte `from_utf8` found to be a
/// valid start).
fn utf8_width(first: u8) -> usize {
    match first {
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    }
}

/// How many bytes at the end of `bytes` begin a character that has more bytes than are left: 0
/// to 3. Found from the last byte that is not a continuation byte, without reading the rest.
fn cut_len(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let byte = bytes[bytes.len() - back];
        if byte & 0xC0 != 0x80 {
            return if byte >= 0xC0 && utf8_width(byte) > back {
                back
            } else {
                0
            };
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::super::BrokenArguments;
    use super::PartialArguments;

    #[test]
    fn bytes_that_are_not_utf8_break_the_arguments() {
        let mut arguments = PartialArguments::new();
        arguments.push_bytes(b"{\"a\": \"\xc3");
        assert_eq!(arguments.error(), None);
        arguments.push_bytes(b"(\"}");
        assert_eq!(
            arguments.error().map(ToString::to_string).as_deref(),
            Some(
                "the tool call's arguments are not JSON from byte 7 on: expected UTF-8 text, found bytes that are not UTF-8"
            )
        );
        let mut arguments = PartialArguments::new();
        arguments.push_bytes(b"{\"a\": \"\xff\"}");
        assert!(arguments.error().is_some());
        let mut cut = PartialArguments::new();
        cut.push_bytes(b"\"\xe4\xb8");
        assert!(cut.finish().unwrap_err().is_cut_short());
        // An end that can begin no character (0xE0 takes 0xA0 to 0xBF next) breaks at once, not
        // at the end.
        let mut wrong = PartialArguments::new();
        wrong.push_bytes(b"\"ab\xe0\x80");
        assert_eq!(wrong.error().map(BrokenArguments::at), Some(3));
        let mut wrong = PartialArguments::new();
        wrong.push_bytes(b"\"ab\xf8");
        assert_eq!(wrong.error().map(BrokenArguments::at), Some(3));
    }
}
