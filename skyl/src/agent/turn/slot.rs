//! Where each call of a turn stands between passes, as a saved run keeps it: the [`Turn`], one
//! [`Slot`] a call, and every way a slot changes (a person approves, denies or replies; a call
//! asks, waits on its sub-agent, or is answered) and every question asked of it (how far it got,
//! whether it waits, what the deciding phase does with it).
//!
//! This is the one file that names a slot's states: a new way for a call to wait is a variant
//! here, with its answers to those questions, and a public method (in the file of the feature
//! that lets a person act on it, as `approval.rs` does) to decide about it.

use std::borrow::Cow;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::arguments::canonical::arguments_fingerprint;
use crate::content::{Content, ResultContent};
use crate::message::{Message, Part, Role, ToolCall, ToolResult};

use crate::agent::question::{Question, Reply};
use crate::agent::run::{Run, Spent};
use crate::agent::step::ResponseMeta;

/// The assistant turn a run is answering: what the response said, and one slot per call, in call
/// order.
///
/// Saved, it keeps the format of the runs saved before a result's content moved into its call's
/// slot ([`SavedTurn`]): the slots hold the results alone, and the content beside them is one
/// list, in the order the answers came.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(from = "SavedTurn<'static>")]
pub(crate) struct Turn {
    pub(crate) answer: ResponseMeta,
    pub(crate) slots: Vec<Slot>,
    /// What the runs of the sub-agents of the calls answered so far used.
    pub(crate) spent: Spent,
}

/// A [`Turn`] as a saved run holds it: borrowed from the turn when it is saved, owned when it is
/// loaded.
#[derive(Serialize, Deserialize)]
struct SavedTurn<'t> {
    answer: Cow<'t, ResponseMeta>,
    slots: Cow<'t, [Slot]>,
    /// The content beside the results that have any (images, resources), in the order the
    /// answers came.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    content: Vec<Cow<'t, ResultContent>>,
    /// (A copy when saved: a few counts.)
    #[serde(default, skip_serializing_if = "Spent::is_nothing")]
    spent: Spent,
}

impl Serialize for Turn {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        let mut content: Vec<&(usize, ResultContent)> = self
            .slots
            .iter()
            .filter_map(|slot| slot.answered()?.content.as_ref())
            .collect();
        content.sort_by_key(|(came, _)| *came);
        SavedTurn {
            answer: Cow::Borrowed(&self.answer),
            slots: Cow::Borrowed(&self.slots),
            content: content
                .into_iter()
                .map(|(_, content)| Cow::Borrowed(content))
                .collect(),
            spent: self.spent.clone(),
        }
        .serialize(serializer)
    }
}

impl From<SavedTurn<'static>> for Turn {
    /// Puts each content of the saved list beside the result of its call, which keeps its place
    /// in the list (content whose call has no result, which no run writes, is dropped, as the
    /// tool message would).
    fn from(saved: SavedTurn<'static>) -> Self {
        let mut turn = Turn {
            answer: saved.answer.into_owned(),
            slots: saved.slots.into_owned(),
            spent: saved.spent,
        };
        for (came, content) in saved.content.into_iter().map(Cow::into_owned).enumerate() {
            let answered = turn
                .slots
                .iter_mut()
                .filter_map(Slot::answered_mut)
                .find(|answered| {
                    answered.content.is_none() && answered.result.call_id == content.call_id
                });
            if let Some(answered) = answered {
                answered.content = Some((came, content));
            }
        }
        turn
    }
}

impl Turn {
    /// The turn of `answer`, whose `calls` calls nothing has decided about yet.
    pub(crate) fn new(answer: ResponseMeta, calls: usize) -> Self {
        Turn {
            answer,
            slots: vec![Slot::New; calls],
            spent: Spent::default(),
        }
    }

