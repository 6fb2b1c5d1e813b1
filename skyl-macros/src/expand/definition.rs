//! The definition: the tool's name, description, parameters schema, annotations and output
//! schema, handed as constant parts and `fn` pointers to skyl's `cached_definition`, which builds
//! the `ToolDefinition` once.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::arguments::Reading;
use super::written::written;
use crate::ast::Tool;
use crate::attr::{Flag, Options};
use crate::valid;

/// `fn definition(&self) -> &ToolDefinition`, with the parameters schema of the arguments as
/// `reading` reads them.
pub(super) fn method(tool: &Tool<'_>, reading: &Reading) -> TokenStream {
    let name = &tool.name;
    let description = tool.description.as_deref().unwrap_or_default();
    let annotations = annotations(&tool.options);
    let output_schema = output_schema(tool);
    let Reading {
        arguments,
        parameters_schema,
        ..
    } = reading;
    quote! {
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
    }
}

/// The output schema's maker, when `output_schema` is set and the return type can be named.
fn output_schema(tool: &Tool<'_>) -> TokenStream {
    match (tool.options.output_schema, tool.output) {
        (Some(span), Some(ty)) if !valid::contains_impl(ty) => {
            let ty = written(tool, ty);
            quote_spanned! {span=>
                ::core::option::Option::Some(::skyl::__private::output_schema::<#ty>)
            }
        }
        _ => quote!(::core::option::Option::None),
    }
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
