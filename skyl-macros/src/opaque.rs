//! Functions parsed without their bodies.
//!
//! `#[tool]` and `#[tools]` read attributes and signatures, never a function's body, and parsing a
//! long body into syntax would be most of the macros' work. So a body is swapped for a
//! placeholder before syn parses the item, and put back afterwards as the tokens it was written
//! as; the compiler then reports whatever is wrong inside it, where it is.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::token::Brace;
use syn::{Block, Expr, ImplItem, Item, ItemFn, ItemImpl, Stmt};

/// `input` as a function whose body is kept as tokens, or `None` when it is not a function.
pub(crate) fn function(input: &TokenStream) -> Option<ItemFn> {
    let (mut tokens, body) = split_last_braces(input)?;
    tokens.push(TokenTree::Group(Group::new(
        Delimiter::Brace,
        TokenStream::new(),
    )));
    let mut function: ItemFn = syn::parse2(tokens.into_iter().collect()).ok()?;
    put_back(&mut function.block, &body);
    Some(function)
}

/// `input` as an `impl` block whose methods' bodies are kept as tokens, or `None` when it is not
/// an `impl` block or its bodies cannot be told apart from the rest by tokens alone (then it is
/// parsed whole).
///
/// In the block's tokens, the body of a method is the first brace group after `fn` and a name.
/// Each is replaced by a block holding a marker, `{ __skyl_body_3 }`; after parsing, every
/// method's block must be exactly its own marker, in order, or the guess was wrong (a brace
/// group inside a signature, such as a const generic argument) and the block is parsed whole.
pub(crate) fn impl_block(input: &TokenStream) -> Option<ItemImpl> {
    let (mut tokens, body) = split_last_braces(input)?;
    let mut bodies = Vec::new();
    let mut items = Vec::new();
    // Where the scan is: just after `fn`, or after `fn name` and before its body.
    let (mut after_fn, mut in_signature) = (false, false);
    for token in body.stream() {
        match &token {
            TokenTree::Group(group) if in_signature && group.delimiter() == Delimiter::Brace => {
                let marker = marker(bodies.len());
                bodies.push(group.clone());
                items.push(TokenTree::Group(Group::new(
                    Delimiter::Brace,
                    quote!(#marker),
                )));
                (after_fn, in_signature) = (false, false);
                continue;
            }
            TokenTree::Ident(ident) if ident == "fn" => after_fn = true,
            TokenTree::Ident(_) if after_fn => (after_fn, in_signature) = (false, true),
            TokenTree::Punct(punct) if punct.as_char() == ';' => {
                (after_fn, in_signature) = (false, false);
            }
            _ => after_fn = false,
        }
        items.push(token);
    }
    let mut stripped = Group::new(Delimiter::Brace, items.into_iter().collect());
    stripped.set_span(body.span());
    tokens.push(TokenTree::Group(stripped));
    let mut block: ItemImpl = syn::parse2(tokens.into_iter().collect()).ok()?;

    let mut next = 0;
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else {
            continue;
        };
        let original = bodies.get(next)?;
        if !holds_marker(&method.block, &marker(next)) {
            return None;
        }
        put_back(&mut method.block, original);
        next += 1;
    }
    (next == bodies.len()).then_some(block)
}

/// The tokens of `input` before its last group, and that group when it is in braces: a
/// function's body, or an `impl` block's items.
fn split_last_braces(input: &TokenStream) -> Option<(Vec<TokenTree>, Group)> {
    let mut tokens: Vec<TokenTree> = input.clone().into_iter().collect();
    match tokens.pop()? {
        TokenTree::Group(body) if body.delimiter() == Delimiter::Brace => Some((tokens, body)),
        _ => None,
    }
}

fn marker(index: usize) -> Ident {
    format_ident!("__skyl_body_{index}")
}

fn holds_marker(block: &Block, marker: &Ident) -> bool {
    matches!(
        &block.stmts[..],
        [Stmt::Expr(Expr::Path(path), None)] if path.qself.is_none() && path.path.is_ident(marker)
    )
}

/// Makes `block` the body as it was written.
fn put_back(block: &mut Block, body: &Group) {
    block.brace_token = Brace {
        span: body.delim_span(),
    };
    block.stmts = vec![Stmt::Item(Item::Verbatim(body.stream()))];
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn same(parsed: impl ToTokens, whole: impl ToTokens) {
        assert_eq!(
            parsed.into_token_stream().to_string(),
            whole.into_token_stream().to_string()
        );
    }

    #[test]
    fn a_function_prints_back_as_it_was_written() {
        let input = quote! {
            /// Docs.
            #[inline]
            pub async fn f<T: Into<u8>>(x: T) -> Result<u8, ()> where T: Copy {
                let y = { x.into() };
                Ok(y)
            }
        };
        let parsed = function(&input).unwrap();
        same(&parsed, syn::parse2::<ItemFn>(input).unwrap());
        assert!(
            function(&quote!(
                struct S {}
            ))
            .is_none()
        );
    }

    #[test]
    fn an_impl_block_prints_back_as_it_was_written() {
        let input = quote! {
            impl<T> Notes<T> where T: Clone {
                const LIMIT: usize = { 3 };
                type Callback = fn(u8) -> u8;
                /// Searches.
                #[tool]
                pub fn search(&self, query: String) -> Vec<String> {
                    if query.is_empty() { return vec![]; }
                    vec![query]
                }
                fn helper() {}
                async fn later(&self) -> u8 { 1 }
            }
        };
        let parsed = impl_block(&input).unwrap();
        same(&parsed, syn::parse2::<ItemImpl>(input).unwrap());
    }

    #[test]
    fn a_brace_group_in_a_signature_means_the_block_is_parsed_whole() {
        let input = quote! {
            impl Grid {
                fn cells(&self) -> Cells<{ 4 }> { Cells::new() }
            }
        };
        assert!(impl_block(&input).is_none());
        assert!(
            impl_block(&quote!(
                fn f() {}
            ))
            .is_none()
        );
    }
}
