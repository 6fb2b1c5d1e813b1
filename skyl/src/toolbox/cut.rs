//! A tool's output cut to the toolbox's limit, with a note that tells the model what it lost.
//!
//! Text is cut on a character boundary. JSON (an object, an array or a string, as a
//! [`Json`](crate::Json) output or a `serde_json::Value` writes it) is cut where a value ends, so
//! what the model reads still parses: the last items of an array and the last members of an
//! object are left out, and the value that crosses the limit is itself cut the same way, down to
//! the end of a string. The note says how much was kept and counts what was left out.

use serde_json::Value;

use super::measure::{byte_len, json_len, string_len};
use crate::prose::{self, LeftOut};

/// `content` in at most `max` bytes, followed by a note when something was left out.
#[cold]
pub(crate) fn cut_output(tool: &str, content: String, max: usize) -> String {
    match parse_json(&content) {
        Some(value) => cut_json(tool, &value, content.len(), max)
            .unwrap_or_else(|| cut_text(tool, &content, max)),
        None => cut_text(tool, &content, max),
    }
}

/// Whether the content is JSON worth cutting as JSON: an object, an array or a string.
fn parse_json(content: &str) -> Option<Value> {
    let first = content.trim_start().bytes().next()?;
    if !matches!(first, b'{' | b'[' | b'"') {
        return None;
    }
    serde_json::from_str(content).ok()
}

fn cut_text(tool: &str, content: &str, max: usize) -> String {
    let kept = crate::text::char_floor(content, max);
    with_note(
        &content[..kept],
        &prose::output_cut(tool, kept, content.len()),
    )
}

/// The JSON cut to at most `max` bytes, and its note; `None` when not even its brackets fit.
fn cut_json(tool: &str, value: &Value, total: usize, max: usize) -> Option<String> {
    let mut kept = String::new();
    let mut left_out = LeftOut::default();
    if !write_within(value, max, &mut kept, &mut left_out) {
        return None;
    }
    if left_out.is_nothing() {
        // Only the layout was too large: the compact form holds all of it.
        return Some(kept);
    }
    let note = prose::json_output_cut(tool, kept.len(), total, left_out);
    Some(with_note(&kept, &note))
}

fn with_note(kept: &str, note: &str) -> String {
    if kept.is_empty() {
        return note.to_owned();
    }
    let mut text = String::with_capacity(kept.len() + 2 + note.len());
    text.push_str(kept);
    text.push_str("\n\n");
    text.push_str(note);
    text
}