    /// Gives the call at `position` its result, with the content beside it for the tool
    /// message; the content's place among the turn's is after every content answered before.
    pub(crate) fn answer(&mut self, position: usize, result: ToolResult, content: Vec<Content>) {
        let content = (!content.is_empty()).then(|| {
            let came = self
                .slots
                .iter()
                .filter_map(|slot| Some(slot.answered()?.content.as_ref()?.0 + 1))
                .max()
                .unwrap_or(0);
            (came, ResultContent::new(result.call_id.as_str(), content))
        });
        self.slots[position] = Slot::Answered(Answered { result, content });
    }

    /// Whether a call of the turn waits for a person.
    pub(crate) fn is_waiting(&self) -> bool {
        self.slots.iter().any(Slot::is_waiting)
    }

    /// The turn, every call answered, taken apart: what the response said, what the calls'
    /// sub-agents used, and the tool message (each result, in call order, with the content
    /// beside it).
    pub(crate) fn into_tool_message(self) -> (ResponseMeta, Spent, Message) {
        let Turn {
            answer,
            slots,
            spent,
        } = self;
        let mut parts = Vec::with_capacity(slots.len() * 2);
        for slot in slots {
            let Slot::Answered(Answered { result, content }) = slot else {
                unreachable!("a complete turn has a result in every slot")
            };
            parts.push(Part::ToolResult(result));
            parts.extend(content.map(|(_, content)| Part::ResultContent(content)));
        }
        let message = Message {
            role: Role::Tool,
            parts,
        };
        (answer, spent, message)
    }
}

/// Where one call of the turn stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Slot {
    /// No hook has decided about it yet.
    New,
    /// It has its result, and the content beside it.
    Answered(Answered),
    /// It waits for a person's decision (a run saved before approvals were bound to what they
    /// approve).
    Awaiting,
    /// It waits for a person's decision; `definition` is the fingerprint of the tool's definition
    /// when it paused.
    Paused { definition: String },
    /// A person let it run (a run saved before approvals were bound).
    Approved,
    /// A person let it run, as bound here.
    Granted(Approval),
    /// A person refused it, for this reason.
    Denied(String),
    /// It asked the person this question while it ran, and waits, parked, for the reply.
    Asking(Question),
    /// The person replied: the parked call gets the reply when the run is resumed.
    Replied { question: Question, reply: Reply },
    /// It runs a sub-agent ([`AgentTool`](crate::agent::AgentTool)) whose run waits for a
    /// person: the sub-agent's run as it stopped, with the decisions recorded on it since.
    /// Resumed, the call runs again and hands the sub-agent this run to resume.
    Nested(Box<Run>),
}

/// A call's result, and the content beside it (images, resources) until the turn's tool
/// message is written.
///
/// Saved, it is the result alone: the content is saved in the turn's list ([`SavedTurn`]), and
/// loaded back beside the result.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Answered {
    result: ToolResult,
    /// The content beside the result, if it has any, with its place in the turn's list: the
    /// answers with content, in the order they came.
    content: Option<(usize, ResultContent)>,
}

impl Serialize for Answered {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        self.result.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Answered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let result = ToolResult::deserialize(deserializer)?;
        Ok(Answered {
            result,
            content: None,
        })
    }
}

/// How far a call got, as its slot says, which tells what may settle it when its turn is
/// answered again (`turn/settle.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Nothing decided it yet: the journal, a saved decision or the hooks may.
    Undecided,
    /// It was started and waits inside (a question, a sub-agent's run), or goes on with a reply.
    Started,
    /// A person decided it before it started: run it, or not.
    Decided,
    /// It has its result.
    Answered,
}

/// What the deciding phase (`turn/decide.rs`) does with a call nothing settled, as its slot
/// says.
pub(crate) enum Verdict {
    /// Nothing decided it: the hooks decide.
    AskHooks,
    /// A person let it run: as long as this approval holds, when it is bound.
    Run(Option<Approval>),
    /// A person refused it, for this reason.
    Deny(String),
    /// It runs its sub-agent again, which goes on with this saved run.
    RunNested(Box<Run>),
    /// It has its result, or waits: its slot stays as it is.
    Stay(Slot),
}

