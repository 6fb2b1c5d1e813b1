//! Standard base64 (RFC 4648, with padding), the encoding every wire and MCP use for media bytes.
//!
//! Written here rather than taken from a crate: it is forty lines, and the default dependency
//! tree stays serde, serde_json and schemars.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in base64, padded with `=`.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> shift) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// The bytes of `text`, or `None` when it is not base64. Padding is optional, and the URL-safe
/// alphabet is read too (MCP servers send either).
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=').as_bytes();
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// How many bytes `text` decodes to, counted without decoding it.
pub(crate) fn decoded_len(text: &str) -> usize {
    let digits = text.trim_end_matches('=').len();
    digits / 4 * 3 + (digits % 4).saturating_sub(1)
}

/// The first bytes of `text` (at most `count`, a multiple of 3), decoded; enough to read a
/// format's signature without decoding the whole of a large blob.
pub(crate) fn decode_prefix(text: &str, count: usize) -> Option<Vec<u8>> {
    let digits = count / 3 * 4;
    let end = text.len().min(digits);
    decode(text.get(..end)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_length() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"fooba", "Zm9vYmE="),
            (b"foobar", "Zm9vYmFy"),
            (&[0xff, 0xfe, 0x00], "//4A"),
        ] {
            assert_eq!(encode(bytes), text);
            assert_eq!(decode(text).as_deref(), Some(bytes));
            assert_eq!(decoded_len(text), bytes.len());
        }
    }

    #[test]
    fn reads_unpadded_and_url_safe_text_and_refuses_the_rest() {
        assert_eq!(decode("Zm8").as_deref(), Some(&b"fo"[..]));
        assert_eq!(decode("__4A").as_deref(), Some(&[0xff, 0xfe, 0x00][..]));
        assert_eq!(decode("Zm9v!"), None);
        assert_eq!(decode("Z"), None);
        assert_eq!(decode_prefix("Zm9vYmFy", 3).as_deref(), Some(&b"foo"[..]));
        assert_eq!(decode_prefix("Zm8=", 6).as_deref(), Some(&b"fo"[..]));
    }
}
