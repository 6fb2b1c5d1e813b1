//! Whether media bytes are what their media type says: each format's signature (its first bytes).
//!
//! A provider that gets a PNG labelled JPEG, or text labelled PNG, answers with a 400 that names
//! neither the tool nor the call; reading the first bytes finds it before anything is sent.

/// The formats skyl checks, with their signatures. A media type not listed here is refused as
/// media: no provider's vision or audio input takes it.
pub(crate) fn matches(media_type: &str, head: &[u8]) -> Result<(), Mismatch> {
    let ok = match media_type {
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
        _ => return Err(Mismatch::Unsupported),
    };
    if ok { Ok(()) } else { Err(Mismatch::Bytes) }
}

fn riff(head: &[u8], form: &[u8; 4]) -> bool {
    head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == form
}

/// How many leading bytes [`matches`] needs at most.
pub(crate) const HEAD: usize = 12;

/// Why media bytes were refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mismatch {
    /// The bytes do not start as the media type's format does.
    Bytes,
    /// skyl knows no signature for the media type, and no provider takes it as media.
    Unsupported,
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
        assert_eq!(matches("image/png", b"GIF89a"), Err(Mismatch::Bytes));
        assert_eq!(matches("image/webp", wav), Err(Mismatch::Bytes));
        assert_eq!(matches("image/jpeg", b""), Err(Mismatch::Bytes));
        assert_eq!(matches("image/bmp", b"BM"), Err(Mismatch::Unsupported));
    }
}
