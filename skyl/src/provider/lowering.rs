//! Putting a result's content ([`ResultContent`]) on a wire: which parts a provider takes as
//! they are, and the line of text for each part it does not.
//!
//! The rule every adapter keeps is that nothing is dropped in silence: a part a provider cannot
//! take is lowered to a line of prose saying what it was, that it was not sent and why
//! ([`prose::not_taken`]), never sent to be refused with a 400. [`ResultLowering`] is that rule
//! written once, for the built-in adapters and for a provider of your own.

use std::borrow::Cow;

use serde_json::Value;

use crate::content::{
    self, Audio, Content, Document, Image, Resource, ResourceBody, ResultContent, Source,
};
use crate::message::{Message, Provider, ToolResult};
use crate::prose;

/// What a provider takes of one kind of media (images, documents or audio) in a tool's answer,
/// and why it does not take the rest: a rule of a [`ResultLowering`].
///
/// Each `why` finishes the sentence "… which was not sent: {provider} {why}.", so it starts
/// with a verb: `"takes no audio in a tool message"`, `"takes images only as bytes, not at a
/// URL"`.
///
/// ```
/// use skyl::provider::author::MediaRule;
///
/// // PNG and JPEG only, given as bytes, of at most 1 MiB of base64.
/// const IMAGES: MediaRule = MediaRule::only(&["image/png", "image/jpeg"], "takes only PNG and JPEG images")
///     .bytes_only("takes images only as bytes, not at a URL")
///     .at_most(1 << 20, "takes images of at most 1 MiB");
/// # let _ = IMAGES;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaRule {
    taken: bool,
    /// `None`: any media type.
    media_types: Option<&'static [&'static str]>,
    /// Why a part is not taken at all, or not of its media type.
    refused: &'static str,
    /// Why a part at a URL is not taken, when URLs are not.
    url_refused: Option<&'static str>,
    /// The most base64 text of one part, and why a larger one is not taken.
    max_base64: Option<(usize, &'static str)>,
}

impl MediaRule {
    /// Every part of this kind, of any media type, as bytes or at a URL.
    pub const fn any() -> Self {
        MediaRule {
            taken: true,
            media_types: None,
            refused: "",
            url_refused: None,
            max_base64: None,
        }
    }

    /// Parts of these media types only; a part of another type is not sent, and its line says
    /// `why`.
    pub const fn only(media_types: &'static [&'static str], why: &'static str) -> Self {
        MediaRule {
            taken: true,
            media_types: Some(media_types),
            refused: why,
            url_refused: None,
            max_base64: None,
        }
    }

    /// No part of this kind: each one's line says `why`.
    pub const fn none(why: &'static str) -> Self {
        MediaRule {
            taken: false,
            media_types: None,
            refused: why,
            url_refused: None,
            max_base64: None,
        }
    }

    /// The rule, taking parts given as bytes only: a part at a URL is not sent, and its line
    /// says `why`.
    pub const fn bytes_only(mut self, why: &'static str) -> Self {
        self.url_refused = Some(why);
        self
    }

    /// The rule, taking a part of at most `base64_len` characters of base64 only: a larger one
    /// is not sent, and its line says `why`.
    pub const fn at_most(mut self, base64_len: usize, why: &'static str) -> Self {
        self.max_base64 = Some((base64_len, why));
        self
    }

    /// Why a part of `media_type` is not taken, or `None` when it is; `data` is its base64, or
    /// `None` for a part at a URL.
    fn refusal(&self, media_type: &str, data: Option<&str>) -> Option<&'static str> {
        if !self.taken {
            return Some(self.refused);
        }
        if let Some(types) = self.media_types
            && !types.contains(&media_type)
        {
            return Some(self.refused);
        }
        match (data, self.url_refused, self.max_base64) {
            (None, Some(why), _) => Some(why),
            (Some(data), _, Some((max, why))) if data.len() > max => Some(why),
            _ => None,
        }
    }
}

