//! Tools answer with more than text: an image, text and media, a list of content, a `Result` of
//! these, from `#[tool]` functions and `DynamicTool` closures; the toolbox checks each part
//! (bytes of their media type, the media size limit) and the agent keeps the content in its
//! transcript, beside the result it belongs to.

use std::time::Duration;

use serde_json::json;
use skyl::agent::{Agent, Event};
use skyl::provider::Response;
use skyl::testing::ScriptedModel;
use skyl::{
    Content, DynamicTool, Limits, Message, Part, Role, ToolCall, ToolDefinition, ToolFailure,
    ToolResult, Toolbox,
    content::{Audio, Document, Image, ResourceLink, ResultContent},
    tool::{IntoToolOutput, ToolOutput},
};

use crate::support::answered;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

/// Draws the chart of a city.
#[skyl::tool]
fn chart(city: String) -> (String, Image) {
    (format!("The chart of {city}."), Image::png(PNG))
}

/// Takes a screenshot.
#[skyl::tool]
fn screenshot() -> Image {
    Image::png(PNG)
}

/// Renders a page, or fails.
#[skyl::tool]
async fn render(page: u32) -> Result<ToolOutput, ToolFailure> {
    if page == 0 {
        return Err(ToolFailure::retry_with_other_arguments("pages start at 1"));
    }
    Ok(ToolOutput::from(format!("Page {page}:"))
        .with(Document::pdf(b"%PDF-1.7").with_title("page.pdf"))
        .with(Content::json(json!({"page": page}))))
}

/// Lists what there is, as a list of content.
#[skyl::tool]
fn contents() -> [Content; 3] {
    [
        Content::text("Two files."),
        ResourceLink::new("file:///a.md", "a.md").into(),
        ResourceLink::new("file:///b.md", "b.md").into(),
    ]
}

/// Returns a GIF labelled as a PNG.
#[skyl::tool]
fn mislabelled() -> Image {
    Image::png(b"GIF89a\x01\0\x01\0")
}

/// Returns a bitmap, which no model takes.
#[skyl::tool]
fn bitmap() -> (&'static str, Image) {
    ("A bitmap.", Image::new("image/bmp", b"BM\0\0"))
}

/// Returns two charts, one of them a web page labelled as a PNG.
#[skyl::tool]
fn page_and_chart() -> (&'static str, Vec<Image>) {
    (
        "Two charts.",
        vec![
            Image::png(b"<!DOCTYPE html><html>"),
            Image::jpeg(b"\xff\xd8\xff\xe0"),
        ],
    )
}

/// Returns a clip of silence with no header, labelled as WAV.
#[skyl::tool]
fn headless_clip() -> (&'static str, Audio) {
    ("The clip.", Audio::wav([0_u8; 32]))
}

/// Returns a 20 MB screenshot.
#[skyl::tool]
fn huge_screenshot() -> (&'static str, Image) {
    let mut png = PNG.to_vec();
    png.resize(20_000_000, 0);
    ("The whole screen.", Image::png(png))
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(Chart)
        .with(Screenshot)
        .with(Render)
        .with(Contents)
        .with(Mislabelled)
        .with(Bitmap)
        .with(PageAndChart)
        .with(HeadlessClip)
        .with(HugeScreenshot)
}

fn answer(toolbox: &Toolbox, name: &str, arguments: serde_json::Value) -> Message {
    toolbox.answer_blocking(&Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall(ToolCall::new("c1", name, arguments))],
    })
}

#[test]
fn text_plus_an_image_is_the_prose_and_the_image_beside_it() {
    assert_eq!(
        answer(&toolbox(), "chart", json!({"city": "Gulu"})),
        answered(
            ToolResult::success("c1", "The chart of Gulu."),
            vec![Image::png(PNG).into()]
        )
    );
}

#[test]
fn an_image_alone_has_empty_prose() {
    assert_eq!(
        answer(&toolbox(), "screenshot", json!({})),
        answered(ToolResult::success("c1", ""), vec![Image::png(PNG).into()])
    );
}

