//! What a call's arguments parsed as they stream hold: no copy of the text read, only what it
//! means, so the most memory they take on the way is a small multiple of the final arguments'
//! size. Its own test binary, because it counts every allocation of the process.

use cap::Cap;
use skyl::provider::partial::PartialArguments;

#[global_allocator]
static ALLOCATOR: Cap<std::alloc::System> = Cap::new(std::alloc::System, usize::MAX);

#[test]
fn the_most_memory_a_parse_takes_is_a_small_multiple_of_the_arguments() {
    let line = r#"    let total = values.iter().sum::<u64>(); // \"sum\"\n\tnext();\n"#;
    let text = format!(
        r#"{{"path": "src/generated.rs", "content": "{}", "lines": [1, 2, 3]}}"#,
        line.repeat(1700)
    );
    assert!(text.len() > 100_000);
    let live = ALLOCATOR.allocated();
    let mut arguments = PartialArguments::new();
    for at in (0..text.len()).step_by(10) {
        arguments.push(&text[at..(at + 10).min(text.len())]);
    }
    let value = arguments.finish().unwrap();
    // The most that was live, less what was live before the parse: an upper bound of what the
    // parse took at its most (the text's own making may have been the peak).
    let peak = ALLOCATOR.max_allocated() - live;
    let kept = ALLOCATOR.allocated() - live;
    // The content grows by doubling, as a String does: up to twice its length, and, for a
    // moment while it moves, the old buffer beside the new one.
    assert!(
        peak <= 3 * text.len(),
        "{peak} bytes at most for {} bytes of text",
        text.len()
    );
    // What is left is the value: the content, its capacity at most twice its length.
    assert!(
        kept <= 2 * text.len(),
        "{kept} bytes kept for {} bytes of text",
        text.len()
    );
    assert_eq!(value["lines"], serde_json::json!([1, 2, 3]));
    eprintln!(
        "{} bytes of text: {peak} bytes at most, {kept} kept",
        text.len()
    );
}
