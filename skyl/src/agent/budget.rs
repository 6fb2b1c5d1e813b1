//! Budgets that cannot overshoot: before each request, the most it could use is added to what
//! the run used, and the run stops instead of sending a request that could pass a limit.

use serde::{Deserialize, Serialize};

use crate::model::{Cost, Model, Price, Prices};
use crate::provider::{Request, Usage, digest};

/// Limits on what a run may use: input tokens, output tokens and cost
/// ([`Agent::with_budget`](super::Agent::with_budget)).
///
/// A budget is checked **before** each request, not after: the run stops
/// ([`Stop::Budget`](crate::agent::Stop::Budget)) when what it used plus the most the next
/// request could use would pass a limit, so no request is sent that could take the run over it.
///
/// - **Input tokens** of the next request are bounded from its size: the bytes of the body the
///   model would send ([`Model::encoded_len`](crate::model::Model::encoded_len)), or of the
///   request's JSON, divided by [`bytes_per_token`](Self::bytes_per_token) (2 unless set), plus
///   the tokens the provider adds that the body does not hold
///   ([`Model::added_input_tokens`](crate::model::Model::added_input_tokens): Anthropic's
///   tool-use system prompt). The tokenizers of the providers average about 4 bytes of English
///   a token and 3 of code or JSON; 2 leaves room for denser text (digits, identifiers, scripts
///   of several bytes a character). Once a request's input tokens were reported, the next is
///   bounded by them plus the bytes added since, at the same rate, which is closer and as safe;
///   but only when the next request is the last one with messages added, to be answered by the
///   same model: a request whose start changed (a hook trimmed old results, the system prompt
///   or the tools changed) or that another model may answer is bounded afresh from its bytes.
///   Set 1 for a bound that no byte-level tokenizer can pass on text; images and other media
///   count by their base64 size, far above their tokens.
/// - **Output tokens** of the next answer are its `max_tokens`. With an output or cost limit, a
///   request that has none is sent with [`answer_tokens`](Self::answer_tokens) (4096 unless
///   set), since an answer without a bound could pass any limit.
/// - **Cost** is the input bound at the dearer of the input and cache-write prices plus the
///   output bound at the output price ([`Price::most`]), from the agent's
///   [prices](super::Agent::with_prices) for the model that may answer: of a
///   [`Failover`](crate::model::Failover), the dearest of its members
///   ([`Model::model_names`](crate::model::Model::model_names)). A cost limit without a price
///   for a model that may answer stops the run before the request
///   ([`Stop::Unpriced`](crate::agent::Stop::Unpriced)).
///
/// A budget bounds the run's tree: what its sub-agents ([`AgentTool`](super::AgentTool), at any
/// depth) use counts in it ([`Run::tree_usage`](super::Run::tree_usage)), and each of their
/// requests is checked against what it has left before it is sent; requests in flight at once
/// (sub-agents called side by side) each hold the most they could use until their answers come,
/// so that no two pass on what only one may use.
///
/// What the run used is what the providers reported ([`Run::usage`](super::Run::usage),
/// [`Run::cost`](super::Run::cost)); an answer whose usage was not reported (a compatible
/// server's stream without its usage chunk) counts as the most its request could use.
///
/// ```
/// use skyl::agent::{Agent, Budget, BudgetLimit, Stop};
/// use skyl::model::{Cost, Price, Prices};
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, Toolbox};
///
/// let agent = Agent::new(ScriptedModel::new().reply_text("Hi"), Toolbox::new(), "claude-sonnet-4-5")
///     .with_prices(Prices::new().with("claude-sonnet-4-5", Price::per_million_tokens(3.0, 15.0)))
///     .with_max_tokens(1024)
///     .with_budget(Budget::new().input_tokens(100_000).cost(Cost::from_units(0.01)));
/// // The one answer may cost up to 1024 × 15 per million, more than the limit allows.
/// let run = agent.run(vec![Message::user("Hi")]).blocking()?;
/// assert!(matches!(run.stop(), Stop::Budget { limit: BudgetLimit::Cost, .. }));
/// assert_eq!(run.steps(), 0);
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cost: Option<Cost>,
    bytes_per_token: u64,
    answer_tokens: u32,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            input_tokens: None,
            output_tokens: None,
            cost: None,
            bytes_per_token: 2,
            answer_tokens: 4096,
        }
    }
}

/// Which limit of a [`Budget`] a run stopped at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BudgetLimit {
    /// [`Budget::input_tokens`].
    InputTokens,
    /// [`Budget::output_tokens`].
    OutputTokens,
    /// [`Budget::cost`]; the numbers of the stop are [`Cost::nanos`].
    Cost,
}

