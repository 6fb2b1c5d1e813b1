//! `#[tools]` on an `impl` block: each `#[tool]` method becomes a tool that holds the instance,
//! and the block's type implements `ToolSet`.
//!
//! ```text
//! impl Notes { fn search(&self, query: String) -> Vec<Note> { ... } }   // as written, minus
//!                                                                      // `#[tool]` and parameter
//!                                                                      // attributes
//! const _: () = {
//!     let _ = assert_tool_set_instance::<Notes>;         // Send + Sync + 'static, at `Notes`
//!     struct __SkylTool_search(Arc<Notes>);
//!     const _: () = { /* arguments struct; impl Tool for __SkylTool_search, as for a function,
//!                        calling `<Notes>::search(&*self.0, ...)` */ };
//!     impl<__S> ToolSet<__S> for Notes where __SkylTool_search: Tool<__S> /* via Defer */ {
//!         fn visit_tools(self: Arc<Self>, visitor: &mut impl ToolVisitor<__S>) {
//!             visitor.visit(__SkylTool_search(Arc::clone(&self)));
//!         }
//!     }
//! };
//! ```
//!
//! A method compiled out by `#[cfg]` keeps its (never built) struct, with a placeholder `Tool`
//! impl under the opposite `cfg`, so that the `ToolSet` impl's bounds hold either way.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ImplItem, ImplItemFn, Item, ItemImpl, Meta};

use crate::ast::{self, Tool};
use crate::expand::{hidden, strip_tool_attributes, tool_impl};
use crate::valid::Errors;
use crate::{attr, fallback, opaque, valid};

pub(crate) fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    let block = match opaque::impl_block(&input) {
        Some(block) => block,
        // Parsed whole: to say what it is instead, or because its method bodies could not be
        // told apart by tokens alone.
        None => match syn::parse2::<Item>(input.clone()) {
            Ok(Item::Impl(block)) => block,
            Ok(other) => return not_an_impl(other.to_token_stream(), input),
            Err(_) => return not_an_impl(input.clone(), input),
        },
    };
    let mut emitted = block.clone();
    for item in &mut emitted.items {
        if let ImplItem::Fn(method) = item
            && method.attrs.iter().any(valid::is_tool_attribute)
        {
            strip_tool_attributes(&mut method.attrs, &mut method.sig);
        }
    }
    let methods = tool_methods(&block);
    let mut errors = Errors::default();
    if let Err(error) = attr::parse_tools(args) {
        errors.push(error);
    }
    check_block(&block, &mut errors);
    if methods.is_empty() {
        errors.push(syn::Error::new_spanned(
            block.impl_token,
            "this `#[tools]` impl has no `#[tool]` method; mark each method that is a tool with \
             `#[tool]` and a doc comment, or remove `#[tools]`",
        ));
    }
    let mut tools = Vec::new();
    for (method, args) in &methods {
        let tool = attr::parse(args.clone())
            .and_then(|options| Tool::from_method(method, &block.self_ty, options))
            .and_then(|tool| tool.validate().map(|()| tool));
        match tool {
            Ok(tool) => tools.push(tool),
            Err(error) => errors.push(error),
        }
    }
    check_names(&tools, &mut errors);
    match errors.0 {
        Some(error) => fallback::expand_set(&block, &emitted, error),
        None => expand(&block, &emitted, &tools),
    }
}

/// The `#[tool]` methods, each without the `#[tool]` that marked it, and that attribute's options.
fn tool_methods(block: &ItemImpl) -> Vec<(ImplItemFn, TokenStream)> {
    let mut methods = Vec::new();
    for item in &block.items {
        let ImplItem::Fn(method) = item else {
            continue;
        };
        let Some(position) = method.attrs.iter().position(valid::is_tool_attribute) else {
            continue;
        };
        let mut method = method.clone();
        let attr = method.attrs.remove(position);
        let args = match attr.meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(list) => list.tokens,
            // `#[tool = "name"]`: the value, which `attr::parse` explains.
            Meta::NameValue(name_value) => name_value.value.to_token_stream(),
        };
        methods.push((method, args));
    }
    methods
}

