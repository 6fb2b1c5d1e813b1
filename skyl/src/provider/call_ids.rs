//! Call ids across providers: making foreign ids acceptable to Anthropic, and minting ids for
//! calls a provider sent without one.
//!
//! Both are deterministic, so the same transcript always encodes to the same body and a call and
//! its result always map to the same id.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::names::word_char;
use crate::message::Message;

/// FNV-1a, 64 bits: a stable hash (std's `DefaultHasher` may change between Rust releases).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// `id` as Anthropic accepts it in history: `^[a-zA-Z0-9_-]+$` (the API answers any other id
/// with the 400 `messages.1.content.1.tool_use.id: String should match pattern
/// '^[a-zA-Z0-9_-]+$'`).
///
/// A valid id is kept. Otherwise every other character becomes `_` and a hash of the original id
/// is appended, so two ids that differ only in those characters stay distinct.
pub(crate) fn anthropic_id(id: &str) -> Cow<'_, str> {
    if !id.is_empty() && id.chars().all(word_char) {
        return Cow::Borrowed(id);
    }
    let cleaned: String = id
        .chars()
        .map(|c| if word_char(c) { c } else { '_' })
        .collect();
    Cow::Owned(format!("{cleaned}_{:08x}", fnv1a(id.as_bytes()) as u32))
}

/// The ids sent to Anthropic for the calls of one request, assigned turn by turn.
///
/// [`anthropic_id`] alone can map two distinct ids to one (`"call.1"` is cleaned to
/// `call_1_<hash>`, which is also a valid id a transcript may hold, and the 32-bit hash can
/// collide), and a transcript may reuse an id in a later turn (some OpenAI-compatible servers
/// number calls per answer). Either would pair a result with the wrong call or send two equal
/// `tool_use` ids. So every call of the request gets an id no earlier call got, and the results
/// of a turn, which [`transcript`](crate::transcript) puts right after it, use the same mapping.
#[derive(Debug)]
pub(crate) struct AnthropicIds<'a> {
    /// `None` when every call id of the request is valid and unique, so each is sent as it is.
    renaming: Option<Renaming<'a>>,
}

#[derive(Debug, Default)]
struct Renaming<'a> {
    /// Every id sent so far.
    used: HashSet<Cow<'a, str>>,
    /// The ids of the latest turn that are sent changed.
    changed: HashMap<&'a str, String>,
}

impl<'a> AnthropicIds<'a> {
    /// The mapping for a request whose calls have these ids. Most requests need none: every id
    /// valid and no two alike, which a table of the ids' hashes shows without comparing strings
    /// (two equal hashes, even of different ids, only take the slower way).
    pub(crate) fn new(messages: &'a [Message]) -> Self {
        let ids = || {
            messages
                .iter()
                .flat_map(Message::tool_calls)
                .map(|call| call.id.as_str())
        };
        let slots = (ids().count() * 2).next_power_of_two();
        let mut seen = vec![0u64; slots];
        let mut as_they_are = true;
        for id in ids() {
            // Without an early exit: ids are short, and a loop without branches costs less.
            let valid = id.bytes().fold(!id.is_empty(), |valid, byte| {
                valid & (byte.is_ascii_alphanumeric() | (byte == b'_') | (byte == b'-'))
            });
            as_they_are &= valid && insert(&mut seen, fnv1a(id.as_bytes()).max(1));
        }
        AnthropicIds {
            renaming: (!as_they_are).then(Renaming::default),
        }
    }

    /// Starts the mapping for the calls of a new assistant turn.
    pub(crate) fn open_turn(&mut self, calls: impl Iterator<Item = &'a str>) {
        if let Some(renaming) = &mut self.renaming {
            renaming.open_turn(calls);
        }
    }

    /// The id sent for `id`, a call (or the result of a call) of the latest turn.
    pub(crate) fn get<'s>(&'s self, id: &'s str) -> Cow<'s, str> {
        match &self.renaming {
            None => Cow::Borrowed(id),
            Some(renaming) => match renaming.changed.get(id) {
                Some(wire) => Cow::Borrowed(wire),
                None => anthropic_id(id),
            },
        }
    }
}

/// Adds `hash` (not 0, the mark of a free slot) to an open-addressed table with room to spare;
/// `false` when it was there already.
fn insert(table: &mut [u64], hash: u64) -> bool {
    let mask = table.len() - 1;
    let mut slot = (hash as usize) & mask;
    loop {
        match table[slot] {
            0 => {
                table[slot] = hash;
                return true;
            }
            taken if taken == hash => return false,
            _ => slot = (slot + 1) & mask,
        }
    }
}

