//! Tools that answer with more than text: a chart as a PNG image beside its prose, and what each
//! provider's wire makes of it.
//!
//! `cargo run --example beyond_text` runs offline: a scripted model asks for the chart, the
//! toolbox runs the tool (checking that the bytes are a PNG and not too large), the agent keeps
//! the image beside the result in its transcript, and the example prints how each of the four
//! adapters would send that result. The PNG is drawn in code; no file is read.

use serde_json::{Value, json};
use skyl::agent::Agent;
use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request, Response};
use skyl::testing::ScriptedModel;
use skyl::{Message, Part, ToolCall, Toolbox, content::Image};

/// Draw a bar chart of the week's midday temperatures in a city, as a PNG image.
#[skyl::tool]
fn chart_week(
    /// The city, for example "Gulu".
    city: String,
) -> Result<(String, Image), String> {
    let week = match city.as_str() {
        "Gulu" => [29, 30, 28, 31, 30, 27, 29],
        "Kampala" => [24, 25, 23, 26, 24, 22, 25],
        other => return Err(format!("no weather station reports for {other}")),
    };
    let summary = format!(
        "The midday temperatures in {city} this week, Monday to Sunday: {}.",
        week.map(|celsius| format!("{celsius}C")).join(", ")
    );
    Ok((summary, Image::png(png::bar_chart(&week))))
}

/// The toolbox of this example; each tool added here is offered to the model.
fn toolbox() -> Toolbox {
    Toolbox::new().with(ChartWeek)
}

/// A model that plays a provider offline: it asks for the chart, then answers from the result.
fn scripted_model() -> ScriptedModel {
    ScriptedModel::new()
        .reply(Response::calls([ToolCall::new(
            "call_1",
            "chart_week",
            json!({"city": "Gulu"}),
        )]))
        .reply(Response::text(
            "Gulu was hot all week, from 27C on Saturday to 31C on Thursday; the chart shows it.",
        ))
}

fn main() {
    let agent = Agent::new(scripted_model(), toolbox(), "scripted");
    let run = agent
        .run(vec![Message::user("How warm was Gulu this week? Show me.")])
        .blocking()
        .expect("the scripted run finishes");

    println!("The transcript, the image beside the result it belongs to:\n");
    for message in run.transcript() {
        println!("{}: {}", message.role, shown(message));
    }

    // The request that carried the result back to the model, as each provider would get it.
    let transcript = &run.transcript()[..3];
    let request = Request::new("any-model", transcript);
    let adapters: [(&str, &dyn Adapter, &str); 4] = [
        ("Anthropic", &Anthropic, "messages"),
        ("OpenAI Responses", &OpenAiResponses::default(), "input"),
        ("Gemini", &Gemini::default(), "contents"),
        ("OpenAI Chat", &OpenAiChat::default(), "messages"),
    ];
    for (name, adapter, list) in adapters {
        let body = adapter.encode(&request).expect("the transcript is valid");
        let sent: Vec<Value> = body[list].as_array().expect("a list of turns")[2..].to_vec();
        println!(
            "\n{name} gets the result as:\n{}",
            serde_json::to_string_pretty(&shorten(Value::Array(sent))).expect("JSON prints")
        );
    }
}

/// A message with each image said in words, so that the transcript prints on a screen.
fn shown(message: &Message) -> String {
    let mut parts = Vec::new();
    for part in &message.parts {
        parts.push(match part {
            Part::Text(text) => text.clone(),
            Part::ToolCall(call) => format!("call {} {}({})", call.id, call.name, call.arguments),
            Part::ToolResult(result) => format!("result of {}: {}", result.call_id, result.content),
            Part::ResultContent(content) => format!(
                "beside {}: {}",
                content.call_id,
                content
                    .content
                    .iter()
                    .map(|part| format!("{} ({} bytes)", part.kind(), part.byte_len().unwrap_or(0)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            other => format!("{other:?}"),
        });
    }
    parts.join(" | ")
}

/// The JSON with each long base64 string cut, so that it prints on a screen.
fn shorten(value: Value) -> Value {
    match value {
        Value::String(text) if text.len() > 200 => {
            Value::String(format!("{}... ({} characters)", &text[..40], text.len()))
        }
        Value::Array(items) => items.into_iter().map(shorten).collect(),
        Value::Object(members) => members
            .into_iter()
            .map(|(key, value)| (key, shorten(value)))
            .collect(),
        other => other,
    }
}

/// A PNG encoder just large enough for a grey bar chart: stored (uncompressed) deflate blocks,
/// so that the example needs no image crate.
mod png {
    const HEIGHT: usize = 40;
    const BAR: usize = 6;
    const GAP: usize = 2;

    /// One bar per value, as tall as the value in pixels, dark on white.
    pub(crate) fn bar_chart(values: &[u8]) -> Vec<u8> {
        let width = values.len() * (BAR + GAP) + GAP;
        let mut pixels = Vec::with_capacity((width + 1) * HEIGHT);
        for row in 0..HEIGHT {
            pixels.push(0); // No filter on this scanline.
            for x in 0..width {
                let column = x.saturating_sub(GAP);
                let bar = column / (BAR + GAP);
                let in_bar = x >= GAP && column % (BAR + GAP) < BAR && bar < values.len();
                let filled = in_bar && HEIGHT - row <= usize::from(values[bar]);
                pixels.push(if filled { 40 } else { 255 });
            }
        }
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut header = Vec::new();
        header.extend_from_slice(&(width as u32).to_be_bytes());
        header.extend_from_slice(&(HEIGHT as u32).to_be_bytes());
        header.extend_from_slice(&[8, 0, 0, 0, 0]); // 8-bit greyscale, no interlace.
        chunk(&mut png, b"IHDR", &header);
        chunk(&mut png, b"IDAT", &zlib_stored(&pixels));
        chunk(&mut png, b"IEND", &[]);
        png
    }

    fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = png.len();
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        let crc = crc32(&png[start..]);
        png.extend_from_slice(&crc.to_be_bytes());
    }

    fn zlib_stored(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x78, 0x01];
        let blocks: Vec<&[u8]> = data.chunks(65_535).collect();
        for (n, block) in blocks.iter().enumerate() {
            out.push(u8::from(n + 1 == blocks.len()));
            let len = block.len() as u16;
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&(!len).to_le_bytes());
            out.extend_from_slice(block);
        }
        let (mut a, mut b) = (1u32, 0u32);
        for &byte in data {
            a = (a + u32::from(byte)) % 65_521;
            b = (b + a) % 65_521;
        }
        out.extend_from_slice(&((b << 16) | a).to_be_bytes());
        out
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
