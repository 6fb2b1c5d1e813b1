//! The result: what the function returned, made into the call's one `ToolResult` by
//! `IntoToolOutput`.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;

use super::written::written;
use crate::ast::Tool;
use crate::valid;

/// The expression that converts `__output`, the function's return value, into the call's
/// output. A return type that is not `IntoToolOutput` is reported here, at the return type.
pub(super) fn convert(tool: &Tool<'_>) -> TokenStream {
    let output_span = match tool.output {
        Some(ty) => ty.span(),
        None => tool.fn_ident.span(),
    };
    // Naming the type in the turbofish makes the compiler underline all of it; an `impl Trait`
    // cannot be named there, so it gets the span of its first token instead.
    match tool.output {
        Some(ty) if !valid::contains_impl(ty) => {
            let ty = written(tool, ty);
            quote_spanned!(output_span=> ::skyl::__private::tool_output::<#ty>(__output))
        }
        _ => quote_spanned!(output_span=> ::skyl::__private::tool_output(__output)),
    }
}
