//! Every shape a tool's return type can give content in, one tool each, and what the toolbox
//! makes of it: the prose and the parts beside it. A list of content (`Vec<Image>`,
//! `Vec<Content>`, `[Image; 2]`, in an `Option`, a `Result` or a tuple) is content, as many
//! parts as it holds; a list of anything else stays a JSON array.
//!
//! [`shapes`] is the table: a cross of content kinds, shapes and providers can take its rows.

use serde::Serialize;
use serde_json::{Value, json};
use skyl::provider::{Adapter, Anthropic, Request, caching::Caching};
use skyl::{
    Content, DynamicTool, Message, Part, Role, ToolCall, ToolDefinition, ToolFailure, ToolResult,
    Toolbox,
    content::{Image, ResourceLink},
    tool::ToolOutput,
};

use crate::support::answered;
use crate::support::content_rows::{Wire, framed};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
const PNG_BASE64: &str = "iVBORw0KGgo=";
const JPEG: &[u8] = b"\xff\xd8\xff\xe0";
const JPEG_BASE64: &str = "/9j/4A==";

fn png() -> Image {
    Image::png(PNG)
}

fn jpeg() -> Image {
    Image::jpeg(JPEG)
}

/// Returns one image.
#[skyl::tool]
fn single() -> Image {
    png()
}

/// Returns one part.
#[skyl::tool]
fn one_part() -> Content {
    png().into()
}

/// Returns text and an image.
#[skyl::tool]
fn tuple() -> (String, Image) {
    ("A chart.".into(), png())
}

/// Returns two images in an array.
#[skyl::tool]
fn array() -> [Image; 2] {
    [png(), jpeg()]
}

/// Returns text and an image in an array of parts.
#[skyl::tool]
fn part_array() -> [Content; 2] {
    [Content::text("A chart."), png().into()]
}

/// Returns two images in a list.
#[skyl::tool]
fn two_charts() -> Vec<Image> {
    vec![png(), jpeg()]
}

/// Returns no images.
#[skyl::tool]
fn no_charts() -> Vec<Image> {
    Vec::new()
}

/// Returns text, two images and a link in a list of parts.
#[skyl::tool]
fn parts() -> Vec<Content> {
    vec![
        Content::text("Two charts."),
        png().into(),
        jpeg().into(),
        ResourceLink::new("file:///data.csv", "data.csv").into(),
    ]
}

/// Returns text and an image, built part by part.
#[skyl::tool]
fn output() -> ToolOutput {
    ToolOutput::from("A chart.").with(png())
}

/// Returns an image, maybe.
#[skyl::tool]
fn maybe() -> Option<Image> {
    Some(png())
}

/// Returns a list of images, maybe.
#[skyl::tool]
fn maybe_list() -> Option<Vec<Image>> {
    Some(vec![png(), jpeg()])
}

/// Returns an image, or fails.
#[skyl::tool]
fn fallible() -> Result<Image, std::io::Error> {
    Ok(png())
}

/// Returns a list of parts, or fails.
#[skyl::tool]
fn fallible_list() -> Result<Vec<Content>, ToolFailure> {
    Ok(vec![png().into(), jpeg().into()])
}

/// Returns text and a list of images.
#[skyl::tool]
fn text_and_list() -> (&'static str, Vec<Image>) {
    ("Two charts.", vec![png(), jpeg()])
}

/// Returns a list of images, later.
#[skyl::tool]
async fn later() -> Vec<Image> {
    vec![png(), jpeg()]
}

#[derive(Serialize)]
struct City {
    name: &'static str,
}

/// Returns names.
#[skyl::tool]
fn names() -> Vec<String> {
    vec!["Gulu".into(), "Lira".into()]
}

/// Returns cities.
#[skyl::tool]
fn cities() -> Vec<City> {
    vec![City { name: "Gulu" }]
}

/// Returns numbers.
#[skyl::tool]
fn numbers() -> [u32; 3] {
    [1, 2, 3]
}

