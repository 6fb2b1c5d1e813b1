//! When to send a failed request again, and how long to wait first.
//!
//! As the official SDKs do: a limited number of retries, exponential backoff with jitter, and the
//! server's own `retry-after-ms` or `retry-after` when it gives one of at most a minute.

use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use reqwest::header::HeaderMap;

/// How many times, and how patiently, a request is sent again after a failure that may pass: a
/// connection that failed, a timeout, or HTTP 408, 409, 429, 5xx (Anthropic's 529 among them).
///
/// The wait before retry `n` (from 0) is `initial_delay × 2ⁿ`, at most `max_delay`, less up to a
/// quarter at random so that many clients do not retry in step; a `retry-after-ms` or
/// `retry-after` (in seconds) header of at most a minute replaces it.
///
/// Non-exhaustive, so that a setting can be added: start from the default and change what you
/// need.
///
/// ```
/// use std::time::Duration;
/// use skyl::http::RetryPolicy;
///
/// let patient = RetryPolicy::default()
///     .with_max_retries(5)
///     .with_max_delay(Duration::from_secs(30));
/// assert_eq!((patient.max_retries, patient.initial_delay), (5, Duration::from_millis(500)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Retries after the first attempt. The SDKs' default is 2.
    pub max_retries: u32,
    /// The wait before the first retry.
    pub initial_delay: Duration,
    /// The longest wait the backoff grows to.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
        }
    }
}

/// The longest `retry-after` honoured: a server asking for more is asking the caller to come back
/// later, not the transport to hold the request open.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

impl RetryPolicy {
    /// The same policy with `max_retries` retries after the first attempt (0 never retries).
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// The same policy waiting `delay` before the first retry.
    pub fn with_initial_delay(mut self, delay: Duration) -> Self {
        self.initial_delay = delay;
        self
    }

    /// The same policy with waits growing to at most `delay`.
    pub fn with_max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// The wait before retry `retry` (0 for the first), given the failed response's headers.
    pub(crate) fn delay(&self, retry: u32, headers: Option<&HeaderMap>) -> Duration {
        if let Some(wait) = headers.and_then(retry_after) {
            return wait;
        }
        let backoff = self
            .initial_delay
            .saturating_mul(2u32.saturating_pow(retry))
            .min(self.max_delay);
        let jitter = RandomState::new().hash_one(retry) % 1000;
        backoff.mul_f64(1.0 - 0.25 * (jitter as f64 / 1000.0))
    }
}

/// The server's `retry-after-ms` (OpenAI, Anthropic) or `retry-after` in seconds, when it is at
/// most a minute.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0)
    };
    let seconds = match number("retry-after-ms") {
        Some(ms) => ms / 1000.0,
        None => number("retry-after")?,
    };
    let wait = Duration::try_from_secs_f64(seconds).ok()?;
    (wait <= MAX_RETRY_AFTER).then_some(wait)
}

/// Anthropic's `x-should-retry`, when the server says outright whether a retry can help.
pub(crate) fn should_retry(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()? {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn the_server_says_how_long_to_wait_within_a_minute() {
        let policy = RetryPolicy::default();
        let cases = [
            (vec![("retry-after-ms", "250")], Duration::from_millis(250)),
            (vec![("retry-after", "2")], Duration::from_secs(2)),
            (
                vec![("retry-after", "0.5"), ("retry-after-ms", "100")],
                Duration::from_millis(100),
            ),
        ];
        for (pairs, wait) in cases {
            assert_eq!(policy.delay(3, Some(&headers(&pairs))), wait, "{pairs:?}");
        }
        for pairs in [
            vec![("retry-after", "3600")],
            vec![("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")],
            vec![("retry-after", "-1")],
        ] {
            assert_eq!(retry_after(&headers(&pairs)), None, "{pairs:?}");
        }
    }

    #[test]
    fn backoff_doubles_up_to_the_limit_less_some_jitter() {
        let policy = RetryPolicy {
            max_retries: 9,
            initial_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        for (retry, full) in [
            (0, 100),
            (1, 200),
            (2, 400),
            (3, 800),
            (4, 1000),
            (30, 1000),
        ] {
            let delay = policy.delay(retry, None);
            let full = Duration::from_millis(full);
            assert!(
                delay <= full && delay >= full.mul_f64(0.75),
                "{retry}: {delay:?}"
            );
        }
    }

    #[test]
    fn x_should_retry_is_read_when_it_is_a_boolean() {
        assert_eq!(
            should_retry(&headers(&[("x-should-retry", "true")])),
            Some(true)
        );
        assert_eq!(
            should_retry(&headers(&[("x-should-retry", "false")])),
            Some(false)
        );
        assert_eq!(should_retry(&headers(&[("x-should-retry", "maybe")])), None);
        assert_eq!(should_retry(&headers(&[])), None);
    }
}
