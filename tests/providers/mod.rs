//! The provider adapters: whole request bodies against committed snapshots, decoding of response
//! bodies modelled on recorded traffic, every error's text, and the schema dialects.
//!
//! Snapshots live in `tests/golden/`, response bodies in `tests/fixtures/<provider>/` (and the
//! OpenAI-compatible servers' in `tests/fixtures/openai_compatible/`). After an
//! intended change, regenerate the snapshots with `SKYL_BLESS=1 cargo test -p skyl-tests --test
//! suite providers::` and review the diff.

mod caching;
mod compatible;
mod content;
mod decode;
mod errors;
mod generated;
mod is_error;
mod rich;
mod robustness;
mod schema;
mod structured_output;
pub(crate) mod support;
mod typed_roots;
mod wire_rules;
