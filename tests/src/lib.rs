//! Integration tests of skyl live in `tests/`; this crate has no code of its own.
