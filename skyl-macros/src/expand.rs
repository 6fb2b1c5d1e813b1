//! Code generation: the function as written, a unit struct, and its `Tool` impl.
//!
//! ```text
//! fn get_weather(city: &str, #[state] db: &Db) -> String { ... }   // as written, minus the
//!                                                                  // parameter attributes
//! pub struct GetWeather;
//! const _: () = {
//!     struct __SkylArguments<__S> where ...  { city: String, .. }  // Deserialize + JsonSchema
//!     const _: () = { assert_deserialize::<T>; assert_json_schema::<T>; };  // one per type
//!     impl<__S: Send + Sync + 'static> Tool<__S> for GetWeather where Db: FromRef<__S>, ... {
//!         fn definition(&self) -> &ToolDefinition { /* built once, in a static */ }
//!         fn call(..) -> ToolFuture { /* parse, call, convert */ }
//!     }
//! };
//! ```
//!
//! A parameter type that is not `Deserialize + JsonSchema` is reported once, by the assertion
//! at that type. The generated bodies and the derives must not report it again, so every bound
//! on a parameter type is written `<T as Defer<__S>>::This: DeserializeOwned + JsonSchema`: it
//! mentions `__S`, so the compiler does not check it where it is written (as it would check
//! `T: DeserializeOwned`, a bound on a concrete type), yet inside the impl it normalizes to
//! `T: DeserializeOwned` and lets the bodies compile. The impl then holds for no state at all,
//! which is right for a tool that cannot be built.

use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Item, ItemFn};

use crate::ast::{self, ParamKind, Tool};
use crate::{attr, docs, fallback, valid};

pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<Item>(input.clone()) {
        Ok(item) => item,
        Err(_) => return fallback::not_a_function(None, input),
    };
    let function = match item {
        Item::Fn(function) => function,
        other => return fallback::not_a_function(Some(&other), input),
    };
    let emitted = strip_parameter_attributes(&function);
    let result = attr::parse(args)
        .and_then(|options| Tool::from_syn(&function, options))
        .and_then(|tool| {
            tool.validate()?;
            Ok(expand(&tool, &emitted))
        });
    match result {
        Ok(tokens) => tokens,
        Err(error) => fallback::expand(&function, &emitted, error),
    }
}

/// The function as the user wrote it, without the attributes only `#[tool]` understands, which
/// would not compile on a parameter.
///
/// Some Clippy lints are allowed on it, because `#[tool]` decides what they complain about: a
/// parameter is taken by value since the model's arguments are owned (`needless_pass_by_value`,
/// pedantic); each parameter is one property of the arguments object, so a tool has as many as
/// its schema needs (`too_many_arguments`); a `#[state]` parameter borrows the exact type that
/// the state holds, `&Vec<T>` or `&String` included (`ptr_arg`); and the doc comment is the
/// description the model reads, where `# Errors` and `# Panics` sections do not belong
/// (`missing_errors_doc`, `missing_panics_doc`, pedantic).
fn strip_parameter_attributes(function: &ItemFn) -> ItemFn {
    let mut function = function.clone();
    function.attrs.push(syn::parse_quote!(
        #[allow(
            clippy::needless_pass_by_value,
            clippy::too_many_arguments,
            clippy::ptr_arg,
            clippy::missing_errors_doc,
            clippy::missing_panics_doc
        )]
    ));
    // A second `#[tool]` is reported once, here, rather than expanded into a second struct.
    function
        .attrs
        .retain(|attr| !valid::is_tool_attribute(attr));
    for input in &mut function.sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| {
                !(docs::is_doc(attr) || ast::is_state(attr) || ast::is_field_attr(attr))
            });
        }
    }
    function
}

