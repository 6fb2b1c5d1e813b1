//! The weather example's tools and their state, shared by the `weather` and `mcp_server`
//! examples (each includes this file with `mod weather_tools;`).

use std::collections::HashMap;
use std::time::Duration;

use skyl::{Json, ToolFailure, Toolbox, tool::FromRef};

// ---------------------------------------------------------------------------------------------
// The application's state. Each tool borrows only the part it needs.

struct Stations {
    readings: HashMap<&'static str, (i32, &'static str)>,
}

struct Rates {
    per_usd: HashMap<&'static str, f64>,
}

pub(crate) struct App {
    stations: Stations,
    rates: Rates,
}

impl FromRef<App> for Stations {
    fn from_ref(app: &App) -> &Stations {
        &app.stations
    }
}

impl FromRef<App> for Rates {
    fn from_ref(app: &App) -> &Rates {
        &app.rates
    }
}

// ---------------------------------------------------------------------------------------------
// The tools: ordinary functions. Doc comments become the descriptions the model reads.

/// Units for a temperature.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Get the current weather at a city's weather station.
///
/// Use it for questions about the weather now, not for forecasts.
#[skyl::tool]
fn get_weather(
    #[state] stations: &Stations,
    /// The city, for example "Kampala".
    city: &str,
    /// The unit of the temperature; Celsius when omitted.
    unit: Option<Unit>,
) -> Result<String, ToolFailure> {
    let Some(&(celsius, sky)) = stations.readings.get(city) else {
        return Err(ToolFailure::retry_with_other_arguments(format!(
            "there is no station in {city}"
        )));
    };
    Ok(match unit.unwrap_or(Unit::Celsius) {
        Unit::Celsius => format!("{celsius}C and {sky} in {city}"),
        Unit::Fahrenheit => format!("{}F and {sky} in {city}", celsius * 9 / 5 + 32),
    })
}

/// A news headline.
#[derive(serde::Serialize)]
struct Headline {
    title: String,
    source: &'static str,
}

/// Search recent news headlines.
#[skyl::tool]
async fn search_news(
    /// Words to search for.
    query: String,
    /// How many headlines to return, at most 10.
    limit: Option<u8>,
) -> Json<Vec<Headline>> {
    if query == "everything" {
        // Stands in for an upstream service that never answers.
        std::future::pending::<()>().await;
    }
    let limit = usize::from(limit.unwrap_or(2).min(10));
    Json(
        (1..=limit)
            .map(|n| Headline {
                title: format!("{query}: story {n}"),
                source: "The Daily Example",
            })
            .collect(),
    )
}

/// The rate table has no entry for a currency.
#[derive(Debug)]
struct UnknownCurrency(String);

impl std::fmt::Display for UnknownCurrency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no exchange rate is known for {}", self.0)
    }
}

/// Convert an amount of money between two currencies, by ISO 4217 code.
#[skyl::tool]
fn convert_currency(
    #[state] rates: &Rates,
    /// The amount to convert.
    amount: f64,
    /// The currency of the amount, such as "USD".
    from: String,
    /// The currency to convert to, such as "UGX".
    to: String,
) -> Result<String, UnknownCurrency> {
    // A bug on purpose: a code of the wrong length panics instead of returning an error.
    assert!(
        from.len() == 3,
        "currency codes have three letters, got {from:?}"
    );
    let rate = |code: &str| {
        rates
            .per_usd
            .get(code)
            .copied()
            .ok_or_else(|| UnknownCurrency(code.to_owned()))
    };
    let converted = amount / rate(&from)? * rate(&to)?;
    Ok(format!("{amount} {from} = {converted:.2} {to}"))
}

// ---------------------------------------------------------------------------------------------

/// The three tools over a few stations and rates, with calls stopped after 200 ms.
pub(crate) fn toolbox() -> Toolbox<App> {
    let app = App {
        stations: Stations {
            readings: HashMap::from([("Kampala", (22, "sunny")), ("Gulu", (27, "cloudy"))]),
        },
        rates: Rates {
            per_usd: HashMap::from([("USD", 1.0), ("UGX", 3_700.0), ("EUR", 0.92)]),
        },
    };
    Toolbox::with_state(app)
        .with(GetWeather)
        .with(SearchNews)
        .with(ConvertCurrency)
        .with_timeout(Duration::from_millis(200))
}
