//! Served calls as MCP Tasks (the `io.modelcontextprotocol/tasks` extension), kept in a journal.
//!
//! A task is a run of the [`Journal`] named `mcp-task/{id}`, with the same discipline as an agent
//! run's call: a `created` record (the call: its tool, its arguments, whether it may run again),
//! an `intent` record just before a call that can have effects starts, and a `result` record
//! (completed, failed or cancelled) once it is known. Every record is written durably, so a
//! server killed at any instant and started again on the same journal still answers for every
//! task it created: a finished one with its result, one that was running with a read-only or
//! idempotent tool by running it again, and one that was running with any other tool with the
//! outcome-unknown result, never by running it again.
//!
//! A tool that asks its client something ([`ask`](crate::mcp::ask)) ends the run it is in: the task
//! is then `input_required`, with the questions in an `asked/{round}` record, and each answer the
//! client sends with `tasks/update` is an `answer/{round}/{key}` record. Once every question of
//! the round is answered the call runs again, from its start, with all the answers so far (as a
//! call asked in an input-required result does); before a rerun of a tool with effects, the
//! round's intent is recorded (`intent/{round}`), so that a rerun cut off by a crash is
//! answered as one that may have had its effects.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, ContentBlock, DetailedTask, ErrorCode, InputRequests, InputResponses,
    ServerNotification, Task, TaskPayload, TaskStatus, TaskStatusNotification,
    TaskStatusNotificationParams,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;

use crate::agent::{Journal, JournalError};
use crate::prose::mcp as prose;

mod records;

pub(crate) use records::Created;
use records::{
    Answer, Asked, FORMAT, Finished, Intent, Stored, cancelled_finish, entry, failure, failure_of,
    intent_key, now, read, run_of, to_object,
};

/// The run of the journal that lists every task's id (`task/{id}`), in the order they were
/// created, for `tasks/list`.
const INDEX: &str = "mcp-tasks";

/// What one run of a task's call came to.
pub(in crate::mcp) enum Ran {
    /// The call's result.
    Answered(CallToolResult),
    /// The tool asked the client (`skyl::mcp::ask`): the task waits for the answers.
    Asked(InputRequests),
    /// The call cannot be answered as a result (the tool asked what the client cannot answer):
    /// the task `failed`, with this error.
    Failed(ErrorData),
    /// The task was cancelled first.
    Cancelled,
}

/// What a task that runs sends when it ends.
type Cancel = tokio::sync::watch::Sender<bool>;

/// The tasks of a server: the journal that keeps them, and those running in this process.
pub(in crate::mcp) struct Tasks {
    journal: Arc<dyn Journal>,
    /// The tasks running here, each with the switch that cancels it.
    live: Mutex<HashMap<String, Cancel>>,
    /// Told each time the last task running here ends ([`Tasks::drain`] waits for it).
    idle: tokio::sync::Notify,
    /// How often clients are asked to poll, in milliseconds.
    poll_interval: u64,
    ids: Ids,
}

/// How a task's call is run: given its id and record, the client's answers so far, and a future
/// that ends when the task is cancelled, what the run came to.
pub(in crate::mcp) type Runner = Arc<
    dyn Fn(
            String,
            Created,
            InputResponses,
            crate::model::BoxFuture<'static, ()>,
        ) -> crate::model::BoxFuture<'static, Ran>
        + Send
        + Sync,
>;

impl Tasks {
    pub(in crate::mcp) fn new(journal: Arc<dyn Journal>, poll_interval: Duration) -> Self {
        Tasks {
            journal,
            live: Mutex::new(HashMap::new()),
            idle: tokio::sync::Notify::new(),
            poll_interval: millis(poll_interval),
            ids: Ids::new(),
        }
    }

    /// The same journal, with another poll interval, and no task running yet.
    pub(in crate::mcp) fn with_poll_interval(&self, poll_interval: Duration) -> Self {
        Tasks::new(Arc::clone(&self.journal), poll_interval)
    }

