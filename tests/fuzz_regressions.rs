//! The fuzz targets' checks, replayed on the inputs kept in the repository: the seed corpus of
//! every target (fuzz/corpus/<target>/, and for `decode_<provider>` the response bodies in
//! tests/fixtures/<provider>/, which are its seeds) and every input that once crashed one
//! (fuzz/regressions/<target>/). Fuzzing itself is `fuzz/run-all.sh`, outside CI; this keeps what
//! it found from coming back.

use std::path::Path;

use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses};

use crate::skyl_fuzz;

/// Every input kept for `target`, with its file name.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fuzz = tests.join("../fuzz");
    let mut folders = vec![
        fuzz.join("corpus").join(target),
        fuzz.join("regressions").join(target),
    ];
    // A decoder's seeds are the fixtures the decoding tests read; `run-all.sh` passes the same
    // folder to the fuzzer.
    if let Some(provider) = target.strip_prefix("decode_") {
        folders.push(tests.join("fixtures").join(provider));
    }
    let mut inputs = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a readable folder").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            inputs.push((name, std::fs::read(&path).expect("a readable input")));
        }
    }
    inputs.sort();
    inputs
}

fn replay(target: &str, run: impl Fn(&[u8])) {
    let inputs = inputs(target);
    assert!(!inputs.is_empty(), "no input kept for {target}");
    for (name, data) in inputs {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&data)));
        assert!(outcome.is_ok(), "{target}: {name} fails again");
    }
}

#[test]
fn dispatch_inputs() {
    let toolbox = skyl_fuzz::toolbox();
    replay("dispatch", |data| {
        let call = skyl_fuzz::call_from_bytes(data);
        let result = toolbox.dispatch_blocking(&call);
        skyl_fuzz::check_result(&call, &result, &toolbox);
    });
}

#[test]
fn decode_inputs() {
    let adapters: [(&str, &dyn Adapter); 4] = [
        ("decode_anthropic", &Anthropic),
        ("decode_openai_chat", &OpenAiChat::default()),
        ("decode_openai_responses", &OpenAiResponses::default()),
        ("decode_gemini", &Gemini::default()),
    ];
    for (target, adapter) in adapters {
        replay(target, |data| skyl_fuzz::decode(adapter, data));
    }
}

#[test]
fn encode_inputs() {
    let adapters: [&dyn Adapter; 4] = [
        &Anthropic,
        &OpenAiChat::default(),
        &OpenAiResponses::default(),
        &Gemini::default(),
    ];
    replay("encode", |data| {
        let messages = skyl_fuzz::transcript(&mut skyl_fuzz::Bytes::new(data));
        for adapter in adapters {
            skyl_fuzz::encode(adapter, &messages);
        }
    });
}

#[test]
fn stream_inputs() {
    replay("stream", |data| {
        let (adapter, events) = skyl_fuzz::stream_events(data);
        skyl_fuzz::decode_stream(&*adapter, &events);
    });
}

#[test]
fn stream_sse_inputs() {
    replay("stream_sse", |data| {
        let (adapter, pieces) = skyl_fuzz::sse_pieces(data);
        let events = skyl_fuzz::parse_sse(&pieces);
        skyl_fuzz::decode_stream(&*adapter, &events);
    });
}

#[test]
fn partial_arguments_inputs() {
    replay("partial_arguments", skyl_fuzz::partial_arguments);
}