impl<'a> Renaming<'a> {
    fn open_turn(&mut self, calls: impl Iterator<Item = &'a str>) {
        self.changed.clear();
        for id in calls {
            let base = anthropic_id(id);
            let wire = if self.used.contains(&base) {
                let mut n = 2;
                loop {
                    let wire = format!("{base}_{n}");
                    if !self.used.contains(wire.as_str()) {
                        break Cow::Owned(wire);
                    }
                    n += 1;
                }
            } else {
                base
            };
            if wire != id {
                self.changed.insert(id, wire.clone().into_owned());
            }
            self.used.insert(wire);
        }
    }
}

/// What makes minted ids of one response unique within a transcript: the provider's response id
/// when it sent a usable one, else a hash of the whole body (two responses in one transcript
/// differ at least in their usage counts, since the later prompt holds the earlier answer).
pub(crate) fn response_key<'a>(response_id: Option<&'a str>, body: &Value) -> Cow<'a, str> {
    match response_id {
        Some(id) if !id.is_empty() && id.len() <= 64 && id.chars().all(word_char) => {
            Cow::Borrowed(id)
        }
        _ => {
            let mut text = String::new();
            canonical_text(body, &mut text);
            Cow::Owned(format!("{:016x}", fnv1a(text.as_bytes())))
        }
    }
}

/// JSON text with object keys sorted, so the hash does not depend on the map order serde_json
/// was built with (its `preserve_order` feature).
fn canonical_text(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (n, key) in keys.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical_text(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                canonical_text(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The id for the `index`-th call of a response that gave it none.
pub(crate) fn mint(prefix: &str, key: &str, index: usize) -> String {
    // Written out rather than with `format!`, whose machinery cost more than the rest of the id:
    // Gemini mints one for nearly every call it makes.
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = index;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let digits = &digits[start..];
    let mut id = String::with_capacity(prefix.len() + key.len() + digits.len() + 2);
    id.push_str(prefix);
    id.push('_');
    id.push_str(key);
    id.push('_');
    // ASCII digits.
    id.extend(digits.iter().map(|&digit| char::from(digit)));
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_anthropic_ids_are_kept_and_others_cleaned_distinctly() {
        assert_eq!(anthropic_id("toolu_01A-b"), "toolu_01A-b");
        let a = anthropic_id("call.1");
        let b = anthropic_id("call:1");
        assert!(
            a.starts_with("call_1_") && b.starts_with("call_1_"),
            "{a} {b}"
        );
        assert_ne!(a, b);
        assert_eq!(anthropic_id("call.1"), a, "deterministic");
    }

    fn turn(ids: &[&str]) -> Message {
        Message {
            role: crate::message::Role::Assistant,
            parts: ids
                .iter()
                .map(|id| crate::message::ToolCall::new(*id, "t", json!({})).into())
                .collect(),
        }
    }

    #[test]
    fn anthropic_ids_never_collide_within_a_request() {
        let cleaned = anthropic_id("call.1").into_owned();
        // A valid id equal to the cleaned form of another, and a reused id.
        let transcript = [turn(&["call.1", &cleaned, "c"]), turn(&["c"])];
        let mut ids = AnthropicIds::new(&transcript);
        ids.open_turn(["call.1", cleaned.as_str(), "c"].into_iter());
        assert_eq!(ids.get("call.1"), cleaned);
        assert_eq!(ids.get(&cleaned), format!("{cleaned}_2"));
        assert_eq!(ids.get("c"), "c");
        ids.open_turn(["c"].into_iter());
        assert_eq!(ids.get("c"), "c_2");
    }

    #[test]
    fn valid_unique_ids_are_sent_as_they_are() {
        let transcript = [turn(&["a"]), turn(&["b"])];
        let mut ids = AnthropicIds::new(&transcript);
        assert!(ids.renaming.is_none());
        ids.open_turn(["b"].into_iter());
        assert_eq!((ids.get("a"), ids.get("b")), ("a".into(), "b".into()));
        let reused = [turn(&["a"]), turn(&["a"])];
        assert!(AnthropicIds::new(&reused).renaming.is_some());
        let invalid = [turn(&["a", "b.c"])];
        assert!(AnthropicIds::new(&invalid).renaming.is_some());
    }

    #[test]
    fn keys_come_from_the_response_id_or_the_body() {
        assert_eq!(
            response_key(Some("wOd8abGuO5rg"), &json!({})),
            "wOd8abGuO5rg"
        );
        let hashed = response_key(None, &json!({"a": 1}));
        assert_eq!(hashed.len(), 16);
        assert_ne!(hashed, response_key(None, &json!({"a": 2})));
        assert_eq!(mint("gemini", "k", 2), "gemini_k_2");
    }

    #[test]
    fn minted_ids_write_the_index_in_decimal() {
        for index in [0, 9, 10, 99, 100, 4_096, 1_000_001, usize::MAX] {
            assert_eq!(mint("call", "wOd8", index), format!("call_wOd8_{index}"));
        }
    }
}
