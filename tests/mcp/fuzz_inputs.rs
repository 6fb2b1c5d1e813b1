//! The `mcp_serve` fuzz target's checks, replayed on the inputs kept in the repository
//! (fuzz/corpus/mcp_serve/ and fuzz/regressions/mcp_serve/), as `tests/fuzz_regressions.rs` does
//! for the targets that need no MCP.

use std::path::Path;

#[allow(dead_code, unreachable_pub)]
#[path = "../../fuzz/src/lib.rs"]
mod skyl_fuzz;

#[allow(dead_code, unreachable_pub)]
#[path = "../../fuzz/src/mcp.rs"]
mod session;

#[test]
fn mcp_serve_inputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut inputs = Vec::new();
    for folder in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder).join("mcp_serve")) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a readable folder").path();
            inputs.push((
                path.clone(),
                std::fs::read(&path).expect("a readable input"),
            ));
        }
    }
    inputs.sort();
    assert!(!inputs.is_empty(), "no input kept for mcp_serve");
    // One session for every input, as the fuzz target keeps one.
    let mut session = session::Session::start(skyl_fuzz::toolbox());
    for (path, data) in inputs {
        let (name, arguments) = skyl_fuzz::name_and_arguments(&data);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            session.check_call(&name, arguments)
        }));
        assert!(outcome.is_ok(), "mcp_serve: {} fails again", path.display());
    }
}