impl Slot {
    /// The slot of a call that waits for a person's decision, of a tool whose definition's
    /// fingerprint is `definition`.
    pub(crate) fn paused(definition: String) -> Slot {
        Slot::Paused { definition }
    }

    /// The slot of a call that asked the person `question` while it ran (only MCP's
    /// elicitation asks).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn asking(question: Question) -> Slot {
        Slot::Asking(question)
    }

    /// The slot of a call whose sub-agent's `run` waits for a person.
    pub(crate) fn nested(run: Run) -> Slot {
        Slot::Nested(Box::new(run))
    }

    /// How far the call got: the one place each way a call can stand says which it is, so
    /// that settling a call needs no list of slots.
    pub(crate) fn stage(&self) -> Stage {
        match self {
            Slot::New | Slot::Awaiting | Slot::Paused { .. } => Stage::Undecided,
            Slot::Asking(_) | Slot::Replied { .. } | Slot::Nested(_) => Stage::Started,
            Slot::Approved | Slot::Granted(_) | Slot::Denied(_) => Stage::Decided,
            Slot::Answered(_) => Stage::Answered,
        }
    }

    /// What deciding does with the call, as its slot says.
    pub(crate) fn verdict(self) -> Verdict {
        match self {
            Slot::New => Verdict::AskHooks,
            Slot::Approved => Verdict::Run(None),
            Slot::Granted(approval) => Verdict::Run(Some(approval)),
            Slot::Denied(reason) => Verdict::Deny(reason),
            Slot::Nested(saved) => Verdict::RunNested(saved),
            Slot::Answered(_)
            | Slot::Awaiting
            | Slot::Paused { .. }
            | Slot::Asking(_)
            | Slot::Replied { .. } => Verdict::Stay(self),
        }
    }

    /// Whether the call paused, and a person may decide about it (or did).
    pub(crate) fn is_paused(&self) -> bool {
        !matches!(self, Slot::New | Slot::Answered(_))
    }

    /// Whether the call waits for a person's decision (inside its sub-agent's run, too).
    pub(crate) fn is_waiting(&self) -> bool {
        match self {
            Slot::Nested(run) => run.awaiting_approval().next().is_some(),
            _ => matches!(self, Slot::Awaiting | Slot::Paused { .. } | Slot::Asking(_)),
        }
    }

    /// The result of the call, once it has one.
    pub(crate) fn result(&self) -> Option<&ToolResult> {
        Some(&self.answered()?.result)
    }

    fn answered(&self) -> Option<&Answered> {
        match self {
            Slot::Answered(answered) => Some(answered),
            _ => None,
        }
    }

    fn answered_mut(&mut self) -> Option<&mut Answered> {
        match self {
            Slot::Answered(answered) => Some(answered),
            _ => None,
        }
    }

    /// The question the call asked, if it asked one.
    pub(crate) fn question(&self) -> Option<&Question> {
        match self {
            Slot::Asking(question) | Slot::Replied { question, .. } => Some(question),
            _ => None,
        }
    }

    /// The question the call asked and the person's reply to it, once they replied.
    pub(crate) fn reply(&self) -> Option<(&Question, &Reply)> {
        match self {
            Slot::Replied { question, reply } => Some((question, reply)),
            _ => None,
        }
    }

    /// The saved run of the call's sub-agent, while it waits for a person.
    pub(crate) fn sub_run(&self) -> Option<&Run> {
        match self {
            Slot::Nested(run) => Some(run),
            _ => None,
        }
    }

    /// [`sub_run`](Self::sub_run), to decide about the calls that wait in it.
    pub(crate) fn sub_run_mut(&mut self) -> Option<&mut Run> {
        match self {
            Slot::Nested(run) => Some(run),
            _ => None,
        }
    }

    /// The person answers the question the call asked with `reply`; `false` (and nothing
    /// changes) for a call that asked none.
    pub(crate) fn answer_question(&mut self, reply: impl FnOnce(&Question) -> Reply) -> bool {
        let Some(question) = self.question() else {
            return false;
        };
        *self = Slot::Replied {
            reply: reply(question),
            question: question.clone(),
        };
        true
    }

    /// A person lets the paused `call` (of the journaled run `run`, if it is journaled) run,
    /// until `expires` (seconds since the Unix epoch): the approval binds to the call, its
    /// arguments and the definition its tool had when it paused. A call that asked a question
    /// accepts it with the schema's defaults instead.
    pub(crate) fn approve(&mut self, call: &ToolCall, run: Option<String>, expires: Option<u64>) {
        if self.answer_question(|question| Reply::Accept(question.defaults())) {
            return;
        }
        let definition = match self {
            Slot::Paused { definition } => Some(definition.clone()),
            Slot::Granted(approval) => approval.definition.clone(),
            _ => None,
        };
        *self = Slot::Granted(Approval {
            call_id: call.id.clone(),
            run,
            tool: call.name.clone(),
            arguments: arguments_fingerprint(call),
            definition,
            expires,
        });
    }

    /// A person refuses the paused call, for `reason`; a call that asked a question declines
    /// it instead (its server hears no reason).
    pub(crate) fn deny(&mut self, reason: &str) {
        if !self.answer_question(|_| Reply::Decline) {
            *self = Slot::Denied(reason.to_owned());
        }
    }
}

