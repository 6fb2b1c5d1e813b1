//! Whether media bytes are what their media type says: each format's signature (its first bytes).
//!
//! A provider that gets a PNG labelled JPEG, or text labelled PNG, answers with a 400 that names
//! neither the tool nor the call; reading the first bytes finds it before anything is sent, and
//! says what the bytes look like instead.

/// The formats skyl checks, with their signatures. A media type not listed here is refused as
/// media: no provider's vision or audio input takes it.
pub(crate) fn matches(media_type: &str, head: &[u8]) -> Result<(), Mismatch> {
    match is(media_type, head) {
        Some(true) => Ok(()),
        Some(false) => Err(Mismatch::Bytes(looks(head))),
        None => Err(Mismatch::Unsupported),
    }
}

/// Whether `head` starts as `media_type`'s format does, or `None` for a type skyl has no
/// signature of.
fn is(media_type: &str, head: &[u8]) -> Option<bool> {
    Some(match media_type {
        "image/png" => head.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => head.starts_with(&[0xff, 0xd8, 0xff]),
        "image/gif" => head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a"),
        "image/webp" => riff(head, b"WEBP"),
        "application/pdf" => head.starts_with(b"%PDF-"),
        "audio/wav" | "audio/x-wav" | "audio/wave" => riff(head, b"WAVE"),
        "audio/mpeg" | "audio/mp3" => {
            head.starts_with(b"ID3")
                || (head.len() >= 2 && head[0] == 0xff && head[1] & 0xe0 == 0xe0)
        }
        "audio/ogg" => head.starts_with(b"OggS"),
        "audio/flac" => head.starts_with(b"fLaC"),
        _ => return None,
    })
}

fn riff(head: &[u8], form: &[u8; 4]) -> bool {
    head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == form
}

/// Each format [`is`] knows, by the name a sentence gives it.
const FORMATS: [(&str, &str); 9] = [
    ("image/png", "a PNG"),
    ("image/jpeg", "a JPEG"),
    ("image/gif", "a GIF"),
    ("image/webp", "a WebP image"),
    ("application/pdf", "a PDF"),
    ("audio/wav", "a WAV file"),
    ("audio/mpeg", "an MP3"),
    ("audio/ogg", "an Ogg file"),
    ("audio/flac", "a FLAC file"),
];

/// What bytes look like, from their first: a format skyl knows, text, or neither.
pub(crate) fn looks(head: &[u8]) -> Looks {
    if head.is_empty() {
        return Looks::Empty;
    }
    if let Some((_, name)) = FORMATS
        .iter()
        .find(|(media_type, _)| is(media_type, head) == Some(true))
    {
        return Looks::Format(name);
    }
    // The head may end inside a character: the text is what comes before it.
    let text = match std::str::from_utf8(head) {
        Ok(text) => Some(text),
        Err(error) if error.error_len().is_none() => {
            std::str::from_utf8(&head[..error.valid_up_to()]).ok()
        }
        Err(_) => None,
    };
    match text {
        Some(text)
            if !text.is_empty()
                && text
                    .chars()
                    .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t')) =>
        {
            Looks::Text(text.to_owned())
        }
        _ => Looks::Bytes(head.iter().copied().take(SHOWN_BYTES).collect()),
    }
}

/// How many leading bytes are read: the 12 a signature needs at most, and a few more for text to
/// show (a multiple of 3, so that they are whole base64 digits).
pub(crate) const SHOWN: usize = 18;

/// How many bytes a note shows in hexadecimal.
const SHOWN_BYTES: usize = 8;

/// Why media bytes were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mismatch {
    /// The bytes do not start as the media type's format does; what they look like instead.
    Bytes(Looks),
    /// The data is not base64, so there are no bytes to check.
    NotBase64,
    /// skyl knows no signature for the media type, and no provider takes it as media.
    Unsupported,
}

/// What bytes that are not their media type's format look like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Looks {
    /// Another format skyl knows, by name: "a GIF".
    Format(&'static str),
    /// Text: its first characters.
    Text(String),
    /// Neither: the first few bytes.
    Bytes(Vec<u8>),
    /// There are no bytes.
    Empty,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_is_known_by_its_first_bytes() {
        let wav = b"RIFF\x24\0\0\0WAVEfmt ";
        let webp = b"RIFF\x24\0\0\0WEBPVP8 ";
        for (media_type, head) in [
            ("image/png", &b"\x89PNG\r\n\x1a\n\0\0\0\x0d"[..]),
            ("image/jpeg", &[0xff, 0xd8, 0xff, 0xe0][..]),
            ("image/gif", b"GIF89a\x01\0"),
            ("image/webp", webp),
            ("application/pdf", b"%PDF-1.7\n"),
            ("audio/wav", wav),
            ("audio/mpeg", b"ID3\x04"),
            ("audio/mpeg", &[0xff, 0xfb, 0x90][..]),
            ("audio/ogg", b"OggS\0"),
            ("audio/flac", b"fLaC"),
        ] {
            assert_eq!(matches(media_type, head), Ok(()), "{media_type}");
        }
        assert_eq!(
            matches("image/png", b"GIF89a"),
            Err(Mismatch::Bytes(Looks::Format("a GIF")))
        );
        assert_eq!(
            matches("image/webp", wav),
            Err(Mismatch::Bytes(Looks::Format("a WAV file")))
        );
        assert_eq!(
            matches("image/jpeg", b""),
            Err(Mismatch::Bytes(Looks::Empty))
        );
        assert_eq!(matches("image/bmp", b"BM"), Err(Mismatch::Unsupported));
    }

    #[test]
    fn bytes_look_like_a_format_text_or_neither() {
        assert_eq!(looks(&[0xff, 0xd8, 0xff, 0xdb]), Looks::Format("a JPEG"));
        assert_eq!(looks(b"%PDF-1.7"), Looks::Format("a PDF"));
        assert_eq!(
            looks(b"<!DOCTYPE html>\n"),
            Looks::Text("<!DOCTYPE html>\n".into())
        );
        // A character cut at the end of the head is left out of the text.
        assert_eq!(
            looks("caf\u{e9}".as_bytes()[..4].as_ref()),
            Looks::Text("caf".into())
        );
        assert_eq!(
            looks(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            Looks::Bytes(vec![0, 1, 2, 3, 4, 5, 6, 7])
        );
        assert_eq!(looks(b"\x1b[31m"), Looks::Bytes(b"\x1b[31m".to_vec()));
        assert_eq!(looks(b""), Looks::Empty);
    }
}
