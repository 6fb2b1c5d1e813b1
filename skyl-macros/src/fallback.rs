//! What `#[tool]` and `#[tools]` emit when the code cannot be a tool: the error, the item as
//! written (so calls to it still compile), and a placeholder that implements `Tool` (so that
//! `Toolbox::with(GetWeather)` elsewhere in the crate compiles) or `ToolSet` (for
//! `Toolbox::with_set`), in the manner of thiserror's fallback. The user sees the one error that
//! matters, not a cascade of unresolved names.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{FnArg, Item, ItemFn, ItemImpl};

use crate::ast::{self, struct_ident, unraw};
use crate::expand::unit_struct::{module_ident, unit_struct};
use crate::valid;

/// The error, the function and a placeholder tool.
pub(crate) fn expand(original: &ItemFn, emitted: &ItemFn, error: syn::Error) -> TokenStream {
    let mut tokens = error.into_compile_error();
    emitted.to_tokens(&mut tokens);
    // A method (it takes `self`) sits in an `impl` block, where a struct cannot be declared.
    let is_method = matches!(original.sig.inputs.first(), Some(FnArg::Receiver(_)));
    let fn_ident = &original.sig.ident;
    let struct_ident = struct_ident(fn_ident);
    // The struct's name is the function's own, or a type's that the signature uses.
    let clashes = *fn_ident == struct_ident
        || valid::find_ident(&original.sig.inputs, &struct_ident).is_some()
        || valid::find_ident(&original.sig.output, &struct_ident).is_some();
    if is_method || clashes {
        return tokens;
    }
    tokens.extend(unit_struct(
        &original.attrs,
        &original.vis,
        fn_ident,
        &struct_ident,
        &unraw(fn_ident),
    ));
    let cfgs = ast::cfgs(&original.attrs);
    let module = module_ident(fn_ident);
    tokens.extend(placeholder_tool(
        quote!(#(#cfgs)* #[allow(unreachable_code, deprecated)]),
        quote!(#module::#struct_ident),
    ));
    tokens
}

/// A `Tool` impl for `tool_ty` that is never called, under `attrs`: it stands where the real one
/// cannot be (the tool has an error, or is compiled out) so that uses of the type still compile.
pub(crate) fn placeholder_tool(attrs: TokenStream, tool_ty: TokenStream) -> TokenStream {
    quote! {
        #attrs
        impl<__S> ::skyl::Tool<__S> for #tool_ty
        where
            __S: ::core::marker::Send + ::core::marker::Sync + 'static,
        {
            fn definition(&self) -> &::skyl::ToolDefinition {
                ::core::unreachable!()
            }

            fn call<'__a>(
                &'__a self,
                _: &'__a ::skyl::__private::serde_json::Value,
                _: &'__a __S,
            ) -> ::skyl::tool::ToolFuture<'__a> {
                ::core::unreachable!()
            }
        }
    }
}

/// The error, the `impl` block as written (minus what only `#[tools]` understands) and, when
/// the block is an inherent impl of a plain type, a placeholder tool set.
pub(crate) fn expand_set(
    original: &ItemImpl,
    emitted: &ItemImpl,
    error: syn::Error,
) -> TokenStream {
    let mut tokens = error.into_compile_error();
    emitted.to_tokens(&mut tokens);
    if original.trait_.is_some() || !original.generics.params.is_empty() {
        return tokens;
    }
    let self_ty = &original.self_ty;
    let cfgs = ast::cfgs(&original.attrs);
    tokens.extend(quote! {
        #(#cfgs)*
        #[allow(unreachable_code, deprecated)]
        impl<__S> ::skyl::tool::ToolSet<__S> for #self_ty
        where
            <#self_ty as ::skyl::__private::Defer<__S>>::This:
                ::core::marker::Send + ::core::marker::Sync + 'static,
        {
            fn visit_tools(
                self: ::std::sync::Arc<Self>,
                _: &mut impl ::skyl::tool::ToolVisitor<__S>,
            ) {
                ::core::unreachable!()
            }
        }
    });
    tokens
}

/// `#[tool]` on something that is not a free function.
pub(crate) fn not_a_function(item: Option<&Item>, input: TokenStream) -> TokenStream {
    let (span_tokens, what) = match item {
        Some(Item::Struct(item)) => (item.ident.to_token_stream(), "a struct"),
        Some(Item::Enum(item)) => (item.ident.to_token_stream(), "an enum"),
        Some(Item::Impl(item)) => (item.impl_token.to_token_stream(), "an `impl` block"),
        Some(Item::Trait(item)) => (item.ident.to_token_stream(), "a trait"),
        Some(Item::Mod(item)) => (item.ident.to_token_stream(), "a module"),
        Some(Item::Const(item)) => (item.ident.to_token_stream(), "a constant"),
        Some(Item::Static(item)) => (item.ident.to_token_stream(), "a static"),
        Some(other) => (first_token(other.to_token_stream()), "this item"),
        None => (first_token(input.clone()), "this item"),
    };
    let methods = if matches!(item, Some(Item::Impl(_))) {
        "; to make the methods of an `impl` block tools, write `#[skyl::tools]` on the block and \
         `#[tool]` on each method"
    } else {
        ""
    };
    let error = syn::Error::new_spanned(
        span_tokens,
        format!(
            "`#[tool]` goes on a function with a body, not on {what}; write \
             `fn name(arguments) -> Output {{ ... }}` with a doc comment, and `#[tool]` generates \
             the struct that implements `skyl::Tool`{methods}"
        ),
    );
    let mut tokens = error.into_compile_error();
    tokens.extend(input);
    tokens
}

pub(crate) fn first_token(tokens: TokenStream) -> TokenStream {
    // Skip outer attributes (`#` and `[...]`) and visibility to find the item's keyword.
    let tokens: Vec<_> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == '#' => i += 2,
            proc_macro2::TokenTree::Ident(ident) if ident == "pub" => {
                i += 1;
                if matches!(tokens.get(i), Some(proc_macro2::TokenTree::Group(_))) {
                    i += 1;
                }
            }
            token => return token.to_token_stream(),
        }
    }
    TokenStream::new()
}
