//! The `durable` example as a binary of this package, so that its crash test can start and kill
//! it by path (`CARGO_BIN_EXE_durable_worker`).

#[path = "durable.rs"]
mod durable;

fn main() -> std::process::ExitCode {
    durable::main()
}
