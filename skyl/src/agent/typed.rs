//! Runs whose final answer is a typed value: the model answers with JSON of a schema, which is
//! read into `T`; an answer that does not read is sent back, with what was wrong, a bounded
//! number of times.

use std::fmt;
use std::future::IntoFuture;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::agent::driver::{RunBuilder, drive_expecting};
use crate::agent::hooks::points::Hooks;
use crate::agent::run::{Run, RunError};
use crate::agent::stop::Stop;
use crate::executor::block_on;
use crate::model::BoxFuture;
use crate::provider::OutputSchema;

/// How many times a typed run sends a wrong answer back before it gives up, unless
/// [`TypedRun::with_corrections`] says otherwise.
pub const DEFAULT_CORRECTIONS: u32 = 2;

/// What a typed run expects of the final answer: the schema sent to the provider, the reader
/// that checks an answer against `T`, and how many wrong answers are sent back.
pub(crate) struct Expected {
    pub(crate) schema: OutputSchema,
    pub(crate) check: fn(&str) -> Result<(), String>,
    pub(crate) corrections: u32,
}

/// A run whose final answer is read into `T`: [`RunBuilder::answer_as`] returns it. `.await`
/// it, or call [`blocking`](Self::blocking).
///
/// Each request carries `T`'s schema as the provider's structured output (see
/// [`OutputSchema`]); the model's final answer (its text when it stops calling tools) is read
/// into `T`. An answer that cannot be read is sent back to the model as a user message saying
/// what was wrong (at most [`with_corrections`](Self::with_corrections) times, by default
/// [`DEFAULT_CORRECTIONS`]), and the run goes on; after that the run ends with an
/// [`AnswerError`] that keeps the run.
///
/// `T` may be any type with a schema, not only a struct: a list, a number, a string, a `bool`
/// or an enum travels wrapped as `{"answer": ...}` ([`ANSWER_FIELD`](crate::provider::ANSWER_FIELD)),
/// the same on every provider, since OpenAI and Anthropic take only an object at the root; the
/// value is read out of it (or read bare, from a model without structured output).
///
/// A server that cannot hold an answer to a schema (an OpenAI-compatible one without
/// `json_schema`: llama-cpp-python's answers it with a 500) gets what it can do: the request is
/// sent again in JSON mode ([`OutputMode::JsonObject`](crate::provider::OutputMode::JsonObject))
/// with the schema in the system prompt, and if that is refused too, with no structured output,
/// the corrections alone holding the answer to its type. Each step down is taken once a run, kept
/// for the rest of it, and reported as an [`Event::OutputFallback`](super::Event::OutputFallback).
#[must_use = "a run does nothing until it is awaited or `blocking` is called"]
pub struct TypedRun<'a, S, H, T> {
    builder: RunBuilder<'a, S, H>,
    expected: Expected,
    answer: PhantomData<fn() -> T>,
}

impl Expected {
    /// What a final answer of type `T` must be, sent back at most `corrections` times.
    pub(crate) fn of<T: DeserializeOwned + JsonSchema>(corrections: u32) -> Self {
        Expected {
            schema: OutputSchema::of::<T>(),
            check: check::<T>,
            corrections,
        }
    }
}

impl<'a, S: Send + Sync + 'static, H: Hooks, T: DeserializeOwned + JsonSchema>
    TypedRun<'a, S, H, T>
{
    pub(crate) fn new(builder: RunBuilder<'a, S, H>) -> Self {
        TypedRun {
            builder,
            expected: Expected::of::<T>(DEFAULT_CORRECTIONS),
            answer: PhantomData,
        }
    }

    /// Sends a wrong answer back at most `corrections` times (0: the first answer must read).
    pub fn with_corrections(mut self, corrections: u32) -> Self {
        self.expected.corrections = corrections;
        self
    }

    /// Runs on this thread until the run stops; see [`RunBuilder::blocking`].
    pub fn blocking(self) -> Result<TypedAnswer<T>, AnswerError> {
        block_on(self.into_future())
    }
}

impl<'a, S: Send + Sync + 'static, H: Hooks, T: DeserializeOwned + JsonSchema + 'a> IntoFuture
    for TypedRun<'a, S, H, T>
{
    type Output = Result<TypedAnswer<T>, AnswerError>;
    type IntoFuture = BoxFuture<'a, Result<TypedAnswer<T>, AnswerError>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let expected = self.expected;
            let finished = drive_expecting(self.builder, &expected).await;
            finish(finished, &expected)
        })
    }
}

impl<S, H, T> fmt::Debug for TypedRun<'_, S, H, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedRun")
            .field("schema", &self.expected.schema.name)
            .field("corrections", &self.expected.corrections)
            .finish_non_exhaustive()
    }
}

/// The final answer of a typed run, read into `T`, and the run.
#[derive(Debug)]
#[non_exhaustive]
pub struct TypedAnswer<T> {
    /// The answer.
    pub value: T,
    /// The run: its transcript, steps and usage.
    pub run: Run,
}

/// The final answer as `T`, or why there is none.
fn finish<T: DeserializeOwned>(
    finished: Result<Run, RunError>,
    expected: &Expected,
) -> Result<TypedAnswer<T>, AnswerError> {
    let run = match finished {
        Ok(run) => run,
        Err(error) => return Err(AnswerError(Box::new(Failure::Model(error)))),
    };
    if run.stop() != &Stop::Answered {
        return Err(AnswerError(Box::new(Failure::Stopped(run))));
    }
    match read::<T>(&run.text(), expected.schema.wraps_answer()) {
        Ok(value) => Ok(TypedAnswer { value, run }),
        Err(reason) => Err(AnswerError(Box::new(Failure::Unreadable {
            run,
            schema: expected.schema.name.clone(),
            reason,
            corrections: expected.corrections,
        }))),
    }
}

