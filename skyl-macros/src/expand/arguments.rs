//! The reading of arguments: the struct the model's JSON is deserialized into (a field per
//! argument, with its derives and their deferred bounds), the assertion that each parameter type
//! is `Deserialize + JsonSchema`, and how a call parses its arguments and names the one at fault
//! when they do not parse.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::written::written;
use crate::ast::{self, ParamKind, Tool};
use crate::known;

/// What the model sends, as the generated code declares and reads it.
pub(super) struct Arguments {
    /// The arguments struct's fields, one per argument the model sends.
    fields: Vec<TokenStream>,
    /// `<T as Defer<__S>>::This: DeserializeOwned + JsonSchema` per parameter type not known by
    /// name: the bounds of the derives.
    bounds: Vec<TokenStream>,
    /// `let _: PhantomData<<T as ToolParameter>::This>;` per parameter type not known by name.
    assertions: Vec<TokenStream>,
    /// How the failure path names the argument at fault: each parameter read alone (by a reader
    /// instantiated per type, shared by all tools), unless one of them cannot be read alone.
    probes: Option<Vec<TokenStream>>,
}

/// How a call's bodies read the arguments: the struct itself, or, when a parameter type lacks a
/// trait (already reported at the type), a stand-in that keeps the `Tool` impl free of bounds.
pub(super) struct Reading {
    /// `let __arguments = ...;`, what the others read the arguments as, when the struct is
    /// generic; nothing otherwise.
    pub(super) arguments: TokenStream,
    /// The parameters schema's maker.
    pub(super) parameters_schema: TokenStream,
    /// The expression that parses `__json` into the arguments, or into the failure that says why
    /// they do not parse.
    parse: TokenStream,
    /// The failure path's namer of the argument at fault.
    explain: TokenStream,
    /// The statement that makes the parsed arguments `__SkylArguments<()>`, when generic.
    args: TokenStream,
}

impl Arguments {
    /// The arguments of `tool`: its parameters that the model sends, in order.
    pub(super) fn of(tool: &Tool<'_>) -> Self {
        let mut arguments = Arguments {
            fields: Vec::new(),
            bounds: Vec::new(),
            assertions: Vec::new(),
            probes: Some(Vec::new()),
        };
        for param in &tool.params {
            arguments.add(tool, param);
        }
        arguments
    }

    /// Adds `param`'s field, and its probe, bound and assertion where it needs them.
    fn add(&mut self, tool: &Tool<'_>, param: &ast::Param<'_>) {
        let ident = param.ident.expect("validated: a plain identifier");
        let field_attrs = &param.field_attrs;
        let description = param
            .description
            .as_ref()
            .map(|text| quote!(#[schemars(description = #text)]));
        match param.kind() {
            ParamKind::Context(_) | ParamKind::State(_) => {}
            ParamKind::Str => {
                self.add_probe(
                    param,
                    quote!(::skyl::__private::explain::probe::<::std::string::String>),
                );
                self.fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: ::std::string::String
                });
            }
            ParamKind::Value(ty) if param.is_skipped() => {
                let ty = written(tool, ty);
                self.fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: #ty
                });
            }
            ParamKind::Value(ty) => {
                let span = ty.span();
                let known = known::reads_and_describes(ty);
                let ty = written(tool, ty);
                self.fields.push(quote! {
                    #(#field_attrs)* #description
                    #ident: #ty
                });
                // A type known by name has both traits: nothing to defer, nothing to assert.
                if known {
                    self.add_probe(param, quote!(::skyl::__private::explain::probe::<#ty>));
                } else {
                    self.add_deferred(param, &ty, span);
                }
            }
        }
    }

    /// Adds the probe, the deferred bound and the assertion of `param`, of type `ty` (written at
    /// `span`), whose traits are not known from its name.
    fn add_deferred(&mut self, param: &ast::Param<'_>, ty: &TokenStream, span: proc_macro2::Span) {
        let read = read_as(ty);
        self.add_probe(param, quote!(::skyl::__private::explain::probe_of(#read)));
        self.bounds.push(quote! {
            <#ty as ::skyl::__private::Defer<__S>>::This:
                ::skyl::__private::serde::de::DeserializeOwned
                + ::skyl::__private::schemars::JsonSchema
        });
        // The projection spans the type from its first token to its last, so that the error
        // underlines all of `Option<City>`, not `Option` alone.
        let last = ty
            .clone()
            .into_iter()
            .last()
            .map_or(span, |token| token.span());
        let open = quote_spanned!(span=> <);
        let close = quote_spanned!(last=> as ::skyl::__private::ToolParameter>::This);
        self.assertions.push(quote_spanned! {span=>
            let _: ::core::marker::PhantomData<#open #ty #close>;
        });
    }

    /// Adds the failure path's reader of `param`, `probe`; or gives up on readers (`None`) for a
    /// parameter serde does not read as one key holding its type.
    fn add_probe(&mut self, param: &ast::Param<'_>, probe: TokenStream) {
        let (Some(list), Some(keys)) = (self.probes.as_mut(), param.wire_keys()) else {
            self.probes = None;
            return;
        };
        list.push(quote! {
            ::skyl::__private::explain::ArgumentProbe {
                keys: &[#(#keys),*],
                probe: #probe,
            }
        });
    }

    /// Deferred bounds mention a type parameter, so the arguments struct takes one, which the
    /// bodies set to `()`; without them (every parameter of a type known by name) it is a plain
    /// struct, which the derives expand to less code and the compiler checks once.
    fn generic(&self) -> bool {
        !self.bounds.is_empty()
    }

    /// The arguments struct and the block of assertions on its parameter types. The bounds are
    /// on the derives only: a bound on the struct would be checked wherever the bodies name it.
    pub(super) fn items(&self) -> TokenStream {
        let (arguments_struct, state_marker, derive_bounds) = if self.generic() {
            let bounds = &self.bounds;
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
        let (fields, assertions) = (&self.fields, &self.assertions);
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
        }
    }

    /// How the bodies read the arguments.
    pub(super) fn reading(&self) -> Reading {
        let reading = if self.generic() {
            let arguments = read_as(&quote!(__SkylArguments<()>));
            Reading {
                arguments: quote!(let __arguments = #arguments;),
                parameters_schema: quote!(::skyl::__private::arguments_schema_of(__arguments)),
                parse: quote!(::skyl::__private::parse_explained_as(
                    __arguments,
                    __json,
                    __schema,
                    __explain
                )),
                explain: quote!(::skyl::__private::explain::whole_of(__arguments)),
                args: quote! {
                    let __args: __SkylArguments<()> = ::skyl::__private::IntoRead::into_read(__args);
                },
            }
        } else {
            Reading {
                arguments: quote!(),
                parameters_schema: quote!(::skyl::__private::arguments_schema::<__SkylArguments>),
                parse: quote!(::skyl::__private::parse_explained::<__SkylArguments>(
                    __json, __schema, __explain
                )),
                explain: quote!(::skyl::__private::explain::whole::<__SkylArguments>),
                args: quote!(),
            }
        };
        match &self.probes {
            Some(probes) => Reading {
                explain: quote! {
                    |__object, __error| ::skyl::__private::explain::by_probes(__object, __error, &[#(#probes),*])
                },
                ..reading
            },
            None => reading,
        }
    }
}

impl Reading {
    /// The statements that leave the parsed arguments in `__args`, or return the failure that
    /// says why they do not parse.
    pub(super) fn statements(&self) -> TokenStream {
        let Reading {
            arguments,
            parse,
            explain,
            args,
            ..
        } = self;
        quote! {
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
