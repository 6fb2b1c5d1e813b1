//! Procedural macros for [skyl](https://docs.rs/skyl). Use them through `skyl`, which re-exports
//! them and documents them: see `skyl::tool`.
//!
//! The crate is laid out like `serde_derive` and `thiserror-impl`: `ast` (the parsed tool), `attr`
//! (`#[tool(...)]` options), `docs` (doc comments to descriptions), `valid` (the rules, with
//! spans), `expand` (code generation, in steps: the definition, the reading of arguments, the
//! call and the result), `tools` (`#[tools]` on an `impl` block, whose methods
//! are expanded as `expand` does a function) and `fallback` (what is emitted when a rule is
//! broken). Two helpers keep the macros quick: `opaque` parses a function or an `impl` block
//! without its bodies, and `known` names the parameter types that need no deferred bound.

mod ast;
mod attr;
mod docs;
mod expand;
mod fallback;
mod known;
mod opaque;
mod served;
mod tools;
mod valid;

use proc_macro::TokenStream;

#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    tools::tools(args.into(), input.into()).into()
}

#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    served::prompt(args.into(), input.into()).into()
}

#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    served::resource(args.into(), input.into()).into()
}

#[proc_macro_attribute]
pub fn served(args: TokenStream, input: TokenStream) -> TokenStream {
    served::served(args.into(), input.into()).into()
}
