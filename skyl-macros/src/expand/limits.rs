//! The call's limits: `timeout` and `cancel_grace`, as the `Tool` methods that report them.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::attr::Options;

/// `fn timeout` and `fn cancel_grace`, each when its option is set.
pub(super) fn methods(options: &Options) -> TokenStream {
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
    quote! {
        #timeout
        #cancel_grace
    }
}
