//! A call of a mounted tool, from the request to what its answer means for the model: the
//! rounds of an input-required result, a question the server asks while the call is in flight
//! (parked for the person in an agent's turn), a task to await, and the same call gone on with
//! in another process once the person replied.

use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    DEFAULT_MRTR_MAX_ROUNDS, ErrorCode, InputRequest, InputResponses, UpdateTaskParams,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::Value;

use crate::agent::asking::{self, Resume};
use crate::agent::{Question, Reply};
use crate::mcp::content;
use crate::mcp::mount::mounted_task::{self, Ended};
use crate::mcp::mount::{Asks, Connection, InFlight, elicit_result, exited, form_question};
use crate::model::BoxFuture;
use crate::prose::mcp as prose;
use crate::tool::{CallContext, LogLevel, RichOutcome, ToolFailure};

/// A call's request to its server, sent and not answered yet.
type Request = BoxFuture<'static, Result<CallToolResponse, ServiceError>>;

/// One call of a mounted tool, as its answer needs it.
pub(super) struct Call {
    pub(super) remote_name: String,
    pub(super) local_name: String,
    pub(super) context: CallContext,
}

impl Connection {
    pub(super) async fn call(self: Arc<Self>, call: Call, arguments: &Value) -> RichOutcome {
        let catalog = &self.catalog;
        // The reader local tools use: `null` is no arguments, JSON text holding an object is that
        // object, anything else is refused the same way.
        let Value::Object(arguments) = crate::arguments::as_object(arguments)?.into_owned() else {
            unreachable!("as_object gives an object or an error");
        };
        if self.closed.load(Ordering::Acquire) {
            return Err(prose::connection_closed(&catalog.server));
        }
        if !catalog.offers(&call.remote_name) {
            return Err(prose::tool_withdrawn(&catalog.server));
        }
        // The same call in a run resumed elsewhere: the server has its task already.
        if let (Some(journal), Some(key)) = (&catalog.tasks.journal, call.context.effect_key())
            && let Some(task_id) = mounted_task::recorded(journal.as_ref(), key).await
        {
            return self.await_task(call, task_id, None).await;
        }
        let params = CallToolRequestParams::new(call.remote_name.clone()).with_arguments(arguments);
        let (peer, asks) = (self.peer.clone(), Arc::clone(&self.asks));
        let server = catalog.server.clone();
        let request: Request = Box::pin(async move { rounds(&peer, &asks, &server, params).await });
        self.answer(call, request).await
    }

