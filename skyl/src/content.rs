//! What a tool result holds beside its prose: images, audio, documents, resources and structured
//! JSON, as the kinds of [`Content`].
//!
//! The design is on [`Content`], which users see: where content rides, and what
//! each provider's wire makes of each kind. A tool returns these through
//! [`ToolOutput`](crate::tool::ToolOutput); a transcript carries them beside the results as a
//! [`ResultContent`].

pub(crate) mod media;
mod signature;

// `Content` is the crate root's (one public path per name); the rest of skyl reaches it here.
pub use media::{
    Audio, Document, Image, Resource, ResourceBody, ResourceLink, ResultContent, Source,
};
pub(crate) use media::{Content, UNTITLED_DOCUMENT, data_url, line, what};
pub(crate) use signature::{Looks, Mismatch};
