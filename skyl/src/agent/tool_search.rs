//! Large toolboxes: the model is offered a few tools and `find_tools`, and each tool it finds is
//! offered from its next step on, appended after the tools it was already offered.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::json;

use crate::dynamic_tool::DynamicTool;
use crate::message::Message;
use crate::prose;
use crate::tool::ToolDefinition;

/// Tool search for a toolbox too large to offer whole (hundreds of tools, several MCP servers
/// mounted): [`Agent::with_tool_search`](super::Agent::with_tool_search).
///
/// The model is offered the tools named [`always`](Self::always) and one more,
/// [`find_tools`](Self::TOOL), which takes a `query` and answers with the names and
/// descriptions of the tools that match it (by the words of their names and descriptions,
/// names counting double). From the next step on, every tool it found is offered too.
///
/// Finding a tool does not move a byte of what was offered before: the offered tools are the
/// `always` tools and `find_tools`, sorted by name as an agent sends its tools, then each tool
/// found, in the order the searches found them. A provider's prompt cache keeps every tool offered before; on
/// providers whose cached prefix starts with the tool list (Anthropic, and OpenAI and Gemini,
/// which render tools before the conversation) the conversation after a newly found tool is
/// read again once, and cached from there. What was found is read from the run's transcript (the
/// `find_tools` calls in it, searched again), so a saved, resumed or replayed run offers the
/// same tools.
///
/// Where the provider searches for itself (Anthropic, OpenAI Responses), [`native`](Self::native)
/// leaves the search to it instead: every tool is sent, the deferred ones marked so, and the
/// tool list never changes.
///
/// The toolbox still answers a call to a tool that was not offered (one the model names
/// without searching), as [`Toolbox::definitions_of`](crate::Toolbox::definitions_of) says.
///
/// ```
/// use serde_json::json;
/// use skyl::agent::{Agent, ToolSearch};
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, ToolCall, Toolbox};
///
/// /// Get the current weather for a city.
/// #[skyl::tool]
/// fn get_weather(city: String) -> String { format!("22C in {city}") }
///
/// /// Say hello.
/// #[skyl::tool]
/// fn hello() -> String { "Hello!".into() }
///
/// let model = ScriptedModel::new()
///     .reply_calls([ToolCall::new("c1", "find_tools", json!({"query": "weather"}))])
///     .reply_text("Found it.");
/// let agent = Agent::new(model.clone(), Toolbox::new().with(Hello).with(GetWeather), "m")
///     .with_tool_search(ToolSearch::new().always(["hello"]));
/// agent.run(vec![Message::user("Weather?")]).blocking()?;
///
/// let offered = |step: usize| -> Vec<String> {
///     model.requests()[step].tools.iter().map(|tool| tool.name.clone()).collect()
/// };
/// // By name, then what was found: a tool found is appended.
/// assert_eq!(offered(0), ["find_tools", "hello"]);
/// assert_eq!(offered(1), ["find_tools", "hello", "get_weather"]);
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSearch {
    always: Vec<String>,
    max_results: usize,
    native: bool,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch {
            always: Vec::new(),
            max_results: 5,
            native: false,
        }
    }
}

impl ToolSearch {
    /// The name of the search tool.
    pub const TOOL: &'static str = "find_tools";

    /// Every tool behind the search, 5 tools found at most by a search.
    pub fn new() -> ToolSearch {
        ToolSearch::default()
    }

    /// Offers the tools called `names` from the first step, without a search.
    pub fn always<N: Into<String>>(mut self, names: impl IntoIterator<Item = N>) -> ToolSearch {
        self.always.extend(names.into_iter().map(Into::into));
        self
    }

    /// Finds at most `tools` tools by one search (at least 1).
    pub fn max_results(mut self, tools: usize) -> ToolSearch {
        self.max_results = tools.max(1);
        self
    }

    /// Leaves the search to the provider: every tool is sent, those not offered
    /// [`always`](Self::always) marked deferred ([`Request::deferred_tools`]), with the
    /// provider's own search tool (Anthropic's tool search tool, OpenAI Responses'
    /// `tool_search`), and no `find_tools`. The tool list is then the same at every step, so
    /// finding a tool keeps the whole prompt cache. Both searches are generally available: the
    /// request goes to the same endpoint with the same headers as any other (no `anthropic-beta`
    /// header). The adapters of OpenAI Chat and Gemini refuse
    /// such a request ([`EncodeError::ToolSearch`](crate::provider::EncodeError::ToolSearch)):
    /// leave this off there.
    ///
    /// [`Request::deferred_tools`]: crate::provider::Request::deferred_tools
    pub fn native(mut self) -> ToolSearch {
        self.native = true;
        self
    }

    pub(crate) fn is_native(&self) -> bool {
        self.native
    }