#[test]
fn an_async_result_of_content_keeps_its_parts_and_its_failures_stay_prose() {
    let toolbox = toolbox();
    assert_eq!(
        answer(&toolbox, "render", json!({"page": 2})),
        answered(
            ToolResult::success("c1", "Page 2:"),
            vec![
                Document::pdf(b"%PDF-1.7").with_title("page.pdf").into(),
                Content::json(json!({"page": 2})),
            ]
        )
    );
    assert_eq!(
        answer(&toolbox, "render", json!({"page": 0})),
        answered(
            ToolResult::error(
                "c1",
                "ERROR: render failed: pages start at 1. Call render again with different arguments."
            ),
            vec![]
        )
    );
}

#[test]
fn a_list_of_content_takes_its_leading_text_as_prose() {
    assert_eq!(
        answer(&toolbox(), "contents", json!({})),
        answered(
            ToolResult::success("c1", "Two files."),
            vec![
                ResourceLink::new("file:///a.md", "a.md").into(),
                ResourceLink::new("file:///b.md", "b.md").into(),
            ]
        )
    );
}

#[test]
fn media_whose_bytes_are_not_its_type_is_left_out_with_a_note_saying_what_they_look_like() {
    let toolbox = toolbox();
    assert_eq!(
        answer(&toolbox, "mislabelled", json!({})),
        answered(
            ToolResult::success(
                "c1",
                "[mislabelled also returned an image (image/png, 10 bytes), which was left out: its bytes are not image/png (they start like a GIF). If it matters, tell the user it could not be shown.]"
            ),
            vec![]
        )
    );
    assert_eq!(
        answer(&toolbox, "bitmap", json!({})),
        answered(
            ToolResult::success(
                "c1",
                "A bitmap.\n[bitmap also returned an image (image/bmp, 4 bytes), which was left out: models do not take image/bmp (images: image/png, image/jpeg, image/gif, image/webp; audio: audio/wav, audio/mpeg, audio/ogg, audio/flac; documents: application/pdf). If it matters, tell the user it could not be shown.]"
            ),
            vec![]
        )
    );
    // The text and the part that is what it says are kept.
    assert_eq!(
        answer(&toolbox, "page_and_chart", json!({})),
        answered(
            ToolResult::success(
                "c1",
                "Two charts.\n[page_and_chart also returned an image (image/png, 21 bytes), which was left out: its bytes are not image/png (they start like text, \"<!DOCTYPE html><ht\"). If it matters, tell the user it could not be shown.]"
            ),
            vec![Image::jpeg(b"\xff\xd8\xff\xe0").into()]
        )
    );
    assert_eq!(
        answer(&toolbox, "headless_clip", json!({})),
        answered(
            ToolResult::success(
                "c1",
                "The clip.\n[headless_clip also returned audio (audio/wav, 32 bytes), which was left out: its bytes are not audio/wav (they start with the bytes 00 00 00 00 00 00 00 00). If it matters, tell the user it could not be shown.]"
            ),
            vec![]
        )
    );
}

#[test]
fn a_twenty_megabyte_image_is_left_out_with_a_note() {
    assert_eq!(
        answer(&toolbox(), "huge_screenshot", json!({})),
        answered(
            ToolResult::success(
                "c1",
                "The whole screen.\n[huge_screenshot also returned an image (image/png, 20000000 bytes), which was left out: it is larger than 3932160 bytes, the most this application sends of one part. If you need it, call huge_screenshot again with arguments that make it smaller.]"
            ),
            vec![]
        )
    );
    // A toolbox that takes more sends it whole.
    let generous = toolbox().with_limits(Limits::default().with_max_media_bytes(25_000_000));
    let answer = answer(&generous, "huge_screenshot", json!({}));
    assert_eq!(
        answer.result_content("c1").map(|c| c.content.len()),
        Some(1)
    );
}

