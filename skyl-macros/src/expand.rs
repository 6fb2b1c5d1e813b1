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

mod arguments;
mod call;
mod definition;
mod limits;
mod result;
pub(crate) mod unit_struct;
mod written;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Attribute, FnArg, Item, ItemFn, Signature, Visibility};

use self::arguments::Arguments;
use self::call::Call;
use self::unit_struct::{module_ident, unit_struct};
use crate::ast::{self, Tool};
use crate::{attr, docs, fallback, opaque, valid};

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
/// items for a `const _: () = { ... }` block. Each step is a file of `expand/`: the reading of
/// arguments (`arguments.rs`), the definition (`definition.rs`), the call (`call.rs`) and its
/// limits (`limits.rs`), and the result (`result.rs`).
pub(crate) fn tool_impl(tool: &Tool<'_>, tool_ty: &TokenStream) -> TokenStream {
    let arguments = Arguments::of(tool);
    let reading = arguments.reading();
    let call = Call::of(tool);
    let items = arguments.items();
    let bounds = call.bounds(tool);
    let definition = definition::method(tool, &reading);
    let methods = call.methods(tool, reading.statements(), result::convert(tool));
    let limits = limits::methods(&tool.options);
    quote! {
        #items

        #[automatically_derived]
        impl<__S> ::skyl::Tool<__S> for #tool_ty
        where
            __S: ::core::marker::Send + ::core::marker::Sync + 'static,
            #bounds
        {
            #definition

            #methods

            #limits
        }
    }
}
