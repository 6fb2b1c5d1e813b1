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

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, ContentBlock, DetailedTask, ErrorCode, JsonObject, ServerNotification, Task,
    TaskPayload, TaskStatus, TaskStatusNotification, TaskStatusNotificationParams,
};
use rmcp::service::{Peer, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::{Entry, Journal, JournalError};
use crate::prose::mcp as prose;

/// The version of the task records this build writes (and the newest it reads).
const FORMAT: u32 = 1;

/// The journal run that holds task `id`.
fn run_of(id: &str) -> String {
    format!("mcp-task/{id}")
}

/// The `created` record: everything needed to run the call, here or after a restart.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Created {
    format: u32,
    pub(super) tool: String,
    pub(super) arguments: Value,
    /// Whether the tool is read-only or idempotent, as the build that created the task said: a
    /// call cut off by a crash runs again only then.
    pub(super) reruns: bool,
    /// Whether the tool's output goes in `structuredContent`.
    pub(super) structured: bool,
    created_at: String,
}

/// The `intent` record: a call that can have effects was about to start.
#[derive(Serialize, Deserialize)]
struct Intent {
    format: u32,
    at: String,
}

/// The `result` record: how the task ended.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Finished {
    format: u32,
    status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status_message: Option<String>,
    updated_at: String,
}

/// What the journal says of one task.
struct Stored {
    created: Created,
    intent: bool,
    finished: Option<Finished>,
}

/// What a task that runs sends when it ends.
type Cancel = tokio::sync::watch::Sender<bool>;

/// The tasks of a server: the journal that keeps them, and those running in this process.
pub(super) struct Tasks {
    journal: Arc<dyn Journal>,
    /// The tasks running here, each with the switch that cancels it.
    live: Mutex<HashMap<String, Cancel>>,
    /// How often clients are asked to poll, in milliseconds.
    poll_interval: u64,
    ids: Ids,
}

/// How a task's call is run: given its id and record, and a future that ends when the task is
/// cancelled, the call's result, or `None` when it was cancelled first.
pub(super) type Runner = Arc<
    dyn Fn(
            String,
            Created,
            crate::model::BoxFuture<'static, ()>,
        ) -> crate::model::BoxFuture<'static, Option<CallToolResult>>
        + Send
        + Sync,
>;

impl Tasks {
    pub(super) fn new(journal: Arc<dyn Journal>, poll_interval: Duration) -> Self {
        Tasks {
            journal,
            live: Mutex::new(HashMap::new()),
            poll_interval: millis(poll_interval),
            ids: Ids::new(),
        }
    }

    /// The same journal, with another poll interval, and no task running yet.
    pub(super) fn with_poll_interval(&self, poll_interval: Duration) -> Self {
        Tasks::new(Arc::clone(&self.journal), poll_interval)
    }

    /// Records a new task for a call of `tool` and starts it; the task as `tools/call` answers.
    pub(super) async fn create(
        self: &Arc<Self>,
        tool: &str,
        arguments: Value,
        reruns: bool,
        structured: bool,
        runner: Runner,
        peer: Peer<RoleServer>,
    ) -> Result<Task, ErrorData> {
        let id = self.ids.next();
        let now = now();
        let created = Created {
            format: FORMAT,
            tool: tool.to_owned(),
            arguments,
            reruns,
            structured,
            created_at: now.clone(),
        };
        let entry = entry("created", &created);
        self.journal
            .append(&run_of(&id), vec![entry], true)
            .await
            .map_err(|error| {
                ErrorData::new(
                    ErrorCode::INTERNAL_ERROR,
                    prose::task_not_recorded(tool, &error.to_string()),
                    None,
                )
            })?;
        let task = self.base(&id, &created, &now, TaskStatus::Working);
        self.start(id, created, runner, Some(peer));
        Ok(task)
    }

