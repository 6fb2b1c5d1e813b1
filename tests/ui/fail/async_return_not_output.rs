use skyl::tool;

struct Forecast;

/// Forecasts.
#[tool]
async fn get_forecast(days: u8) -> Forecast {
    let _ = days;
    Forecast
}

fn main() {
    let _ = GetForecast;
}
