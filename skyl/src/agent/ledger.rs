//! What the runs under a budget used and may be using: one run's, or with sub-agents the
//! whole tree's, shared by every run of it, so that a sub-agent's request is checked against
//! what each budget above it has left before it is sent.

use std::sync::{Arc, Mutex};

use crate::model::Cost;
use crate::provider::{Request, Usage};

use crate::agent::budget::Budget;
use crate::agent::budget::{Bound, Measured, Pricing};
use crate::agent::lock;
use crate::agent::stop::Stop;

/// A budget and what the runs it bounds used (as their answers reported, or the most their
/// requests could use when an answer reported nothing) and are using (the most the requests in
/// flight could use, reserved until their answers come).
#[derive(Debug)]
pub(crate) struct Ledger {
    budget: Budget,
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    used: Bound,
    reserved: Bound,
}

/// The ledgers a request is checked against, the top run's first, and the bound each reserved
/// for it.
pub(crate) type Reserved = Vec<(Arc<Ledger>, Bound)>;

impl Ledger {
    /// The ledger of `budget`, whose runs used `used` already.
    pub(crate) fn new(budget: Budget, used: Bound) -> Arc<Ledger> {
        Arc::new(Ledger {
            budget,
            counts: Mutex::new(Counts {
                used,
                reserved: Bound::default(),
            }),
        })
    }

    /// Checks `request` against every ledger of `chain` at once, and reserves what it could use
    /// in each; or the stop of the first whose budget it could pass, reserving nothing.
    pub(crate) fn admit(
        chain: &[Arc<Ledger>],
        request: &mut Request<'_>,
        measured: &Measured,
        pricing: &Pricing<'_>,
    ) -> Result<Reserved, Stop> {
        // Locked in the chain's order (the top's first) by every run of the tree: no two
        // requests can both pass on what only one of them may use.
        let mut counts: Vec<_> = chain.iter().map(|ledger| lock(&ledger.counts)).collect();
        for (ledger, counts) in chain.iter().zip(&counts) {
            let taken = counts.used.plus(counts.reserved);
            let used = Usage::new(taken.input, taken.output);
            let spent = Some(taken.cost);
            ledger
                .budget
                .check(request, measured, &used, spent, pricing)?;
        }
        let mut reserved = Vec::with_capacity(chain.len());
        for (ledger, counts) in chain.iter().zip(&mut counts) {
            let bound = ledger.budget.bound(request, measured, pricing);
            counts.reserved = counts.reserved.plus(bound);
            reserved.push((Arc::clone(ledger), bound));
        }
        Ok(reserved)
    }

    /// Ends the reservations of a request: its answer used `usage` and `cost`, or, when its
    /// usage was not reported, the most it could use; `None` when no answer came.
    pub(crate) fn settle(reserved: Reserved, answered: Option<(&Usage, Cost)>) {
        for (ledger, bound) in reserved {
            let mut counts = lock(&ledger.counts);
            counts.reserved = counts.reserved.minus(bound);
            if let Some((usage, cost)) = answered {
                counts.used = counts.used.plus(used(usage, cost, bound));
            }
        }
    }

    /// Counts, in every ledger of `chain`, an answer replayed from a journal, to `request`
    /// (`measured`), that used `usage` and `cost`.
    pub(crate) fn count(
        chain: &[Arc<Ledger>],
        request: &mut Request<'_>,
        measured: &Measured,
        pricing: &Pricing<'_>,
        (usage, cost): (&Usage, Cost),
    ) {
        for ledger in chain {
            let bound = ledger.budget.bound(request, measured, pricing);
            let mut counts = lock(&ledger.counts);
            counts.used = counts.used.plus(used(usage, cost, bound));
        }
    }

    /// Counts, in every ledger of `chain`, what a sub-agent's run used, replayed from a journal
    /// (its run is not run again).
    pub(crate) fn count_spent(chain: &[Arc<Ledger>], usage: &Usage, cost: Cost) {
        for ledger in chain {
            let mut counts = lock(&ledger.counts);
            counts.used = counts.used.plus(Bound {
                input: usage.input_tokens,
                output: usage.output_tokens,
                cost,
            });
        }
    }
}

/// What an answer that reported `usage` and cost `cost` counts as: the most its request could
/// use (`bound`) when its usage was not reported.
fn used(usage: &Usage, cost: Cost, bound: Bound) -> Bound {
    if usage.unreported {
        return bound;
    }
    Bound {
        input: usage.input_tokens,
        output: usage.output_tokens,
        cost,
    }
}
