//! Code generation for `#[tool]` on a free function: the function as written, a unit struct,
//! and its `Tool` impl. The impl is shared with the methods of a `#[tools]` block (`tools.rs`).
//!
//! ```text
//! fn get_weather(city: &str, #[state] db: &Db) -> String { ... }   // as written, minus the
//!                                                                  // parameter attributes
//! mod __skyl_tool_get_weather { pub struct GetWeather; }            // the struct, and its derives
//! pub use __skyl_tool_get_weather::GetWeather;                      // with the function's `pub`
//! const _: () = {
//!     #[derive(Deserialize, JsonSchema)] #[serde(bound = "...")]  // bounds on the derives only;
//!     struct __SkylArguments<__S> { city: String, .. }  // no `<__S>` when no parameter needs one
//!     const _: () = { let _: PhantomData<<T as ToolParameter>::This>; };  // one per type
//!     impl<__S: Send + Sync + 'static> Tool<__S> for __skyl_tool_get_weather::GetWeather
//!     where Db: FromRef<__S>, ... {                   // no bound on a parameter type
//!         fn definition(&self) -> &ToolDefinition { cached_definition(&STATIC, parts) }
//!         fn call(..) -> ToolFuture { /* parse into `__SkylArguments<()>` (probes of each
//!                                          parameter to explain a failure), call, convert */ }
//!     }
//! };
//! ```
//!
//! The struct sits in a module of its own and is brought in with `use`, so that a type of the
//! same name already in the module (`struct GetWeather` beside `fn get_weather`) is one error,
//! "defined multiple times", at the function's name: every impl names the struct through the
//! module, so none of them lands on the other type and adds errors of its own.
//!
//! A parameter type that is not `Deserialize + JsonSchema` is reported once, by the assertion
//! at that type (`<T as ToolParameter>::This`, which names the missing trait with skyl's message
//! and adds no "required by a bound in" note pointing into skyl). Nothing else may report it again:
//! - the derives are bounded `<T as Defer<__S>>::This: DeserializeOwned + JsonSchema` (in their
//!   `bound` attributes, not on the struct): such a bound mentions `__S`, so the compiler does not
//!   check it where it is written (as it would check `T: DeserializeOwned`, a bound on a concrete
//!   type), yet inside the derived impls it normalizes to `T: DeserializeOwned` and lets their
//!   bodies compile;
//! - the `Tool` impl has no bound on parameter types, since a bound there would be checked again
//!   at every `Toolbox::with(GetWeather)`, with notes naming skyl's internals. Its bodies read the
//!   arguments as what `(&&ReadProbe::<__SkylArguments<()>>::NEW).read_as()` chooses: the struct
//!   when its derives hold, and otherwise a stand-in (`Unusable`) that has both traits and cannot
//!   be made, so that they compile and say nothing more in a crate that does not compile anyway.
//!
//! Types whose traits are known from their name (`String`, numbers, `Option<u8>`: see `known.rs`)
//! get no bound and no assertion (and a probe of the type itself), which is most of what the
//! compiler checks in a typical tool.
//!
//! What is generic in the generated code is compiled once per tool, so the impl hands what it
//! can to non-generic code in skyl: the definition's constant parts and `fn` pointers to
//! `cached_definition`, and, for naming a bad argument, a table of each parameter's keys and a
//! reader of its type (compiled once per type) rather than a second reading of the whole
//! arguments struct.

use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Item, ItemFn, Signature, Type, Visibility};

use crate::ast::{self, ParamKind, Place, Tool};
use crate::attr::{Flag, Options};
use crate::{attr, docs, fallback, known, opaque, valid};

pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let Some(function) = opaque::function(&input) else {
        // Not a function: parsed whole, to say what it is.
        return match syn::parse2::<Item>(input.clone()) {
            Ok(other) => fallback::not_a_function(Some(&other), input),
            Err(_) => fallback::not_a_function(None, input),
        };
    };
    let mut emitted = function.clone();
    strip_tool_attributes(&mut emitted.attrs, &mut emitted.sig);
    let result = attr::parse(args)
        .and_then(|options| Tool::from_fn(&function, options))
        .and_then(|tool| {
            tool.validate()?;
            Ok(expand(&tool, &function.vis, &emitted))
        });
    match result {
        Ok(tokens) => tokens,
        Err(error) => fallback::expand(&function, &emitted, error),
    }
}

