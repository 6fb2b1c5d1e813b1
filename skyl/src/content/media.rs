//! The kinds of content and what the rest of skyl asks of them (a line of text for a part a
//! provider cannot take, a data URL).

use std::fmt;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::signature::{self, Mismatch};
use crate::base64;

/// One piece of a tool's answer beside its prose.
///
/// # The design
///
/// [`ToolResult`](crate::ToolResult) keeps its three fields: its `content` is the prose (the
/// text every provider carries, and the only thing a failure ever has). Richer content rides
/// beside it, in a part of its own, [`Part::ResultContent`](crate::Part::ResultContent), which
/// holds a [`ResultContent`]: the id of the call it belongs to and a list of [`Content`]. The
/// toolbox puts it in the tool message right after the result it belongs to; an adapter reads
/// the pair together and puts both on its wire, the prose first, then each part in order:
///
/// | `Content` | Anthropic `tool_result` | OpenAI Responses `function_call_output` | Gemini `functionResponse` | OpenAI Chat (tool messages are text) |
/// |---|---|---|---|---|
/// | [`Text`](Content::Text) | `text` block | `input_text` | appended to `response.output` | appended to the tool message |
/// | [`Image`] | `image` block, base64 or URL source | `input_image` (data URL or URL) | `parts[].inlineData` (URL: `fileData`); before Gemini 3 (`Gemini::with_response_parts(false)`), a part after the responses | `image_url` part of a `user` message after the tool messages |
/// | [`Audio`] | prose (Anthropic takes no audio) | prose (no audio in a function output) | `inlineData` part after the responses | prose; with `OpenAiChat::with_audio_input`, an `input_audio` part of that `user` message (WAV and MP3) |
/// | [`Document`] (PDF) | `document` block, base64 or URL source | `input_file` (`file_data` or `file_url`) | `parts[].inlineData` (URL: `fileData`) | `file` part of that `user` message (a URL: prose) |
/// | [`ResourceLink`], text [`Resource`] | `text` block | `input_text` | appended to `response.output` | appended to the tool message |
/// | blob [`Resource`] of a PDF, PNG, JPEG, GIF, WebP, WAV, MP3, Ogg or FLAC type (how MCP carries a PDF) | as the [`Document`], [`Image`] or [`Audio`] it is | the same | the same | the same |
/// | any other blob [`Resource`] | prose | prose | prose | prose |
/// | [`Json`](Content::Json) | `text` block, unless the prose is that JSON | `input_text`, unless the prose is that JSON | appended to `response.output`, unless the prose is that JSON | appended, unless the prose is that JSON |
///
/// "Prose" is a line saying what the part was, that it was not sent and why (in `prose/`), so a
/// model is never silently missing part of an answer. A blob resource is sent as media only when
/// its bytes are what its media type says; a PDF keeps the file name its URI ends with as its
/// title. [`ResultLowering`](crate::provider::author::ResultLowering) is this table as code, public for
/// a provider of your own. Served over MCP, each
/// part is the MCP content block of its kind and [`Json`](Content::Json) is `structuredContent`.
///
/// Bytes are held in base64, the form every wire and MCP want, encoded once when the part is
/// made.
///
/// Non-exhaustive: kinds may be added; match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text, kept in its place among the other parts.
    Text(String),
    /// An image.
    Image(Image),
    /// An audio clip.
    Audio(Audio),
    /// A document (PDF).
    Document(Document),
    /// A link to a resource the model (or the application) can read by its URI.
    ResourceLink(ResourceLink),
    /// A resource's contents, embedded.
    Resource(Resource),
    /// Structured JSON: the machine-readable copy of the answer (MCP's `structuredContent`).
    Json(Value),
}

