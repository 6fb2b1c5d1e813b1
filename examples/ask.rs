//! Ask a real provider one question and print the answer as it streams.
//!
//! ```text
//! ANTHROPIC_API_KEY=... cargo run --example ask -- --provider anthropic "Why is the sky blue?"
//! OPENAI_BASE_URL=http://localhost:11434/v1 cargo run --example ask -- --provider openai --model llama3.2 "Hi"
//! ```
//!
//! `--no-stream` waits for the whole answer instead. Without `--provider` it only says how to
//! call it: every other example runs offline, this one needs a provider.

#[path = "support/errors.rs"]
mod errors;

#[path = "support/http_model.rs"]
mod http_model;

use skyl::Message;
use skyl::provider::{Request, stream::StreamEvent};

use http_model::{Args, USAGE, http_model, print_event};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), String> {
    let args = Args::parse(std::env::args().skip(1))?;
    let (Some(provider), Some(model_name)) = (args.provider, args.model_name()) else {
        eprintln!("usage: cargo run --example ask -- {USAGE}");
        return Ok(());
    };
    let model = http_model(provider)?;
    let prompt = args
        .prompt
        .clone()
        .unwrap_or_else(|| "Say hello in five words.".to_owned());
    let request = Request::new(model_name, vec![Message::user(prompt)]).with_max_tokens(1024);
    let response = if args.stream {
        model
            .stream(&request, &mut |event| print_event(&event))
            .await
    } else {
        let response = model.complete(&request).await;
        if let Ok(response) = &response {
            for event in StreamEvent::replay(response) {
                print_event(&event);
            }
        }
        response
    }
    .map_err(|error| errors::chain(&error))?;
    eprintln!(
        "[{:?}; {} tokens in, {} out]",
        response.stop_reason, response.usage.input_tokens, response.usage.output_tokens
    );
    Ok(())
}