impl Budget {
    /// No limits yet.
    pub fn new() -> Budget {
        Budget::default()
    }

    /// At most `tokens` input tokens over the run's requests (each request counts its whole
    /// input, the history included, as providers bill it).
    pub fn input_tokens(mut self, tokens: u64) -> Budget {
        self.input_tokens = Some(tokens);
        self
    }

    /// At most `tokens` output tokens over the run's answers, reasoning included.
    pub fn output_tokens(mut self, tokens: u64) -> Budget {
        self.output_tokens = Some(tokens);
        self
    }

    /// At most `cost` over the run's requests, at the agent's prices.
    pub fn cost(mut self, cost: Cost) -> Budget {
        self.cost = Some(cost);
        self
    }

    /// Bounds a request's input tokens by its size in bytes divided by `bytes` (at least 1).
    pub fn bytes_per_token(mut self, bytes: u64) -> Budget {
        self.bytes_per_token = bytes.max(1);
        self
    }

    /// The `max_tokens` sent on a request that has none, when an output or cost limit is set.
    pub fn answer_tokens(mut self, tokens: u32) -> Budget {
        self.answer_tokens = tokens;
        self
    }

    /// The most `request` can use, and with an output or cost limit, the `max_tokens` it is sent
    /// with when it has none.
    ///
    /// `measured` is what the request is, measured against the run's previous request.
    pub(crate) fn bound(
        &self,
        request: &mut Request<'_>,
        measured: &Measured,
        pricing: &Pricing<'_>,
    ) -> Bound {
        let per_token = self.bytes_per_token;
        let bytes = measured.bytes;
        let input = match &measured.continues {
            Some(last) => last
                .tokens
                .saturating_add(bytes.saturating_sub(last.bytes).div_ceil(per_token))
                .saturating_add(measured.added.saturating_sub(last.added)),
            None => bytes.div_ceil(per_token).saturating_add(measured.added),
        };
        if self.output_tokens.is_some() || self.cost.is_some() {
            request.max_tokens.get_or_insert(self.answer_tokens);
        }
        let output = request.max_tokens.map_or(0, u64::from);
        Bound {
            input,
            output,
            cost: pricing.most(input, output),
        }
    }

    /// Says whether `request` may be sent: the run stops (the [`Refusal`] becomes its
    /// [`Stop`](crate::agent::Stop)) when it could pass a limit. A request without `max_tokens`
    /// gets one when an output or cost limit needs it.
    ///
    /// `measured` is as [`bound`](Self::bound) takes it, `used` and `spent` what the run used
    /// so far.
    pub(crate) fn check(
        &self,
        request: &mut Request<'_>,
        measured: &Measured,
        used: &Usage,
        spent: Option<Cost>,
        pricing: &Pricing<'_>,
    ) -> Result<(), Refusal> {
        let bound = self.bound(request, measured, pricing);
        if let Some(max) = self.input_tokens {
            check(
                BudgetLimit::InputTokens,
                max,
                used.input_tokens,
                bound.input,
            )?;
        }
        if let Some(max) = self.output_tokens {
            check(
                BudgetLimit::OutputTokens,
                max,
                used.output_tokens,
                bound.output,
            )?;
        }
        if let Some(max) = self.cost {
            if let Some(model) = &pricing.unpriced {
                return Err(Refusal::Unpriced {
                    model: model.clone(),
                });
            }
            let spent = spent.unwrap_or(Cost::ZERO).nanos();
            check(BudgetLimit::Cost, max.nanos(), spent, bound.cost.nanos())?;
        }
        Ok(())
    }
}

/// What a budget keeps of the run's last request sent, to bound the next from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Last {
    /// Its size in bytes.
    bytes: u64,
    /// The input tokens its answer reported.
    tokens: u64,
    /// The tokens its provider added that its body did not hold.
    added: u64,
    /// What it was made of.
    start: Start,
    /// The model name it was answered under.
    model: String,
}

impl Last {
    /// The request `measured`, whose answer under the model named `model` reported `tokens`
    /// input tokens.
    pub(crate) fn answered(measured: Measured, tokens: u64, model: String) -> Last {
        Last {
            bytes: measured.bytes,
            tokens,
            added: measured.added,
            start: measured.start,
            model,
        }
    }
}

/// What a request is made of, to tell whether the next one is it with messages added: a digest
/// of all but its messages (the model names that may answer, the system prompt, the tools, the
/// tool choice, the typed answer's schema, the provider's fields), and how many messages it has
/// and a digest of them.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Start {
    rest: u64,
    messages: usize,
    transcript: u64,
}

