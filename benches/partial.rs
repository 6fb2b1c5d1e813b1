//! Streamed tool arguments read after every delta: skyl's incremental parser against one
//! `serde_json::from_str` of the final text, and against the prefix re-parse the peers do.
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml --bench partial`. Each row takes the
//! arguments of a call that writes a file (one long string of source text, with the escaped
//! newlines, tabs and quotes source text has, among three short members) at about 1 KB, 10 KB
//! and 100 KB of JSON text, delivered in 10-byte deltas.
//!
//! - `from_str`: the floor, `serde_json::from_str::<Value>` of the whole final text, once.
//! - `incremental`: a `PartialArguments` fed every delta, the partial view read after each one
//!   (the path as soon as it is complete, the content so far), then `finish`. Goal: at most 2×
//!   the floor at 100 KB, and growing linearly.
//! - `prefix_closed`: what Vercel AI's `parsePartialJson` and rig's `parse_partial_arguments` do
//!   at every delta: append the delta to the text so far, close what is open (the string, the
//!   brackets) and `serde_json::from_str` the whole prefix. Quadratic.
//! - `incremental_unread`: the same parse with nothing read before the end, the cost of the
//!   parse alone.
//! - `prefix_jiter`: the same re-parse with a real partial-JSON parser, jiter's partial mode
//!   (`PartialMode::TrailingStrings`), to a `JsonValue`. Quadratic too.
//!
//! `real_text` repeats the linear rows on source text as it comes from models writing for people:
//! comments and strings outside ASCII (é, 日本語, emoji), some of it written as `\u` escapes
//! (surrogate pairs too), escaped quotes and backslashes. Its deltas are 10 bytes of the text's
//! bytes, so they are cut inside UTF-8 characters and inside escapes, and are pushed with
//! `push_bytes`. Its `incremental_str` row pushes the same text as providers deliver it, `&str`
//! deltas (each 10-byte cut moved on to the next character boundary) through `push`, as
//! `PartialCalls` does: the same parse without the UTF-8 check of every piece.

use std::hint::black_box;

use divan::counter::BytesCount;
use jiter::{JsonValue, PartialMode};
use serde_json::Value;
use skyl::provider::partial::PartialArguments;

fn main() {
    // `SKYL_PARTIAL_CALLS="<row> <size> <calls>"`: that row alone, for callgrind
    // (count-partial-instructions.sh).
    if let Ok(spec) = std::env::var("SKYL_PARTIAL_CALLS") {
        let [row, size, calls] = spec.split(' ').collect::<Vec<_>>()[..] else {
            panic!("SKYL_PARTIAL_CALLS is \"<row> <size> <calls>\", not {spec:?}");
        };
        let size = size.parse().expect("a size");
        let calls = calls.parse::<usize>().expect("a number of calls");
        if let Some(row) = row.strip_prefix("real_text::") {
            let text = real_text::arguments(size);
            let deltas = real_text::deltas(&text);
            let str_deltas = real_text::str_deltas(&text);
            for _ in 0..calls {
                match row {
                    "from_str" => drop(black_box(parse_whole(&text))),
                    "incremental" => drop(black_box(real_text::read_each_delta(&deltas))),
                    "incremental_unread" => drop(black_box(real_text::read_at_the_end(&deltas))),
                    "incremental_str" => drop(black_box(read_each_delta(&str_deltas))),
                    other => panic!("no row real_text::{other:?}"),
                }
            }
            return;
        }
        let text = arguments(size);
        let deltas = deltas(&text);
        for _ in 0..calls {
            match row {
                "from_str" => drop(black_box(parse_whole(&text))),
                "incremental" => drop(black_box(read_each_delta(&deltas))),
                "incremental_unread" => drop(black_box(read_at_the_end(&deltas))),
                other => panic!(
                    "no row {other:?}: [real_text::]from_str, incremental or incremental_unread"
                ),
            }
        }
        return;
    }
    divan::Divan::from_args().main();
}

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// The size of a delta, about what providers stream for a long string.
const DELTA: usize = 10;

/// The JSON text of the arguments of a file write whose text is about `size` bytes.
fn arguments(size: usize) -> String {
    const LINE: &str = "    let total = values.iter().map(|value| value.len()).sum::<usize>(); // \"sum\"\n\tnext(total);\n";
    let mut content = String::with_capacity(size + LINE.len());
    while content.len() + 80 < size {
        content.push_str(LINE);
    }
    serde_json::json!({
        "path": "src/generated.rs",
        "mode": "overwrite",
        "content": content,
        "create_dirs": true,
    })
    .to_string()
}

/// The text cut into deltas of `DELTA` bytes (the text is ASCII, so every cut is a character
/// boundary).
fn deltas(text: &str) -> Vec<&str> {
    (0..text.len())
        .step_by(DELTA)
        .map(|start| &text[start..(start + DELTA).min(text.len())])
        .collect()
}

/// Benchmarks `read` of `deltas`, counted in the bytes of `text`, which they cut.
fn bench_reads<D: Sync, O>(
    bencher: divan::Bencher<'_, '_>,
    text: &str,
    deltas: &[D],
    read: impl Fn(&[D]) -> O + Sync,
) {
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| read(deltas));
}

#[divan::bench(args = SIZES)]
fn from_str(bencher: divan::Bencher<'_, '_>, size: usize) {
    bench_parse_whole(bencher, &arguments(size));
}

/// Benchmarks one `serde_json::from_str` of the whole `text`, counted in its bytes.
fn bench_parse_whole(bencher: divan::Bencher<'_, '_>, text: &str) {
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| parse_whole(text));
}

fn parse_whole(text: &str) -> Value {
    serde_json::from_str::<Value>(black_box(text)).unwrap()
}

#[divan::bench(args = SIZES)]
fn incremental(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = arguments(size);
    bench_reads(bencher, &text, &deltas(&text), read_each_delta);
}

/// The parse with the view read after every delta: the path once it is complete, the content so
/// far.
fn read_each_delta(deltas: &[&str]) -> Value {
    parse_deltas(deltas, PartialArguments::push, read_the_view)
}

/// What an application reads of the partial view: the path once it is complete, the content so
/// far.
fn read_the_view(arguments: &PartialArguments) {
    black_box(arguments.member("path"));
    black_box(arguments.str_so_far("content"));
}

/// `deltas` pushed one by one with `push`, `read` after each, and the parse finished.
fn parse_deltas<D: Copy>(
    deltas: &[D],
    push: impl Fn(&mut PartialArguments, D),
    read: impl Fn(&PartialArguments),
) -> Value {
    let mut arguments = PartialArguments::new();
    for delta in black_box(deltas) {
        push(&mut arguments, *delta);
        read(&arguments);
    }
    arguments.finish().unwrap()
}

#[divan::bench(args = SIZES)]
fn incremental_unread(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = arguments(size);
    bench_reads(bencher, &text, &deltas(&text), read_at_the_end);
}

fn read_at_the_end(deltas: &[&str]) -> Value {
    parse_deltas(deltas, PartialArguments::push, |_| ())
}

// The re-parses take a second a sample at 100 KB: a few samples of one run each are plenty.
#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn prefix_closed(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = arguments(size);
    bench_reads(bencher, &text, &deltas(&text), |deltas| {
        each_prefix(deltas, |so_far| {
            black_box(closed_and_parsed(so_far));
        });
    });
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn prefix_jiter(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = arguments(size);
    bench_reads(bencher, &text, &deltas(&text), |deltas| {
        each_prefix(deltas, |so_far| {
            black_box(
                JsonValue::parse_with_config(
                    so_far.as_bytes(),
                    false,
                    PartialMode::TrailingStrings,
                )
                .ok(),
            );
        });
    });
}

/// The text so far after each of `deltas`, given to `parse`: the peers' re-parse of every
/// prefix.
fn each_prefix(deltas: &[&str], mut parse: impl FnMut(&str)) {
    let mut so_far = String::new();
    for delta in black_box(deltas) {
        so_far.push_str(delta);
        parse(&so_far);
    }
}

/// The peers' partial parse of a prefix: one pass to learn what is open, the closers appended,
/// then a whole parse. What is cut where no closer helps (a key without its value, half a
/// literal or escape) is dropped back to the last comma or opening bracket.
fn closed_and_parsed(prefix: &str) -> Option<Value> {
    let mut open = Vec::new();
    let mut in_string = false;
    let mut in_key = false;
    let mut escaped = false;
    // The last byte outside strings that was not whitespace.
    let mut last = 0;
    // Where the text can be cut so that closing it gives JSON: after a complete value.
    let mut safe = 0;
    for (at, byte) in prefix.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    last = b'"';
                    if !in_key {
                        safe = at + 1;
                    }
                }
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                in_key = open.last() == Some(&b'{') && matches!(last, b'{' | b',');
            }
            b'{' | b'[' => {
                open.push(byte);
                safe = at + 1;
            }
            b'}' | b']' => {
                open.pop();
                safe = at + 1;
            }
            b',' => safe = at,
            _ => {}
        }
        if !byte.is_ascii_whitespace() {
            last = byte;
        }
    }
    let close = |mut text: String| {
        for bracket in open.iter().rev() {
            text.push(if *bracket == b'{' { '}' } else { ']' });
        }
        serde_json::from_str(&text).ok()
    };
    if in_string && !in_key && !escaped {
        let mut text = String::with_capacity(prefix.len() + open.len() + 1);
        text.push_str(prefix);
        text.push('"');
        if let Some(value) = close(text) {
            return Some(value);
        }
    }
    let mut text = String::with_capacity(safe + open.len());
    text.push_str(&prefix[..safe]);
    close(text)
}

/// The linear rows on real text: outside ASCII, with `\u` escapes, cut inside characters.
mod real_text {
    use serde_json::Value;
    use skyl::provider::partial::PartialArguments;

    use super::{
        DELTA, SIZES, bench_parse_whole, bench_reads, parse_deltas, parse_whole, read_the_view,
    };

    /// The JSON text of the arguments of a file write whose text is about `size` bytes, with
    /// French and Japanese comments, emoji, escaped quotes and backslashes, and characters
    /// written as `\u` escapes (one a surrogate pair): 18% of its bytes outside ASCII, 20 escapes
    /// in a line of 296 bytes. Written by hand: serde_json writes `\u` escapes for control
    /// characters only.
    pub(super) fn arguments(size: usize) -> String {
        const LINE: &str = concat!(
            r#"    // Café : la « moyenne » des valeurs — 平均値を計算する 📊\n"#,
            r#"    let total = values.iter().map(|value| value.len()).sum::<usize>(); // \"sum\"\n"#,
            r#"\tprintln!(\"r\u00e9sultat : {total} \u2705 \ud83d\ude80\");\n"#,
            r#"    let path = \"C:\\\\donn\u00e9es\\\\日本語.txt\"; // 😀 naïve\n"#,
        );
        let mut content = String::with_capacity(size + LINE.len());
        while content.len() + 80 < size {
            content.push_str(LINE);
        }
        format!(
            r#"{{"path":"src/générés.rs","mode":"overwrite","content":"{content}","create_dirs":true}}"#
        )
    }

    /// The text's bytes cut into deltas of `DELTA` bytes, wherever that cuts.
    pub(super) fn deltas(text: &str) -> Vec<&[u8]> {
        text.as_bytes().chunks(DELTA).collect()
    }

    /// The text cut into `&str` deltas of about `DELTA` bytes: each cut moved on to the next
    /// character boundary.
    pub(super) fn str_deltas(text: &str) -> Vec<&str> {
        let mut deltas = Vec::with_capacity(text.len() / DELTA + 1);
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + DELTA).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            deltas.push(&text[start..end]);
            start = end;
        }
        deltas
    }

    #[divan::bench(args = SIZES)]
    fn from_str(bencher: divan::Bencher<'_, '_>, size: usize) {
        bench_parse_whole(bencher, &arguments(size));
    }

    #[divan::bench(args = SIZES)]
    fn incremental(bencher: divan::Bencher<'_, '_>, size: usize) {
        let text = arguments(size);
        let deltas = deltas(&text);
        // The text is JSON, and the parse cut inside its characters reads what serde_json reads.
        assert_eq!(read_each_delta(&deltas), parse_whole(&text));
        bench_reads(bencher, &text, &deltas, read_each_delta);
    }

    /// The parse with the view read after every delta, as `super::read_each_delta` reads it.
    pub(super) fn read_each_delta(deltas: &[&[u8]]) -> Value {
        parse_deltas(deltas, PartialArguments::push_bytes, read_the_view)
    }

    #[divan::bench(args = SIZES)]
    fn incremental_str(bencher: divan::Bencher<'_, '_>, size: usize) {
        let text = arguments(size);
        let deltas = str_deltas(&text);
        assert_eq!(super::read_each_delta(&deltas), parse_whole(&text));
        bench_reads(bencher, &text, &deltas, super::read_each_delta);
    }

    #[divan::bench(args = SIZES)]
    fn incremental_unread(bencher: divan::Bencher<'_, '_>, size: usize) {
        let text = arguments(size);
        bench_reads(bencher, &text, &deltas(&text), read_at_the_end);
    }

    pub(super) fn read_at_the_end(deltas: &[&[u8]]) -> Value {
        parse_deltas(deltas, PartialArguments::push_bytes, |_| ())
    }
}
