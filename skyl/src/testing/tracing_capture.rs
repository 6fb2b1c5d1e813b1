//! Capturing `tracing` output in unit tests that run side by side.
//!
//! `with_default` alone loses spans under `cargo test`: while one scoped
//! subscriber is the only one alive, tracing-core computes a new callsite's
//! interest from the default of whichever thread hits it first. A test that
//! runs an agent with no subscriber then caches "never" for the `chat` span,
//! and a capturing test on another thread sees its first span vanish. A
//! second dispatcher that lives for the whole binary and wants everything
//! keeps tracing-core asking every dispatcher, and rebuilding the cache once
//! the capture is installed clears any "never" cached before it.

use std::sync::OnceLock;
use tracing::{Dispatch, Subscriber};

/// Runs `f` with `subscriber` as the thread's default, seeing every span and
/// event `f` makes on this thread.
pub(crate) fn capture<R>(
    subscriber: impl Subscriber + Send + Sync + 'static,
    f: impl FnOnce() -> R,
) -> R {
    static KEEPER: OnceLock<Dispatch> = OnceLock::new();
    KEEPER.get_or_init(|| Dispatch::new(WantsEverything));
    tracing::subscriber::with_default(subscriber, || {
        tracing::callsite::rebuild_interest_cache();
        f()
    })
}

/// A subscriber that is interested in every callsite and records nothing.
struct WantsEverything;

impl Subscriber for WantsEverything {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