/// A request as a budget bounds it: its size, the tokens its provider adds, what it is made
/// of, and the run's last request when this one continues it.
#[derive(Clone, Debug)]
pub(crate) struct Measured {
    bytes: u64,
    added: u64,
    start: Start,
    continues: Option<Last>,
}

impl Measured {
    /// `request` as `model` would send it, after `last`, the run's last request sent.
    pub(crate) fn of(model: &dyn Model, request: &Request<'_>, last: Option<&Last>) -> Measured {
        let models = model.model_names(request);
        let rest = digest(&(
            &models,
            &request.system,
            &request.tools,
            &request.tool_choice,
            &request.output,
            &request.extra,
            &request.deferred_tools,
        ));
        let messages = &request.messages;
        let start = Start {
            rest,
            messages: messages.len(),
            transcript: digest(messages),
        };
        // The last request's tokens bound this one's start only when this one is it with
        // messages added, for the same model to answer.
        let continues = last
            .filter(|last| {
                models == [last.model.as_str()]
                    && last.start.rest == rest
                    && last.start.messages <= messages.len()
                    && last.start.transcript
                        == match last.start.messages {
                            all if all == messages.len() => start.transcript,
                            some => digest(&&messages[..some]),
                        }
            })
            .cloned();
        Measured {
            bytes: request_bytes(model, request),
            added: model.added_input_tokens(request),
            start,
            continues,
        }
    }
}

/// The size of `request` in bytes: the body `model` would send, or the request's JSON when the
/// model cannot tell (a scripted model, a client of the user's).
fn request_bytes(model: &dyn Model, request: &Request<'_>) -> u64 {
    if let Some(len) = model.encoded_len(request) {
        return len as u64;
    }
    fn json(value: &impl serde::Serialize) -> u64 {
        serde_json::to_vec(value).map_or(0, |bytes| bytes.len() as u64)
    }
    let system = request.system.as_deref().map_or(0, str::len) as u64;
    let output = request.output.as_deref().map_or(0, json);
    (request.model.len() as u64)
        .saturating_add(system)
        .saturating_add(json(&request.messages))
        .saturating_add(json(&request.tools))
        .saturating_add(output)
        .saturating_add(json(&request.extra))
}

/// The prices of the models that may answer a request: a budget bounds its cost at the dearest.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pricing<'p> {
    prices: Vec<&'p Price>,
    /// The first model that may answer and has no price.
    unpriced: Option<String>,
}

impl<'p> Pricing<'p> {
    /// The prices in `prices` of the models named `names`.
    pub(crate) fn of(prices: &'p Prices, names: &[String]) -> Pricing<'p> {
        let mut pricing = Pricing::default();
        for name in names {
            match prices.get(name) {
                Some(price) => pricing.prices.push(price),
                None => {
                    pricing.unpriced.get_or_insert_with(|| name.clone());
                }
            }
        }
        pricing
    }

    /// Whether any model that may answer has a price.
    pub(crate) fn any(&self) -> bool {
        !self.prices.is_empty()
    }

    /// The most `input` and `output` tokens can cost at the dearest of the prices.
    fn most(&self, input: u64, output: u64) -> Cost {
        self.prices
            .iter()
            .map(|price| price.most(input, output))
            .max()
            .unwrap_or(Cost::ZERO)
    }
}

/// The most a request can use: what a budget counts for an answer whose usage the provider did
/// not report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bound {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cost: Cost,
}

impl Bound {
    /// Both bounds added up.
    pub(crate) fn plus(self, other: Bound) -> Bound {
        Bound {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            cost: self.cost.saturating_add(other.cost),
        }
    }

    /// These bounds less `other`'s (a reservation ended).
    pub(crate) fn minus(self, other: Bound) -> Bound {
        Bound {
            input: self.input.saturating_sub(other.input),
            output: self.output.saturating_sub(other.output),
            cost: Cost::from_nanos(self.cost.nanos().saturating_sub(other.cost.nanos())),
        }
    }
}

/// Why a budget does not let a request be sent: what the run's [`Stop`](crate::agent::Stop) says,
/// in the budget's own terms (the stop is made from it, in `stop.rs`), so that the budget needs
/// nothing of the stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// What the run used and the most the request could use of `limit` pass `max`.
    Over {
        limit: BudgetLimit,
        max: u64,
        used: u64,
        next: u64,
    },
    /// A cost limit, and no price for `model`, which may answer.
    Unpriced { model: String },
}