impl Content {
    /// Text content.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(text.into())
    }

    /// Structured JSON content.
    pub fn json(value: Value) -> Self {
        Content::Json(value)
    }

    /// The media type and base64 data of a part that carries bytes (an image, audio, a document
    /// or a blob resource given as data, not a URL).
    pub fn base64(&self) -> Option<(&str, &str)> {
        match self {
            Content::Image(Image {
                media_type,
                source: Source::Base64(data),
            })
            | Content::Audio(Audio { media_type, data })
            | Content::Document(Document {
                media_type,
                source: Source::Base64(data),
                ..
            }) => Some((media_type, data)),
            Content::Resource(Resource {
                media_type,
                body: ResourceBody::Blob(data),
                ..
            }) => Some((
                media_type.as_deref().unwrap_or("application/octet-stream"),
                data,
            )),
            _ => None,
        }
    }

    /// How many bytes the part carries, when it carries bytes.
    pub fn byte_len(&self) -> Option<usize> {
        self.base64().map(|(_, data)| base64::decoded_len(data))
    }

    /// What kind of part this is, as a sentence says it: "an image", "audio", "a document", ….
    pub fn kind(&self) -> &'static str {
        match self {
            Content::Text(_) => "text",
            Content::Image(_) => "an image",
            Content::Audio(_) => "audio",
            Content::Document(_) => "a document",
            Content::ResourceLink(_) => "a resource link",
            Content::Resource(_) => "a resource",
            Content::Json(_) => "structured JSON",
        }
    }

    /// Checks that an image, audio clip or document given as bytes is of its media type (the
    /// format's first bytes), and that the media type is one some provider takes.
    pub(crate) fn check_media(&self) -> Result<(), Mismatch> {
        let (media_type, data) = match self {
            Content::Image(_) | Content::Audio(_) | Content::Document(_) => match self.base64() {
                Some(pair) => pair,
                None => return Ok(()),
            },
            _ => return Ok(()),
        };
        let head = base64::decode_prefix(data, signature::SHOWN).ok_or(Mismatch::NotBase64)?;
        signature::matches(media_type, &head)
    }
}

/// Where a part's bytes are: in the part, or at a URL the provider fetches.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The bytes, in standard base64.
    Base64(String),
    /// A URL the provider fetches itself (Anthropic, OpenAI and Gemini take `https` URLs).
    Url(String),
}

/// An image a tool returns: PNG, JPEG, GIF or WebP bytes, or a URL.
///
/// A tool returns one as it is, or beside text with a tuple:
///
/// ```
/// use skyl::{content::Image, tool::IntoToolOutput};
///
/// # const PNG_BYTES: &[u8] = b"\x89PNG\r\n\x1a\n";
/// /// Draws the chart of a city's week.
/// #[skyl::tool]
/// fn chart(city: String) -> (String, Image) {
///     (format!("The week in {city}."), Image::png(PNG_BYTES))
/// }
/// # let _ = Chart;
/// ```
///
/// The toolbox checks that the bytes are what the media type says (a PNG starts as a PNG does)
/// and leaves the image out when they are not, with a note in the result's prose saying what
/// they look like; an image over
/// [`Limits::with_max_media_bytes`](crate::Limits::with_max_media_bytes) is left out with a
/// note too. The result's text and its other parts are sent either way.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Image {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`; for a URL, the type its
    /// extension names, or empty when it names none.
    pub media_type: String,
    /// The bytes or the URL.
    pub source: Source,
}

impl Image {
    /// An image of `media_type` from its bytes.
    pub fn new(media_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
        Image {
            media_type: media_type.into(),
            source: Source::Base64(base64::encode(bytes.as_ref())),
        }
    }

    /// A PNG image.
    ///
    /// ```
    /// let image = skyl::content::Image::png(b"\x89PNG\r\n\x1a\n");
    /// assert_eq!(image.media_type, "image/png");
    /// ```
    pub fn png(bytes: impl AsRef<[u8]>) -> Self {
        Image::new("image/png", bytes)
    }

    /// A JPEG image.
    pub fn jpeg(bytes: impl AsRef<[u8]>) -> Self {
        Image::new("image/jpeg", bytes)
    }

    /// A GIF image.
    pub fn gif(bytes: impl AsRef<[u8]>) -> Self {
        Image::new("image/gif", bytes)
    }

    /// A WebP image.
    pub fn webp(bytes: impl AsRef<[u8]>) -> Self {
        Image::new("image/webp", bytes)
    }