    /// Awaits the server's answer to `call`, and answers a question the server asks meanwhile:
    /// in an agent's turn, by parking the call until the person replies (the call's placeholder
    /// failure is then never read); anywhere else, by declining it. The server gets the call
    /// timeout anew after each reply.
    fn answer(
        self: Arc<Self>,
        call: Call,
        mut request: Request,
    ) -> BoxFuture<'static, RichOutcome> {
        Box::pin(async move {
            let in_flight = InFlight::new(&self.asks);
            let limit = self.catalog.call_timeout;
            // Dropping the request on timeout makes rmcp send `notifications/cancelled`.
            let pending = tokio::select! {
                answer = &mut request => return Arc::clone(&self).respond(call, answer).await,
                () = tokio::time::sleep(limit) => {
                    return Err(prose::server_timed_out(&self.catalog.server, limit));
                }
                Some(pending) = self.asks.next() => pending,
            };
            drop(in_flight);
            let question = Question::new(&self.catalog.server, pending.message, pending.schema)
                .continued_by(pending.continuation);
            let (reply, context) = (pending.reply, call.context.clone());
            let asked = question.message().to_owned();
            let connection = Arc::clone(&self);
            // The rest of the call: the reply goes to the server, and the answer is awaited
            // again, with the whole call timeout.
            let resume: Resume = Box::new(move |answer| {
                // The server may have given up on its question meanwhile.
                let _ = reply.send(answer);
                connection.answer(call, request)
            });
            let expiry = self.catalog.question_expiry;
            match asking::park(context.call_id(), question, resume, expiry) {
                Ok(()) => Err(prose::asked_person(&self.catalog.server)),
                Err(resume) => {
                    // Nobody to ask: the server hears no, and the people watching the call read
                    // why.
                    context.log(
                        LogLevel::Warning,
                        prose::question_declined(&self.catalog.server, &asked),
                    );
                    resume(Reply::Decline).await
                }
            }
        })
    }

    /// The server's first answer to `call`: its result, or a task to await.
    async fn respond(
        self: Arc<Self>,
        call: Call,
        answer: Result<CallToolResponse, ServiceError>,
    ) -> RichOutcome {
        match answer {
            Ok(CallToolResponse::Complete(result)) => self.outcome(&call, Ok(result)).await,
            Ok(CallToolResponse::Task(created)) => {
                let task = created.task;
                if let (Some(journal), Some(key)) =
                    (&self.catalog.tasks.journal, call.context.effect_key())
                {
                    mounted_task::record(
                        journal.as_ref(),
                        key,
                        &self.catalog.server,
                        &call.remote_name,
                        &task.task_id,
                    )
                    .await;
                }
                self.await_task(call, task.task_id, task.poll_interval_ms)
                    .await
            }
            Ok(_) => {
                self.outcome(&call, Err(ServiceError::UnexpectedResponse))
                    .await
            }
            Err(error) => self.outcome(&call, Err(error)).await,
        }
    }

    /// Polls the server's task `task_id` for `call` until it ends, within the task timeout, and
    /// answers what the task asks meanwhile: by the application's handler, else of the person by
    /// parking the call in an agent's turn (the call then ends here, and the person's reply goes
    /// on with it), else declined. At most as many questions as an input-required call gets
    /// rounds.
    fn await_task(
        self: Arc<Self>,
        call: Call,
        task_id: String,
        interval: Option<u64>,
    ) -> BoxFuture<'static, RichOutcome> {
        Box::pin(async move {
            let server = self.catalog.server.clone();
            let limit = self.catalog.tasks.timeout;
            let deadline = Instant::now() + limit;
            for _ in 0..DEFAULT_MRTR_MAX_ROUNDS {
                let ended = mounted_task::await_task(
                    &self.peer,
                    &server,
                    &task_id,
                    interval,
                    (deadline, limit),
                    &call.context,
                )
                .await;
                let (key, request) = match ended {
                    Ended::Answer(answer) => return self.outcome(&call, answer).await,
                    Ended::Failed(outcome) => return outcome,
                    Ended::Asked { key, request } => (key, request),
                };
                let asked = TaskQuestion {
                    task_id: task_id.clone(),
                    key,
                };
                let Some(question) = form_question(&server, request) else {
                    self.send_answer(&asked, Reply::Decline).await?;
                    continue;
                };
                if let Some(reply) = self.asks.handled(&question) {
                    self.send_answer(&asked, reply).await?;
                    continue;
                }
                let continuation = TaskContinuation {
                    tool: call.remote_name.clone(),
                    task_id: asked.task_id.clone(),
                    key: asked.key.clone(),
                };
                let question = question.continued_by(serde_json::to_value(continuation).ok());
                let said = question.message().to_owned();
                let context = call.context.clone();
                let connection = Arc::clone(&self);
                let resume: Resume =
                    Box::new(move |reply| connection.answer_task(call, asked, reply));
                let expiry = self.catalog.question_expiry;
                match asking::park(context.call_id(), question, resume, expiry) {
                    Ok(()) => return Err(prose::asked_person(&server)),
                    Err(resume) => {
                        // Nobody to ask: the server hears no, and the people watching the call
                        // read why.
                        context.log(LogLevel::Warning, prose::question_declined(&server, &said));
                        return resume(Reply::Decline).await;
                    }
                }
            }
            let _ = self.peer.cancel_task(CancelTaskParams::new(&task_id)).await;
            Err(prose::task_asked_too_often(
                &server,
                DEFAULT_MRTR_MAX_ROUNDS,
            ))
        })
    }

    /// Sends `reply` to the question `asked` of the server's task (`tasks/update`).
    async fn send_answer(&self, asked: &TaskQuestion, reply: Reply) -> Result<(), ToolFailure> {
        let server = &self.catalog.server;
        let answer = serde_json::to_value(elicit_result(reply))
            .map_err(|error| prose::task_answer_refused(server, &error.to_string()))?;
        let responses = InputResponses::from([(asked.key.clone(), answer)]);
        let update = UpdateTaskParams::new(asked.task_id.clone(), responses);
        self.peer
            .update_task(update)
            .await
            .map_err(|error| prose::task_answer_refused(server, &error.to_string()))
    }

    /// The person's `reply` to the question `asked` of the server's task for `call`, sent, and
    /// the task awaited again.
    fn answer_task(
        self: Arc<Self>,
        call: Call,
        asked: TaskQuestion,
        reply: Reply,
    ) -> BoxFuture<'static, RichOutcome> {
        Box::pin(async move {
            self.send_answer(&asked, reply).await?;
            self.await_task(call, asked.task_id, None).await
        })
    }

    /// What the server's answer to `call` means for the model.
    async fn outcome(
        &self,
        call: &Call,
        answer: Result<CallToolResult, ServiceError>,
    ) -> RichOutcome {
        let catalog = &self.catalog;
        let (local_name, remote_name) = (call.local_name.as_str(), call.remote_name.as_str());
        // skyl's OAuth refused to send the call (the person did not authorize, the server wants
        // scopes the account lacks): the server is fine, the access is not.
        #[cfg(feature = "mcp-oauth")]
        if let Err(ServiceError::TransportSend(error)) = &answer
            && let Some(reason) = crate::mcp::mount::oauth::session::refusal(error)
        {
            return Err(prose::authorization_failed(&catalog.server, &reason));
        }
        match answer {
            Ok(result) if result.is_error == Some(true) => Err(prose::tool_reported(
                local_name,
                remote_name,
                &content::text_of(result),
            )),
            Ok(result) => Ok(content::from_mcp(result)),
            Err(ServiceError::McpError(error)) => Err(prose::server_refused(
                &catalog.server,
                local_name,
                error.code.0,
                &error.message,
                error.code == ErrorCode::INVALID_PARAMS,
            )),
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_))
                if self.closed.load(Ordering::Acquire) =>
            {
                Err(prose::connection_closed(&catalog.server))
            }
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => Err(
                prose::server_gone(&catalog.server, self.exit_status().await),
            ),
            Err(ServiceError::Timeout { .. }) => Err(prose::server_timed_out(
                &catalog.server,
                catalog.call_timeout,
            )),
            Err(other) => Err(prose::server_failed(&catalog.server, &other.to_string())),
        }
    }

    /// How the server's process ended, when skyl started it and it has ended. Waits for it
    /// once; a process still running after [`EXIT_GRACE`](super::EXIT_GRACE) is not waited for again.
    async fn exit_status(&self) -> Option<ExitStatus> {
        if let Some(status) = self.exit.get() {
            return *status;
        }
        let mut child = self.child.as_ref()?.lock().await;
        let status = match self.exit.get() {
            Some(status) => *status,
            None => exited(Some(&mut child)).await,
        };
        *self.exit.get_or_init(|| status)
    }
}

