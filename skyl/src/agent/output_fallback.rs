//! A typed run on a server that refuses its structured output: the answer's schema is asked for
//! with less, one step down at a time, each step taken once and kept for the rest of the run.

use std::borrow::Cow;

use crate::model::ModelError;
use crate::model::ModelErrorKind;
use crate::provider::{OutputMode, OutputSchema};

/// How a typed run asks for its answer's schema, from the most a provider can do to the least.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Fallback {
    /// On the provider's structured-output field ([`OutputMode::Schema`]).
    #[default]
    Schema,
    /// JSON mode ([`OutputMode::JsonObject`]), the schema in the system prompt.
    JsonObject,
    /// No structured output; the schema in the system prompt, and an answer that does not read
    /// sent back with what was wrong (the typed run's corrections).
    Prompt,
}

/// The words of the fields and formats a structured output travels in, lowercase: a refusal
/// that names none of them refuses something else.
const OUTPUT_WORDS: [&str; 9] = [
    "response_format",
    "json_schema",
    "json_object",
    "output_config",
    "output_format",
    "text.format",
    "responseschema",
    "responsejsonschema",
    "responsemimetype",
];

impl Fallback {
    /// The step below this one, after the server refused `error` to this one's request; `None`
    /// when `error` is no such refusal, or there is no step below.
    ///
    /// A refusal is an error of the provider ([`ModelErrorKind::Provider`]) that will repeat
    /// ([`ModelError::is_retryable`] is false: a 400 or 422, or a 500 whose words refuse the
    /// request, as llama-cpp-python's server answers `json_schema`), whose words name the field
    /// or the format the output travels in ([`OUTPUT_WORDS`]: `response_format`,
    /// `json_schema`, `json_object`, Anthropic's `output_config`, Responses' `text.format`,
    /// Gemini's `responseSchema`, ...). Any other error is the run's: a 500 that may pass, a
    /// refusal of the tools or of the transcript, a rate limit. A schema the provider finds
    /// invalid is refused in the same words and steps down the same way; the event says so.
    pub(super) fn after(self, error: &ModelError) -> Option<Fallback> {
        let message = error.message().to_ascii_lowercase();
        let refused = error.kind() == ModelErrorKind::Provider
            && !error.is_retryable()
            && OUTPUT_WORDS.iter().any(|words| message.contains(words));
        if !refused {
            return None;
        }
        match self {
            Fallback::Schema => Some(Fallback::JsonObject),
            Fallback::JsonObject => Some(Fallback::Prompt),
            Fallback::Prompt => None,
        }
    }

    /// How the schema travels on the wire at this step: `None` when it does not.
    pub(super) fn mode(self) -> Option<OutputMode> {
        match self {
            Fallback::Schema => Some(OutputMode::Schema),
            Fallback::JsonObject => Some(OutputMode::JsonObject),
            Fallback::Prompt => None,
        }
    }

    /// The request's output at this step, of `schema`.
    pub(super) fn output(self, schema: &OutputSchema) -> Option<Cow<'_, OutputSchema>> {
        match self.mode()? {
            OutputMode::Schema => Some(Cow::Borrowed(schema)),
            mode => Some(Cow::Owned(schema.clone().with_mode(mode))),
        }
    }

    /// The request's system prompt at this step: `system`, and after a step down the schema's
    /// paragraph.
    pub(super) fn system<'r>(
        self,
        system: Option<&'r str>,
        schema: &OutputSchema,
    ) -> Option<Cow<'r, str>> {
        if self == Fallback::Schema {
            return system.map(Cow::Borrowed);
        }
        let paragraph = crate::prose::run::answer_schema(&schema.name, &schema.schema);
        Some(Cow::Owned(
            match system.filter(|system| !system.is_empty()) {
                Some(system) => format!("{system}\n\n{paragraph}"),
                None => paragraph,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_refusal_that_names_the_output_steps_down() {
        let llama_cpp_python = ModelError::provider(
            500,
            r#"1 validation error:
  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': 'json_schema'}"#,
        );
        assert_eq!(
            Fallback::Schema.after(&llama_cpp_python),
            Some(Fallback::JsonObject)
        );
        assert_eq!(
            Fallback::JsonObject.after(&llama_cpp_python),
            Some(Fallback::Prompt)
        );
        assert_eq!(Fallback::Prompt.after(&llama_cpp_python), None);
        let vllm = ModelError::provider(400, "response_format json_schema is not supported");
        assert_eq!(Fallback::Schema.after(&vllm), Some(Fallback::JsonObject));
        for other in [
            // May pass: retried, and the run's error if it does not.
            ModelError::provider(500, "response_format: internal error"),
            ModelError::provider(503, "response_format unsupported while overloaded"),
            // Refuses something else.
            ModelError::provider(400, "tools are not supported"),
            ModelError::provider(500, "Automatic streaming tool choice is not supported"),
            ModelError::new(ModelErrorKind::Other, "response_format is not supported"),
        ] {
            assert_eq!(Fallback::Schema.after(&other), None, "{other}");
        }
    }
}
