//! Dispatch with arbitrary tool names and argument bytes: one well-formed result, never a panic.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skyl::Toolbox;

fuzz_target!(|data: &[u8]| {
    static TOOLBOX: OnceLock<Toolbox> = OnceLock::new();
    static QUIET: OnceLock<()> = OnceLock::new();
    // The tools panic on purpose; libFuzzer's hook would report each as a crash otherwise.
    QUIET.get_or_init(|| std::panic::set_hook(Box::new(|_| {})));
    let toolbox = TOOLBOX.get_or_init(skyl_fuzz::toolbox);
    let call = skyl_fuzz::call_from_bytes(data);
    let result = toolbox.dispatch_blocking(&call);
    skyl_fuzz::check_result(&call, &result, toolbox);
});
