//! Code generation for `#[prompt]` and `#[resource]`: the function as written, a unit struct,
//! and its `ServedPrompt` or `ServedResource` impl.
//!
//! ```text
//! fn code_review(code: String, language: Option<Language>) -> String { ... }  // as written
//! mod __skyl_tool_code_review { pub struct CodeReview; }            // as `#[tool]` makes it
//! pub use __skyl_tool_code_review::CodeReview;
//! const _: () = {
//!     impl ServedPrompt for __skyl_tool_code_review::CodeReview {
//!         fn definition(&self) -> &PromptDefinition { /* built once */ }
//!         fn get(&self, arguments: PromptArguments) -> PromptFuture<'_> {
//!             Box::pin(async move {
//!                 let code: String = arguments.get::<String>("code")?;   // at the type's span
//!                 ...
//!                 IntoPromptMessages::into_prompt_messages(code_review(code, language))
//!             })
//!         }
//!         fn complete(&self, argument: &str, typed: &str) -> Vec<String> {
//!             match argument { "language" => completed(variants::<Option<Language>>(), typed), .. }
//!         }
//!     }
//! };
//! ```

use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Item, ItemFn, LitStr};

use super::Kind;
use super::ast::{self, Served};
use crate::expand::hidden;
use crate::expand::unit_struct::{module_ident, unit_struct_documented};
use crate::{docs, fallback, opaque, valid};

pub(crate) fn served(kind: Kind, args: TokenStream, input: TokenStream) -> TokenStream {
    let Some(function) = opaque::function(&input) else {
        return not_a_function(kind, input);
    };
    let mut emitted = function.clone();
    strip(&mut emitted);
    let result = ast::options(kind, args)
        .and_then(|options| Served::from_fn(kind, &function, options, None))
        .and_then(|served| {
            served.validate()?;
            Ok(expand(&served, &emitted))
        });
    match result {
        Ok(tokens) => tokens,
        Err(error) => fallback_of(kind, &function, &emitted, error),
    }
}

/// Removes what only the attribute reads (the parameters' doc comments), and allows the lints
/// the attribute decides: parameters are owned because the request's values are.
pub(crate) fn strip(function: &mut ItemFn) {
    function
        .attrs
        .push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));
    for input in &mut function.sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| !docs::is_doc(attr));
        }
    }
}

fn expand(served: &Served<'_>, emitted: &ItemFn) -> TokenStream {
    let function = served.function;
    let fn_ident = &function.sig.ident;
    let struct_ident = &served.struct_ident;
    let module = module_ident(fn_ident);
    let mut tokens = emitted.to_token_stream();
    tokens.extend(unit_struct_documented(
        &function.attrs,
        &function.vis,
        fn_ident,
        struct_ident,
        &struct_doc(served.kind, &served.name, fn_ident),
    ));
    let body = trait_body(served);
    let cfgs = crate::ast::cfgs(&function.attrs);
    let hidden = hidden();
    let ty = quote!(#module::#struct_ident);
    let trait_path = trait_path(served.kind);
    tokens.extend(quote! {
        #(#cfgs)*
        #hidden
        const _: () = {
            #[automatically_derived]
            impl #trait_path for #ty {
                #body
            }
        };
    });
    tokens
}

/// The body of the `ServedPrompt` or `ServedResource` impl.
pub(crate) fn trait_body(served: &Served<'_>) -> TokenStream {
    match served.kind {
        Kind::Prompt => prompt_impl(served),
        Kind::Resource => resource_impl(served),
    }
}

fn struct_doc(kind: Kind, name: &str, fn_ident: &Ident) -> String {
    match kind {
        Kind::Prompt => format!(
            "The prompt `{name}`: [`{fn_ident}`](super::{fn_ident}) as a `skyl::mcp::ServedPrompt`, \
             made by `#[skyl::prompt]`."
        ),
        Kind::Resource => format!(
            "The resource `{name}`: [`{fn_ident}`](super::{fn_ident}) as a \
             `skyl::mcp::ServedResource`, made by `#[skyl::resource]`."
        ),
    }
}

pub(crate) fn trait_path(kind: Kind) -> TokenStream {
    match kind {
        Kind::Prompt => quote!(::skyl::mcp::ServedPrompt),
        Kind::Resource => quote!(::skyl::mcp::ServedResource),
    }
}

