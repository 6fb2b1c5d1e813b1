//! For provider authors: the steps an adapter writes and the drivers that run them.
//!
//! A provider of your own implements [`Encoder`] and [`Decoder`] (its steps), gets
//! [`Adapter`](super::Adapter) from them with [`adapter!`], and implements [`Api`] to be reached
//! over HTTP; [`Streaming`](super::stream::Streaming) makes it stream. See [Adding a
//! provider](super#adding-a-provider) for the whole walk and `skyl-ollama` for a worked example.

pub use super::api::{Api, Framing};
pub use super::decode::{Answer, Decoder, decode_with};
pub use super::encode::{Encoder, encode_with, system_texts};
pub use super::lowering::{Lowered, MediaRule, ResultLowering};
pub use super::read::{Items, Node};
pub use crate::tool::names::NameRule;

#[doc(inline)]
pub use crate::__provider_adapter as adapter;