/// Removes from a function what only `#[tool]` understands, which would not compile as written:
/// a second `#[tool]` (reported once, by `valid.rs`, rather than expanded into a second struct),
/// and the doc comments and `#[state]`, `#[serde]` and `#[schemars]` attributes of parameters.
///
/// Some Clippy lints are allowed on it, because `#[tool]` decides what they complain about: a
/// parameter is taken by value since the model's arguments are owned (`needless_pass_by_value`,
/// pedantic); each parameter is one property of the arguments object, so a tool has as many as
/// its schema needs (`too_many_arguments`); a `#[state]` parameter borrows the exact type that
/// the state holds, `&Vec<T>` or `&String` included (`ptr_arg`); and the doc comment is the
/// description the model reads, where `# Errors` and `# Panics` sections do not belong
/// (`missing_errors_doc`, `missing_panics_doc`, pedantic).
pub(crate) fn strip_tool_attributes(attrs: &mut Vec<Attribute>, sig: &mut Signature) {
    attrs.push(syn::parse_quote!(
        #[allow(
            clippy::needless_pass_by_value,
            clippy::too_many_arguments,
            clippy::ptr_arg,
            clippy::missing_errors_doc,
            clippy::missing_panics_doc
        )]
    ));
    attrs.retain(|attr| !valid::is_tool_attribute(attr));
    for input in &mut sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| {
                !(docs::is_doc(attr)
                    || ast::is_state(attr)
                    || ast::is_context(attr)
                    || ast::is_field_attr(attr))
            });
        }
    }
}

fn expand(tool: &Tool<'_>, vis: &Visibility, emitted: &ItemFn) -> TokenStream {
    let module = module_ident(tool.fn_ident);
    let struct_ident = &tool.struct_ident;
    let mut tokens = emitted.to_token_stream();
    tokens.extend(unit_struct(
        tool.attrs,
        vis,
        tool.fn_ident,
        struct_ident,
        &tool.name,
    ));
    let cfgs = tool.cfgs();
    let tool_impl = tool_impl(tool, &quote!(#module::#struct_ident));
    let hidden = hidden();
    tokens.extend(quote! {
        #(#cfgs)*
        #hidden
        const _: () = {
            #tool_impl
        };
    });
    tokens
}

/// The attributes of the `const _: () = { ... };` block the generated impls stand in: out of the
/// docs, and none of the lints the user's crate turns on fire on code the user did not write.
pub(crate) fn hidden() -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(
            non_snake_case,
            non_camel_case_types,
            unused_qualifications,
            deprecated,
            clippy::all
        )]
    }
}

