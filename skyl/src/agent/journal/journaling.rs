//! A journaled run's hold on its journal: opened once when the run starts, holding what the
//! journal had then, and the writes the loop makes to it.

use crate::agent::agent::Agent;
use crate::agent::hooks::points::Hooks;
use crate::agent::journal::error::{DurableRunError, JournalError};
use crate::agent::journal::seam::{Entry, Journal};
use crate::agent::journal::{Record, handle_run, make_effect_key};
use crate::agent::replay::Replay;
use crate::agent::run::Run;
use crate::agent::turn::slot::Slot;

/// A journaled run's journal, and what it held when the run started.
pub(crate) struct Journaling<'a> {
    pub(crate) journal: &'a dyn Journal,
    pub(crate) id: String,
    pub(crate) replay: Replay,
    /// The `began` record, until it is written with the first other record.
    began: Option<Entry>,
    /// The decisions of the saved run passed to `resume`, for the calls of its last step.
    pub(crate) decisions: Option<(u32, Vec<Slot>)>,
}

impl<'a> Journaling<'a> {
    /// Reads the journal of run `id` and readies `run` to replay it; returns the journal and
    /// whether the loop resumes `run` as it is.
    pub(crate) async fn open<S: Send + Sync + 'static, H: Hooks>(
        agent: &Agent<S, H>,
        journal: &'a dyn Journal,
        id: String,
        run: &mut Run,
        resume: bool,
    ) -> Result<(Journaling<'a>, bool), DurableRunError> {
        // The run's journal, and the approvals and effects recorded in it, are under the id it
        // was saved with.
        if let Some(saved) = run.id.as_ref().filter(|saved| **saved != id) {
            return Err(DurableRunError::AnotherRun {
                saved: saved.clone(),
                given: id,
            });
        }
        let entries = journal.load(&id).await.map_err(DurableRunError::Journal)?;
        let mut replay = Replay::read(&id, &entries).map_err(DurableRunError::Journal)?;
        // A cut-off call whose tool handed its work on runs again to pick it up: look for the
        // handles only where they decide something.
        for (&(step, position), intent) in &mut replay.intents {
            if intent.idempotent || replay.results.contains_key(&(step, position)) {
                continue;
            }
            let handles = handle_run(&make_effect_key(&id, step, &intent.call_id));
            let handled = journal
                .load(&handles)
                .await
                .map_err(DurableRunError::Journal)?;
            intent.handed = !handled.is_empty();
        }
        let decisions = run
            .turn
            .as_ref()
            .map(|turn| (run.steps, turn.slots.clone()));
        run.id = Some(id.clone());
        let (began, resume) = match &replay.began {
            // The journal knows the run: replay it from where its journal began.
            Some(began) => {
                *run = began.clone();
                run.id = Some(id.clone());
                (None, began.turn.is_some() || began.steps > 0)
            }
            None => (
                Some(
                    Record::Began {
                        run: Box::new(run.clone()),
                        tools: agent
                            .toolbox
                            .definitions()
                            .iter()
                            .map(|definition| {
                                (
                                    definition.name.clone(),
                                    agent.definition_fingerprint(&definition.name),
                                )
                            })
                            .collect(),
                    }
                    .entry(),
                ),
                resume,
            ),
        };
        let journaling = Journaling {
            journal,
            id,
            replay,
            began,
            decisions,
        };
        Ok((journaling, resume))
    }

    /// Appends `records` as one group, after the `began` record if it is not written yet.
    pub(crate) async fn append(
        &mut self,
        records: &[Record],
        durable: bool,
    ) -> Result<(), JournalError> {
        let mut entries = Vec::with_capacity(records.len() + 1);
        entries.extend(self.began.clone());
        entries.extend(records.iter().map(Record::entry));
        if entries.is_empty() {
            return Ok(());
        }
        self.journal.append(&self.id, entries, durable).await?;
        self.began = None;
        Ok(())
    }
}
