//! Integration tests of skyl live beside this file; this crate has no code of its own.
//!
//! Its documentation is the README, so that `cargo test --workspace` compiles and runs the
//! README's examples.
#![doc = include_str!("../../README.md")]