/// A closure's list of images, as a `DynamicTool` returns it.
fn closure() -> DynamicTool {
    let definition = ToolDefinition::new(
        "closure",
        "Returns two images.",
        json!({"type": "object", "properties": {}}),
    );
    DynamicTool::from_fn(definition, |_: Value| vec![png(), jpeg()])
}

/// Every tool of this module.
pub(crate) fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(Single)
        .with(OnePart)
        .with(Tuple)
        .with(Array)
        .with(PartArray)
        .with(TwoCharts)
        .with(NoCharts)
        .with(Parts)
        .with(Output)
        .with(Maybe)
        .with(MaybeList)
        .with(Fallible)
        .with(FallibleList)
        .with(TextAndList)
        .with(Later)
        .with(Names)
        .with(Cities)
        .with(Numbers)
        .with(closure())
}

/// Each tool, its return shape, and the prose and parts its answer holds.
pub(crate) fn shapes() -> Vec<(&'static str, &'static str, &'static str, Vec<Content>)> {
    let png = || Content::from(png());
    let jpeg = || Content::from(jpeg());
    vec![
        ("single", "Image", "", vec![png()]),
        ("one_part", "Content", "", vec![png()]),
        ("tuple", "(String, Image)", "A chart.", vec![png()]),
        ("array", "[Image; 2]", "", vec![png(), jpeg()]),
        ("part_array", "[Content; 2]", "A chart.", vec![png()]),
        ("two_charts", "Vec<Image>", "", vec![png(), jpeg()]),
        ("no_charts", "Vec<Image>, empty", "[]", vec![]),
        (
            "parts",
            "Vec<Content>",
            "Two charts.",
            vec![
                png(),
                jpeg(),
                ResourceLink::new("file:///data.csv", "data.csv").into(),
            ],
        ),
        ("output", "ToolOutput", "A chart.", vec![png()]),
        ("maybe", "Option<Image>", "", vec![png()]),
        ("maybe_list", "Option<Vec<Image>>", "", vec![png(), jpeg()]),
        ("fallible", "Result<Image, E>", "", vec![png()]),
        (
            "fallible_list",
            "Result<Vec<Content>, E>",
            "",
            vec![png(), jpeg()],
        ),
        (
            "text_and_list",
            "(&str, Vec<Image>)",
            "Two charts.",
            vec![png(), jpeg()],
        ),
        ("later", "async Vec<Image>", "", vec![png(), jpeg()]),
        ("closure", "closure -> Vec<Image>", "", vec![png(), jpeg()]),
        ("names", "Vec<String>", r#"["Gulu","Lira"]"#, vec![]),
        (
            "cities",
            "Vec<City: Serialize>",
            r#"[{"name":"Gulu"}]"#,
            vec![],
        ),
        ("numbers", "[u32; 3]", "[1,2,3]", vec![]),
    ]
}

fn call(name: &str) -> Message {
    Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall(ToolCall::new("c1", name, json!({})))],
    }
}

#[test]
fn every_shape_of_content_is_content_and_other_lists_stay_json() {
    let toolbox = toolbox();
    for (name, shape, prose, content) in shapes() {
        assert_eq!(
            toolbox.answer_blocking(&call(name)),
            answered(ToolResult::success("c1", prose), content),
            "{name} returning {shape}"
        );
    }
    assert_eq!(shapes().len(), toolbox.len());
}

#[test]
fn a_list_of_images_reaches_the_model_as_images() {
    let toolbox = toolbox();
    let request = Request::new(
        "m",
        vec![
            Message::user("Charts?"),
            call("two_charts"),
            toolbox.answer_blocking(&call("two_charts")),
        ],
    )
    // The breakpoints are tests/providers/caching.rs's subject, not this test's.
    .with_caching(Caching::off());
    assert_eq!(
        Anthropic.encode(&request).unwrap(),
        framed(
            Wire::Anthropic,
            "Charts?",
            "two_charts",
            json!([
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_BASE64}},
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": JPEG_BASE64}}
            ]),
        )
    );
}