/// `Some(String::from(text))`, or `None`.
fn optional_text(text: Option<&str>) -> TokenStream {
    match text {
        Some(text) => quote!(::core::option::Option::Some(::std::string::String::from(#text))),
        None => quote!(::core::option::Option::None),
    }
}

/// The parameters read from `values` (the request's arguments or the URI's variables), each at
/// its type's span, then the function called with them and its output named `__output`.
fn read_and_call(served: &Served<'_>, values: &TokenStream) -> TokenStream {
    let mut reads = Vec::new();
    let mut idents = Vec::new();
    for param in &served.params {
        let (Some(ident), Some(ty)) = (param.ident, param.ty) else {
            continue;
        };
        let name = param.name();
        // Named apart from the function, which a parameter may share its name with.
        let local = quote::format_ident!("__skyl_{}", crate::ast::unraw(ident));
        reads.push(quote_spanned! {ty.span()=>
            const _: () = {
                let _: ::core::marker::PhantomData<<#ty as ::skyl::__private::mcp::Value>::This>;
            };
            let #local: #ty = (&&::skyl::__private::mcp::Probe::<#ty>::NEW).read(#values, #name)?;
        });
        idents.push(local);
    }
    let fn_ident = &served.function.sig.ident;
    let awaited = served.function.sig.asyncness.map(|_| quote!(.await));
    let called = match served.self_ty {
        Some(self_ty) => quote!(<#self_ty>::#fn_ident(__this, #(#idents),*)),
        None => quote!(#fn_ident(#(#idents),*)),
    };
    quote! {
        #[allow(unused_imports)]
        use ::skyl::__private::mcp::{Readable as _, Unreadable as _};
        #(#reads)*
        let __output = #called #awaited;
    }
}

/// For a method, the instance the call is made on (the struct holds it in an `Arc`).
fn this(served: &Served<'_>) -> Option<TokenStream> {
    served.self_ty.map(|_| quote!(let __this = &*self.0;))
}

/// Where the function's output is written, where an output of the wrong type is reported.
fn output_span(served: &Served<'_>) -> proc_macro2::Span {
    match &served.function.sig.output {
        syn::ReturnType::Type(_, ty) => ty.span(),
        syn::ReturnType::Default => served.function.sig.ident.span(),
    }
}

/// `complete`: each parameter's enum variants that begin with what was typed.
fn complete(served: &Served<'_>) -> TokenStream {
    let arms = served.params.iter().filter_map(|param| {
        let ty = param.ty?;
        let name = param.name();
        Some(quote_spanned! {ty.span()=>
            #name => ::skyl::__private::mcp::completed(
                (&&::skyl::__private::mcp::Probe::<#ty>::NEW).variants(),
                __typed,
            ),
        })
    });
    quote! {
        fn complete(&self, __argument: &str, __typed: &str) -> ::std::vec::Vec<::std::string::String> {
            #[allow(unused_imports)]
            use ::skyl::__private::mcp::{Readable as _, Unreadable as _};
            match __argument {
                #(#arms)*
                _ => {
                    let _ = __typed;
                    ::std::vec::Vec::new()
                }
            }
        }
    }
}

fn prompt_impl(served: &Served<'_>) -> TokenStream {
    let name = &served.name;
    let title = optional_text(served.options.title.as_ref().map(LitStr::value).as_deref());
    let description = optional_text(served.description.as_deref());
    let arguments = served.params.iter().map(|param| {
        let name = param.name();
        let description = optional_text(param.description.as_deref());
        let required = !param.is_optional();
        // Field by field: the definitions are non-exhaustive, so no struct literal builds them.
        quote! {{
            let mut __argument = ::skyl::mcp::PromptArgument::default();
            __argument.name = ::std::string::String::from(#name);
            __argument.description = #description;
            __argument.required = #required;
            __argument
        }}
    });
    let call = read_and_call(served, &quote!(__given.as_map()));
    let this = this(served);
    let convert = quote_spanned! {output_span(served)=>
        ::skyl::mcp::IntoPromptMessages::into_prompt_messages(__output)
    };
    let complete = complete(served);
    quote! {
        fn definition(&self) -> &::skyl::mcp::PromptDefinition {
            static DEFINITION: ::std::sync::OnceLock<::skyl::mcp::PromptDefinition> =
                ::std::sync::OnceLock::new();
            DEFINITION.get_or_init(|| {
                let mut __definition = ::skyl::mcp::PromptDefinition::default();
                __definition.name = ::std::string::String::from(#name);
                __definition.title = #title;
                __definition.description = #description;
                __definition.arguments = ::std::vec![#(#arguments),*];
                __definition
            })
        }

        fn get(&self, __given: ::skyl::mcp::PromptArguments) -> ::skyl::mcp::PromptFuture<'_> {
            #this
            ::std::boxed::Box::pin(async move {
                #call
                #convert
            })
        }

        #complete
    }
}

fn resource_impl(served: &Served<'_>) -> TokenStream {
    let options = &served.options;
    let uri = options.address().map(LitStr::value).unwrap_or_default();
    let name = &served.name;
    let title = optional_text(options.title.as_ref().map(LitStr::value).as_deref());
    let description = optional_text(served.description.as_deref());
    let mime_type = optional_text(options.mime_type.as_ref().map(LitStr::value).as_deref());
    let mime = match &options.mime_type {
        Some(mime) => quote!(::core::option::Option::Some(#mime)),
        None => quote!(::core::option::Option::None),
    };
    let call = read_and_call(served, &quote!(__given.variables()));
    let this = this(served);
    let convert = quote_spanned! {output_span(served)=>
        ::skyl::mcp::IntoResourceContents::into_resource_contents(__output, __given.uri(), #mime)
    };
    let complete = complete(served);
    quote! {
        fn definition(&self) -> &::skyl::mcp::ResourceDefinition {
            static DEFINITION: ::std::sync::OnceLock<::skyl::mcp::ResourceDefinition> =
                ::std::sync::OnceLock::new();
            DEFINITION.get_or_init(|| {
                let mut __definition = ::skyl::mcp::ResourceDefinition::default();
                __definition.uri = ::std::string::String::from(#uri);
                __definition.name = ::std::string::String::from(#name);
                __definition.title = #title;
                __definition.description = #description;
                __definition.mime_type = #mime_type;
                __definition
            })
        }

        fn read(&self, __given: ::skyl::mcp::ResourceRead) -> ::skyl::mcp::ResourceFuture<'_> {
            #this
            ::std::boxed::Box::pin(async move {
                #call
                #convert
            })
        }

        #complete
    }
}

/// The error, the function as written, and (unless its name clashes) the struct with a
/// placeholder impl, so that `with_prompt(CodeReview)` elsewhere still compiles.
fn fallback_of(kind: Kind, original: &ItemFn, emitted: &ItemFn, error: syn::Error) -> TokenStream {
    let mut tokens = error.into_compile_error();
    emitted.to_tokens(&mut tokens);
    let fn_ident = &original.sig.ident;
    let struct_ident = crate::ast::struct_ident(fn_ident);
    let is_method = matches!(original.sig.inputs.first(), Some(FnArg::Receiver(_)));
    let clashes = *fn_ident == struct_ident
        || valid::find_ident(&original.sig.inputs, &struct_ident).is_some()
        || valid::find_ident(&original.sig.output, &struct_ident).is_some();
    if is_method || clashes {
        return tokens;
    }
    let name = crate::ast::unraw(fn_ident);
    tokens.extend(unit_struct_documented(
        &original.attrs,
        &original.vis,
        fn_ident,
        &struct_ident,
        &struct_doc(kind, &name, fn_ident),
    ));
    let module = module_ident(fn_ident);
    let trait_path = trait_path(kind);
    let body = match kind {
        Kind::Prompt => quote! {
            fn definition(&self) -> &::skyl::mcp::PromptDefinition { ::core::unreachable!() }
            fn get(&self, _: ::skyl::mcp::PromptArguments) -> ::skyl::mcp::PromptFuture<'_> {
                ::core::unreachable!()
            }
        },
        Kind::Resource => quote! {
            fn definition(&self) -> &::skyl::mcp::ResourceDefinition { ::core::unreachable!() }
            fn read(&self, _: ::skyl::mcp::ResourceRead) -> ::skyl::mcp::ResourceFuture<'_> {
                ::core::unreachable!()
            }
        },
    };
    let cfgs = crate::ast::cfgs(&original.attrs);
    tokens.extend(quote! {
        #(#cfgs)*
        #[allow(unreachable_code, deprecated)]
        impl #trait_path for #module::#struct_ident {
            #body
        }
    });
    tokens
}

/// The attribute on something that is not a function.
fn not_a_function(kind: Kind, input: TokenStream) -> TokenStream {
    let item = syn::parse2::<Item>(input.clone()).ok();
    let at = match &item {
        Some(item) => fallback::first_token(item.to_token_stream()),
        None => fallback::first_token(input.clone()),
    };
    let message = format!(
        "{} goes on a function with a body, whose parameters are the {} and whose doc comment \
         is its description",
        kind.attribute(),
        match kind {
            Kind::Prompt => "prompt's arguments",
            Kind::Resource => "template's variables",
        }
    );
    let mut tokens = syn::Error::new_spanned(at, message).into_compile_error();
    tokens.extend(input);
    tokens
}