    /// Records a new task for the call `created` and starts it, under an id that begins with
    /// `id_prefix`; the task as `tools/call` answers.
    pub(in crate::mcp) async fn create(
        self: &Arc<Self>,
        created: Created,
        runner: Runner,
        peer: Peer<RoleServer>,
        id_prefix: &str,
    ) -> Result<Task, ErrorData> {
        let id = format!("{id_prefix}{}", self.ids.next());
        let record = entry("created", &created);
        self.journal
            .append(&run_of(&id), vec![record], true)
            .await
            .map_err(|error| {
                ErrorData::new(
                    ErrorCode::INTERNAL_ERROR,
                    prose::task_not_recorded(&created.tool, &error.to_string()),
                    None,
                )
            })?;
        // Listed for `tasks/list` once it exists; a task the index missed (its journal failed
        // in between) is still served, only not listed.
        let listed = entry(
            &format!("task/{id}"),
            &serde_json::json!({"format": FORMAT}),
        );
        let _ = self.journal.append(INDEX, vec![listed], true).await;
        let task = self.base(&id, &created, &created.created_at, TaskStatus::Working);
        let answers = created.answers.clone();
        self.start(id, created, 0, answers, runner, Some(peer));
        Ok(task)
    }

    /// Runs round `round` of task `id`'s call in the background with the client's `answers`,
    /// marked live until what it came to is recorded.
    fn start(
        self: &Arc<Self>,
        id: String,
        created: Created,
        round: usize,
        answers: InputResponses,
        runner: Runner,
        peer: Option<Peer<RoleServer>>,
    ) {
        let (cancel, mut cancelled) = tokio::sync::watch::channel(false);
        {
            let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
            if live.contains_key(&id) {
                return;
            }
            live.insert(id.clone(), cancel);
        }
        let tasks = Arc::clone(self);
        let cancel_seen = cancelled.clone();
        tokio::spawn(async move {
            let run = run_of(&id);
            if !created.reruns {
                let intent = entry(
                    &intent_key(round),
                    &Intent {
                        format: FORMAT,
                        at: now(),
                    },
                );
                if let Err(error) = tasks.journal.append(&run, vec![intent], true).await {
                    tasks.forget(&id);
                    // This round was started first by another process, or by another request
                    // here (a `tasks/get` that took the task for cut off): that run answers.
                    if !matches!(error, JournalError::Conflict { .. }) {
                        let failed =
                            failure(&prose::task_not_recorded(&created.tool, &error.to_string()));
                        tasks.finish(&id, &created, failed, peer).await;
                    }
                    return;
                }
            }
            // A `tasks/cancel` that came before this run was live records the task cancelled
            // (it cannot signal a run it does not see): then the call does not run. One that
            // comes later sees the run live, and signals it.
            if let Ok(stored) = tasks.load(&id).await
                && stored.finished.is_some()
            {
                tasks.forget(&id);
                return;
            }
            let until_cancelled: crate::model::BoxFuture<'static, ()> = Box::pin(async move {
                let _ = cancelled.wait_for(|cancelled| *cancelled).await;
            });
            let finished = match runner(id.clone(), created.clone(), answers, until_cancelled).await
            {
                Ran::Answered(result) => Finished {
                    format: FORMAT,
                    status: TaskStatus::Completed,
                    result: Some(to_object(&result)),
                    error: None,
                    status_message: None,
                    updated_at: now(),
                },
                // Cancelled while it ran (it asked in its grace): the cancel stands.
                Ran::Asked(_) if *cancel_seen.borrow() => cancelled_finish(&created),
                Ran::Asked(requests) => {
                    let asked = (round, requests);
                    return tasks
                        .wait_for_input(&id, &created, asked, cancel_seen, peer)
                        .await;
                }
                Ran::Failed(error) => Finished {
                    status_message: Some(error.message.to_string()),
                    ..failure_of(&error)
                },
                Ran::Cancelled => cancelled_finish(&created),
            };
            tasks.finish(&id, &created, finished, peer).await;
        });
    }

    /// Records that round `round` of task `id` asked `requests`, then lets it go from the live
    /// ones and tells the client the task waits for input; `cancel_seen` says whether the run
    /// was cancelled.
    async fn wait_for_input(
        &self,
        id: &str,
        created: &Created,
        (round, requests): (usize, InputRequests),
        cancel_seen: tokio::sync::watch::Receiver<bool>,
        peer: Option<Peer<RoleServer>>,
    ) {
        let asked = Asked {
            format: FORMAT,
            requests,
            at: now(),
        };
        let recorded = self
            .journal
            .append(
                &run_of(id),
                vec![entry(&format!("asked/{round}"), &asked)],
                true,
            )
            .await;
        match recorded {
            Ok(()) => {
                self.forget(id);
                // A cancel signalled between the end of the run and now found it live, and
                // left the rest to it.
                if *cancel_seen.borrow() {
                    let cancelled = entry("result", &cancelled_finish(created));
                    let _ = self
                        .journal
                        .append(&run_of(id), vec![cancelled], true)
                        .await;
                    return;
                }
            }
            // Settled by a `tasks/cancel` meanwhile: it stands.
            Err(JournalError::Conflict { .. }) => return self.forget(id),
            // Not recorded: the task fails, rather than be taken for cut off.
            Err(error) => {
                let failed = failure(&prose::task_not_recorded(&created.tool, &error.to_string()));
                return self.finish(id, created, failed, peer).await;
            }
        }
        if let Some(peer) = peer {
            notify(&peer, self.waiting(id, created, &asked.at, asked.requests)).await;
        }
    }

    /// Records how task `id` ended, then lets it go from the live ones and tells the client.
    async fn finish(
        &self,
        id: &str,
        created: &Created,
        finished: Finished,
        peer: Option<Peer<RoleServer>>,
    ) {
        let recorded = self
            .journal
            .append(&run_of(id), vec![entry("result", &finished)], true)
            .await;
        self.forget(id);
        if recorded.is_err() {
            // Not recorded (or recorded by another process first): what the journal holds is
            // the answer, and `tasks/get` reads it.
            return;
        }
        if let Some(peer) = peer {
            notify(&peer, self.detailed(id, created, Some(&finished))).await;
        }
    }

    fn forget(&self, id: &str) {
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        live.remove(id);
        if live.is_empty() {
            self.idle.notify_waiters();
        }
    }

    /// Lets the tasks running here end into the journal before the server stops (its client
    /// closed the connection, or it shuts down): each gets `grace` to finish with its result;
    /// those still running then are cancelled, as `tasks/cancel` does, and get `grace` again to
    /// record it. A task that has not reached its tool by then runs it first: never is one left
    /// with its intent recorded and its tool not run, which a restart would have to answer
    /// "outcome unknown". Whether every task ended in time.
    pub(in crate::mcp) async fn drain(&self, grace: Duration) -> bool {
        if self.idle_within(grace).await {
            return true;
        }
        for cancel in self.live.lock().unwrap_or_else(|p| p.into_inner()).values() {
            let _ = cancel.send(true);
        }
        self.idle_within(grace).await
    }

    /// Whether no task runs here, now or within `limit`.
    async fn idle_within(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let idle = self.idle.notified();
            let mut idle = std::pin::pin!(idle);
            // Registered before the look, so that an end between the two is not missed.
            idle.as_mut().enable();
            if self
                .live
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_empty()
            {
                return true;
            }
            if tokio::time::timeout_at(deadline, idle).await.is_err() {
                return false;
            }
        }
    }

    fn is_live(&self, id: &str) -> bool {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    /// `tasks/list`: at most `page` of the tasks whose ids begin with `id_prefix`, in the order
    /// they were created, from the `after`th on, each as `tasks/get` answers for it; and where the
    /// next page begins, if there is one.
    pub(in crate::mcp) async fn list(
        self: &Arc<Self>,
        id_prefix: &str,
        after: usize,
        page: usize,
        runner: Runner,
    ) -> Result<(Vec<DetailedTask>, Option<usize>), ErrorData> {
        let index = self
            .journal
            .load(INDEX)
            .await
            .map_err(|error| storage_error(INDEX, &error))?;
        let ids: Vec<&str> = index
            .iter()
            .filter_map(|listed| listed.key.strip_prefix("task/"))
            .filter(|id| id.starts_with(id_prefix))
            .collect();
        let mut tasks = Vec::new();
        for id in ids.iter().skip(after).take(page) {
            tasks.push(self.get(id, Arc::clone(&runner)).await?);
        }
        let next = after.saturating_add(page);
        Ok((tasks, (next < ids.len()).then_some(next)))
    }

    /// `tasks/get`: the task as it stands, answering for one cut off by a crash on the way.
    pub(in crate::mcp) async fn get(
        self: &Arc<Self>,
        id: &str,
        runner: Runner,
    ) -> Result<DetailedTask, ErrorData> {
        let stored = self.load(id).await?;
        if let Some(task) = self.standing(id, &stored) {
            return Ok(task);
        }
        // It may have ended between the read and the look at the live tasks (what a run comes
        // to is recorded before its task stops being live).
        let stored = self.load(id).await?;
        if let Some(task) = self.standing(id, &stored) {
            return Ok(task);
        }
        let round = stored.round();
        if stored.created.reruns || !stored.intents.contains(&round) {
            // Cut off in a read-only or idempotent tool, or before a call with effects started:
            // running it (again) repeats no effect.
            let answers = stored.answers();
            self.start(
                id.to_owned(),
                stored.created.clone(),
                round,
                answers,
                runner,
                None,
            );
            return Ok(self.working(id, &stored));
        }
        let unknown = CallToolResult::error(vec![ContentBlock::text(
            crate::prose::outcome_unknown(&stored.created.tool),
        )]);
        let finished = Finished {
            format: FORMAT,
            status: TaskStatus::Completed,
            result: Some(to_object(&unknown)),
            error: None,
            status_message: None,
            updated_at: now(),
        };
        let recorded = self
            .journal
            .append(&run_of(id), vec![entry("result", &finished)], true)
            .await;
        match recorded {
            Ok(()) => Ok(self.detailed(id, &stored.created, Some(&finished))),
            // Another process answered first; its answer stands.
            Err(JournalError::Conflict { .. }) => {
                let stored = self.load(id).await?;
                Ok(self.detailed(id, &stored.created, stored.finished.as_ref()))
            }
            Err(error) => Err(storage_error(id, &error)),
        }
    }

    /// The task as the journal and this process say it stands: finished, waiting for input, or
    /// running here; `None` for a task cut off on its way.
    fn standing(&self, id: &str, stored: &Stored) -> Option<DetailedTask> {
        if let Some(finished) = &stored.finished {
            return Some(self.detailed(id, &stored.created, Some(finished)));
        }
        let outstanding = stored.outstanding();
        if !outstanding.is_empty() {
            let updated = stored.updated_at();
            return Some(self.waiting(id, &stored.created, updated, outstanding));
        }
        self.is_live(id).then(|| self.working(id, stored))
    }

    /// Task `id`, waiting for the answers to `requests` since `updated`.
    fn waiting(
        &self,
        id: &str,
        created: &Created,
        updated: &str,
        requests: InputRequests,
    ) -> DetailedTask {
        let task = self.base(id, created, updated, TaskStatus::InputRequired);
        let payload = TaskPayload::InputRequired {
            input_requests: requests,
        };
        DetailedTask::new(task, payload)
    }

    fn working(&self, id: &str, stored: &Stored) -> DetailedTask {
        let task = self.base(
            id,
            &stored.created,
            stored.updated_at(),
            TaskStatus::Working,
        );
        DetailedTask::new(task, TaskPayload::Working)
    }

    /// `tasks/cancel`: cancels the call of a task running here, and a task waiting for input
    /// or cut off; a finished task stays as it is.
    pub(in crate::mcp) async fn cancel(&self, id: &str) -> Result<(), ErrorData> {
        let stored = self.load(id).await?;
        if stored.finished.is_some() {
            return Ok(());
        }
        // A task waiting for input has no run, whatever the live ones say for a moment (a run
        // that asked is let go just after its questions are recorded).
        if stored.outstanding().is_empty() && self.signal(id) {
            return Ok(());
        }
        let cancelled = entry("result", &cancelled_finish(&stored.created));
        match self
            .journal
            .append(&run_of(id), vec![cancelled], true)
            .await
        {
            // Answered by another process first: its answer stands.
            Ok(()) | Err(JournalError::Conflict { .. }) => {}
            Err(error) => return Err(storage_error(id, &error)),
        }
        // A run that went live meanwhile reads the record before it calls the tool, or is
        // signalled here.
        self.signal(id);
        Ok(())
    }

    /// Signals the cancel of task `id`'s run, if one is live here.
    fn signal(&self, id: &str) -> bool {
        let live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        let Some(cancel) = live.get(id) else {
            return false;
        };
        let _ = cancel.send(true);
        true
    }

    /// `tasks/update`: records the client's answers to the questions a task waits on, and runs
    /// the call again once every question of the round is answered.
    ///
    /// An answer to a question the task does not wait on (another key, a question already
    /// answered, a task that runs or has finished) is let go, as SEP-2663's implementations
    /// let it go: the acknowledgement says only that the update was received, and `tasks/get`
    /// says where the task stands.
    pub(in crate::mcp) async fn update(
        self: &Arc<Self>,
        id: &str,
        responses: InputResponses,
        runner: Runner,
        peer: Option<Peer<RoleServer>>,
    ) -> Result<(), ErrorData> {
        let stored = self.load(id).await?;
        let outstanding = stored.outstanding();
        let answers: Vec<(String, Value)> = responses
            .into_iter()
            .filter(|(key, _)| outstanding.contains_key(key))
            .collect();
        if stored.finished.is_some() || answers.is_empty() {
            return Ok(());
        }
        let round = stored.round() - 1;
        let at = now();
        // One record an answer: an answer another update gave first stands, and the others of
        // this one are kept all the same.
        for (key, response) in answers {
            let answer = Answer {
                format: FORMAT,
                response,
                at: at.clone(),
            };
            let answer = entry(&format!("answer/{round}/{key}"), &answer);
            match self.journal.append(&run_of(id), vec![answer], true).await {
                Ok(()) | Err(JournalError::Conflict { .. }) => {}
                Err(error) => return Err(storage_error(id, &error)),
            }
        }
        let stored = self.load(id).await?;
        if stored.finished.is_none() && stored.outstanding().is_empty() {
            let (round, answers) = (stored.round(), stored.answers());
            self.start(id.to_owned(), stored.created, round, answers, runner, peer);
        }
        Ok(())
    }

    async fn load(&self, id: &str) -> Result<Stored, ErrorData> {
        let entries = self
            .journal
            .load(&run_of(id))
            .await
            .map_err(|error| storage_error(id, &error))?;
        read(entries).ok_or_else(|| ErrorData::invalid_params(prose::task_unknown(id), None))
    }

    fn base(&self, id: &str, created: &Created, updated: &str, status: TaskStatus) -> Task {
        let mut task = Task::new(id, status, created.created_at.clone(), updated);
        task.ttl_ms = None;
        task.with_poll_interval_ms(self.poll_interval)
    }

    fn detailed(&self, id: &str, created: &Created, finished: Option<&Finished>) -> DetailedTask {
        let Some(finished) = finished else {
            let task = self.base(id, created, &created.created_at, TaskStatus::Working);
            return DetailedTask::new(task, TaskPayload::Working);
        };
        let mut task = self.base(id, created, &finished.updated_at, finished.status);
        task.status_message = finished.status_message.clone();
        let payload = match (finished.status, &finished.result, &finished.error) {
            (TaskStatus::Completed, Some(result), _) => TaskPayload::Completed {
                result: result.clone(),
            },
            (TaskStatus::Failed, _, Some(error)) => TaskPayload::Failed {
                error: error.clone(),
            },
            _ => TaskPayload::Cancelled,
        };
        DetailedTask::new(task, payload)
    }
}

