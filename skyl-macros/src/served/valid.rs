//! The rules of `#[prompt]` and `#[resource]`, each reported at what breaks it.

use syn::spanned::Spanned;
use syn::{FnArg, Type};

use super::Kind;
use super::ast::{Served, template_variables};

impl Served<'_> {
    /// Checks the function against every rule; the first error, at its span.
    pub(crate) fn validate(&self) -> syn::Result<()> {
        let attribute = self.kind.attribute();
        let sig = &self.function.sig;
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            return Err(syn::Error::new_spanned(
                &sig.generics,
                format!(
                    "a {attribute} function cannot be generic: its definition is built once; \
                     write it for concrete types"
                ),
            ));
        }
        if self.self_ty.is_some() {
            let takes_ref_self = matches!(
                sig.inputs.first(),
                Some(FnArg::Receiver(syn::Receiver {
                    kind: syn::ReceiverKind::Reference(_, _, None),
                    ..
                }))
            );
            if !takes_ref_self {
                return Err(syn::Error::new_spanned(
                    sig.inputs
                        .first()
                        .map_or(&sig.ident as &dyn quote::ToTokens, |first| first),
                    format!(
                        "a {attribute} method takes `&self` first: the server holds the instance \
                         in an `Arc` and calls it from several requests at once"
                    ),
                ));
            }
        }
        for param in &self.params {
            let FnArg::Typed(typed) = param.arg else {
                return Err(syn::Error::new_spanned(
                    param.arg,
                    format!(
                        "{attribute} on a method needs `#[skyl::served]` on its `impl` block, \
                         which makes the block's type a set of prompts and resources for \
                         `Server::with_served`"
                    ),
                ));
            };
            if param.ident.is_none() {
                return Err(syn::Error::new_spanned(
                    &typed.pat,
                    format!(
                        "a parameter of a {attribute} function is named by a plain identifier \
                         (`topic: String`), which is its name on the wire"
                    ),
                ));
            }
            if let Type::Reference(reference) = &*typed.ty {
                return Err(syn::Error::new_spanned(
                    reference,
                    "the value is read from the request and owned by the function: take it by \
                     value (`String` instead of `&str`)",
                ));
            }
            if let Type::ImplTrait(_) = &*typed.ty {
                return Err(syn::Error::new_spanned(
                    &typed.ty,
                    "`impl Trait` cannot be read from a request; name the type",
                ));
            }
        }
        match self.kind {
            Kind::Prompt => Ok(()),
            Kind::Resource => self.validate_address(),
        }
    }

    /// A resource has one URI or one template, and a template's variables are its parameters.
    fn validate_address(&self) -> syn::Result<()> {
        let options = &self.options;
        let literal = match (&options.uri, &options.uri_template) {
            (Some(_), Some(template)) => {
                return Err(syn::Error::new_spanned(
                    template,
                    "a resource has a `uri` or a `uri_template`, not both",
                ));
            }
            (None, None) => {
                return Err(syn::Error::new(
                    options.span,
                    "`#[resource]` needs its address: `uri = \"notes://today\"` for one \
                     resource, or `uri_template = \"notes://days/{day}\"` for a template whose \
                     variables are the function's parameters",
                ));
            }
            (Some(uri), None) => uri,
            (None, Some(template)) => template,
        };
        let variables = template_variables(&literal.value())
            .map_err(|cause| syn::Error::new_spanned(literal, cause))?;
        if options.uri.is_some() {
            if !variables.is_empty() {
                return Err(syn::Error::new_spanned(
                    literal,
                    "this `uri` has `{variables}`: write it as `uri_template = \"...\"`",
                ));
            }
            if let Some(param) = self.params.first() {
                return Err(syn::Error::new_spanned(
                    param.arg,
                    "a resource at one `uri` takes no parameters; for a URI with variables, \
                     write `uri_template = \"...{name}...\"` with a parameter per variable",
                ));
            }
            return Ok(());
        }
        if variables.is_empty() {
            return Err(syn::Error::new_spanned(
                literal,
                "this `uri_template` has no `{variable}`: write it as `uri = \"...\"`",
            ));
        }
        for param in &self.params {
            let name = param.name();
            if !variables.contains(&name) {
                return Err(syn::Error::new(
                    param.arg.span(),
                    format!(
                        "the parameter `{name}` is no variable of the template `{}`; add \
                         `{{{name}}}` to the template, or remove the parameter",
                        literal.value()
                    ),
                ));
            }
        }
        for variable in &variables {
            if !self.params.iter().any(|param| &param.name() == variable) {
                return Err(syn::Error::new_spanned(
                    literal,
                    format!(
                        "the template's variable `{{{variable}}}` has no parameter; add \
                         `{variable}: String` (or the type it reads as) to the function"
                    ),
                ));
            }
        }
        Ok(())
    }
}
