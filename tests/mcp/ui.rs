//! The compile-time contract of `#[prompt]` and `#[resource]`: the one error each mistake gives.
//! (In this package, whose `skyl` has the `mcp` feature these attributes need.)
//!
//! Regenerate the expected output after changing a message with
//! `TRYBUILD=overwrite cargo test -p skyl-mcp-tests --test ui`, then read every `.stderr`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
}