/// What an approval lets run: one call (its id, its tool, its arguments) of one run (its id, in a
/// journaled run), of a tool defined as it was when the call paused, until an expiry. A run
/// resumed without its journal or under another id, with another definition of the tool, or after
/// the expiry, asks again instead of running; the call running uses it up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Approval {
    pub(crate) call_id: String,
    /// The id of the journaled run it was given in: it holds only in that run's journal, where
    /// its use is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) run: Option<String>,
    pub(crate) tool: String,
    /// The fingerprint of the call's canonical arguments.
    pub(crate) arguments: String,
    /// The fingerprint of the tool's definition when the call paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) definition: Option<String>,
    /// Seconds since the Unix epoch after which the approval no longer holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expires: Option<u64>,
}

impl Approval {
    /// Whether it still lets `call` of a tool whose definition is now `definition` run at `now`
    /// (seconds since the Unix epoch), in the journaled run `run` (`None`: a run without a
    /// journal).
    pub(crate) fn holds(
        &self,
        call: &ToolCall,
        run: Option<&str>,
        arguments: &str,
        definition: &str,
        now: u64,
    ) -> bool {
        self.call_id == call.id
            && self.run.as_deref().is_none_or(|bound| Some(bound) == run)
            && self.tool == call.name
            && self.arguments == arguments
            && self
                .definition
                .as_deref()
                .is_none_or(|bound| bound == definition)
            && self.expires.is_none_or(|expires| now < expires)
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> u64 {
    unix_seconds(SystemTime::now())
}

/// `time` in seconds since the Unix epoch (0 before it).
pub(crate) fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::agent::hooks::before_tool_call;
    use crate::agent::hooks::points::Hooks;
    use crate::agent::{Agent, Decision, Run, Stop};
    use crate::content::media::{Content, Resource};
    use crate::dynamic_tool::DynamicTool;
    use crate::message::{Message, ToolCall};
    use crate::testing::ScriptedModel;
    use crate::tool::{ToolDefinition, ToolOutput};
    use crate::toolbox::Toolbox;

    /// An agent whose tool `look` answers with a resource beside its text, and whose hook
    /// pauses every call but `c2`.
    fn agent(model: ScriptedModel) -> Agent<(), impl Hooks> {
        let definition = ToolDefinition {
            name: "look".into(),
            description: "Looks at a page.".into(),
            parameters: json!({"type": "object", "properties": {"page": {"type": "string"}}}),
            ..Default::default()
        };
        let look = DynamicTool::from_fn(definition, |arguments: Value| {
            let page = arguments["page"].as_str().unwrap_or_default().to_owned();
            let resource = Resource::text(format!("file:///{page}"), format!("the text of {page}"));
            ToolOutput::from(format!("looked at {page}")).with(Content::Resource(resource))
        });
        Agent::new(model, Toolbox::new().with(look), "m").with_hooks(before_tool_call(
            |call: &ToolCall, _| {
                if call.id == "c2" {
                    Decision::Run
                } else {
                    Decision::Pause
                }
            },
        ))
    }

    /// A run whose calls `c2` then `c1` were answered with content (in that order, not call
    /// order) and whose call `c3` waits.
    fn answered_out_of_order() -> Run {
        let calls = ["a", "b", "c"]
            .iter()
            .enumerate()
            .map(|(at, page)| ToolCall::new(format!("c{}", at + 1), "look", json!({"page": page})));
        let model = ScriptedModel::new().reply_calls(calls);
        let mut run = agent(model)
            .run(vec![Message::user("Look at a, b and c")])
            .blocking()
            .unwrap();
        run.approve("c1").unwrap();
        let run = agent(ScriptedModel::new()).resume(run).blocking().unwrap();
        assert_eq!(run.stop(), &Stop::AwaitingApproval);
        run
    }

    /// [`answered_out_of_order`], saved by the build before a result's content moved into its
    /// call's slot: the content beside the results is one list, in the order the answers came.
    const SAVED: &str = concat!(
        r#"{"transcript":[{"role":"user","parts":[{"text":"Look at a, b and c"}]},"#,
        r#"{"role":"assistant","parts":[{"tool_call":{"id":"c1","name":"look","arguments":{"page":"a"}}},"#,
        r#"{"tool_call":{"id":"c2","name":"look","arguments":{"page":"b"}}},"#,
        r#"{"tool_call":{"id":"c3","name":"look","arguments":{"page":"c"}}}]}],"#,
        r#""stop":"awaiting_approval","steps":1,"usage":{"input_tokens":0,"output_tokens":0},"#,
        r#""turn":{"answer":{"stop_reason":"tool_use","usage":{"input_tokens":0,"output_tokens":0}},"#,
        r#""slots":[{"answered":{"call_id":"c1","content":"looked at a","is_error":false}},"#,
        r#"{"answered":{"call_id":"c2","content":"looked at b","is_error":false}},"#,
        r#"{"paused":{"definition":"85d06d7f89f937e7"}}],"#,
        r#""content":[{"call_id":"c2","content":[{"resource":{"uri":"file:///b","body":{"text":"the text of b"}}}]},"#,
        r#"{"call_id":"c1","content":[{"resource":{"uri":"file:///a","body":{"text":"the text of a"}}}]}]},"#,
        r#""format":2}"#,
    );

    #[test]
    fn a_saved_turn_keeps_its_content_beside_the_calls_in_the_order_the_answers_came() {
        assert_eq!(
            serde_json::to_string(&answered_out_of_order()).unwrap(),
            SAVED
        );
        let loaded: Run = serde_json::from_str(SAVED).unwrap();
        assert_eq!(serde_json::to_string(&loaded).unwrap(), SAVED);
        assert_eq!(loaded, answered_out_of_order());
    }

    #[test]
    fn a_turn_resumed_from_a_saved_run_writes_each_result_with_its_content_in_call_order() {
        let mut run: Run = serde_json::from_str(SAVED).unwrap();
        run.approve("c3").unwrap();
        let run = agent(ScriptedModel::new().reply_text("Done."))
            .resume(run)
            .blocking()
            .unwrap();
        // Each result, then the content beside it, as the build before wrote them.
        let answered = |call: &str, page: &str| {
            let resource = json!({"uri": format!("file:///{page}"), "body": {"text": format!("the text of {page}")}});
            [
                json!({"tool_result": {"call_id": call, "content": format!("looked at {page}"), "is_error": false}}),
                json!({"result_content": {"call_id": call, "content": [{"resource": resource}]}}),
            ]
        };
        let parts: Vec<Value> = [("c1", "a"), ("c2", "b"), ("c3", "c")]
            .into_iter()
            .flat_map(|(call, page)| answered(call, page))
            .collect();
        assert_eq!(
            serde_json::to_value(&run.transcript()[2]).unwrap(),
            json!({"role": "tool", "parts": parts})
        );
    }
}