/// A call of a server's tool to its end: a server at 2026-07-28 may answer with an
/// input-required result (SEP-2322) instead, asking questions of the person; each is asked as an
/// `elicitation/create` during the call would be, and the call is sent again with the answers and
/// the server's request state, exactly as it gave it, until the server completes it (at most
/// rmcp's round limit). Each round is a request of its own, with its own JSON-RPC id.
async fn rounds(
    peer: &Peer<RoleClient>,
    asks: &Asks,
    server: &str,
    mut params: CallToolRequestParams,
) -> Result<CallToolResponse, ServiceError> {
    for _ in 0..DEFAULT_MRTR_MAX_ROUNDS {
        let asked = match peer.call_tool_once(params.clone()).await? {
            CallToolResponse::InputRequired(asked) => asked,
            // A result, or a task the caller awaits.
            done => return Ok(done),
        };
        let mut answers = InputResponses::new();
        for (key, request) in asked.input_requests.unwrap_or_default() {
            // Sampling and roots were not declared: a server must not ask for them (SEP-2575).
            let InputRequest::Elicitation(request) = request else {
                return Err(ServiceError::UnexpectedResponse);
            };
            // The server keeps nothing between rounds: this is all another process needs to
            // send the answer on, should the person reply there.
            let continuation = Continuation {
                tool: params.name.to_string(),
                arguments: params.arguments.clone().unwrap_or_default(),
                request_state: asked.request_state.clone(),
                key: key.clone(),
                answers: answers.clone(),
            };
            let continuation = serde_json::to_value(continuation).ok();
            let answer = asks.ask(server, request.params, continuation).await;
            let answer = serde_json::to_value(answer).map_err(|error| {
                ServiceError::McpError(ErrorData::internal_error(error.to_string(), None))
            })?;
            answers.insert(key, answer);
        }
        params.input_responses = (!answers.is_empty()).then_some(answers);
        params.request_state = asked.request_state;
    }
    Err(ServiceError::InputRequiredRoundsExceeded {
        max_rounds: DEFAULT_MRTR_MAX_ROUNDS,
    })
}

