//! A type as the generated code writes it: outside a `#[tools]` block, where a method's `Self`
//! means nothing, `Self` becomes the block's type.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::Type;

use crate::ast::{Place, Tool};

/// `ty` as the tool's generated code names it: as written for a free function, with `Self`
/// replaced by the block's type for a method.
pub(super) fn written(tool: &Tool<'_>, ty: &Type) -> TokenStream {
    match tool.place {
        Place::Free => ty.to_token_stream(),
        Place::Method { self_ty, .. } => replace_self(ty.to_token_stream(), self_ty),
    }
}

/// `tokens` with every `Self` replaced by `self_ty` (as `<self_ty>` before `::`, where a path
/// needs it).
fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    let mut out = TokenStream::new();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Ident(ident) if ident == "Self" => {
                if matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':') {
                    out.extend(quote!(<#self_ty>));
                } else {
                    self_ty.to_tokens(&mut out);
                }
            }
            TokenTree::Group(group) => {
                let mut replaced =
                    Group::new(group.delimiter(), replace_self(group.stream(), self_ty));
                replaced.set_span(group.span());
                out.extend([TokenTree::Group(replaced)]);
            }
            other => out.extend([other]),
        }
    }
    out
}