    /// An image at a URL, which the provider fetches. Its media type is the one its extension
    /// names (`.png`, `.jpg`, `.jpeg`, `.gif`, `.webp`), or empty.
    ///
    /// ```
    /// let image = skyl::content::Image::url("https://example.com/chart.png");
    /// assert_eq!(image.media_type, "image/png");
    /// ```
    pub fn url(url: impl Into<String>) -> Self {
        let url = url.into();
        Image {
            media_type: media_type_of_url(&url).unwrap_or_default().to_owned(),
            source: Source::Url(url),
        }
    }

    /// An image from its media type and base64 text (as MCP carries it).
    pub fn from_base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        Image {
            media_type: media_type.into(),
            source: Source::Base64(data.into()),
        }
    }
}

/// The media type a URL's extension names.
fn media_type_of_url(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        _ => return None,
    })
}

/// An audio clip a tool returns (WAV, MP3, Ogg or FLAC bytes).
///
/// Of the four built-in providers, only Gemini and OpenAI Chat (WAV and MP3) take audio from a
/// tool; the others get a line of prose saying it was there.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Audio {
    /// `audio/wav`, `audio/mpeg`, `audio/ogg` or `audio/flac`.
    pub media_type: String,
    /// The bytes, in standard base64.
    pub data: String,
}

impl Audio {
    /// A clip of `media_type` from its bytes.
    pub fn new(media_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
        Audio {
            media_type: media_type.into(),
            data: base64::encode(bytes.as_ref()),
        }
    }

    /// A WAV clip.
    pub fn wav(bytes: impl AsRef<[u8]>) -> Self {
        Audio::new("audio/wav", bytes)
    }

    /// An MP3 clip.
    pub fn mp3(bytes: impl AsRef<[u8]>) -> Self {
        Audio::new("audio/mpeg", bytes)
    }

    /// A clip from its media type and base64 text (as MCP carries it).
    pub fn from_base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        Audio {
            media_type: media_type.into(),
            data: data.into(),
        }
    }
}

/// The file name a PDF without a title is sent under, where a wire or a peer needs one.
pub(crate) const UNTITLED_DOCUMENT: &str = "document.pdf";

/// A document a tool returns: a PDF, as bytes or at a URL.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Document {
    /// `application/pdf`.
    pub media_type: String,
    /// The bytes or the URL.
    pub source: Source,
    /// A title for the document (a file name), where the wire has a place for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Document {
    /// A PDF from its bytes.
    pub fn pdf(bytes: impl AsRef<[u8]>) -> Self {
        Document {
            media_type: "application/pdf".into(),
            source: Source::Base64(base64::encode(bytes.as_ref())),
            title: None,
        }
    }

    /// A PDF at a URL, which the provider fetches.
    pub fn url(url: impl Into<String>) -> Self {
        Document {
            media_type: "application/pdf".into(),
            source: Source::Url(url.into()),
            title: None,
        }
    }

    /// The document with a title (a file name such as `report.pdf`).
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// A link to a resource: its URI and name, for the model to mention or the application to read.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its media type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
}

impl ResourceLink {
    /// A link to `uri`, called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            media_type: None,
        }
    }

    /// The link with a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The link with a media type.
    pub fn with_media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }
}

/// A resource's contents, embedded in the answer: text, or bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Resource {
    /// The resource's URI.
    pub uri: String,
    /// Its media type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Its contents.
    pub body: ResourceBody,
}

impl Resource {
    /// A text resource.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            media_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// A binary resource from its bytes.
    pub fn blob(
        uri: impl Into<String>,
        media_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Resource {
            uri: uri.into(),
            media_type: Some(media_type.into()),
            body: ResourceBody::Blob(base64::encode(bytes.as_ref())),
        }
    }

    /// The resource with a media type.
    pub fn with_media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }
}

/// What an embedded [`Resource`] holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes, in standard base64.
    Blob(String),
}

