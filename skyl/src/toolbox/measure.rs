//! How large and how deep a JSON value is, measured without writing it out.
//!
//! Two measures. [`json_len`] is the length of serde_json's compact output
//! (`serde_json::to_string`), byte for byte, for cutting an output to a limit. [`check`], on every
//! call's arguments, counts a string by its UTF-8 length, as if no character needed an escape:
//! what a limit on arguments bounds is the text a tool will hold, which is the unescaped text, and
//! a string then costs one step however long it is, so the check is one visit of each node. Both
//! stop as soon as the answer is known: a hostile value costs no more than the limit's worth.

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

/// Which limit a value went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exceeded {
    Size,
    Depth,
}

/// Checks that `value` written as compact JSON, its strings unescaped, takes at most `max_bytes`
/// bytes, and that it nests arrays and objects at most `max_depth` levels deep (`{}` is one level,
/// `{"a": []}` two).
///
/// A string at the root is arguments sent as text, which the tool parses: its brackets count as
/// levels, as they will once it is parsed.
#[inline(always)]
pub(crate) fn check(value: &Value, max_bytes: usize, max_depth: usize) -> Result<(), Exceeded> {
    // Nearly every call's arguments are one object of scalars, well within the bounds: a bound
    // of their length, measured here in the caller, settles them without a call; everything
    // else is measured exactly.
    if let Value::Object(members) = value
        && max_depth > 0
        && let Some(len) = flat_len_bound(members)
        && len <= max_bytes
    {
        return Ok(());
    }
    check_exactly(value, max_bytes, max_depth)
}

/// At least the length of `members` written as compact JSON, its strings unescaped: every value
/// that is not a string (a number, a boolean, `null`) counts as [`LONGEST_NUMBER`], never less
/// than it takes; `None` when a member is an array or an object.
#[inline(always)]
fn flat_len_bound(members: &Map<String, Value>) -> Option<usize> {
    // The braces, and a comma after each member.
    let mut len = 2 + members.len();
    for (key, item) in members {
        // The key, its quotes and its colon; then the value. A number is not measured: counted
        // as the longest, it moves the bound by a few bytes, which matters only for arguments
        // within a few bytes of the limit, and those the exact walk measures.
        len += key.len()
            + 3
            + match item {
                Value::String(text) => text.len() + 2,
                Value::Array(_) | Value::Object(_) => return None,
                _ => LONGEST_NUMBER,
            };
    }
    Some(len)
}

/// The most bytes serde_json writes for a number: a float takes at most 24
/// (`-1.7976931348623157e+308`), an integer at most 20.
const LONGEST_NUMBER: usize = 24;

/// [`check`], exactly: the recursive walk, for the arguments the bound does not settle (nested
/// ones, ones near the limit, and arguments sent as a string).
#[inline(never)]
fn check_exactly(value: &Value, max_bytes: usize, max_depth: usize) -> Result<(), Exceeded> {
    match value {
        Value::String(text) if text_depth(text, max_depth).is_none() => Err(Exceeded::Depth),
        _ => walk::<false>(value, &mut { max_bytes }, max_depth),
    }
}

/// The length of `value` written as compact JSON, when it is at most `max_bytes`.
pub(crate) fn json_len(value: &Value, max_bytes: usize) -> Option<usize> {
    let mut room = max_bytes;
    match walk::<true>(value, &mut room, usize::MAX) {
        Ok(()) => Some(max_bytes - room),
        Err(_) => None,
    }
}

/// Takes the length of `value` out of `room`; `levels` is how many more levels may open. With
/// `ESCAPED`, strings count their escapes.
fn walk<const ESCAPED: bool>(
    value: &Value,
    room: &mut usize,
    levels: usize,
) -> Result<(), Exceeded> {
    match value {
        Value::Array(items) => {
            let levels = levels.checked_sub(1).ok_or(Exceeded::Depth)?;
            // The brackets, and a comma between two items.
            take(room, 2 + items.len().saturating_sub(1))?;
            for item in items {
                visit::<ESCAPED>(item, room, levels)?;
            }
            Ok(())
        }
        Value::Object(members) => {
            let levels = levels.checked_sub(1).ok_or(Exceeded::Depth)?;
            take(room, 2 + members.len().saturating_sub(1))?;
            for (key, item) in members {
                // The key and its colon.
                let key = if ESCAPED {
                    string_len(key)
                } else {
                    key.len() + 2
                };
                take(room, key + 1)?;
                visit::<ESCAPED>(item, room, levels)?;
            }
            Ok(())
        }
        scalar => visit::<ESCAPED>(scalar, room, levels),
    }
}

/// [`walk`], with the scalars that make up most arguments measured in place rather than in a
/// call of their own.
#[inline(always)]
fn visit<const ESCAPED: bool>(
    value: &Value,
    room: &mut usize,
    levels: usize,
) -> Result<(), Exceeded> {
    let len = match value {
        Value::String(text) if ESCAPED => {
            // Escapes only lengthen a string: the cheap bound first.
            if text.len() + 2 > *room {
                return Err(Exceeded::Size);
            }
            string_len(text)
        }
        _ => match scalar_len(value) {
            Some(len) => len,
            None => return walk::<ESCAPED>(value, room, levels),
        },
    };
    take(room, len)
}

/// The length of a scalar as compact JSON, a string counted unescaped; `None` for an array or
/// an object.
#[inline(always)]
fn scalar_len(value: &Value) -> Option<usize> {
    Some(match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => number_len(number),
        Value::String(text) => text.len() + 2,
        Value::Array(_) | Value::Object(_) => return None,
    })
}

