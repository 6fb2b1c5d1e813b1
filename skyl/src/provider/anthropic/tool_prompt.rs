//! The system prompt Anthropic adds to every request with tools, which the body does not hold
//! and the usage counts: its size in tokens, by model and tool choice, as Anthropic's pricing
//! docs list it ("Tool use system prompt token count").

use crate::provider::{Request, ToolChoice};

/// The tokens of the tool-use system prompt Anthropic adds to `request`: none without tools.
///
/// The docs list, for `auto` or `none` and for `any` or a named tool: Claude 4 models and
/// Claude Sonnet 3.7, 346 and 313; Claude 3 Opus, 530 and 281; Claude 3 Sonnet, 159 and 235;
/// Claude 3 Haiku, 264 and 340. A model the table does not name gets the largest of each
/// column (530 and 340), so that a budget's bound is never under the count.
pub(crate) fn tokens(request: &Request<'_>) -> u64 {
    if request.tools.is_empty() && request.deferred_tools.is_empty() {
        return 0;
    }
    let forced = matches!(
        request.tool_choice,
        ToolChoice::Required | ToolChoice::Tool(_)
    );
    let (free, forced_tokens) = by_model(&request.model);
    if forced { forced_tokens } else { free }
}

/// (auto or none, any or tool) for the model named `model`: found anywhere in the name, so that
/// dated names and a cloud's names (`anthropic.claude-3-haiku-20240307-v1:0`) match too.
fn by_model(model: &str) -> (u64, u64) {
    const TABLE: [(&str, (u64, u64)); 7] = [
        ("claude-opus-4", (346, 313)),
        ("claude-sonnet-4", (346, 313)),
        ("claude-haiku-4", (346, 313)),
        ("claude-3-7-sonnet", (346, 313)),
        ("claude-3-opus", (530, 281)),
        ("claude-3-sonnet", (159, 235)),
        ("claude-3-haiku", (264, 340)),
    ];
    TABLE
        .iter()
        .find(|(family, _)| model.contains(family))
        .map_or((530, 340), |(_, tokens)| *tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolDefinition;

    #[test]
    fn the_prompt_counts_by_model_and_tool_choice_and_only_with_tools() {
        let tools = [ToolDefinition {
            name: "get_weather".into(),
            ..Default::default()
        }];
        let request = |model: &'static str, tool_choice: ToolChoice| Request {
            model: model.into(),
            tools: tools.as_slice().into(),
            tool_choice,
            ..Default::default()
        };
        let counts: Vec<u64> = [
            request("claude-sonnet-4-5", ToolChoice::Auto),
            request("claude-sonnet-4-5-20250929", ToolChoice::None),
            request("claude-opus-4-1", ToolChoice::Required),
            request("claude-haiku-4-5", ToolChoice::Tool("get_weather".into())),
            request("anthropic.claude-3-haiku-20240307-v1:0", ToolChoice::Auto),
            request("claude-3-opus-20240229", ToolChoice::Auto),
            request("claude-3-sonnet-20240229", ToolChoice::Required),
            request("a-model-of-tomorrow", ToolChoice::Auto),
            request("a-model-of-tomorrow", ToolChoice::Required),
        ]
        .iter()
        .map(tokens)
        .collect();
        assert_eq!(counts, [346, 346, 313, 313, 264, 530, 235, 530, 340]);
        let without_tools = Request {
            model: "claude-sonnet-4-5".into(),
            ..Default::default()
        };
        assert_eq!(tokens(&without_tools), 0);
    }
}