/// Tells `peer` where `task` stands (`notifications/tasks`). The client may be gone;
/// `tasks/get` answers it when it comes back.
async fn notify(peer: &Peer<RoleServer>, task: DetailedTask) {
    use crate::mcp::serve::legacy_tasks::wire as legacy_tasks;
    // A task of 2025-11-25's form is told in that revision's notification and shape.
    let notification = if legacy_tasks::created_so(&task.task.task_id) {
        let status = legacy_tasks::shape(&task.task);
        let method = legacy_tasks::STATUS_NOTIFICATION;
        ServerNotification::CustomNotification(rmcp::model::CustomNotification::new(
            method,
            Some(status),
        ))
    } else {
        let notification = TaskStatusNotification::new(TaskStatusNotificationParams::new(task));
        ServerNotification::TaskStatusNotification(notification)
    };
    let _ = peer.send_notification(notification).await;
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn storage_error(id: &str, error: &JournalError) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        prose::task_unreadable(id, &error.to_string()),
        None,
    )
}

/// Task ids: 128 bits from the process's randomly keyed hasher, so that one client cannot guess
/// another's task, and two processes on one journal do not pick the same id.
struct Ids {
    keys: std::collections::hash_map::RandomState,
    count: AtomicU64,
}

impl Ids {
    fn new() -> Self {
        Ids {
            keys: std::collections::hash_map::RandomState::new(),
            count: AtomicU64::new(0),
        }
    }

