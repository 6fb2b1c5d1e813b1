"""Writes the two crates compile-time.sh compares: N tools with #[skyl::tool], and the same N
tools by hand."""
import os
import sys

work, skyl, n = sys.argv[1], sys.argv[2], int(sys.argv[3])


def manifest(name):
    return f"""[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
skyl = {{ path = "{skyl}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
schemars = "1"
"""


def write(crate, text):
    os.makedirs(f"{work}/{crate}/src", exist_ok=True)
    with open(f"{work}/{crate}/Cargo.toml", "w") as f:
        f.write(manifest(f"compile_{crate}"))
    with open(f"{work}/{crate}/src/lib.rs", "w") as f:
        f.write(text)


macro = ["//! 100 tools written with #[skyl::tool].\n"]
for i in range(n):
    macro.append(f'''
/// Looks up the forecast number {i} for a city.
#[skyl::tool]
pub fn forecast_{i}(
    /// The city, in English.
    city: String,
    /// How many days ahead, 1 to 7.
    days: Option<u8>,
    /// Metric units when true.
    #[serde(default)]
    metric: bool,
) -> String {{
    format!("{{city}} {{days:?}} {{metric}} {i}")
}}
''')
macro.append("\n/// Every tool in one toolbox.\npub fn toolbox() -> skyl::Toolbox {\n    skyl::Toolbox::new()")
for i in range(n):
    macro.append(f"\n        .with(Forecast{i})")
macro.append("\n}\n")
write("macro", "".join(macro))

hand = ["""//! The same tools by hand: argument structs with derives, definitions and a match.
use serde::Deserialize;
use schemars::JsonSchema;
use serde_json::Value;
"""]
for i in range(n):
    hand.append(f'''
/// Arguments of forecast_{i}.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Forecast{i}Args {{
    /// The city, in English.
    pub city: String,
    /// How many days ahead, 1 to 7.
    pub days: Option<u8>,
    /// Metric units when true.
    #[serde(default)]
    pub metric: bool,
}}

/// Looks up the forecast number {i} for a city.
pub fn forecast_{i}(city: String, days: Option<u8>, metric: bool) -> String {{
    format!("{{city}} {{days:?}} {{metric}} {i}")
}}
''')
hand.append("\n/// Name, description and schema of every tool.\npub fn definitions() -> Vec<(&'static str, &'static str, Value)> {\n    vec![")
for i in range(n):
    hand.append(f'\n        ("forecast_{i}", "Looks up the forecast number {i} for a city.", serde_json::to_value(schemars::schema_for!(Forecast{i}Args)).unwrap()),')
hand.append("\n    ]\n}\n\n/// Runs a call.\npub fn dispatch(name: &str, arguments: &Value) -> Result<String, String> {\n    match name {")
for i in range(n):
    hand.append(f'\n        "forecast_{i}" => {{\n            let a = Forecast{i}Args::deserialize(arguments).map_err(|e| e.to_string())?;\n            Ok(forecast_{i}(a.city, a.days, a.metric))\n        }}')
hand.append('\n        other => Err(format!("no tool named {other}")),\n    }\n}\n')
write("hand", "".join(hand))