/// The content beside one [`ToolResult`](crate::ToolResult): the id of the call it answers and
/// the parts, in order. It travels as [`Part::ResultContent`](crate::Part::ResultContent), right
/// after the result in the same tool message.
///
/// ```
/// use skyl::{Content, Message, Part, Role, ToolResult, content::{Image, ResultContent}};
///
/// let answer = Message {
///     role: Role::Tool,
///     parts: vec![
///         Part::ToolResult(ToolResult::success("call_1", "The chart of the week.")),
///         Part::ResultContent(ResultContent::new("call_1", vec![Image::png(b"\x89PNG\r\n\x1a\n").into()])),
///     ],
/// };
/// assert_eq!(answer.result_content("call_1").map(|c| c.content.len()), Some(1));
/// ```
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultContent {
    /// The [`ToolCall::id`](crate::ToolCall::id) of the call whose result this content belongs to.
    pub call_id: String,
    /// The parts, in order.
    pub content: Vec<Content>,
}

impl ResultContent {
    /// The content of the result of `call_id`.
    pub fn new(call_id: impl Into<String>, content: Vec<Content>) -> Self {
        ResultContent {
            call_id: call_id.into(),
            content,
        }
    }
}

/// `data:{media_type};base64,{data}`, the URL form OpenAI's wires take bytes in.
pub(crate) fn data_url(media_type: &str, data: &str) -> String {
    format!("data:{media_type};base64,{data}")
}

macro_rules! into_content {
    ($($ty:ident => $variant:ident),*) => {$(
        impl From<$ty> for Content {
            fn from(part: $ty) -> Self {
                Content::$variant(part)
            }
        }
    )*};
}

into_content!(Image => Image, Audio => Audio, Document => Document, ResourceLink => ResourceLink, Resource => Resource);

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_owned())
    }
}

impl fmt::Display for Source {
    /// The URL, or `base64` and the length of the data, never the data itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Url(url) => f.write_str(url),
            Source::Base64(data) => write!(f, "{} bytes", base64::decoded_len(data)),
        }
    }
}

/// The line a reader of text gets for a part of a tool's content: the text itself, a text
/// resource under its URI, JSON as JSON, and a bracketed line saying what any other part is.
pub(crate) fn line(part: &Content) -> String {
    match part {
        Content::Text(text) => text.clone(),
        Content::Json(value) => value.to_string(),
        Content::Resource(Resource {
            uri,
            body: ResourceBody::Text(text),
            ..
        }) => format!("[resource {uri}]\n{text}"),
        other => format!("[{}]", what(other)),
    }
}

