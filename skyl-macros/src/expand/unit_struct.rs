//! The unit struct that stands for a free function's tool (and for a `#[prompt]`'s or a
//! `#[resource]`'s): `pub struct GetWeather;` in a module of its own, brought in with `use`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Attribute, Visibility};

use crate::ast;

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
