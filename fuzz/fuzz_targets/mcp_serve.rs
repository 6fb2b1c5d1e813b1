//! The MCP server's `tools/call` with arbitrary tool names and arguments, over one in-process
//! session: one answer per call, a result whose failure names the tool, or a protocol error
//! for a call that cannot run; never a panic, and the session goes on.
#![no_main]

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;

#[path = "../src/mcp.rs"]
mod mcp;

fuzz_target!(|data: &[u8]| {
    static SESSION: OnceLock<Mutex<mcp::Session>> = OnceLock::new();
    static QUIET: OnceLock<()> = OnceLock::new();
    // The tools panic on purpose; libFuzzer's hook would report each as a crash otherwise.
    QUIET.get_or_init(|| std::panic::set_hook(Box::new(|_| {})));
    let session = SESSION.get_or_init(|| Mutex::new(mcp::Session::start(skyl_fuzz::toolbox())));
    let (name, arguments) = skyl_fuzz::name_and_arguments(data);
    session
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .check_call(&name, arguments);
});
