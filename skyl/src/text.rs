//! Text utilities: a cause cut to a length, the name nearest a misspelt one, a duration as a
//! person writes it, a time in RFC 3339.
//!
//! They hold no sentence of their own (those are in [`prose`](crate::prose)), so any layer can
//! use them: the tool layer cuts a failure's message with [`shortened`] without reaching up to
//! the sentences that frame it.

use std::borrow::Cow;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `cause` cut to its first `max` bytes (on a character boundary), marked as cut, for a failure's
/// sentence: the cut falls inside the cause, so the model still reads the next step after it.
pub(crate) fn shortened(cause: &str, max: usize) -> Cow<'_, str> {
    if cause.len() <= max {
        return Cow::Borrowed(cause);
    }
    let kept = char_floor(cause, max);
    Cow::Owned(format!(
        "{}... (cut to its first {kept} of {} bytes)",
        &cause[..kept],
        cause.len()
    ))
}

/// The largest character boundary of `text` at or before `index`.
pub(crate) fn char_floor(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// `"5s"`, `"1.5s"`, `"250ms"`.
pub(crate) fn seconds(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{}ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{:.1}s", duration.as_secs_f64())
    }
}

/// The available name closest to `name`, if it is close enough to be a likely typo.
pub(crate) fn nearest<'a>(name: &str, available: &[&'a str]) -> Option<&'a str> {
    let wanted = normalize(name);
    available
        .iter()
        .filter_map(|candidate| {
            let normal = normalize(candidate);
            let most = (normal.len() / 3).max(1);
            // The distance is at least the difference in length: a name sent far longer than
            // every tool's (a hostile model's megabyte) costs no quadratic comparison.
            (wanted.len().abs_diff(normal.len()) <= most)
                .then(|| (distance(&wanted, &normal), most, *candidate))
        })
        .filter(|(d, most, _)| d <= most)
        .min_by_key(|(d, _, _)| *d)
        .map(|(_, _, candidate)| candidate)
}

/// Case and `-`/`_`/`.` differences are the commonest model slips; they cost nothing here.
fn normalize(name: &str) -> Vec<char> {
    name.chars()
        .map(|c| {
            if c == '-' || c == '.' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Levenshtein distance.
fn distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// A time as UTC in RFC 3339, to the millisecond: `2026-12-05T08:01:02.345Z`.
pub(crate) struct Utc(pub(crate) SystemTime);

impl fmt::Display for Utc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let since = self.0.duration_since(UNIX_EPOCH).unwrap_or_default();
        let seconds = since.as_secs();
        let (days, of_day) = (seconds / 86_400, seconds % 86_400);
        // Howard Hinnant's days-to-civil, for days since 1970-01-01.
        let z = days + 719_468;
        let era = z / 146_097;
        let day_of_era = z % 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let shifted_month = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
        let month = if shifted_month < 10 {
            shifted_month + 3
        } else {
            shifted_month - 9
        };
        let year = year_of_era + era * 400 + u64::from(month <= 2);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            of_day / 3600,
            of_day / 60 % 60,
            of_day % 60,
            since.subsec_millis()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits() {
        let d = |a: &str, b: &str| distance(&normalize(a), &normalize(b));
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("same", "SAME"), 0);
    }

    #[test]
    fn a_time_is_rfc_3339_in_utc_to_the_millisecond() {
        let at = |millis: u64| Utc(UNIX_EPOCH + Duration::from_millis(millis)).to_string();
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(1_785_196_800_123), "2026-07-28T00:00:00.123Z");
        // Leap days, and the turn of a century that is not a leap year.
        assert_eq!(at(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(951_868_799_000), "2000-02-29T23:59:59.000Z");
        assert_eq!(at(4_107_542_399_000), "2100-02-28T23:59:59.000Z");
        assert_eq!(at(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
    }
}
