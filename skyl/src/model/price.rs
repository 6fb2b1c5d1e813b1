//! What tokens cost: the prices a user gives per model, and the cost of a request's [`Usage`].
//!
//! skyl knows no price: providers change them, and a contract, a region or a batch discount
//! changes them again. The table is the user's.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::provider::Usage;

/// An amount of money, in billionths of the currency the prices are given in (whatever that
/// currency is: skyl only adds).
///
/// Exact integer arithmetic, so that a sum of many steps is the same whatever the order, and a
/// budget's comparison is exact. It shows as a decimal number of the currency:
///
/// ```
/// use skyl::model::Cost;
///
/// let cost = Cost::from_units(0.0042);
/// assert_eq!(cost.nanos(), 4_200_000);
/// assert_eq!(cost.to_string(), "0.0042");
/// assert_eq!(Cost::from_units(2.0).to_string(), "2");
/// ```
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Cost(u64);

impl Cost {
    /// Nothing.
    pub const ZERO: Cost = Cost(0);

    /// `nanos` billionths of the currency.
    pub const fn from_nanos(nanos: u64) -> Cost {
        Cost(nanos)
    }

    /// `units` of the currency (dollars, euros...), rounded to the nearest billionth; a negative
    /// or not-a-number amount is zero.
    pub fn from_units(units: f64) -> Cost {
        Cost(to_nanos(units))
    }

    /// The amount in billionths of the currency.
    pub const fn nanos(self) -> u64 {
        self.0
    }

    /// The amount in units of the currency, as a float (to show or to chart; compare costs as
    /// [`Cost`]s).
    pub fn as_units(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// The sum, or the largest cost there is where it would overflow.
    pub const fn saturating_add(self, other: Cost) -> Cost {
        Cost(self.0.saturating_add(other.0))
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / 1_000_000_000;
        let fraction = self.0 % 1_000_000_000;
        if fraction == 0 {
            return write!(f, "{whole}");
        }
        let digits = format!("{fraction:09}");
        write!(f, "{whole}.{}", digits.trim_end_matches('0'))
    }
}

fn to_nanos(units: f64) -> u64 {
    if units.is_nan() || units <= 0.0 {
        return 0;
    }
    // `as` saturates at u64::MAX for amounts too large to hold.
    (units * 1e9).round() as u64
}

/// One model's prices, in units of a currency per million tokens.
///
/// Input tokens read from the cache cost the [`cache_read`](Self::cache_read) price and those
/// written to it the [`cache_write`](Self::cache_write) price; both are the input price until
/// set. Reasoning tokens are output tokens (every adapter counts them in
/// [`Usage::output_tokens`]).
///
/// ```
/// use skyl::model::{Cost, Price};
/// use skyl::provider::Usage;
///
/// // Prices as a provider's page gives them, per million tokens.
/// let price = Price::per_million_tokens(3.0, 15.0).cache_read(0.30).cache_write(3.75);
/// // 1000 input tokens, 800 of them read from the cache and 100 written to it; 200 output.
/// let usage = Usage::new(1000, 200).with_cached_input_tokens(800).with_cache_write_tokens(100);
/// // 100 × 3 + 800 × 0.30 + 100 × 3.75 + 200 × 15, per million.
/// assert_eq!(price.cost(&usage), Cost::from_units(0.003915));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Price {
    /// Billionths of the currency per million tokens.
    input: u64,
    output: u64,
    cache_read: Option<u64>,
    cache_write: Option<u64>,
}

impl Price {
    /// `input` and `output` units of the currency per million tokens.
    pub fn per_million_tokens(input: f64, output: f64) -> Price {
        Price {
            input: to_nanos(input),
            output: to_nanos(output),
            cache_read: None,
            cache_write: None,
        }
    }

    /// The price of a million input tokens read from the provider's cache.
    pub fn cache_read(mut self, per_million: f64) -> Price {
        self.cache_read = Some(to_nanos(per_million));
        self
    }

    /// The price of a million input tokens written to the provider's cache.
    pub fn cache_write(mut self, per_million: f64) -> Price {
        self.cache_write = Some(to_nanos(per_million));
        self
    }