    /// The names of `definitions` the provider's search keeps from the model: all but the
    /// `always` ones.
    pub(crate) fn deferred(&self, definitions: &[ToolDefinition]) -> Vec<String> {
        definitions
            .iter()
            .filter(|definition| !self.always.contains(&definition.name))
            .map(|definition| definition.name.clone())
            .collect()
    }

    /// The names offered always.
    pub(crate) fn always_names(&self) -> impl Iterator<Item = &str> {
        self.always.iter().map(String::as_str)
    }

    /// The `find_tools` tool searching `definitions`, the toolbox's.
    pub(crate) fn tool(&self, definitions: Vec<ToolDefinition>) -> DynamicTool {
        let hidden = definitions
            .iter()
            .filter(|definition| !self.always.contains(&definition.name))
            .count();
        let definition = ToolDefinition {
            name: Self::TOOL.into(),
            description: prose::find_tools_description(hidden),
            parameters: json!({
                "type": "object",
                "properties": {"query": {
                    "type": "string",
                    "description": prose::find_tools_query(),
                }},
                "required": ["query"],
                "additionalProperties": false,
            }),
            ..Default::default()
        };
        let search = Arc::new((self.clone(), definitions));
        DynamicTool::from_fn(definition, move |Query { query }: Query| {
            let (search, definitions) = &*search;
            let found: Vec<(&str, &str)> = search
                .find(definitions, &query)
                .into_iter()
                .map(|definition| (definition.name.as_str(), definition.description.as_str()))
                .collect();
            prose::tools_found(&query, &found)
        })
    }

    /// The tools a search for `query` finds among `definitions`: those not offered always whose
    /// name or description holds a word of the query, best first (a word in the name counts
    /// two, in the description one), then in the toolbox's order.
    fn find<'d>(&self, definitions: &'d [ToolDefinition], query: &str) -> Vec<&'d ToolDefinition> {
        let query = words(query);
        let mut scored: Vec<(usize, usize, &ToolDefinition)> = definitions
            .iter()
            .enumerate()
            .filter(|(_, definition)| {
                !self.always.contains(&definition.name) && definition.name != Self::TOOL
            })
            .filter_map(|(position, definition)| {
                let name = definition.name.to_lowercase();
                let description = words(&definition.description);
                let score: usize = query
                    .iter()
                    .map(|word| {
                        2 * usize::from(name.contains(word.as_str()))
                            + usize::from(description.contains(word))
                    })
                    .sum();
                (score > 0).then_some((score, position, definition))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(self.max_results)
            .map(|(_, _, definition)| definition)
            .collect()
    }

    /// The tools to offer after `transcript`: the `always` ones and the search tool in the
    /// toolbox's order, then [`found`](Self::found).
    pub(crate) fn offered(
        &self,
        definitions: &[ToolDefinition],
        transcript: &[Message],
    ) -> Vec<ToolDefinition> {
        let mut offered: Vec<ToolDefinition> = definitions
            .iter()
            .filter(|definition| {
                self.always.contains(&definition.name) || definition.name == Self::TOOL
            })
            .cloned()
            .collect();
        offered.extend(self.found(definitions, transcript).into_iter().cloned());
        offered
    }

    /// What the `find_tools` calls of `transcript` found, in the order they found it, each once
    /// and none offered always.
    pub(crate) fn found<'d>(
        &self,
        definitions: &'d [ToolDefinition],
        transcript: &[Message],
    ) -> Vec<&'d ToolDefinition> {
        let mut found: Vec<&ToolDefinition> = Vec::new();
        let queries = transcript
            .iter()
            .flat_map(Message::tool_calls)
            .filter(|call| call.name == Self::TOOL)
            .filter_map(|call| call.arguments.get("query")?.as_str());
        for query in queries {
            for definition in self.find(definitions, query) {
                if !found.iter().any(|seen| seen.name == definition.name) {
                    found.push(definition);
                }
            }
        }
        found
    }
}

#[derive(Deserialize)]
struct Query {
    query: String,
}

/// The lower-case words of `text`: its runs of letters and digits.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(name: &str, description: &str) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters: json!({"type": "object"}),
            ..Default::default()
        }
    }

    #[test]
    fn a_search_ranks_names_over_descriptions_then_keeps_the_toolbox_order() {
        let definitions = [
            definition("send_mail", "Sends an email to a person."),
            definition("read_mail", "Reads the inbox."),
            definition("weather", "Gets the forecast; no mail."),
            definition("calendar", "Lists meetings."),
        ];
        let search = ToolSearch::new().always(["read_mail"]).max_results(2);
        let names = |query| -> Vec<&str> {
            search
                .find(&definitions, query)
                .iter()
                .map(|definition| definition.name.as_str())
                .collect()
        };
        // read_mail is always offered, so never found; send_mail's name beats weather's
        // description.
        assert_eq!(names("Mail"), ["send_mail", "weather"]);
        assert_eq!(names("meetings email"), ["send_mail", "calendar"]);
        assert!(names("spreadsheet").is_empty());
    }
}
