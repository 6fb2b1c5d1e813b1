//! Procedural macros for [skyl](https://docs.rs/skyl). Use them through `skyl`, which re-exports them.