    /// What `usage` costs, rounded up to a billionth.
    ///
    /// An [unreported](Usage::unreported) usage costs nothing here, since its counts are
    /// unknown (zero): a run's cost then misses that answer, as its usage does.
    pub fn cost(&self, usage: &Usage) -> Cost {
        let read = usage.cached_input_tokens.unwrap_or(0);
        let written = usage.cache_write_tokens.unwrap_or(0);
        let uncached = usage
            .input_tokens
            .saturating_sub(read)
            .saturating_sub(written);
        let billionths_per_million = u128::from(uncached) * u128::from(self.input)
            + u128::from(read) * u128::from(self.cache_read.unwrap_or(self.input))
            + u128::from(written) * u128::from(self.cache_write.unwrap_or(self.input))
            + u128::from(usage.output_tokens) * u128::from(self.output);
        Cost(per_million(billionths_per_million))
    }

    /// The most `input` input tokens and `output` output tokens can cost: every input token at
    /// the dearer of the input and cache-write prices (a request may write all it reads to the
    /// cache), rounded up.
    pub fn most(&self, input: u64, output: u64) -> Cost {
        let input_price = self.input.max(self.cache_write.unwrap_or(0));
        Cost(per_million(
            u128::from(input) * u128::from(input_price)
                + u128::from(output) * u128::from(self.output),
        ))
    }
}

/// Divides by a million, rounding up, saturating at the largest cost.
fn per_million(amount: u128) -> u64 {
    u64::try_from(amount.div_ceil(1_000_000)).unwrap_or(u64::MAX)
}

/// The prices of the models a user runs, by the name requests carry
/// ([`Agent::with_prices`](crate::agent::Agent::with_prices)).
///
/// ```
/// use skyl::model::{Price, Prices};
///
/// let prices = Prices::new()
///     .with("claude-sonnet-4-5", Price::per_million_tokens(3.0, 15.0).cache_read(0.30).cache_write(3.75))
///     .with("gpt-4.1", Price::per_million_tokens(2.0, 8.0).cache_read(0.50));
/// assert!(prices.get("gpt-4.1").is_some());
/// assert!(prices.get("gpt-4.1-mini").is_none(), "a name is matched whole");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Prices(BTreeMap<String, Price>);

impl Prices {
    /// A table with no prices.
    pub fn new() -> Prices {
        Prices::default()
    }

    /// The same table with `price` for the model named `model` (replacing its price, if it had
    /// one).
    pub fn with(mut self, model: impl Into<String>, price: Price) -> Prices {
        self.0.insert(model.into(), price);
        self
    }

    /// The price of the model named `model`, exactly as given.
    pub fn get(&self, model: &str) -> Option<&Price> {
        self.0.get(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_round_up_and_show_without_trailing_zeros() {
        let price = Price::per_million_tokens(0.0375, 0.15);
        // 1 × 0.0375 + 1 × 0.15 per million: 187.5 billionths, rounded up.
        assert_eq!(price.cost(&Usage::new(1, 1)), Cost::from_nanos(188));
        assert_eq!(Cost::from_nanos(1).to_string(), "0.000000001");
        assert_eq!(Cost::from_nanos(12_300_000_000).to_string(), "12.3");
        assert_eq!(Cost::ZERO.to_string(), "0");
        assert_eq!(Cost::from_units(f64::NAN), Cost::ZERO);
        assert_eq!(Cost::from_units(-1.0), Cost::ZERO);
    }

    #[test]
    fn cache_prices_default_to_the_input_price() {
        let usage = Usage::new(1000, 0)
            .with_cached_input_tokens(500)
            .with_cache_write_tokens(500);
        assert_eq!(
            Price::per_million_tokens(2.0, 8.0).cost(&usage),
            Cost::from_units(0.002)
        );
    }

    #[test]
    fn the_most_a_request_can_cost_bills_input_at_the_dearer_of_input_and_cache_write() {
        let price = Price::per_million_tokens(3.0, 15.0).cache_write(3.75);
        assert_eq!(price.most(1_000_000, 0), Cost::from_units(3.75));
        assert_eq!(
            Price::per_million_tokens(3.0, 15.0).most(1_000_000, 1_000_000),
            Cost::from_units(18.0)
        );
    }
}