/// The question of a server's task a call waits on.
struct TaskQuestion {
    task_id: String,
    key: String,
}

/// Where a call stands when its server's task asked a question: what sending the person's
/// answer on takes, in this process or another.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskContinuation {
    /// The tool's name on the server.
    tool: String,
    task_id: String,
    /// The key of the question asked.
    key: String,
}

/// Where a call stands when its server asked a question in an input-required result: what
/// sending the person's answer on takes, in this process or another.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Continuation {
    /// The tool's name on the server.
    tool: String,
    arguments: serde_json::Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    request_state: Option<String>,
    /// The key of the question asked.
    key: String,
    /// The answers to the questions of the same round asked before it.
    answers: InputResponses,
}

impl Connection {
    /// The call a question of this server's input-required result asked for, gone on with
    /// here with the person's `reply` (the question was asked in another process, or before a
    /// restart: a run resumed with the reply reaches it through the call's tool in its
    /// toolbox); `None` when the continuation is not one of a tool this server offers.
    pub(super) fn continued(
        self: Arc<Self>,
        continuation: &Value,
        reply: Reply,
        call_id: &str,
    ) -> Option<BoxFuture<'static, RichOutcome>> {
        // A task's question names its task (`taskId`), which an input-required round's
        // continuation never has; the round's has the call's `arguments`, which a task's lacks.
        if let Ok(asked) = serde_json::from_value::<TaskContinuation>(continuation.clone()) {
            let call = self.resumed_call(asked.tool, call_id)?;
            let asked = TaskQuestion {
                task_id: asked.task_id,
                key: asked.key,
            };
            return Some(self.answer_task(call, asked, reply));
        }
        let continuation: Continuation = serde_json::from_value(continuation.clone()).ok()?;
        let call = self.resumed_call(continuation.tool.clone(), call_id)?;
        let mut answers = continuation.answers;
        answers.insert(
            continuation.key,
            serde_json::to_value(elicit_result(reply)).ok()?,
        );
        let mut params =
            CallToolRequestParams::new(continuation.tool).with_arguments(continuation.arguments);
        params.input_responses = Some(answers);
        params.request_state = continuation.request_state;
        let (peer, asks) = (self.peer.clone(), Arc::clone(&self.asks));
        let server = self.catalog.server.clone();
        let request: Request = Box::pin(async move { rounds(&peer, &asks, &server, params).await });
        Some(self.answer(call, request))
    }

    /// The call `call_id` of the tool the server calls `remote_name`, gone on with in this
    /// process; `None` when the server does not offer that tool now.
    fn resumed_call(&self, remote_name: String, call_id: &str) -> Option<Call> {
        let local_name = self
            .catalog
            .current()
            .iter()
            .find(|listed| listed.remote_name == remote_name)?
            .definition
            .name
            .clone();
        Some(Call {
            context: CallContext::new(local_name.as_str(), call_id),
            remote_name,
            local_name,
        })
    }
}
