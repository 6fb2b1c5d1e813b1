//! `#[prompt]` and `#[resource]`: a function as a prompt or a resource an MCP server offers
//! beside its tools. Laid out as `#[tool]` is: `ast` (the parsed function and its options),
//! `valid` (the rules, with spans), `expand` (the struct and its `ServedPrompt` or
//! `ServedResource` impl, or the error, the function and a placeholder); `block` does the same
//! for the methods of a `#[served]` impl block.

mod ast;
mod block;
mod expand;
mod valid;

use proc_macro2::TokenStream;

/// What the attribute makes of the function.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Prompt,
    Resource,
}

impl Kind {
    /// The attribute's name, as messages write it.
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Kind::Prompt => "`#[prompt]`",
            Kind::Resource => "`#[resource]`",
        }
    }
}

pub(crate) fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::served(Kind::Prompt, args, input)
}

pub(crate) fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::served(Kind::Resource, args, input)
}

pub(crate) fn served(args: TokenStream, input: TokenStream) -> TokenStream {
    block::served(args, input)
}