    /// Runs task `id`'s call in the background, marked live until its result is recorded.
    fn start(
        self: &Arc<Self>,
        id: String,
        created: Created,
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
        tokio::spawn(async move {
            let run = run_of(&id);
            if !created.reruns {
                let intent = entry(
                    "intent",
                    &Intent {
                        format: FORMAT,
                        at: now(),
                    },
                );
                if let Err(error) = tasks.journal.append(&run, vec![intent], true).await {
                    tasks.forget(&id);
                    // Another process started the call first: it answers for it.
                    if !matches!(error, JournalError::Conflict { .. }) {
                        let failed =
                            failure(&prose::task_not_recorded(&created.tool, &error.to_string()));
                        tasks.finish(&id, &created, failed, peer).await;
                    }
                    return;
                }
            }
            let until_cancelled: crate::model::BoxFuture<'static, ()> = Box::pin(async move {
                let _ = cancelled.wait_for(|cancelled| *cancelled).await;
            });
            let answered = runner(id.clone(), created.clone(), until_cancelled).await;
            let finished = match answered {
                Some(result) => Finished {
                    format: FORMAT,
                    status: TaskStatus::Completed,
                    result: Some(to_object(&result)),
                    error: None,
                    status_message: None,
                    updated_at: now(),
                },
                None => Finished {
                    format: FORMAT,
                    status: TaskStatus::Cancelled,
                    result: None,
                    error: None,
                    status_message: Some(prose::task_cancelled(&created.tool)),
                    updated_at: now(),
                },
            };
            tasks.finish(&id, &created, finished, peer).await;
        });
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
            let task = self.detailed(id, created, Some(&finished));
            let notification = TaskStatusNotification::new(TaskStatusNotificationParams::new(task));
            // The client may be gone; `tasks/get` answers it when it comes back.
            let _ = peer
                .send_notification(ServerNotification::TaskStatusNotification(notification))
                .await;
        }
    }

    fn forget(&self, id: &str) {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    fn is_live(&self, id: &str) -> bool {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    /// `tasks/get`: the task as it stands, answering for one cut off by a crash on the way.
    pub(super) async fn get(
        self: &Arc<Self>,
        id: &str,
        runner: Runner,
    ) -> Result<DetailedTask, ErrorData> {
        let stored = self.load(id).await?;
        if let Some(finished) = &stored.finished {
            return Ok(self.detailed(id, &stored.created, Some(finished)));
        }
        if self.is_live(id) {
            return Ok(self.detailed(id, &stored.created, None));
        }
        // It may have ended between the read and the look at the live tasks (a result is
        // recorded before its task stops being live).
        let stored = self.load(id).await?;
        if let Some(finished) = &stored.finished {
            return Ok(self.detailed(id, &stored.created, Some(finished)));
        }
        if stored.created.reruns || !stored.intent {
            // Cut off in a read-only or idempotent tool, or before a call with effects started:
            // running it (again) repeats no effect.
            self.start(id.to_owned(), stored.created.clone(), runner, None);
            return Ok(self.detailed(id, &stored.created, None));
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

    /// `tasks/cancel`: cancels the call of a task running here; a finished task stays as it is.
    pub(super) async fn cancel(&self, id: &str) -> Result<(), ErrorData> {
        self.load(id).await?;
        if let Some(cancel) = self.live.lock().unwrap_or_else(|p| p.into_inner()).get(id) {
            let _ = cancel.send(true);
        }
        Ok(())
    }

    /// `tasks/update`: none of skyl's tasks waits for input, so there is nothing to deliver.
    pub(super) async fn update(&self, id: &str) -> Result<(), ErrorData> {
        self.load(id).await.map(|_| ())
    }

    async fn load(&self, id: &str) -> Result<Stored, ErrorData> {
        let entries = self
            .journal
            .load(&run_of(id))
            .await
            .map_err(|error| storage_error(id, &error))?;
        let mut created = None;
        let mut intent = false;
        let mut finished = None;
        for Entry { key, body } in entries {
            match key.as_str() {
                "created" => created = serde_json::from_str::<Created>(&body).ok(),
                "intent" => intent = true,
                "result" => finished = serde_json::from_str::<Finished>(&body).ok(),
                _ => {}
            }
        }
        let created = created
            .filter(|created| created.format <= FORMAT)
            .ok_or_else(|| ErrorData::invalid_params(prose::task_unknown(id), None))?;
        Ok(Stored {
            created,
            intent,
            finished: finished.filter(|finished| finished.format <= FORMAT),
        })
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

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// A task that failed before its call could start.
fn failure(message: &str) -> Finished {
    let error = ErrorData::new(ErrorCode::INTERNAL_ERROR, message.to_owned(), None);
    Finished {
        format: FORMAT,
        status: TaskStatus::Failed,
        result: None,
        error: Some(to_object(&error)),
        status_message: Some(message.to_owned()),
        updated_at: now(),
    }
}

fn storage_error(id: &str, error: &JournalError) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        prose::task_unreadable(id, &error.to_string()),
        None,
    )
}

fn entry(key: &str, body: &impl Serialize) -> Entry {
    Entry {
        key: key.to_owned(),
        body: serde_json::to_string(body).expect("task records are plain JSON"),
    }
}

fn to_object(value: &impl Serialize) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
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

/// Now, as ISO 8601 in UTC with milliseconds.
fn now() -> String {
    crate::text::Utc(SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
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

    /// A runner that counts its runs and answers at once.
    fn counting(runs: &Arc<AtomicUsize>) -> Runner {
        let runs = Arc::clone(runs);
        Arc::new(move |_, created: Created, _| {
            runs.fetch_add(1, Ordering::SeqCst);
            Box::pin(std::future::ready(Some(CallToolResult::success(vec![
                ContentBlock::text(format!("ran {}", created.tool)),
            ]))))
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
        }
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
        let result = |text: &str, is_error: bool| {
            let result = if is_error {
                CallToolResult::error(vec![ContentBlock::text(text)])
            } else {
                CallToolResult::success(vec![ContentBlock::text(text)])
            };
            TaskPayload::Completed {
                result: to_object(&result),
            }
        };
        assert_eq!(before.payload, result("ran charge", false));
        let during = settled(&tasks, "during", &runner).await;
        assert_eq!(
            during.payload,
            result(&crate::prose::outcome_unknown("charge"), true)
        );
        // Asked again, both answer as they did, and nothing ran again.
        assert_eq!(settled(&tasks, "before", &runner).await, before);
        assert_eq!(settled(&tasks, "during", &runner).await, during);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn task_ids_differ() {
        let ids = Ids::new();
        let (a, b) = (ids.next(), ids.next());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
    }
}
