//! The `agent_service` example as a binary of this package, so that the tests can start and kill
//! it by path (`CARGO_BIN_EXE_skyl-restate-demo`).

#[path = "agent_service.rs"]
mod agent_service;

fn main() -> std::process::ExitCode {
    agent_service::main()
}