/// How a provider puts the content beside a tool's result on its wire: which images, documents
/// and audio it takes, and, for every other part, the line of text the built-in adapters write.
///
/// [`lower`](Self::lower) walks a result's [`ResultContent`] in order and gives each part as a
/// [`Lowered`]: a medium the provider takes, or a line of text. What it does, the built-in
/// adapters do too (they are written on it):
///
/// - Structured JSON that the result's prose already is, and empty text, are left out: the
///   model reads each value once.
/// - Text, a text resource, a resource link and JSON are lines ([`Content`] has their form).
/// - An embedded blob [`Resource`] (how MCP carries a PDF, since it has no document block, and
///   how any server may send an image or a clip) whose media type is a PDF's, an image's
///   (PNG, JPEG, GIF, WebP) or audio's (WAV, MP3, Ogg, FLAC), and whose bytes are that type's,
///   is the [`Document`], [`Image`] or [`Audio`] it is; a document keeps the name at the end
///   of its URI as its title when that name ends in `.pdf`.
/// - An image, document or audio clip the provider's [`MediaRule`] takes is a medium; one it
///   does not take is a line saying what the part was, that it was not sent and why. So is a
///   blob resource of any other type, or whose bytes are not its type's.
///
/// The rules are constants, so a provider writes its lowering once:
///
/// ```
/// use std::borrow::Cow;
/// use skyl::provider::{Provider, ProviderInfo, author::{Lowered, MediaRule, ResultLowering}};
/// use skyl::{Content, ToolResult, content::{Document, Image, Resource, ResultContent}};
///
/// const PROVIDER: Provider = Provider::new(&ProviderInfo::new("example", "Example"));
/// /// Images as bytes in a tool message; no documents, no audio.
/// const LOWERING: ResultLowering = ResultLowering::new(PROVIDER)
///     .images(MediaRule::only(&["image/png", "image/jpeg"], "takes only PNG and JPEG images")
///         .bytes_only("takes images only as bytes, not at a URL"))
///     .documents(MediaRule::none("takes no documents in a tool message"));
///
/// let result = ToolResult::success("call_1", "The chart and the report.");
/// let png: Content = Image::png(b"\x89PNG\r\n\x1a\n").into();
/// let content = ResultContent::new("call_1", vec![
///     png.clone(),
///     Document::pdf(b"%PDF-1.7").with_title("q3.pdf").into(),
///     // A PNG as an MCP server may send it: a blob resource. It is the image it is.
///     Resource::blob("file:///chart.png", "image/png", b"\x89PNG\r\n\x1a\n").into(),
/// ]);
/// let lowered = LOWERING.lower(&result, &content);
/// assert_eq!(lowered, [
///     Lowered::Media(Cow::Borrowed(&png)),
///     Lowered::Line("[The tool also returned a document \"q3.pdf\" (application/pdf, 8 bytes), which was not sent: Example takes no documents in a tool message. If it matters, tell the user it could not be shown.]".into()),
///     Lowered::Media(Cow::Owned(png.clone())),
/// ]);
///
/// // A wire whose tool message is text and a list of images: the prose and the lines, and the media.
/// let (text, media) = LOWERING.split(result.content.clone(), &result, &content);
/// assert!(text.starts_with("The chart and the report.\n[The tool also returned a document"));
/// assert_eq!(media.len(), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultLowering {
    provider: Provider,
    images: MediaRule,
    documents: MediaRule,
    audio: MediaRule,
}

impl ResultLowering {
    /// The lowering of a provider that takes no media in a tool's answer: each image, document
    /// and audio clip is a line saying it "takes no images (documents, audio) in a tool result".
    /// Say what it takes with [`images`](Self::images), [`documents`](Self::documents) and
    /// [`audio`](Self::audio).
    pub const fn new(provider: Provider) -> Self {
        ResultLowering {
            provider,
            images: MediaRule::none("takes no images in a tool result"),
            documents: MediaRule::none("takes no documents in a tool result"),
            audio: MediaRule::none("takes no audio in a tool result"),
        }
    }

    /// What the provider takes of images.
    pub const fn images(mut self, rule: MediaRule) -> Self {
        self.images = rule;
        self
    }

    /// What the provider takes of documents (PDFs).
    pub const fn documents(mut self, rule: MediaRule) -> Self {
        self.documents = rule;
        self
    }

    /// What the provider takes of audio.
    pub const fn audio(mut self, rule: MediaRule) -> Self {
        self.audio = rule;
        self
    }

    /// The parts of `content`, the content beside `result`, in order: each a medium this
    /// provider takes or a line of text.
    pub fn lower<'c>(&self, result: &ToolResult, content: &'c ResultContent) -> Vec<Lowered<'c>> {
        content
            .content
            .iter()
            .filter(|part| sent(&result.content, part))
            .map(|part| self.lower_part(part))
            .collect()
    }

    /// `text` (a result's prose, as the wire writes it) with each line of
    /// [`lower`](Self::lower) after it, one a line, and the media apart: for a wire whose tool
    /// message holds text and media in fields of their own.
    pub fn split<'c>(
        &self,
        mut text: String,
        result: &ToolResult,
        content: &'c ResultContent,
    ) -> (String, Vec<Cow<'c, Content>>) {
        let mut media = Vec::new();
        for lowered in self.lower(result, content) {
            match lowered {
                Lowered::Media(part) => media.push(part),
                Lowered::Line(line) => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&line);
                }
            }
        }
        (text, media)
    }

    fn lower_part<'c>(&self, part: &'c Content) -> Lowered<'c> {
        let medium = match medium(part) {
            Ok(Some(medium)) => medium,
            Ok(None) => return Lowered::Line(content::line(part)),
            Err(Unsent::Type(media_type)) => {
                return Lowered::Line(prose::blob_not_taken(part, self.provider, media_type));
            }
            Err(Unsent::Bytes(media_type)) => {
                return Lowered::Line(prose::mislabelled(part, media_type));
            }
        };
        let (rule, media_type, data) = match &*medium {
            Content::Image(image) => (&self.images, &image.media_type, base64_of(&image.source)),
            Content::Document(document) => (
                &self.documents,
                &document.media_type,
                base64_of(&document.source),
            ),
            Content::Audio(audio) => (&self.audio, &audio.media_type, Some(&*audio.data)),
            _ => return Lowered::Line(content::line(part)),
        };
        match rule.refusal(media_type, data) {
            Some(why) => Lowered::Line(prose::not_taken(part, self.provider, why)),
            None => Lowered::Media(medium),
        }
    }
}

