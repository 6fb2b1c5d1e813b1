//! The examples' way to a real provider: `--provider anthropic|openai|openai-responses|gemini
//! [--model M] [--no-stream] "prompt"` on the command line, the official SDKs' variables in the
//! environment, and a `Box<dyn Model>` out.
//!
//! | `--provider` | API | key | base URL (optional) |
//! |---|---|---|---|
//! | `anthropic` | Messages | `ANTHROPIC_API_KEY` | `ANTHROPIC_BASE_URL` |
//! | `openai` | Chat Completions (and any OpenAI-compatible server) | `OPENAI_API_KEY` | `OPENAI_BASE_URL` |
//! | `openai-responses` | Responses | `OPENAI_API_KEY` | `OPENAI_BASE_URL` |
//! | `gemini` | `generateContent` | `GOOGLE_API_KEY` or `GEMINI_API_KEY` | `GOOGLE_GEMINI_BASE_URL` |
//!
//! With a base URL set, no key is needed: `OPENAI_BASE_URL=http://localhost:11434/v1` and
//! `--provider openai --model llama3.2` talk to Ollama on this machine.

use std::io::Write;

use skyl::http::HttpModel;
use skyl::model::Model;
use skyl::provider::author::Api;
use skyl::provider::{Anthropic, Gemini, OpenAiChat, OpenAiResponses, stream::StreamEvent};

/// A provider named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Provider {
    Anthropic,
    OpenAi,
    OpenAiResponses,
    Gemini,
}

impl Provider {
    fn parse(name: &str) -> Result<Provider, String> {
        match name {
            "anthropic" => Ok(Provider::Anthropic),
            "openai" => Ok(Provider::OpenAi),
            "openai-responses" => Ok(Provider::OpenAiResponses),
            "gemini" => Ok(Provider::Gemini),
            other => Err(format!(
                "unknown provider \"{other}\": use anthropic, openai, openai-responses or gemini"
            )),
        }
    }

    /// The model asked when `--model` is not given.
    pub(crate) fn default_model(self) -> &'static str {
        match self {
            Provider::Anthropic => "claude-sonnet-4-5",
            Provider::OpenAi | Provider::OpenAiResponses => "gpt-4.1",
            Provider::Gemini => "gemini-2.5-flash",
        }
    }

    fn api(self) -> Box<dyn Api> {
        match self {
            Provider::Anthropic => Box::new(Anthropic),
            Provider::OpenAi => Box::new(OpenAiChat::default()),
            Provider::OpenAiResponses => Box::new(OpenAiResponses::default()),
            Provider::Gemini => Box::new(Gemini::default()),
        }
    }
}

/// What the command line asked for.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Args {
    /// `--provider`; `None` runs the example offline.
    pub(crate) provider: Option<Provider>,
    /// `--model`, or the provider's default.
    pub(crate) model: Option<String>,
    /// `false` with `--no-stream`.
    pub(crate) stream: bool,
    /// The prompt, the one argument that is not a flag.
    pub(crate) prompt: Option<String>,
}

/// How to call an example that talks to a provider.
pub(crate) const USAGE: &str =
    "[--provider anthropic|openai|openai-responses|gemini] [--model M] [--no-stream] \"prompt\"";

impl Args {
    /// Reads the command line (without the program name).
    pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
        let mut parsed = Args {
            stream: true,
            ..Args::default()
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |flag: &str| {
                args.next()
                    .ok_or_else(|| format!("{flag} needs a value; usage: {USAGE}"))
            };
            match arg.as_str() {
                "--provider" => parsed.provider = Some(Provider::parse(&value("--provider")?)?),
                "--model" => parsed.model = Some(value("--model")?),
                "--no-stream" => parsed.stream = false,
                flag if flag.starts_with("--") => {
                    return Err(format!("unknown flag {flag}; usage: {USAGE}"));
                }
                _ if parsed.prompt.is_some() => {
                    return Err(format!(
                        "give the prompt as one argument, in quotes; usage: {USAGE}"
                    ));
                }
                _ => parsed.prompt = Some(arg),
            }
        }
        if parsed.model.is_some() && parsed.provider.is_none() {
            return Err(format!("--model needs --provider; usage: {USAGE}"));
        }
        Ok(parsed)
    }

    /// The model name to ask: `--model`, or the provider's default.
    pub(crate) fn model_name(&self) -> Option<String> {
        let provider = self.provider?;
        Some(
            self.model
                .clone()
                .unwrap_or_else(|| provider.default_model().to_owned()),
        )
    }
}

/// The model behind `provider`, configured from the environment.
pub(crate) fn http_model(provider: Provider) -> Result<Box<dyn Model>, String> {
    HttpModel::from_env(provider.api())
        .map(|model| Box::new(model) as Box<dyn Model>)
        .map_err(|error| error.to_string())
}

/// Prints an event of a streamed answer as it arrives: the text as it is written, and each tool
/// call once it is complete (parallel calls may grow interleaved, so their pieces are not
/// printed).
#[allow(
    dead_code,
    reason = "`ask` prints with it; `agent` prints its own run events"
)]
pub(crate) fn print_event(event: &StreamEvent) {
    let mut out = std::io::stdout().lock();
    let _ = match event {
        StreamEvent::TextDelta(text) => write!(out, "{text}"),
        StreamEvent::ToolCallFinished { call, .. } => {
            writeln!(out, "\n→ {}({})", call.name, call.arguments)
        }
        StreamEvent::Done { .. } => writeln!(out),
        _ => Ok(()),
    };
    let _ = out.flush();
}