/// The refusal when `used` and `next` together pass `max`.
fn check(limit: BudgetLimit, max: u64, used: u64, next: u64) -> Result<(), Refusal> {
    if used.saturating_add(next) > max {
        return Err(Refusal::Over {
            limit,
            max,
            used,
            next,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request of `bytes` bytes, after a request of `last.0` bytes that read `last.1` tokens
    /// and that it continues.
    fn sized(bytes: u64, last: Option<(u64, u64)>) -> Measured {
        let start = Start {
            rest: 0,
            messages: 0,
            transcript: 0,
        };
        Measured {
            bytes,
            added: 0,
            continues: last.map(|(bytes, tokens)| Last {
                bytes,
                tokens,
                added: 0,
                start: start.clone(),
                model: "m".into(),
            }),
            start,
        }
    }

    fn unpriced() -> Pricing<'static> {
        Pricing {
            prices: Vec::new(),
            unpriced: Some("m".into()),
        }
    }

    fn request(max_tokens: Option<u32>) -> Request<'static> {
        Request {
            model: "m".into(),
            max_tokens,
            ..Default::default()
        }
    }

    #[test]
    fn the_input_bound_is_the_size_over_the_rate_then_the_last_count_plus_what_was_added() {
        let budget = Budget::new().input_tokens(100);
        let used = Usage::new(40, 0);
        // 121 bytes at 2 a token: up to 61 tokens, and 40 + 61 passes 100.
        assert_eq!(
            budget.check(
                &mut request(None),
                &sized(121, None),
                &used,
                None,
                &unpriced()
            ),
            Err(Refusal::Over {
                limit: BudgetLimit::InputTokens,
                max: 100,
                used: 40,
                next: 61
            })
        );
        assert_eq!(
            budget.check(
                &mut request(None),
                &sized(120, None),
                &used,
                None,
                &unpriced()
            ),
            Ok(())
        );
        // The last request of 100 bytes read 20 tokens: 20 + 40 / 2 for the 40 bytes added.
        assert_eq!(
            budget.check(
                &mut request(None),
                &sized(140, Some((100, 20))),
                &used,
                None,
                &unpriced()
            ),
            Ok(())
        );
        assert_eq!(
            budget.check(
                &mut request(None),
                &sized(184, Some((100, 20))),
                &used,
                None,
                &unpriced()
            ),
            Err(Refusal::Over {
                limit: BudgetLimit::InputTokens,
                max: 100,
                used: 40,
                next: 62
            })
        );
    }

    #[test]
    fn an_output_limit_reserves_max_tokens_and_sets_it_when_the_request_has_none() {
        let budget = Budget::new().output_tokens(5000).answer_tokens(1000);
        let mut unbounded = request(None);
        assert_eq!(
            budget.check(
                &mut unbounded,
                &sized(10, None),
                &Usage::new(0, 4000),
                None,
                &unpriced()
            ),
            Ok(())
        );
        assert_eq!(unbounded.max_tokens, Some(1000));
        assert_eq!(
            budget.check(
                &mut request(Some(1001)),
                &sized(10, None),
                &Usage::new(0, 4000),
                None,
                &unpriced()
            ),
            Err(Refusal::Over {
                limit: BudgetLimit::OutputTokens,
                max: 5000,
                used: 4000,
                next: 1001
            })
        );
        // Without an output or cost limit, the request's max_tokens is left alone.
        let mut untouched = request(None);
        Budget::new()
            .input_tokens(100)
            .check(
                &mut untouched,
                &sized(10, None),
                &Usage::default(),
                None,
                &unpriced(),
            )
            .unwrap();
        assert_eq!(untouched.max_tokens, None);
    }

    #[test]
    fn a_cost_limit_needs_a_price_and_counts_the_most_the_request_can_cost() {
        let budget = Budget::new().cost(Cost::from_units(1.0));
        assert_eq!(
            budget.check(
                &mut request(Some(10)),
                &sized(10, None),
                &Usage::default(),
                None,
                &unpriced()
            ),
            Err(Refusal::Unpriced { model: "m".into() })
        );
        let prices = Prices::new().with("m", Price::per_million_tokens(1000.0, 10_000.0));
        let priced = Pricing::of(&prices, &["m".into()]);
        // 500 input tokens at 1000 a million (0.5) and 50 output at 10000 a million (0.5), after
        // 0.25 spent.
        assert_eq!(
            budget.check(
                &mut request(Some(50)),
                &sized(1000, None),
                &Usage::default(),
                Some(Cost::from_units(0.25)),
                &priced
            ),
            Err(Refusal::Over {
                limit: BudgetLimit::Cost,
                max: 1_000_000_000,
                used: 250_000_000,
                next: 1_000_000_000
            })
        );
        assert_eq!(
            budget.check(
                &mut request(Some(25)),
                &sized(1000, None),
                &Usage::default(),
                Some(Cost::from_units(0.25)),
                &priced
            ),
            Ok(())
        );
    }
}
