//! `#[served]` on an `impl` block: each `#[prompt]` and `#[resource]` method becomes a prompt or
//! a resource that holds the instance, and the block's type implements `ServedSet`.
//!
//! ```text
//! impl Notes { fn today(&self) -> String { ... } }         // as written, minus the attributes
//! const _: () = {
//!     struct __SkylServed_today(Arc<Notes>);
//!     impl ServedResource for __SkylServed_today { /* as for a function, calling
//!                                                     `<Notes>::today(&*self.0, ...)` */ }
//!     impl ServedSet for Notes {
//!         fn prompts(self: Arc<Self>) -> Vec<Box<dyn ServedPrompt>> { vec![] }
//!         fn resources(self: Arc<Self>) -> Vec<Box<dyn ServedResource>> {
//!             vec![Box::new(__SkylServed_today(Arc::clone(&self)))]
//!         }
//!     }
//! };
//! ```

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::{ImplItem, ItemFn, ItemImpl, Meta};

use super::Kind;
use super::ast::{self, Served};
use super::expand::{strip, trait_body, trait_path};
use crate::expand::hidden;
use crate::valid::Errors;

pub(crate) fn served(args: TokenStream, input: TokenStream) -> TokenStream {
    let block = match syn::parse2::<ItemImpl>(input.clone()) {
        Ok(block) => block,
        Err(_) => {
            let at = crate::fallback::first_token(input.clone());
            let mut tokens = syn::Error::new_spanned(
                at,
                "`#[served]` goes on an `impl` block whose methods are marked `#[prompt]` or \
                 `#[resource(...)]`",
            )
            .into_compile_error();
            tokens.extend(input);
            return tokens;
        }
    };
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.push(syn::Error::new_spanned(
            &args,
            "`#[served]` takes no options",
        ));
    }
    if let Some((path, _)) = &block.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "`#[served]` goes on an inherent `impl` block, not on a trait impl",
        ));
    }
    if !block.generics.params.is_empty() || block.generics.where_clause.is_some() {
        errors.push(syn::Error::new_spanned(
            &block.generics,
            "a `#[served]` impl cannot be generic: write it for a concrete type",
        ));
    }
    let mut emitted = block.clone();
    let marked = take_marked(&mut emitted);
    if marked.is_empty() {
        errors.push(syn::Error::new_spanned(
            block.impl_token,
            "this `#[served]` impl has no `#[prompt]` or `#[resource(...)]` method; mark the \
             methods it serves, or remove `#[served]`",
        ));
    }
    let mut served = Vec::new();
    for (kind, args, function) in &marked {
        let parsed = ast::options(*kind, args.clone())
            .and_then(|options| Served::from_fn(*kind, function, options, Some(&block.self_ty)))
            .and_then(|model| model.validate().map(|()| model));
        match parsed {
            Ok(model) => served.push(model),
            Err(error) => errors.push(error),
        }
    }
    if let Some(error) = errors.0 {
        let mut tokens = error.into_compile_error();
        emitted.to_tokens(&mut tokens);
        return tokens;
    }
    expand(&block, &emitted, &served)
}

/// The methods of `emitted` marked `#[prompt]` or `#[resource(...)]`, as functions, each with its
/// attribute's kind and options; in `emitted`, those methods lose the attribute and what only the
/// attribute understands.
fn take_marked(emitted: &mut ItemImpl) -> Vec<(Kind, TokenStream, ItemFn)> {
    let mut marked: Vec<(Kind, TokenStream, ItemFn)> = Vec::new();
    for item in &mut emitted.items {
        let ImplItem::Fn(method) = item else {
            continue;
        };
        let Some(position) = method.attrs.iter().position(|attr| kind_of(attr).is_some()) else {
            continue;
        };
        let attr = method.attrs.remove(position);
        let kind = kind_of(&attr).expect("found above");
        let args = match attr.meta {
            Meta::List(list) => list.tokens,
            _ => TokenStream::new(),
        };
        let mut function = ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            modifiers: method.modifiers.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        marked.push((kind, args, function.clone()));
        strip(&mut function);
        method.attrs = function.attrs;
        method.sig = function.sig;
    }
    marked
}

/// Whether `attr` is `#[prompt]` or `#[resource(...)]` (also written with `skyl::`).
fn kind_of(attr: &syn::Attribute) -> Option<Kind> {
    let last = attr.path().segments.last()?;
    match last.ident.to_string().as_str() {
        "prompt" => Some(Kind::Prompt),
        "resource" => Some(Kind::Resource),
        _ => None,
    }
}

fn expand(block: &ItemImpl, emitted: &ItemImpl, served: &[Served<'_>]) -> TokenStream {
    let self_ty = &block.self_ty;
    let mut items = Vec::new();
    let mut prompts = Vec::new();
    let mut resources = Vec::new();
    for model in served {
        let struct_ident = format_ident!("__SkylServed_{}", model.function.sig.ident);
        let trait_path = trait_path(model.kind);
        let body = trait_body(model);
        items.push(quote! {
            struct #struct_ident(::std::sync::Arc<#self_ty>);

            #[automatically_derived]
            impl #trait_path for #struct_ident {
                #body
            }
        });
        let made = quote!(::std::boxed::Box::new(#struct_ident(::std::sync::Arc::clone(&self))));
        match model.kind {
            Kind::Prompt => prompts.push(made),
            Kind::Resource => resources.push(made),
        }
    }
    let hidden = hidden();
    quote! {
        #emitted

        #hidden
        const _: () = {
            #(#items)*

            #[automatically_derived]
            impl ::skyl::mcp::ServedSet for #self_ty {
                fn prompts(
                    self: ::std::sync::Arc<Self>,
                ) -> ::std::vec::Vec<::std::boxed::Box<dyn ::skyl::mcp::ServedPrompt>> {
                    ::std::vec![#(#prompts),*]
                }

                fn resources(
                    self: ::std::sync::Arc<Self>,
                ) -> ::std::vec::Vec<::std::boxed::Box<dyn ::skyl::mcp::ServedResource>> {
                    ::std::vec![#(#resources),*]
                }
            }
        };
    }
}
