//! What an agent run tells the model about its final answer, and why a budget stopped it.

use std::fmt::Display;

use crate::text::shortened;

/// The description of the `find_tools` tool, searching `hidden` tools not offered yet.
pub(crate) fn find_tools_description(hidden: usize) -> String {
    format!(
        "Finds tools for a task among {hidden} more tools that are not shown yet, by words of their names and descriptions. The tools found can be called from your next turn. Search before saying that you cannot do something."
    )
}

/// The description of `find_tools`'s `query` argument.
pub(crate) fn find_tools_query() -> &'static str {
    "Words for what the tool should do, such as \"send email\" or \"weather forecast\"."
}

/// What `find_tools` answers: the tools `found` for `query`, as (name, description).
pub(crate) fn tools_found(query: &str, found: &[(&str, &str)]) -> String {
    if found.is_empty() {
        return format!(
            "No tool matches \"{query}\". Search again with other words for what you want to do, or go on without a tool."
        );
    }
    let mut text = format!(
        "Found {} for \"{query}\"; you can call {} from your next turn:",
        if found.len() == 1 {
            "1 tool".to_owned()
        } else {
            format!("{} tools", found.len())
        },
        if found.len() == 1 { "it" } else { "them" },
    );
    for (name, description) in found {
        text.push_str(&format!("\n- {name}: {description}"));
    }
    text
}

/// Why a run stopped before a request whose input could pass the input-token limit.
pub(crate) fn input_budget(max: u64, used: u64, next: u64) -> String {
    format!(
        "the run stopped before a request that could read up to {next} input tokens, since it has read {used} of its limit of {max}"
    )
}

/// Why a run stopped before a request whose answer (its `max_tokens`) could pass the
/// output-token limit.
pub(crate) fn output_budget(max: u64, used: u64, next: u64) -> String {
    format!(
        "the run stopped before a request whose answer could generate up to {next} output tokens (its max_tokens), since it has generated {used} of its limit of {max}"
    )
}

/// Why a run stopped before a request that could cost more than is left of the cost limit.
pub(crate) fn cost_budget(max: impl Display, used: impl Display, next: impl Display) -> String {
    format!(
        "the run stopped before a request that could cost up to {next}, since it has spent {used} of its cost limit of {max}"
    )
}

/// Why a run with a cost limit sent nothing: the model has no price.
pub(crate) fn unpriced(model: &str) -> String {
    format!(
        "the run has a cost limit but no price for the model {model}, so it sent no request; give the model's price with Agent::with_prices"
    )
}

/// The user message that sends a typed run's final answer back: it could not be read as the
/// type the run expects (`reason` says where and why), so the model answers again, shown the
/// schema (the provider's structured output shows it too, where there is one).
pub(crate) fn answer_unreadable(name: &str, schema: &serde_json::Value, reason: &str) -> String {
    let reason = shortened(reason, 2048);
    format!(
        "ERROR: your final answer could not be read as {name}: {reason}. Answer again with only a JSON value that follows this schema, with nothing before or after it: {schema}"
    )
}

/// The system prompt's last paragraph in a typed run whose server refused the answer's schema
/// as structured output: the schema `schema` of the type `name`, which the answer must follow
/// (it says "JSON", as OpenAI's JSON mode requires of the prompt).
pub(crate) fn answer_schema(name: &str, schema: &serde_json::Value) -> String {
    format!(
        "Your final answer must be only a JSON value of the type {name}, with nothing before or after it, that follows this JSON schema: {schema}"
    )
}

/// The placeholder failure of a sub-agent's call whose run waits for a person: the run that
/// called it stops for approval, and the model never reads this.
pub(crate) fn sub_agent_waits(tool: &str) -> crate::tool::ToolFailure {
    crate::tool::ToolFailure::ask_user(format!(
        "a call inside {tool} waits for the user's decision, and {tool} waits with it"
    ))
    .with_next_step("Wait for the user to decide; the result comes once they have.")
}

/// The failure of a sub-agent's call whose run waits for a person, run where no run can pause
/// for them (a toolbox dispatching the call on its own).
pub(crate) fn sub_agent_unasked(tool: &str) -> crate::tool::ToolFailure {
    crate::tool::ToolFailure::do_not_retry(format!(
        "a call inside {tool} needs the user's decision, and nobody can give it here: {tool} was not run by an agent run that could pause for it"
    ))
    .with_next_step(
        "Continue without its answer, or ask the user to run the task where they can approve it.",
    )
}

/// The failure of a sub-agent's call whose run stopped before its final answer, because `stop`
/// (a [`Stop`](crate::agent::Stop)'s sentence), after the calls with effects `completed`.
pub(crate) fn sub_agent_stopped(
    tool: &str,
    stop: &str,
    completed: &[String],
) -> crate::tool::ToolFailure {
    stopped_before_answer(tool, stop, completed, |said| {
        crate::tool::ToolFailure::retry_with_other_arguments(said)
    })
}

/// The failure of a sub-agent's call whose run stopped at a budget (`stop`, its sentence: its
/// own, or one of the runs above it), after the calls with effects `completed`: calling it again
/// would stop the same way.
pub(crate) fn sub_agent_out_of_budget(
    tool: &str,
    stop: &str,
    completed: &[String],
) -> crate::tool::ToolFailure {
    stopped_before_answer(tool, stop, completed, |said| {
        crate::tool::ToolFailure::do_not_retry(said).with_next_step(format!(
            "Continue without its answer: calling {tool} again would stop the same way."
        ))
    })
}