/// Reads an answer as `T`: the text, or the text inside a Markdown code fence; the error says
/// where and what was wrong, in words a model can act on.
///
/// A `wrapped` answer (`T` is not an object: see [`OutputSchema`]) is `{"answer": ...}`; a
/// bare value is read too, as a model without structured output may send it, and the error is
/// the wrapped reading's.
pub(crate) fn read<T: DeserializeOwned>(text: &str, wrapped: bool) -> Result<T, String> {
    let text = unfenced(text.trim());
    if text.is_empty() {
        return Err("the answer is empty".to_owned());
    }
    if !wrapped {
        return read_json::<T>(text);
    }
    match read_json::<Wrapped<T>>(text) {
        Ok(Wrapped { answer }) => Ok(answer),
        Err(reason) => read_json::<T>(text).map_err(|_| reason),
    }
}

/// An answer wrapped in [`ANSWER_FIELD`](crate::provider::ANSWER_FIELD).
#[derive(serde::Deserialize)]
struct Wrapped<T> {
    answer: T,
}

/// Reads `text` as JSON of `T`, saying where it does not fit.
fn read_json<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if path == "." || path.is_empty() {
            inner.to_string()
        } else {
            format!("at `{path}`: {inner}")
        }
    })?;
    deserializer
        .end()
        .map_err(|error| format!("text follows the JSON value: {error}"))?;
    Ok(value)
}

fn check<T: DeserializeOwned + JsonSchema>(text: &str) -> Result<(), String> {
    read::<T>(text, OutputSchema::of::<T>().wraps_answer()).map(drop)
}

/// The inside of a Markdown code fence around the whole text, or the text.
fn unfenced(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    // The info string (`json`) runs to the end of the first line.
    match body.split_once('\n') {
        Some((_, inner)) => inner.trim(),
        None => body.trim(),
    }
}

/// A typed run that ended without a final answer of its type. The run is kept: read it, save
/// it (it serializes), or resume it.
pub struct AnswerError(Box<Failure>);

enum Failure {
    /// The model request failed.
    Model(RunError),
    /// The run stopped otherwise than with an answer (its step limit, a breaker, a pause for
    /// approval).
    Stopped(Run),
    /// The last answer could not be read, after every correction.
    Unreadable {
        run: Run,
        schema: String,
        reason: String,
        corrections: u32,
    },
}

impl AnswerError {
    /// The run as it ended: its transcript holds every answer and correction.
    pub fn run(&self) -> &Run {
        match &*self.0 {
            Failure::Model(error) => error.run(),
            Failure::Stopped(run) | Failure::Unreadable { run, .. } => run,
        }
    }

    /// The run, to save or resume.
    pub fn into_run(self) -> Run {
        match *self.0 {
            Failure::Model(error) => error.into_run(),
            Failure::Stopped(run) | Failure::Unreadable { run, .. } => run,
        }
    }

    /// Why the last answer could not be read, when that is why the run ended.
    pub fn reason(&self) -> Option<&str> {
        match &*self.0 {
            Failure::Unreadable { reason, .. } => Some(reason),
            _ => None,
        }
    }
}

impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            // The run's error says it all, as this error's cause.
            Failure::Model(_) => f.write_str("the typed run failed before its final answer"),
            Failure::Stopped(run) => write!(
                f,
                "the typed run stopped before its final answer: {}; the run is kept (AnswerError::into_run), to resume or read",
                run.stop()
            ),
            Failure::Unreadable {
                schema,
                reason,
                corrections,
                ..
            } => write!(
                f,
                "the model's final answer is not a {schema} after {corrections} correction(s): {reason}; the run is kept (AnswerError::into_run): read its transcript, or resume it with a clearer prompt or more corrections"
            ),
        }
    }
}

impl fmt::Debug for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnswerError")
            .field("message", &self.to_string())
            .field("stop", self.run().stop())
            .finish_non_exhaustive()
    }
}

impl std::error::Error for AnswerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.0 {
            Failure::Model(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Verdict {
        holds: bool,
    }

    #[test]
    fn an_answer_reads_plain_or_fenced_and_a_wrong_one_says_where() {
        assert_eq!(
            read::<Verdict>(r#" {"holds": true} "#, false),
            Ok(Verdict { holds: true })
        );
        assert_eq!(
            read::<Verdict>("```json\n{\"holds\": false}\n```", false),
            Ok(Verdict { holds: false })
        );
        assert_eq!(
            read::<Verdict>(r#"{"holds": "yes"}"#, false),
            Err(
                "at `holds`: invalid type: string \"yes\", expected a boolean at line 1 column 15"
                    .to_owned()
            )
        );
        assert_eq!(
            read::<Verdict>("  ", false),
            Err("the answer is empty".to_owned())
        );
        assert!(
            read::<Verdict>(r#"{"holds": true} and more"#, false)
                .unwrap_err()
                .starts_with("text follows the JSON value")
        );
    }

    #[test]
    fn a_wrapped_answer_reads_from_its_field_or_bare_and_a_wrong_one_says_where() {
        assert_eq!(
            read::<Vec<u32>>(r#"{"answer": [1, 2]}"#, true),
            Ok(vec![1, 2])
        );
        assert_eq!(read::<Vec<u32>>("[3]", true), Ok(vec![3]));
        assert_eq!(
            read::<Vec<u32>>(r#"{"answer": ["one"]}"#, true),
            Err(
                "at `answer[0]`: invalid type: string \"one\", expected u32 at line 1 column 17"
                    .to_owned()
            )
        );
        assert_eq!(
            read::<u32>("seven", true),
            Err("expected value at line 1 column 1".to_owned())
        );
    }
}