#[test]
fn a_dynamic_tool_closure_returns_content_too() {
    let definition = ToolDefinition::new(
        "snapshot",
        "Takes a snapshot.",
        json!({"type": "object", "properties": {}}),
    );
    let sync = DynamicTool::from_fn(definition.clone(), |_: serde_json::Value| {
        ("Taken.", Audio::wav(b"RIFF\x24\0\0\0WAVEfmt "))
    });
    let toolbox = Toolbox::new().with(sync);
    assert_eq!(
        answer(&toolbox, "snapshot", json!({})),
        answered(
            ToolResult::success("c1", "Taken."),
            vec![Audio::wav(b"RIFF\x24\0\0\0WAVEfmt ").into()]
        )
    );
    let asynchronous = DynamicTool::from_async_fn(definition, |_: serde_json::Value| async {
        Ok::<_, std::io::Error>(Image::png(PNG))
    });
    let toolbox = Toolbox::new().with(asynchronous);
    assert_eq!(
        answer(&toolbox, "snapshot", json!({})),
        answered(ToolResult::success("c1", ""), vec![Image::png(PNG).into()])
    );
}

#[test]
fn dispatch_and_a_text_reader_get_the_prose_and_a_line_per_part() {
    let toolbox = toolbox();
    let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "chart", json!({"city": "Gulu"})));
    assert_eq!(
        result,
        ToolResult::success("c1", "The chart of Gulu.\n[an image (image/png, 16 bytes)]")
    );
    assert_eq!(
        (String::from("Look:"), Image::png(PNG)).into_tool_output(),
        Ok("Look:\n[an image (image/png, 16 bytes)]".to_owned())
    );
}

#[test]
fn an_agent_run_keeps_each_results_content_beside_it_and_sends_it() {
    let model = ScriptedModel::new()
        .reply(Response::calls([
            ToolCall::new("c1", "chart", json!({"city": "Gulu"})),
            ToolCall::new("c2", "contents", json!({})),
        ]))
        .reply(Response::text("Here is the chart."));
    let agent = Agent::new(model.clone(), toolbox(), "any-model");
    let run = agent
        .run(vec![Message::user("Chart of Gulu?")])
        .blocking()
        .unwrap();
    let tool_message = Message {
        role: Role::Tool,
        parts: vec![
            Part::ToolResult(ToolResult::success("c1", "The chart of Gulu.")),
            Part::ResultContent(ResultContent::new("c1", vec![Image::png(PNG).into()])),
            Part::ToolResult(ToolResult::success("c2", "Two files.")),
            Part::ResultContent(ResultContent::new(
                "c2",
                vec![
                    ResourceLink::new("file:///a.md", "a.md").into(),
                    ResourceLink::new("file:///b.md", "b.md").into(),
                ],
            )),
        ],
    };
    assert_eq!(run.transcript()[2], tool_message);
    // The second request carries the tool message as it is.
    assert_eq!(model.requests()[1].messages[2], tool_message);
}

#[test]
fn a_finished_calls_event_carries_its_content_for_a_display_to_show() {
    let model = ScriptedModel::new()
        .reply(Response::calls([
            ToolCall::new("c1", "chart", json!({"city": "Gulu"})),
            ToolCall::new("c2", "mislabelled", json!({})),
        ]))
        .reply(Response::text("Here is the chart."));
    let agent = Agent::new(model, toolbox(), "any-model");
    let mut finished = Vec::new();
    agent
        .run(vec![Message::user("Chart of Gulu?")])
        .on_event(|event| {
            if let Event::ToolFinished {
                name,
                result,
                content,
                ..
            } = event
            {
                finished.push(Event::ToolFinished {
                    name,
                    result,
                    duration: Duration::ZERO,
                    content,
                });
            }
        })
        .blocking()
        .unwrap();
    finished.sort_by_key(|event| match event {
        Event::ToolFinished { result, .. } => result.call_id.clone(),
        _ => String::new(),
    });
    assert_eq!(
        finished,
        [
            Event::ToolFinished {
                name: "chart".into(),
                result: ToolResult::success("c1", "The chart of Gulu."),
                duration: Duration::ZERO,
                content: vec![Content::from(Image::png(PNG))].into(),
            },
            Event::ToolFinished {
                name: "mislabelled".into(),
                result: ToolResult::success(
                    "c2",
                    "[mislabelled also returned an image (image/png, 10 bytes), which was left out: its bytes are not image/png (they start like a GIF). If it matters, tell the user it could not be shown.]"
                ),
                duration: Duration::ZERO,
                content: Vec::new().into(),
            },
        ]
    );
}