/// One part of a result's content as a [`ResultLowering`] lowers it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Lowered<'c> {
    /// An [`Image`], a [`Document`] or [`Audio`] the provider takes: the part itself, or the
    /// one a blob resource is.
    Media(Cow<'c, Content>),
    /// A line of text: a text part, a resource or link said in words, JSON, or the sentence
    /// saying a part was not sent and why.
    Line(String),
}

/// Why a blob resource is no medium.
enum Unsent<'c> {
    /// Its media type is none a model takes as media (`None`: it has none).
    Type(Option<&'c str>),
    /// Its bytes are not what its media type says.
    Bytes(&'c str),
}

/// `part` as the image, document or audio clip it is (a blob resource of such a type made
/// into one), `None` for a part that is text to every wire, or why a blob resource is none.
fn medium(part: &Content) -> Result<Option<Cow<'_, Content>>, Unsent<'_>> {
    let (uri, media_type, data) = match part {
        Content::Image(_) | Content::Audio(_) | Content::Document(_) => {
            return Ok(Some(Cow::Borrowed(part)));
        }
        Content::Resource(Resource {
            uri,
            media_type,
            body: ResourceBody::Blob(data),
        }) => (uri, media_type.as_deref().unwrap_or(""), data),
        _ => return Ok(None),
    };
    let kind = match media_type {
        "image/png" | "image/jpeg" | "image/gif" | "image/webp" => Kind::Image,
        "application/pdf" => Kind::Document,
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/mpeg" | "audio/mp3" | "audio/ogg"
        | "audio/flac" => Kind::Audio,
        "" => return Err(Unsent::Type(None)),
        other => return Err(Unsent::Type(Some(other))),
    };
    let label = media_type;
    let media_type = label.to_owned();
    let source = Source::Base64(data.clone());
    let medium = match kind {
        Kind::Image => Content::Image(Image { media_type, source }),
        Kind::Document => Content::Document(Document {
            media_type,
            source,
            title: pdf_name(uri).map(str::to_owned),
        }),
        Kind::Audio => Content::Audio(Audio {
            media_type,
            data: data.clone(),
        }),
    };
    // The check the toolbox makes of a tool's own media: what is sent is what it says it is.
    match medium.check_media() {
        Ok(()) => Ok(Some(Cow::Owned(medium))),
        Err(_) => Err(Unsent::Bytes(label)),
    }
}

enum Kind {
    Image,
    Document,
    Audio,
}

/// The name at the end of `uri` when it is a PDF's file name (`report.pdf`), which the wires
/// that want a file name take as it is.
fn pdf_name(uri: &str) -> Option<&str> {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let name = path.rsplit('/').next()?;
    let stem = name.len().checked_sub(4)?;
    (stem > 0 && name.is_char_boundary(stem) && name[stem..].eq_ignore_ascii_case(".pdf"))
        .then_some(name)
}

fn base64_of(source: &Source) -> Option<&str> {
    match source {
        Source::Base64(data) => Some(data),
        Source::Url(_) => None,
    }
}

/// The content beside `result` in `message`, if any.
#[inline]
pub(crate) fn content_of<'m>(
    message: &'m Message,
    result: &ToolResult,
) -> Option<&'m ResultContent> {
    if message.parts.len() < 2 {
        return None;
    }
    message.result_content(&result.call_id)
}

/// Whether a part of the content beside `prose` is sent: not structured JSON that the prose
/// already is (a [`Json`](crate::Json) output is that JSON as text), so the model reads each
/// value once, and not empty text.
fn sent(prose: &str, part: &Content) -> bool {
    match part {
        Content::Json(value) => !is_json_of(prose, value),
        Content::Text(text) => !text.is_empty(),
        _ => true,
    }
}

/// Whether `text` is `value` written as JSON (in any spacing).
pub(crate) fn is_json_of(text: &str, value: &Value) -> bool {
    let text = text.trim();
    !text.is_empty() && serde_json::from_str::<Value>(text).is_ok_and(|parsed| &parsed == value)
}

/// The base64 of an image over this many bytes is more than Anthropic takes of one image
/// ("image exceeds 5 MB maximum").
pub(crate) const ANTHROPIC_MAX_IMAGE_BASE64: usize = 5 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pdfs_name_is_the_end_of_its_uri() {
        assert_eq!(pdf_name("attachment:///report.pdf"), Some("report.pdf"));
        assert_eq!(pdf_name("file:///a/b/Q3.PDF?v=2#p1"), Some("Q3.PDF"));
        assert_eq!(pdf_name("file:///a/data.bin"), None);
        assert_eq!(pdf_name("file:///a/.pdf"), None);
        assert_eq!(pdf_name("file:///a/"), None);
    }
}
