//! A served call's progress and log lines, sent to the MCP client as `notifications/progress`
//! (when the request carried a progress token) and `notifications/message`.
//!
//! A tool reports from whatever thread it runs on, and rmcp sends a notification with an
//! `.await`: the reports go through a channel that the request's handler empties, in order,
//! while it awaits the call, and once more after the call, before the result is returned.

// rmcp marks MCP logging deprecated (SEP-2577), but the protocol versions clients speak today
// have it, and the conformance suite checks it.
#![allow(deprecated)]

use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::mpsc;

use crate::tool::{CallContext, CallObserver, LogLevel, Report};

/// Hands a call's reports to the request's handler.
pub(in crate::mcp) struct Notifier {
    reports: mpsc::UnboundedSender<(String, Report)>,
}

impl CallObserver for Notifier {
    fn report(&self, call: &CallContext, report: Report) {
        // The handler is gone only once the call's result was sent: a late report has no one
        // to go to.
        let _ = self.reports.send((call.tool().to_owned(), report));
    }
}

/// The handler's side: the reports as they come, and where they go.
pub(in crate::mcp) struct Notices {
    reports: mpsc::UnboundedReceiver<(String, Report)>,
    progress_token: Option<ProgressToken>,
}

/// A notifier for one request, and the notices its handler sends.
pub(in crate::mcp) fn channel(progress_token: Option<ProgressToken>) -> (Notifier, Notices) {
    let (sender, receiver) = mpsc::unbounded_channel();
    (
        Notifier { reports: sender },
        Notices {
            reports: receiver,
            progress_token,
        },
    )
}

impl Notices {
    /// The next report, when one comes.
    pub(in crate::mcp) async fn next(&mut self) -> Option<(String, Report)> {
        self.reports.recv().await
    }

    /// The reports already made and not yet sent.
    pub(in crate::mcp) fn pending(&mut self) -> Vec<(String, Report)> {
        std::iter::from_fn(|| self.reports.try_recv().ok()).collect()
    }

    /// Sends one report to the client: progress only for a request that asked for it, a log
    /// line only at or above the level the client set.
    pub(in crate::mcp) async fn send(
        &self,
        peer: &Peer<RoleServer>,
        level: &LevelFilter,
        (tool, report): (String, Report),
    ) {
        // A client that went away gets nothing more; the call's result is what matters.
        match report {
            Report::Progress(progress) => {
                let Some(token) = &self.progress_token else {
                    return;
                };
                let mut notice = ProgressNotificationParam::new(token.clone(), progress.progress);
                notice.total = progress.total;
                notice.message = progress.message;
                let _ = peer.notify_progress(notice).await;
            }
            Report::Log {
                level: line,
                message,
            } => {
                if !level.lets_through(line) {
                    return;
                }
                let mut notice = LoggingMessageNotificationParam::new(to_mcp(line), message.into());
                notice.logger = Some(tool);
                let _ = peer.notify_logging_message(notice).await;
            }
        }
    }
}

/// The least level of log line a client wants (`logging/setLevel`); every line until it says.
#[derive(Debug, Default)]
pub(in crate::mcp) struct LevelFilter(AtomicU8);

impl LevelFilter {
    /// The level one request asks for in its `_meta` (MCP 2026-07-28, which has no
    /// `logging/setLevel`): no log line at all when it asks for none (SEP-2575).
    pub(in crate::mcp) fn of_request(level: Option<LoggingLevel>) -> Self {
        LevelFilter(AtomicU8::new(level.map_or(u8::MAX, rank)))
    }

    pub(in crate::mcp) fn set(&self, level: LoggingLevel) {
        self.0.store(rank(level), Ordering::Relaxed);
    }

    fn lets_through(&self, level: LogLevel) -> bool {
        rank(to_mcp(level)) >= self.0.load(Ordering::Relaxed)
    }
}

impl Clone for LevelFilter {
    fn clone(&self) -> Self {
        LevelFilter(AtomicU8::new(self.0.load(Ordering::Relaxed)))
    }
}

fn to_mcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
    }
}

/// RFC 5424's order, which MCP's levels follow, from the least.
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
