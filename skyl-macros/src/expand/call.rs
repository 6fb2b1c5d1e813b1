//! The call: what the function is called with (the arguments read, the state borrowed, the
//! values taken from the invocation), how it runs (awaited, on a blocking thread, or at once),
//! and the `Tool` methods that run it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::written::written;
use crate::ast::{ParamKind, Place, Tool};

/// What the function is called with.
pub(super) struct Call {
    /// The function's arguments, in the order of its parameters.
    args: Vec<TokenStream>,
    /// Values taken from the invocation before the call runs: the future or the thread the call
    /// runs on cannot borrow it.
    taken: Vec<TokenStream>,
    /// `T: FromRef<__S>` per `#[state]` parameter.
    state_bounds: Vec<TokenStream>,
}

impl Call {
    /// The call of `tool`'s function.
    pub(super) fn of(tool: &Tool<'_>) -> Self {
        let mut call = Call {
            args: Vec::new(),
            taken: Vec::new(),
            state_bounds: Vec::new(),
        };
        if has_receiver(tool) {
            call.args.push(if tool.options.blocking.is_some() {
                quote!(&*__this)
            } else {
                quote!(&*self.0)
            });
        }
        for param in &tool.params {
            let arg = match param.kind() {
                ParamKind::Context(ty) => {
                    let span = ty.span();
                    let ty = written(tool, ty);
                    let local = format_ident!("__skyl_context_{}", call.taken.len());
                    // A type that cannot be taken from the call is reported at the type.
                    call.taken.push(quote_spanned! {span=>
                        let #local = <#ty as ::skyl::tool::FromInvocation>::from_invocation(__invocation);
                    });
                    quote!(#local)
                }
                ParamKind::State(ty) => {
                    let ty = written(tool, ty);
                    call.state_bounds
                        .push(quote!(#ty: ::skyl::tool::FromRef<__S>));
                    quote!(<#ty as ::skyl::tool::FromRef<__S>>::from_ref(__state))
                }
                ParamKind::Str => {
                    let ident = param.ident.expect("validated: a plain identifier");
                    quote!(&__args.#ident)
                }
                ParamKind::Value(_) => {
                    let ident = param.ident.expect("validated: a plain identifier");
                    quote!(__args.#ident)
                }
            };
            call.args.push(arg);
        }
        call
    }

    /// The `where` clauses of the `Tool` impl beyond `__S`'s own: none on parameter types.
    pub(super) fn bounds(&self, tool: &Tool<'_>) -> TokenStream {
        let instance_bound = match tool.place {
            Place::Free => None,
            // Checked once, at the `impl` block's type, by `tools.rs`.
            Place::Method { self_ty, .. } => Some(quote! {
                <#self_ty as ::skyl::__private::Defer<__S>>::This:
                    ::core::marker::Send + ::core::marker::Sync + 'static,
            }),
        };
        let state_bounds = &self.state_bounds;
        quote! {
            #instance_bound
            #(#state_bounds,)*
        }
    }

    /// The `Tool` methods that run a call: they read the arguments (`reading`, statements that
    /// leave them in `__args`), take what the call needs, call the function and convert what it
    /// returned (`result`).
    ///
    /// A tool that sees its call (a `#[context]` parameter; a blocking tool, which passes the
    /// effect key to its thread) implements `invoke`, and `call` as `invoke` outside any run; any
    /// other implements `call` alone, and the toolbox's `invoke` is `call`.
    pub(super) fn methods(
        &self,
        tool: &Tool<'_>,
        reading: TokenStream,
        result: TokenStream,
    ) -> TokenStream {
        let name = &tool.name;
        let (entry, invocation_param, call) =
            if !self.taken.is_empty() || tool.options.blocking.is_some() {
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
        let taken = &self.taken;
        let run = self.run(tool, result);
        quote! {
            #call

            fn #entry<'__a>(
                &'__a self,
                __json: &'__a ::skyl::__private::serde_json::Value,
                __state: &'__a __S,
                #invocation_param
            ) -> ::skyl::tool::ToolFuture<'__a> {
                let _ = __state;
                #reading
                #(#taken)*
                #run
            }
        }
    }

    /// The `ToolFuture` that calls the function and converts its output (`result`): awaited in
    /// a future, on a blocking thread, or ready at once.
    fn run(&self, tool: &Tool<'_>, result: TokenStream) -> TokenStream {
        let fn_ident = tool.fn_ident;
        let callee = match tool.place {
            Place::Free => quote!(#fn_ident),
            Place::Method { self_ty, .. } => quote!(<#self_ty>::#fn_ident),
        };
        let args = &self.args;
        let await_ = tool.is_async.then(|| quote!(.await));
        let run = quote! {
            let __output = #callee(#(#args),*) #await_;
            #result
        };
        if let Some(asyncness) = &tool.sig.asyncness {
            // A future that is not `Send` is reported at the `async` keyword.
            quote_spanned!(asyncness.span=> ::skyl::tool::ToolFuture::new_output(async move { #run }))
        } else if let Some(blocking) = tool.options.blocking {
            // Arguments and output that cannot cross threads are reported at `blocking`.
            let this =
                has_receiver(tool).then(|| quote!(let __this = ::std::sync::Arc::clone(&self.0);));
            quote_spanned! {blocking=>
                #this
                ::skyl::__private::run_blocking(__invocation, move || { #run })
            }
        } else {
            quote!(::skyl::tool::ToolFuture::ready_output({ #run }))
        }
    }
}

/// Whether the function is a method that takes `&self`.
fn has_receiver(tool: &Tool<'_>) -> bool {
    matches!(
        tool.place,
        Place::Method {
            has_receiver: true,
            ..
        }
    )
}
