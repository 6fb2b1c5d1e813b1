//! skyl's integration tests, one module per idea, in one binary: skyl and what it links (reqwest,
//! Tokio, SQLite) are linked once for all of them. What they share is in [`support`].
//!
//! Tests that change the whole process are binaries of their own: `ui` (trybuild),
//! `properties` (it silences the panic hook) and `partial_memory` (it counts every allocation).

mod support;

mod agent;
mod agent_http;
mod azure;
mod budget;
mod cache_prefix;
mod call_context;
mod cancel_grace;
mod content;
mod content_matrix;
mod content_shapes;
mod durable;
mod dynamic_tool;
mod error_guidance;
mod failover;
mod front_pages;
mod fuzz_regressions;
mod handoff;
mod http;
mod layers;
mod limits;
mod lowered_schemas;
pub mod macro_tool;
mod methods;
mod nested_agents;
mod panics;
mod partial;
mod providers;
mod public_paths;
mod registration;
mod repeated_calls;
mod settings;
mod stored_formats;
mod stream;
mod tool_search;
mod toolbox;
mod toolbox_check;
mod typed_answer;
mod typed_fallback;

/// The fuzz targets' shared checks, replayed on the inputs they found (`fuzz_regressions`) and on
/// streams cut everywhere (`partial`).
#[allow(dead_code, unreachable_pub)]
#[path = "../fuzz/src/lib.rs"]
mod skyl_fuzz;