/// The failure of a sub-agent's call whose run stopped before its final answer (`stop`): the
/// calls with effects it completed when there are any (then calling it again would do them
/// again, whatever stopped it), and otherwise the failure `guidance` makes of the sentence.
fn stopped_before_answer(
    tool: &str,
    stop: &str,
    completed: &[String],
    guidance: impl FnOnce(String) -> crate::tool::ToolFailure,
) -> crate::tool::ToolFailure {
    let said = format!("{tool} stopped before its final answer: {stop}");
    if !completed.is_empty() {
        return after_effects(tool, &said, completed);
    }
    guidance(said)
}

/// The failure of a sub-agent's call that failed (`said`) after calls with effects of its run
/// had completed (`completed`, each as [`completed_call`] says it): which, and that calling the
/// sub-agent again would do them again.
fn after_effects(tool: &str, said: &str, completed: &[String]) -> crate::tool::ToolFailure {
    let completed = completed.join(", ");
    let completed = shortened(&completed, 2048);
    crate::tool::ToolFailure::do_not_retry(format!(
        "{said}; before that, {tool} completed these calls with effects: {completed}"
    ))
    .with_next_step(format!(
        "Do not call {tool} again for the same task: what those calls did is done, and calling {tool} again would do it again. Continue without its answer, and tell the user what was done."
    ))
}

/// A call of a sub-agent's run that completed, as its failure lists it.
pub(crate) fn completed_call(tool: &str, call_id: &str) -> String {
    format!("{tool} (call {call_id})")
}

/// The failure of a sub-agent's call whose final answer could not be read as its output type
/// `schema`, after every correction, and after the calls with effects `completed`.
pub(crate) fn sub_agent_unreadable(
    tool: &str,
    schema: &str,
    reason: &str,
    completed: &[String],
) -> crate::tool::ToolFailure {
    let reason = shortened(reason, 2048);
    let said = format!("the final answer of {tool} could not be read as {schema}: {reason}");
    if !completed.is_empty() {
        return after_effects(tool, &said, completed);
    }
    crate::tool::ToolFailure::retry_with_other_arguments(said)
}

/// The failure of a sub-agent's call whose run ended on an error (`cause`: its model request
/// failed, or its journal could not be used).
pub(crate) fn sub_agent_failed(tool: &str, cause: &str) -> crate::tool::ToolFailure {
    let cause = shortened(cause, 2048);
    crate::tool::ToolFailure::do_not_retry(format!("the run of {tool} failed: {cause}"))
        .with_next_step("Continue without its answer, or tell the user it could not be had.")
}

/// The description of the tool that hands the conversation to `agent`: what it does, then
/// `when` (what that agent is for, as the application says it).
pub(crate) fn handoff_description(agent: &str, when: &str) -> String {
    format!("Hands the conversation to {agent}, which answers from here. {when}")
}

/// The description of a tool the history called, declared to an agent that does not have it
/// (Anthropic refuses calls in a request without tools), with the tool choice `none`.
pub(crate) fn history_tool(tool: &str) -> String {
    format!(
        "{tool} was called earlier in this conversation, by another agent; it cannot be called now."
    )
}

/// The result of a handoff's call: the conversation goes on with `agent`, which reads it too.
pub(crate) fn handed_off(agent: &str) -> String {
    format!("The conversation was handed to {agent}, which answers the user from here.")
}

/// The failure of a sub-agent's call in a journaled run, when the tool has no journal to keep
/// the sub-agent's run in.
pub(crate) fn sub_agent_unjournaled(tool: &str) -> crate::tool::ToolFailure {
    crate::tool::ToolFailure::do_not_retry(format!(
        "{tool} runs an agent in a journaled run, and has no journal to keep that agent's run in, so a crash would repeat what it did"
    ))
    .with_next_step(
        "Continue without it, and tell the user that the application must give the tool the run's journal (AgentTool::journaled).",
    )
}

/// The failure of a sub-agent's call whose model request failed (`cause`, the model's error);
/// `retryable` when asking again later can help, which it is not to say once calls with effects
/// of its run had completed (`completed`): calling it again would do them again. An error that
/// will repeat (the provider refused what it was asked: `cause` says what) is said to, so that
/// the model does something else rather than call again.
pub(crate) fn sub_agent_model_failed(
    tool: &str,
    cause: &str,
    retryable: bool,
    completed: &[String],
) -> crate::tool::ToolFailure {
    let cause = shortened(cause, 2048);
    let said = format!("the model of {tool} failed: {cause}");
    if !completed.is_empty() {
        return after_effects(tool, &said, completed);
    }
    let failure = crate::tool::ToolFailure::do_not_retry(said);
    if retryable {
        failure.with_next_step(format!(
            "Call {tool} again in a moment, or continue without its answer."
        ))
    } else {
        failure.with_next_step(format!(
            "Do not call {tool} again for this: its model would fail the same way. Continue without its answer, or tell the user that {tool} cannot do it."
        ))
    }
}