/// Writes as much of `value` as fits in `room` bytes of compact JSON into `out`, counting what is
/// left out; returns `false`, having written nothing, when not even its first item, member or
/// character fits (an empty container or string would tell the model the value is empty).
fn write_within(value: &Value, room: usize, out: &mut String, left_out: &mut LeftOut) -> bool {
    if json_len(value, room).is_some() {
        out.push_str(&value.to_string());
        return true;
    }
    match value {
        Value::String(text) if room >= 2 => {
            let mut len = 2;
            let end = text
                .char_indices()
                .find(|&(at, c)| {
                    len += text[at..at + c.len_utf8()]
                        .bytes()
                        .map(byte_len)
                        .sum::<usize>();
                    len > room
                })
                .map_or(text.len(), |(at, _)| at);
            if end == 0 {
                // An empty string would say the value is empty; leave it out instead.
                return false;
            }
            out.push_str(&Value::from(&text[..end]).to_string());
            left_out.strings += 1;
            true
        }
        Value::Array(items) if room >= 2 => {
            let start = out.len();
            out.push('[');
            let mut room = room - 2;
            for (i, item) in items.iter().enumerate() {
                let comma = usize::from(i > 0);
                let mark = out.len();
                if room > comma {
                    if i > 0 {
                        out.push(',');
                    }
                    if let Some(len) = json_len(item, room - comma) {
                        out.push_str(&item.to_string());
                        room -= comma + len;
                        continue;
                    }
                    if write_within(item, room - comma, out, left_out) {
                        left_out.items += items.len() - i - 1;
                        break;
                    }
                }
                out.truncate(mark);
                if i == 0 {
                    // An empty array would say there is nothing; leave it out instead.
                    out.truncate(start);
                    return false;
                }
                left_out.items += items.len() - i;
                break;
            }
            out.push(']');
            true
        }
        Value::Object(members) if room >= 2 => {
            let start = out.len();
            out.push('{');
            let mut room = room - 2;
            for (i, (key, item)) in members.iter().enumerate() {
                let head = usize::from(i > 0) + string_len(key) + 1;
                let mark = out.len();
                if room > head {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::from(key.as_str()).to_string());
                    out.push(':');
                    if let Some(len) = json_len(item, room - head) {
                        out.push_str(&item.to_string());
                        room -= head + len;
                        continue;
                    }
                    if write_within(item, room - head, out, left_out) {
                        left_out.members += members.len() - i - 1;
                        break;
                    }
                }
                out.truncate(mark);
                if i == 0 {
                    out.truncate(start);
                    return false;
                }
                left_out.members += members.len() - i;
                break;
            }
            out.push('}');
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cut(value: Value, max: usize) -> (String, LeftOut) {
        let mut out = String::new();
        let mut left_out = LeftOut::default();
        assert!(write_within(&value, max, &mut out, &mut left_out));
        assert!(out.len() <= max, "{out} is longer than {max}");
        serde_json::from_str::<Value>(&out).expect("still JSON");
        (out, left_out)
    }

    #[test]
    fn an_array_loses_its_last_items() {
        let (out, left_out) = cut(json!([1, 22, 333, 4444]), 10);
        assert_eq!(out, "[1,22,333]");
        assert_eq!(
            left_out,
            LeftOut {
                items: 1,
                ..Default::default()
            }
        );
    }

    #[test]
    fn the_value_that_crosses_the_limit_is_cut_inside() {
        let (out, left_out) = cut(
            json!({"rows": [{"id": 1}, {"id": 2}, {"id": 3}], "n": 3}),
            30,
        );
        assert_eq!(out, r#"{"rows":[{"id":1},{"id":2}]}"#);
        assert_eq!(
            left_out,
            LeftOut {
                items: 1,
                members: 1,
                strings: 0
            }
        );
        let (out, left_out) = cut(json!({"log": "a\"b\"cdefgh"}), 15);
        assert_eq!(out, r#"{"log":"a\"b"}"#);
        assert_eq!(
            left_out,
            LeftOut {
                strings: 1,
                ..Default::default()
            }
        );
    }

    #[test]
    fn a_string_is_cut_on_a_character_boundary() {
        let (out, _) = cut(json!("ééé"), 7);
        assert_eq!(out, "\"éé\"");
    }

    #[test]
    fn a_member_whose_value_cannot_start_is_left_out_with_its_key() {
        let (out, left_out) = cut(json!({"a": 1, "b": 123456}), 12);
        assert_eq!(out, r#"{"a":1}"#);
        assert_eq!(left_out.members, 1);
    }

    #[test]
    fn a_value_that_would_keep_nothing_is_left_out() {
        let (out, left_out) = cut(json!(["abc", "defghijk"]), 10);
        assert_eq!(out, r#"["abc"]"#);
        assert_eq!(left_out.items, 1);
        let (out, left_out) = cut(json!({"a": 1, "b": [123, 4]}), 13);
        assert_eq!(out, r#"{"a":1}"#);
        assert_eq!(left_out.members, 1);
    }

    #[test]
    fn nothing_fits_below_two_bytes() {
        let mut out = String::new();
        assert!(!write_within(
            &json!([1]),
            1,
            &mut out,
            &mut LeftOut::default()
        ));
        assert_eq!(out, "");
        assert!(!write_within(
            &json!(12345),
            3,
            &mut out,
            &mut LeftOut::default()
        ));
    }
}