/// What a part is, in a few words: "an image (image/png, 1204 bytes)", "a resource link
/// file:///notes.md: notes.md (text/markdown; the notes)".
pub(crate) fn what(part: &Content) -> String {
    let source = |source: &Source, media_type: &str| match source {
        Source::Base64(data) => format!("({media_type}, {} bytes)", base64::decoded_len(data)),
        Source::Url(url) => format!("at {url}"),
    };
    match part {
        Content::Text(text) => format!("text ({} bytes)", text.len()),
        Content::Json(_) => "structured JSON".to_owned(),
        Content::Image(image) => format!("an image {}", source(&image.source, &image.media_type)),
        Content::Audio(audio) => format!(
            "audio ({}, {} bytes)",
            audio.media_type,
            base64::decoded_len(&audio.data)
        ),
        Content::Document(document) => {
            let title = document
                .title
                .as_deref()
                .map(|title| format!(" \"{title}\""))
                .unwrap_or_default();
            format!(
                "a document{title} {}",
                source(&document.source, &document.media_type)
            )
        }
        Content::ResourceLink(link) => {
            let mut text = format!("a resource link {}: {}", link.uri, link.name);
            // The media type tells a model whether the link is worth reading, and as what.
            match (&link.media_type, &link.description) {
                (Some(media_type), Some(description)) => {
                    let _ = write!(text, " ({media_type}; {description})");
                }
                (Some(media_type), None) => {
                    let _ = write!(text, " ({media_type})");
                }
                (None, Some(description)) => {
                    let _ = write!(text, " ({description})");
                }
                (None, None) => {}
            }
            text
        }
        Content::Resource(resource) => match &resource.body {
            ResourceBody::Text(text) => format!(
                "the resource {} ({} bytes of text)",
                resource.uri,
                text.len()
            ),
            ResourceBody::Blob(blob) => format!(
                "the resource {} ({}, {} bytes)",
                resource.uri,
                resource.media_type.as_deref().unwrap_or("binary"),
                base64::decoded_len(blob)
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Looks;
    use serde_json::json;

    #[test]
    fn parts_serialize_tagged_by_kind_and_round_trip() {
        let parts = vec![
            Content::text("hi"),
            Image::png([0x89, b'P']).into(),
            Image::url("https://example.com/a.JPG?x=1").into(),
            Audio::wav(b"RIFF").into(),
            Document::pdf(b"%PDF-").with_title("a.pdf").into(),
            ResourceLink::new("file:///a.md", "a.md")
                .with_description("notes")
                .into(),
            Resource::text("file:///b.txt", "inside b").into(),
            Resource::blob("file:///c.bin", "application/octet-stream", [0u8, 1]).into(),
            Content::json(json!({"n": 1})),
        ];
        let saved = serde_json::to_value(&parts).unwrap();
        assert_eq!(
            saved,
            json!([
                {"text": "hi"},
                {"image": {"media_type": "image/png", "source": {"base64": "iVA="}}},
                {"image": {"media_type": "image/jpeg", "source": {"url": "https://example.com/a.JPG?x=1"}}},
                {"audio": {"media_type": "audio/wav", "data": "UklGRg=="}},
                {"document": {"media_type": "application/pdf", "source": {"base64": "JVBERi0="}, "title": "a.pdf"}},
                {"resource_link": {"uri": "file:///a.md", "name": "a.md", "description": "notes"}},
                {"resource": {"uri": "file:///b.txt", "body": {"text": "inside b"}}},
                {"resource": {"uri": "file:///c.bin", "media_type": "application/octet-stream", "body": {"blob": "AAE="}}},
                {"json": {"n": 1}}
            ])
        );
        let back: Vec<Content> = serde_json::from_value(saved).unwrap();
        assert_eq!(back, parts);
        assert_eq!(parts[1].byte_len(), Some(2));
        assert_eq!(parts[2].byte_len(), None);
        assert_eq!(Image::url("https://example.com/chart").media_type, "");
    }

    #[test]
    fn a_resource_link_reads_with_its_media_type_and_description_when_known() {
        let link = ResourceLink::new("file:///data.csv", "data.csv");
        let lines: Vec<String> = [
            link.clone(),
            link.clone().with_media_type("text/csv"),
            link.clone().with_description("the rows"),
            link.with_media_type("text/csv")
                .with_description("the rows"),
        ]
        .into_iter()
        .map(|link| line(&link.into()))
        .collect();
        assert_eq!(
            lines,
            [
                "[a resource link file:///data.csv: data.csv]",
                "[a resource link file:///data.csv: data.csv (text/csv)]",
                "[a resource link file:///data.csv: data.csv (the rows)]",
                "[a resource link file:///data.csv: data.csv (text/csv; the rows)]",
            ]
        );
    }

    #[test]
    fn media_is_checked_against_its_type() {
        assert_eq!(
            Content::from(Image::png(b"\x89PNG\r\n\x1a\n\0")).check_media(),
            Ok(())
        );
        assert_eq!(
            Content::from(Image::png(b"GIF89a")).check_media(),
            Err(Mismatch::Bytes(Looks::Format("a GIF")))
        );
        assert_eq!(
            Content::from(Image::new("image/bmp", b"BM")).check_media(),
            Err(Mismatch::Unsupported)
        );
        assert_eq!(
            Content::from(Image::from_base64("image/png", "not base64!")).check_media(),
            Err(Mismatch::NotBase64)
        );
        assert_eq!(
            Content::from(Image::url("https://x/y.png")).check_media(),
            Ok(())
        );
        assert_eq!(
            Content::from(Document::pdf(b"%PDF-1.4")).check_media(),
            Ok(())
        );
        assert_eq!(Content::text("x").check_media(), Ok(()));
    }
}