    fn next(&self) -> String {
        let count = self.count.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        let half = |salt: u64| {
            let mut hasher = self.keys.build_hasher();
            hasher.write_u64(salt);
            hasher.write_u64(count);
            hasher.write_u128(nanos);
            hasher.write_u32(std::process::id());
            hasher.finish()
        };
        format!("{:016x}{:016x}", half(1), half(2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Entry;
    use rmcp::model::InputRequests;
    use std::sync::atomic::AtomicUsize;

    /// A journal in memory.
    #[derive(Default)]
    struct Memory(Mutex<HashMap<String, Vec<Entry>>>);

    impl Journal for Memory {
        fn load<'a>(
            &'a self,
            run: &'a str,
        ) -> crate::model::BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
            let entries = self.0.lock().unwrap().get(run).cloned().unwrap_or_default();
            Box::pin(std::future::ready(Ok(entries)))
        }

        fn append<'a>(
            &'a self,
            run: &'a str,
            entries: Vec<Entry>,
            _durable: bool,
        ) -> crate::model::BoxFuture<'a, Result<(), JournalError>> {
            let mut runs = self.0.lock().unwrap();
            let held = runs.entry(run.to_owned()).or_default();
            let taken = entries.iter().find(|e| held.iter().any(|h| h.key == e.key));
            let answer = match taken {
                Some(entry) => Err(JournalError::Conflict {
                    run: run.to_owned(),
                    key: entry.key.clone(),
                }),
                None => {
                    held.extend(entries);
                    Ok(())
                }
            };
            Box::pin(std::future::ready(answer))
        }
    }

    /// A runner that counts its runs and answers at once, naming the answers it was given.
    fn counting(runs: &Arc<AtomicUsize>) -> Runner {
        let runs = Arc::clone(runs);
        Arc::new(move |_, created: Created, answers: InputResponses, _| {
            runs.fetch_add(1, Ordering::SeqCst);
            let given: Vec<&str> = answers.keys().map(String::as_str).collect();
            let text = match given.as_slice() {
                [] => format!("ran {}", created.tool),
                given => format!("ran {} with {}", created.tool, given.join(", ")),
            };
            Box::pin(std::future::ready(Ran::Answered(CallToolResult::success(
                vec![ContentBlock::text(text)],
            ))))
        })
    }

    fn created(tool: &str) -> Created {
        Created {
            format: FORMAT,
            tool: tool.to_owned(),
            arguments: Value::Null,
            reruns: false,
            structured: false,
            created_at: "2026-07-28T00:00:00.000Z".to_owned(),
            capabilities: None,
            answers: InputResponses::new(),
        }
    }

    fn intent(key: &str) -> Entry {
        let at = now();
        entry(key, &Intent { format: FORMAT, at })
    }

    fn asked(round: usize, keys: &[&str]) -> Entry {
        let requests: InputRequests = keys
            .iter()
            .map(|key| {
                let request = serde_json::from_value(serde_json::json!({
                    "method": "elicitation/create",
                    "params": {"mode": "form", "message": format!("{key}?"), "requestedSchema": {"type": "object", "properties": {}}}
                }))
                .unwrap();
                ((*key).to_owned(), request)
            })
            .collect();
        let at = now();
        let asked = Asked {
            format: FORMAT,
            requests,
            at,
        };
        entry(&format!("asked/{round}"), &asked)
    }

    fn answer(round: usize, key: &str) -> Entry {
        let answer = Answer {
            format: FORMAT,
            response: serde_json::json!({"action": "accept", "content": {"ok": true}}),
            at: now(),
        };
        entry(&format!("answer/{round}/{key}"), &answer)
    }

    /// A task completed with a result of `text`.
    fn done(text: &str, is_error: bool) -> TaskPayload {
        let result = if is_error {
            CallToolResult::error(vec![ContentBlock::text(text)])
        } else {
            CallToolResult::success(vec![ContentBlock::text(text)])
        };
        TaskPayload::Completed {
            result: to_object(&result),
        }
    }

    /// Sends `answers` to task `id`, as a `tasks/update` does.
    async fn update(tasks: &Arc<Tasks>, id: &str, answers: &[(&str, Value)], runner: &Runner) {
        let answers = answers
            .iter()
            .map(|(key, answer)| ((*key).to_owned(), answer.clone()))
            .collect();
        let runner = Arc::clone(runner);
        tasks.update(id, answers, runner, None).await.unwrap();
    }

    /// Polls `tasks/get` until the task is no longer working (at most 200 times).
    async fn settled(tasks: &Arc<Tasks>, id: &str, runner: &Runner) -> DetailedTask {
        for _ in 0..200 {
            let task = tasks.get(id, Arc::clone(runner)).await.unwrap();
            if task.status() != TaskStatus::Working {
                return task;
            }
            tokio::task::yield_now().await;
        }
        panic!("task {id} still works");
    }

    #[tokio::test]
    async fn a_task_cut_off_before_its_intent_runs_once_after_a_restart_and_one_after_it_never() {
        let journal = Arc::new(Memory::default());
        // What a server killed at each point left: the call recorded and not started (no
        // intent), and the call started (its intent) and not finished.
        let before = entry("created", &created("charge"));
        let during = [
            entry("created", &created("charge")),
            entry(
                "intent",
                &Intent {
                    format: FORMAT,
                    at: now(),
                },
            ),
        ];
        journal
            .append("mcp-task/before", vec![before], true)
            .await
            .unwrap();
        journal
            .append("mcp-task/during", during.to_vec(), true)
            .await
            .unwrap();
        let runs = Arc::new(AtomicUsize::new(0));
        let runner = counting(&runs);
        let tasks = Arc::new(Tasks::new(journal, Duration::from_millis(10)));

        let before = settled(&tasks, "before", &runner).await;
        assert_eq!(before.payload, done("ran charge", false));
        let during = settled(&tasks, "during", &runner).await;
        assert_eq!(
            during.payload,
            done(&crate::prose::outcome_unknown("charge"), true)
        );
        // Asked again, both answer as they did, and nothing ran again.
        assert_eq!(settled(&tasks, "before", &runner).await, before);
        assert_eq!(settled(&tasks, "during", &runner).await, during);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_task_that_asked_waits_for_every_answer_and_a_rerun_cut_off_after_its_intent_never_runs_again()
     {
        let journal = Arc::new(Memory::default());
        // Round 0 asked two questions: one answered, one not.
        let waiting = vec![
            entry("created", &created("delete")),
            intent("intent"),
            asked(0, &["confirm", "reason"]),
            answer(0, "confirm"),
        ];
        // Every question answered, and killed before the rerun started (no `intent/1`).
        let answered = vec![
            entry("created", &created("delete")),
            intent("intent"),
            asked(0, &["confirm"]),
            answer(0, "confirm"),
        ];
        // Killed during the rerun, after its intent.
        let rerunning = [answered.clone(), vec![intent("intent/1")]].concat();
        // Every question answered, killed before the rerun started, then cancelled.
        let settled_by_cancel = vec![
            entry("created", &created("delete")),
            intent("intent"),
            asked(0, &["confirm"]),
            answer(0, "confirm"),
        ];
        // Waiting, then cancelled by the client.
        let dropped = vec![
            entry("created", &created("delete")),
            intent("intent"),
            asked(0, &["confirm"]),
        ];
        for (run, entries) in [
            ("waiting", waiting),
            ("answered", answered),
            ("rerunning", rerunning),
            ("dropped", dropped),
            ("settled-by-cancel", settled_by_cancel),
        ] {
            let run = format!("mcp-task/{run}");
            journal.append(&run, entries, true).await.unwrap();
        }
        let runs = Arc::new(AtomicUsize::new(0));
        let runner = counting(&runs);
        let tasks = Arc::new(Tasks::new(journal, Duration::from_millis(10)));

        let waiting = settled(&tasks, "waiting", &runner).await;
        assert_eq!(waiting.status(), TaskStatus::InputRequired);
        let TaskPayload::InputRequired { input_requests } = &waiting.payload else {
            panic!("{waiting:?}");
        };
        assert_eq!(input_requests.keys().collect::<Vec<_>>(), ["reason"]);
        // Answers to questions the task does not wait on (one answered already, one never
        // asked) are let go, and change nothing.
        let unasked = [("confirm", Value::Null), ("unknown", Value::Null)];
        update(&tasks, "waiting", &unasked, &runner).await;
        assert_eq!(settled(&tasks, "waiting", &runner).await, waiting);

        let answered = settled(&tasks, "answered", &runner).await;
        assert_eq!(answered.payload, done("ran delete with confirm", false));
        let rerunning = settled(&tasks, "rerunning", &runner).await;
        assert_eq!(
            rerunning.payload,
            done(&crate::prose::outcome_unknown("delete"), true)
        );
        assert_eq!(runs.load(Ordering::SeqCst), 1);

        // A task cut off between its answers and its rerun is cancelled, not run.
        tasks.cancel("settled-by-cancel").await.unwrap();
        let cancelled = settled(&tasks, "settled-by-cancel", &runner).await;
        assert_eq!(cancelled.status(), TaskStatus::Cancelled);
        assert_eq!(runs.load(Ordering::SeqCst), 1);

        // A task waiting for input is cancelled at once, and its answer comes too late.
        tasks.cancel("dropped").await.unwrap();
        update(
            &tasks,
            "dropped",
            &[("confirm", Value::Bool(true))],
            &runner,
        )
        .await;
        let dropped = settled(&tasks, "dropped", &runner).await;
        assert_eq!(dropped.status(), TaskStatus::Cancelled);
        assert_eq!(
            dropped.task.status_message.as_deref(),
            Some(prose::task_cancelled("delete").as_str())
        );
        assert_eq!(runs.load(Ordering::SeqCst), 1);

        // The last answer runs the call again, with both answers.
        update(&tasks, "waiting", &[("reason", Value::Null)], &runner).await;
        let waiting = settled(&tasks, "waiting", &runner).await;
        assert_eq!(
            waiting.payload,
            done("ran delete with confirm, reason", false)
        );
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        // A finished task takes no answers.
        update(
            &tasks,
            "waiting",
            &[("reason", Value::Bool(false))],
            &runner,
        )
        .await;
        assert_eq!(settled(&tasks, "waiting", &runner).await, waiting);
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_task_still_running_when_the_server_stops_is_cancelled_into_the_journal() {
        let journal = Arc::new(Memory::default());
        journal
            .append(
                "mcp-task/forever",
                vec![entry("created", &created("wait"))],
                true,
            )
            .await
            .unwrap();
        let tasks = Arc::new(Tasks::new(journal, Duration::from_millis(10)));
        // A call that ends only when it is cancelled.
        let runner: Runner = Arc::new(|_, _, _, cancelled| {
            Box::pin(async move {
                cancelled.await;
                Ran::Cancelled
            })
        });
        let answers = InputResponses::new();
        tasks.start("forever".into(), created("wait"), 0, answers, runner, None);
        assert!(tasks.drain(Duration::from_millis(100)).await);
        let stored = tasks.load("forever").await.unwrap();
        let finished = stored.finished.expect("recorded before the drain ended");
        assert_eq!(finished.status, TaskStatus::Cancelled);
        assert_eq!(
            finished.status_message.as_deref(),
            Some(prose::task_cancelled("wait").as_str())
        );
    }

    #[test]
    fn task_ids_differ() {
        let ids = Ids::new();
        let (a, b) = (ids.next(), ids.next());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
    }
}