#[inline(always)]
fn take(room: &mut usize, len: usize) -> Result<(), Exceeded> {
    *room = room.checked_sub(len).ok_or(Exceeded::Size)?;
    Ok(())
}

/// The length of `text` as a JSON string, quotes and escapes included.
pub(crate) fn string_len(text: &str) -> usize {
    2 + text.bytes().map(byte_len).sum::<usize>()
}

/// How many bytes serde_json writes for one byte of a string: `\"`, `\\`, the short escapes of
/// control characters, `\u00XX` for the other control characters, and the byte itself otherwise.
pub(crate) fn byte_len(byte: u8) -> usize {
    match byte {
        b'"' | b'\\' | b'\x08' | b'\x0c' | b'\n' | b'\r' | b'\t' => 2,
        0x00..=0x1f => 6,
        _ => 1,
    }
}

#[inline]
fn number_len(number: &Number) -> usize {
    if let Some(n) = number.as_u64() {
        digits(n)
    } else if let Some(n) = number.as_i64() {
        1 + digits(n.unsigned_abs())
    } else {
        float_len(number)
    }
}

/// A float's length, written as serde_json writes it.
#[cold]
fn float_len(number: &Number) -> usize {
    let mut counter = Counter(0);
    let _ = write!(counter, "{number}");
    counter.0
}

/// Counted by division rather than `ilog10`: the numbers in arguments are mostly small, and a
/// one-digit number then costs one comparison.
#[inline]
fn digits(mut n: u64) -> usize {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

struct Counter(usize);

impl std::fmt::Write for Counter {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0 += text.len();
        Ok(())
    }
}

/// The deepest nesting of brackets in `text` outside its strings, when it is at most `max_depth`.
///
/// Text that is not JSON gets a depth too; the parser reports what else is wrong with it.
fn text_depth(text: &str, max_depth: usize) -> Option<usize> {
    let (mut depth, mut deepest) = (0_usize, 0_usize);
    let (mut in_string, mut escaped) = (false, false);
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return None;
                }
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Some(deepest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lengths_are_those_of_serde_jsons_compact_output() {
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(9),
            json!(10),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(-1),
            json!(1.5),
            json!(-0.0),
            json!(1e300),
            json!(0.1),
            json!(""),
            json!("héllo \"quoted\" \\ \n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f} ✓"),
            json!([]),
            json!({}),
            json!([1, [2, [3]], {"k": "v"}]),
            json!({"a": {"b\n": [null, true, 2.25]}, "c": ""}),
        ];
        for value in values {
            let written = value.to_string().len();
            assert_eq!(json_len(&value, usize::MAX), Some(written), "{value}");
            assert_eq!(json_len(&value, written), Some(written), "{value}");
            assert_eq!(json_len(&value, written - 1), None, "{value}");
        }
    }

    #[test]
    fn the_check_counts_strings_unescaped() {
        let value = json!({"a\n": "\"quoted\"\u{1}"});
        let written = value.to_string().len();
        let unescaped = written - 1 - 2 - 5;
        assert_eq!(check(&value, unescaped, 64), Ok(()));
        assert_eq!(check(&value, unescaped - 1, 64), Err(Exceeded::Size));
    }

    #[test]
    fn the_flat_object_path_agrees_with_the_walk_at_every_bound() {
        let values = [
            json!({}),
            json!({"city": "Kampala", "days": 3, "metric": true, "unit": null}),
            json!({"n": -12, "x": 1.5, "off": false, "s": "\"quoted\"\n"}),
            // The longest numbers serde_json writes: the flat bound must not count them short.
            json!({"f": -2.2250738585072014e-308, "g": -1.7976931348623157e308, "u": u64::MAX, "i": i64::MIN}),
            json!({"city": "Kampala", "tags": ["a", "b"], "days": 3}),
            json!({"deep": {"er": {}}}),
        ];
        for value in values {
            let written = value.to_string().len();
            for max_bytes in 0..=written {
                for max_depth in 0..4 {
                    let walked = walk::<false>(&value, &mut max_bytes.clone(), max_depth);
                    assert_eq!(
                        check(&value, max_bytes, max_depth),
                        walked,
                        "{value} within {max_bytes} bytes and {max_depth} levels"
                    );
                }
            }
        }
    }

    #[test]
    fn depth_counts_arrays_and_objects() {
        let value = json!({"a": [{"b": []}]});
        assert_eq!(check(&value, usize::MAX, 4), Ok(()));
        assert_eq!(check(&value, usize::MAX, 3), Err(Exceeded::Depth));
        assert_eq!(check(&json!(1), usize::MAX, 0), Ok(()));
        assert_eq!(check(&json!([]), usize::MAX, 0), Err(Exceeded::Depth));
    }

    #[test]
    fn arguments_sent_as_text_count_their_brackets_outside_strings() {
        assert_eq!(text_depth(r#"{"a": [{"b": "[[[{{"}]}"#, 10), Some(3));
        assert_eq!(text_depth(r#"{"a": "\"[["}"#, 10), Some(1));
        assert_eq!(text_depth("[[[", 2), None);
        assert_eq!(
            check(&json!("{\"a\": [[1]]}"), usize::MAX, 2),
            Err(Exceeded::Depth)
        );
        assert_eq!(check(&json!("{\"a\": [[1]]}"), usize::MAX, 3), Ok(()));
    }
}