/// The block must be an inherent, non-generic impl.
fn check_block(block: &ItemImpl, errors: &mut Errors) {
    if let Some((path, _)) = &block.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "`#[tools]` goes on an inherent `impl` block (`impl Notes { ... }`), not on a trait \
             impl; write the tools as inherent methods, which may call the trait's",
        ));
    }
    if !block.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(
            &block.generics.params,
            "a `#[tools]` impl cannot be generic: each tool's schema is built once, for one \
             type; write the impl for a concrete type (`impl Notes<Postgres>`)",
        ));
    } else if let Some(where_clause) = &block.generics.where_clause {
        errors.push(syn::Error::new_spanned(
            where_clause,
            "a `#[tools]` impl cannot have a `where` clause; write it for a concrete type",
        ));
    }
}

/// Two tools of one set cannot share a name: the model could not tell them apart.
fn check_names(tools: &[Tool<'_>], errors: &mut Errors) {
    let mut seen = HashMap::new();
    for tool in tools {
        if let Some(first) = seen.insert(tool.name.as_str(), tool.fn_ident) {
            errors.push(syn::Error::new(
                tool.name_span,
                format!(
                    "the tool name `{}` is already taken by `{first}` in this impl; give this one \
                     another with `#[tool(name = \"...\")]`",
                    tool.name
                ),
            ));
        }
    }
}

fn expand(block: &ItemImpl, emitted: &ItemImpl, tools: &[Tool<'_>]) -> TokenStream {
    let self_ty = &block.self_ty;
    let block_cfgs = ast::cfgs(&block.attrs);
    let mut items = Vec::new();
    let mut bounds = Vec::new();
    let mut visits = Vec::new();
    for tool in tools {
        let struct_ident = &tool.struct_ident;
        let tool_impl = tool_impl(tool, &struct_ident.to_token_stream());
        let cfgs: Vec<_> = tool.cfgs().collect();
        items.push(quote! {
            #[allow(dead_code)]
            struct #struct_ident(::std::sync::Arc<#self_ty>);

            #(#cfgs)*
            const _: () = {
                #tool_impl
            };
        });
        if !cfgs.is_empty() {
            items.push(placeholder(tool, &cfgs));
        }
        // Through `Defer`, so that a tool that cannot be built is reported at its own mistake,
        // not again here.
        bounds.push(quote! {
            <#struct_ident as ::skyl::__private::Defer<__S>>::This: ::skyl::Tool<__S>
        });
        visits.push(quote! {
            #(#cfgs)*
            __visitor.visit(#struct_ident(::std::sync::Arc::clone(&self)));
        });
    }
    let instance = quote_spanned! {self_ty.span()=>
        let _ = ::skyl::__private::assert_tool_set_instance::<#self_ty>;
    };
    let hidden = hidden();
    quote! {
        #emitted

        #(#block_cfgs)*
        #hidden
        const _: () = {
            #instance

            #(#items)*

            #[automatically_derived]
            impl<__S> ::skyl::tool::ToolSet<__S> for #self_ty
            where
                <#self_ty as ::skyl::__private::Defer<__S>>::This:
                    ::core::marker::Send + ::core::marker::Sync + 'static,
                #(#bounds,)*
            {
                fn visit_tools(
                    self: ::std::sync::Arc<Self>,
                    __visitor: &mut impl ::skyl::tool::ToolVisitor<__S>,
                ) {
                    #(#visits)*
                }
            }
        };
    }
}

/// The `Tool` impl of a method compiled out, which is never called.
fn placeholder(tool: &Tool<'_>, cfgs: &[&syn::Attribute]) -> TokenStream {
    let predicates = cfgs.iter().map(|attr| match &attr.meta {
        Meta::List(list) => list.tokens.clone(),
        other => other.to_token_stream(),
    });
    let struct_ident = &tool.struct_ident;
    fallback::placeholder_tool(
        quote!(#[cfg(not(all(#(#predicates),*)))]),
        quote!(#struct_ident),
    )
}

/// `#[tools]` on something that is not an `impl` block.
fn not_an_impl(item: TokenStream, input: TokenStream) -> TokenStream {
    let is_fn = matches!(syn::parse2::<Item>(item.clone()), Ok(Item::Fn(_)));
    let span_tokens = fallback::first_token(item);
    let message = if is_fn {
        "`#[tools]` goes on an `impl` block whose methods are tools; for one function, write \
         `#[tool]`"
    } else {
        "`#[tools]` goes on an `impl` block: write `#[tools] impl Notes { ... }` and mark each \
         method that is a tool with `#[tool]`"
    };
    let mut tokens = syn::Error::new_spanned(span_tokens, message).into_compile_error();
    tokens.extend(input);
    tokens
}