fn expand(tool: &Tool<'_>, emitted: &ItemFn) -> TokenStream {
    let struct_item = unit_struct(tool.function, &tool.struct_ident, &tool.name);
    let cfgs = cfgs(tool.function);
    let struct_ident = &tool.struct_ident;
    let fn_ident = tool.fn_ident;
    let name = &tool.name;
    let description = tool.description.as_deref().unwrap_or_default();

    let mut fields = Vec::new();
    let mut bounds = Vec::new();
    let mut assertions = Vec::new();
    let mut call_args = Vec::new();
    let mut state_bounds = Vec::new();
    for param in &tool.params {
        let ident = param.ident.expect("validated: a plain identifier");
        let field_attrs = &param.field_attrs;
        let description = param
            .description
            .as_ref()
            .map(|text| quote!(#[schemars(description = #text)]));
        match param.kind() {
            ParamKind::State(ty) => {
                state_bounds.push(quote!(#ty: ::skyl::FromRef<__S>));
                call_args.push(quote!(<#ty as ::skyl::FromRef<__S>>::from_ref(__state)));
            }
            ParamKind::Str => {
                fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: ::std::string::String
                });
                call_args.push(quote!(&__args.#ident));
            }
            ParamKind::Value(ty) if param.is_skipped() => {
                fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: #ty
                });
                call_args.push(quote!(__args.#ident));
            }
            ParamKind::Value(ty) => {
                fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: #ty
                });
                bounds.push(quote! {
                    <#ty as ::skyl::__private::Defer<__S>>::This:
                        ::skyl::__private::serde::de::DeserializeOwned
                        + ::skyl::__private::schemars::JsonSchema
                });
                assertions.push(quote_spanned! {ty.span()=>
                    let _ = ::skyl::__private::assert_deserialize::<#ty>;
                    let _ = ::skyl::__private::assert_json_schema::<#ty>;
                });
                call_args.push(quote!(__args.#ident));
            }
        }
    }

    // A return type that is not `IntoToolOutput` is reported here, at the return type.
    let output_span = match tool.output {
        Some(ty) => ty.span(),
        None => tool.fn_ident.span(),
    };
    // Naming the type in the turbofish makes the compiler underline all of it; an `impl Trait`
    // cannot be named there, so it gets the span of its first token instead.
    let convert = match tool.output {
        Some(ty) if !valid::contains_impl(ty) => {
            quote_spanned!(output_span=> ::skyl::__private::tool_output::<#ty>(__output))
        }
        _ => quote_spanned!(output_span=> ::skyl::__private::tool_output(__output)),
    };
    let await_ = tool.is_async.then(|| quote!(.await));
    let run = quote! {
        let __output = #fn_ident(#(#call_args),*) #await_;
        #convert
    };
    let run = if let Some(asyncness) = &tool.function.sig.asyncness {
        // A future that is not `Send` is reported at the `async` keyword.
        quote_spanned!(asyncness.span=> ::skyl::ToolFuture::new(async move { #run }))
    } else {
        quote!(::skyl::ToolFuture::ready({ #run }))
    };

    let mut tokens = emitted.to_token_stream();
    tokens.extend(struct_item);
    tokens.extend(quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(
            non_snake_case,
            non_camel_case_types,
            unused_qualifications,
            deprecated,
            clippy::all
        )]
        const _: () = {
            #[derive(::skyl::__private::serde::Deserialize, ::skyl::__private::schemars::JsonSchema)]
            #[serde(crate = "::skyl::__private::serde", deny_unknown_fields, bound = "")]
            #[schemars(crate = "::skyl::__private::schemars", bound = "")]
            #[allow(dead_code)]
            struct __SkylArguments<__S> where #(#bounds,)* {
                #(#fields,)*
                #[serde(skip)]
                __skyl_state: ::core::marker::PhantomData<fn() -> __S>,
            }

            const _: () = {
                #(#assertions)*
            };

            #[automatically_derived]
            impl<__S> ::skyl::Tool<__S> for #struct_ident
            where
                __S: ::core::marker::Send + ::core::marker::Sync + 'static,
                #(#bounds,)*
                #(#state_bounds,)*
            {
                fn definition(&self) -> &::skyl::ToolDefinition {
                    static __DEFINITION: ::std::sync::OnceLock<::skyl::ToolDefinition> =
                        ::std::sync::OnceLock::new();
                    __DEFINITION.get_or_init(|| ::skyl::ToolDefinition {
                        name: <::std::string::String as ::core::convert::From<&str>>::from(#name),
                        description: <::std::string::String as ::core::convert::From<&str>>::from(
                            #description,
                        ),
                        parameters: ::skyl::__private::arguments_schema::<__SkylArguments<__S>>(),
                        annotations: <::skyl::ToolAnnotations as ::core::default::Default>::default(),
                        output_schema: ::core::option::Option::None,
                    })
                }

                fn call<'__a>(
                    &'__a self,
                    __json: &'__a ::skyl::__private::serde_json::Value,
                    __state: &'__a __S,
                ) -> ::skyl::ToolFuture<'__a> {
                    let _ = __state;
                    // The schema is read only when the arguments do not parse as they are.
                    let __schema = move || &<Self as ::skyl::Tool<__S>>::definition(self).parameters;
                    let __args = match ::skyl::__private::parse_arguments::<__SkylArguments<__S>>(__json, __schema) {
                        ::core::result::Result::Ok(args) => args,
                        ::core::result::Result::Err(failure) => {
                            return ::skyl::ToolFuture::ready(::core::result::Result::Err(failure));
                        }
                    };
                    #run
                }
            }
        };
    });
    tokens
}

/// `pub struct GetWeather;`, with the function's visibility, its `#[cfg]`s and its
/// `#[deprecated]`: registering a deprecated tool warns as calling the function does.
pub(crate) fn unit_struct(function: &ItemFn, struct_ident: &Ident, name: &str) -> TokenStream {
    let fn_ident = &function.sig.ident;
    let vis = &function.vis;
    let cfgs = cfgs(function);
    let deprecated = function
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("deprecated"));
    let doc = format!(
        "The tool `{name}`: [`{fn_ident}`] as a [`Tool`](::skyl::Tool), made by `#[skyl::tool]`."
    );
    quote! {
        #(#cfgs)*
        #(#deprecated)*
        #[doc = #doc]
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::default::Default,
        )]
        #vis struct #struct_ident;
    }
}

/// The function's `#[cfg(...)]`s, which every item generated beside it must carry: a function
/// compiled out takes its tool with it.
pub(crate) fn cfgs(function: &ItemFn) -> impl Iterator<Item = &syn::Attribute> {
    function
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
}