/// The arguments struct, the assertions on parameter types and the `Tool` impl for `tool_ty`:
/// items for a `const _: () = { ... }` block.
pub(crate) fn tool_impl(tool: &Tool<'_>, tool_ty: &TokenStream) -> TokenStream {
    let name = &tool.name;
    let description = tool.description.as_deref().unwrap_or_default();
    let options = &tool.options;
    let blocking = options.blocking.is_some();

    let mut fields = Vec::new();
    let mut bounds = Vec::new();
    let mut assertions = Vec::new();
    let mut call_args = Vec::new();
    let mut state_bounds = Vec::new();
    // Values taken from the invocation before the call runs: the future or the thread the call
    // runs on cannot borrow it.
    let mut taken = Vec::new();
    // How the failure path names the argument at fault: each parameter read alone (by a reader
    // instantiated per type, shared by all tools), unless one of them cannot be read alone.
    let mut probes = Some(Vec::new());
    if let Place::Method {
        has_receiver: true, ..
    } = tool.place
    {
        call_args.push(if blocking {
            quote!(&*__this)
        } else {
            quote!(&*self.0)
        });
    }
    // A method's types may say `Self`, which outside the `impl` block is the block's type.
    let written = |ty: &Type| match tool.place {
        Place::Free => ty.to_token_stream(),
        Place::Method { self_ty, .. } => replace_self(ty.to_token_stream(), self_ty),
    };
    for param in &tool.params {
        let ident = param.ident.expect("validated: a plain identifier");
        let field_attrs = &param.field_attrs;
        let description = param
            .description
            .as_ref()
            .map(|text| quote!(#[schemars(description = #text)]));
        match param.kind() {
            ParamKind::Context(ty) => {
                let span = ty.span();
                let ty = written(ty);
                let local = format_ident!("__skyl_context_{}", taken.len());
                // A type that cannot be taken from the call is reported at the type.
                taken.push(quote_spanned! {span=>
                    let #local = <#ty as ::skyl::tool::FromInvocation>::from_invocation(__invocation);
                });
                call_args.push(quote!(#local));
            }
            ParamKind::State(ty) => {
                let ty = written(ty);
                state_bounds.push(quote!(#ty: ::skyl::tool::FromRef<__S>));
                call_args.push(quote!(<#ty as ::skyl::tool::FromRef<__S>>::from_ref(__state)));
            }
            ParamKind::Str => {
                add_probe(
                    &mut probes,
                    param,
                    quote!(::skyl::__private::explain::probe::<::std::string::String>),
                );
                fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: ::std::string::String
                });
                call_args.push(quote!(&__args.#ident));
            }
            ParamKind::Value(ty) if param.is_skipped() => {
                let ty = written(ty);
                fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: #ty
                });
                call_args.push(quote!(__args.#ident));
            }
            ParamKind::Value(ty) => {
                let span = ty.span();
                let known = known::reads_and_describes(ty);
                let ty = written(ty);
                fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: #ty
                });
                // A type known by name has both traits: nothing to defer, nothing to assert.
                if known {
                    add_probe(
                        &mut probes,
                        param,
                        quote!(::skyl::__private::explain::probe::<#ty>),
                    );
                } else {
                    let read = read_as(&ty);
                    add_probe(
                        &mut probes,
                        param,
                        quote!(::skyl::__private::explain::probe_of(#read)),
                    );
                    bounds.push(quote! {
                        <#ty as ::skyl::__private::Defer<__S>>::This:
                            ::skyl::__private::serde::de::DeserializeOwned
                            + ::skyl::__private::schemars::JsonSchema
                    });
                    // The projection spans the type from its first token to its last, so that
                    // the error underlines all of `Option<City>`, not `Option` alone.
                    let last = ty
                        .clone()
                        .into_iter()
                        .last()
                        .map_or(span, |token| token.span());
                    let open = quote_spanned!(span=> <);
                    let close = quote_spanned!(last=> as ::skyl::__private::ToolParameter>::This);
                    assertions.push(quote_spanned! {span=>
                        let _: ::core::marker::PhantomData<#open #ty #close>;
                    });
                }
                call_args.push(quote!(__args.#ident));
            }
        }
    }
    let instance_bound = match tool.place {
        Place::Free => None,
        // Checked once, at the `impl` block's type, by `tools.rs`.
        Place::Method { self_ty, .. } => Some(quote! {
            <#self_ty as ::skyl::__private::Defer<__S>>::This:
                ::core::marker::Send + ::core::marker::Sync + 'static,
        }),
    };

    // A return type that is not `IntoToolOutput` is reported here, at the return type.
    let output_span = match tool.output {
        Some(ty) => ty.span(),
        None => tool.fn_ident.span(),
    };
    // Naming the type in the turbofish makes the compiler underline all of it; an `impl Trait`
    // cannot be named there, so it gets the span of its first token instead.
    let convert = match tool.output {
        Some(ty) if !valid::contains_impl(ty) => {
            let ty = written(ty);
            quote_spanned!(output_span=> ::skyl::__private::tool_output::<#ty>(__output))
        }
        _ => quote_spanned!(output_span=> ::skyl::__private::tool_output(__output)),
    };
    let fn_ident = tool.fn_ident;
    let callee = match tool.place {
        Place::Free => quote!(#fn_ident),
        Place::Method { self_ty, .. } => quote!(<#self_ty>::#fn_ident),
    };
    let await_ = tool.is_async.then(|| quote!(.await));
    let run = quote! {
        let __output = #callee(#(#call_args),*) #await_;
        #convert
    };
    let run = if let Some(asyncness) = &tool.sig.asyncness {
        // A future that is not `Send` is reported at the `async` keyword.
        quote_spanned!(asyncness.span=> ::skyl::tool::ToolFuture::new_output(async move { #run }))
    } else if let Some(blocking) = options.blocking {
        // Arguments and output that cannot cross threads are reported at `blocking`.
        let this = matches!(
            tool.place,
            Place::Method {
                has_receiver: true,
                ..
            }
        )
        .then(|| quote!(let __this = ::std::sync::Arc::clone(&self.0);));
        quote_spanned! {blocking=>
            #this
            ::skyl::__private::run_blocking(__invocation, move || { #run })
        }
    } else {
        quote!(::skyl::tool::ToolFuture::ready_output({ #run }))
    };

    let annotations = annotations(options);
    let output_schema = match (options.output_schema, tool.output) {
        (Some(span), Some(ty)) if !valid::contains_impl(ty) => {
            let ty = written(ty);
            quote_spanned! {span=>
                ::core::option::Option::Some(::skyl::__private::output_schema::<#ty>)
            }
        }
        _ => quote!(::core::option::Option::None),
    };
    // Deferred bounds mention a type parameter, so the arguments struct takes one, which the
    // bodies set to `()`; without them (every parameter of a type known by name) it is a plain
    // struct, which the derives expand to less code and the compiler checks once. The bounds are
    // on the derives only: a bound on the struct would be checked wherever the bodies name it.
    let generic = !bounds.is_empty();
    let (arguments_struct, state_marker, derive_bounds) = if generic {
        let bound = quote!(#(#bounds),*).to_string();
        (
            quote!(__SkylArguments<__S>),
            Some(quote! {
                #[serde(skip)]
                __skyl_state: ::core::marker::PhantomData<fn() -> __S>,
            }),
            bound,
        )
    } else {
        (quote!(__SkylArguments), None, String::new())
    };
    // What the bodies read the arguments as: the struct itself, or, when a parameter type lacks a
    // trait (already reported at the type), a stand-in that keeps the `Tool` impl free of bounds.
    let (arguments, parameters_schema, parse, explain_whole, args) = if generic {
        let arguments = read_as(&quote!(__SkylArguments<()>));
        (
            quote!(let __arguments = #arguments;),
            quote!(::skyl::__private::arguments_schema_of(__arguments)),
            quote!(::skyl::__private::parse_explained_as(
                __arguments,
                __json,
                __schema,
                __explain
            )),
            quote!(::skyl::__private::explain::whole_of(__arguments)),
            quote! {
                let __args: __SkylArguments<()> = ::skyl::__private::IntoRead::into_read(__args);
            },
        )
    } else {
        (
            quote!(),
            quote!(::skyl::__private::arguments_schema::<__SkylArguments>),
            quote!(::skyl::__private::parse_explained::<__SkylArguments>(
                __json, __schema, __explain
            )),
            quote!(::skyl::__private::explain::whole::<__SkylArguments>),
            quote!(),
        )
    };
    let explain = match probes {
        Some(probes) => quote! {
            |__object, __error| ::skyl::__private::explain::by_probes(__object, __error, &[#(#probes),*])
        },
        None => explain_whole,
    };
    let timeout = options.timeout.as_ref().map(|timeout| {
        let (secs, nanos) = (timeout.secs, timeout.nanos);
        // A missing `timeout` feature is reported at the duration.
        let limit = quote_spanned! {timeout.literal.span()=>
            ::skyl::__private::tool_timeout::<()>(#secs, #nanos)
        };
        quote! {
            fn timeout(&self) -> ::core::option::Option<::core::time::Duration> {
                ::core::option::Option::Some(#limit)
            }
        }
    });
    let cancel_grace = options.cancel_grace.as_ref().map(|grace| {
        let (secs, nanos) = (grace.secs, grace.nanos);
        quote! {
            fn cancel_grace(&self) -> ::core::option::Option<::core::time::Duration> {
                ::core::option::Option::Some(::core::time::Duration::new(#secs, #nanos))
            }
        }
    });

    // A tool that sees its call (a `#[context]` parameter; a blocking tool, which passes the
    // effect key to its thread) implements `invoke`, and `call` as `invoke` outside any run; any
    // other implements `call` alone, and the toolbox's `invoke` is `call`.
    let (entry, invocation_param, call) = if !taken.is_empty() || blocking {
        (
            quote!(invoke),
            quote!(__invocation: &::skyl::tool::Invocation<'_>,),
            quote! {
                fn call<'__a>(
                    &'__a self,
                    __json: &'__a ::skyl::__private::serde_json::Value,
                    __state: &'__a __S,
                ) -> ::skyl::tool::ToolFuture<'__a> {
                    <Self as ::skyl::Tool<__S>>::invoke(
                        self,
                        __json,
                        __state,
                        &::skyl::tool::Invocation::new(#name, ""),
                    )
                }
            },
        )
    } else {
        (quote!(call), quote!(), quote!())
    };

    quote! {
        #[derive(::skyl::__private::serde::Deserialize, ::skyl::__private::schemars::JsonSchema)]
        #[serde(crate = "::skyl::__private::serde", deny_unknown_fields, bound = #derive_bounds)]
        #[schemars(crate = "::skyl::__private::schemars", bound = #derive_bounds)]
        #[allow(dead_code)]
        struct #arguments_struct {
            #(#fields,)*
            #state_marker
        }

        const _: () = {
            #(#assertions)*
        };

        #[automatically_derived]
        impl<__S> ::skyl::Tool<__S> for #tool_ty
        where
            __S: ::core::marker::Send + ::core::marker::Sync + 'static,
            #instance_bound
            #(#state_bounds,)*
        {
            fn definition(&self) -> &::skyl::ToolDefinition {
                #arguments
                static __DEFINITION: ::std::sync::OnceLock<::skyl::ToolDefinition> =
                    ::std::sync::OnceLock::new();
                ::skyl::__private::cached_definition(&__DEFINITION, ::skyl::__private::DefinitionParts {
                    name: #name,
                    description: #description,
                    parameters: #parameters_schema,
                    annotations: #annotations,
                    output_schema: #output_schema,
                })
            }

            #call

            fn #entry<'__a>(
                &'__a self,
                __json: &'__a ::skyl::__private::serde_json::Value,
                __state: &'__a __S,
                #invocation_param
            ) -> ::skyl::tool::ToolFuture<'__a> {
                let _ = __state;
                // The schema is read only when the arguments do not parse as they are.
                let __schema = move || &<Self as ::skyl::Tool<__S>>::definition(self).parameters;
                #arguments
                let __explain: ::skyl::__private::explain::Explain = #explain;
                let __args = match #parse {
                    ::core::result::Result::Ok(args) => args,
                    ::core::result::Result::Err(failure) => {
                        return ::skyl::tool::ToolFuture::ready(::core::result::Result::Err(failure));
                    }
                };
                #args
                #(#taken)*
                #run
            }

            #timeout
            #cancel_grace
        }
    }
}

/// `&&ReadProbe::<ty>::NEW).read_as()`: a `PhantomData` of `ty`, or of a stand-in when `ty` is not
/// `Deserialize + JsonSchema` (see `skyl::__private::ReadAs`).
fn read_as(ty: &TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use ::skyl::__private::{ReadAs as _, ReadAsPlaceholder as _};
        (&&::skyl::__private::ReadProbe::<#ty>::NEW).read_as()
    }}
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

/// The annotations written in the options, for `cached_definition` to make a `ToolAnnotations`.
fn annotations(options: &Options) -> TokenStream {
    let hint = |flag: Option<Flag>| match flag {
        Some(Flag { value, .. }) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    };
    let title = match &options.title {
        Some(title) => {
            let title = title.value().trim().to_owned();
            quote!(::core::option::Option::Some(#title))
        }
        None => quote!(::core::option::Option::None),
    };
    let (read_only, destructive, idempotent, open_world) = (
        hint(options.read_only),
        hint(options.destructive),
        hint(options.idempotent),
        hint(options.open_world),
    );
    quote! {
        ::skyl::__private::AnnotationParts {
            title: #title,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
        }
    }
}

/// Adds to `probes` the failure path's reader of `param`, `probe`; or gives up on readers
/// (`None`) for a parameter serde does not read as one key holding its type.
fn add_probe(probes: &mut Option<Vec<TokenStream>>, param: &ast::Param<'_>, probe: TokenStream) {
    let (Some(list), Some(keys)) = (probes.as_mut(), param.wire_keys()) else {
        *probes = None;
        return;
    };
    list.push(quote! {
        ::skyl::__private::explain::ArgumentProbe {
            keys: &[#(#keys),*],
            probe: #probe,
        }
    });
}

/// The module that holds a free function's struct: `__skyl_tool_get_weather`.
pub(crate) fn module_ident(fn_ident: &Ident) -> Ident {
    format_ident!(
        "__skyl_tool_{}",
        ast::unraw(fn_ident),
        span = fn_ident.span()
    )
}

/// `pub struct GetWeather;` in a module of its own, brought in with the function's visibility;
/// with the function's `#[cfg]`s and its `#[deprecated]` (registering a deprecated tool warns as
/// calling the function does).
pub(crate) fn unit_struct(
    attrs: &[Attribute],
    vis: &Visibility,
    fn_ident: &Ident,
    struct_ident: &Ident,
    name: &str,
) -> TokenStream {
    let doc = format!(
        "The tool `{name}`: [`{fn_ident}`](super::{fn_ident}) as a [`Tool`](::skyl::Tool), made \
         by `#[skyl::tool]`."
    );
    unit_struct_documented(attrs, vis, fn_ident, struct_ident, &doc)
}

/// [`unit_struct`] with the struct's doc given: `#[prompt]` and `#[resource]` make one too.
pub(crate) fn unit_struct_documented(
    attrs: &[Attribute],
    vis: &Visibility,
    fn_ident: &Ident,
    struct_ident: &Ident,
    doc: &str,
) -> TokenStream {
    let module = module_ident(fn_ident);
    let cfgs: Vec<_> = ast::cfgs(attrs).collect();
    let deprecated = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("deprecated"));
    // The re-export is spanned at the function's name, where a clash with another type is shown.
    let import = quote_spanned!(fn_ident.span()=> #module::#struct_ident);
    let struct_name = struct_ident.to_string();
    quote! {
        #(#cfgs)*
        #[doc(hidden)]
        mod #module {
            #(#deprecated)*
            #[doc = #doc]
            #[allow(unreachable_pub)]
            pub struct #struct_ident;

            // What `#[derive(Clone, Copy, Debug, Default)]` would write, without running four
            // derives per tool.
            #[automatically_derived]
            #[allow(deprecated)]
            impl ::core::clone::Clone for #struct_ident {
                #[inline]
                fn clone(&self) -> Self {
                    *self
                }
            }
            #[automatically_derived]
            #[allow(deprecated)]
            impl ::core::marker::Copy for #struct_ident {}
            #[automatically_derived]
            #[allow(deprecated)]
            impl ::core::fmt::Debug for #struct_ident {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(#struct_name)
                }
            }
            #[automatically_derived]
            #[allow(deprecated)]
            impl ::core::default::Default for #struct_ident {
                #[inline]
                fn default() -> Self {
                    #struct_ident
                }
            }
        }
        #(#cfgs)*
        #[allow(deprecated, unused_imports)]
        #vis use #import;
    }
}
