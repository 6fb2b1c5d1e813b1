//! The compile-time contract of `#[tool]`: what compiles, and the one error each mistake gives.
//!
//! Regenerate the expected output after changing a message with
//! `TRYBUILD=overwrite cargo test -p skyl-tests --test ui`, then read every `.stderr`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/*.rs");
}
