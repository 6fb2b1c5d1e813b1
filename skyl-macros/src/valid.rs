//! The rules a function must follow to be a tool, each reported at the token that breaks it,
//! with what to write instead.

use proc_macro2::TokenTree;
use quote::ToTokens;
use syn::{FnArg, GenericParam, Meta, Pat, Receiver, ReceiverKind, Safety, Type};

use crate::ast::{self, DescriptionSource, Param, ParamKind, Place, Tool};

impl Tool<'_> {
    /// Checks everything the compiler would not explain well. Errors about separate tokens are
    /// all reported at once; each mistake gives one error.
    pub(crate) fn validate(&self) -> syn::Result<()> {
        let mut errors = Errors::default();
        self.check_signature(&mut errors);
        if !self.sig.generics.params.is_empty() {
            // Parameters that use the generics would only repeat the same mistake.
            return errors.finish();
        }
        for param in &self.params {
            param.check(&mut errors);
        }
        let mut contexts = self.params.iter().filter_map(|param| param.context);
        if let (Some(_), Some(again)) = (contexts.next(), contexts.next()) {
            errors.push(syn::Error::new_spanned(
                again,
                "a tool takes one `#[context]` parameter; remove this one and use the first (a \
                 `CallContext` is a cheap handle: clone it where a second one is needed)",
            ));
        }
        self.check_name(&mut errors);
        self.check_description(&mut errors);
        self.check_settings(&mut errors);
        errors.finish()
    }

    fn check_signature(&self, errors: &mut Errors) {
        let sig = self.sig;
        if let Some(again) = self.attrs.iter().find(|attr| is_tool_attribute(attr)) {
            errors.push(syn::Error::new_spanned(
                again,
                "`#[tool]` is given twice; one function is one tool, so remove this one \
                 (to offer it under two names, write a second function that calls the first)",
            ));
        }
        if let Some(FnArg::Receiver(receiver)) = sig.inputs.first() {
            match self.place {
                Place::Free => errors.push(syn::Error::new_spanned(
                    receiver.self_token,
                    "a `#[tool]` method needs `#[skyl::tools]` on its `impl` block, which makes \
                     each `#[tool]` method a tool of the instance: add `#[skyl::tools]` above the \
                     `impl`, and register the instance with `Toolbox::with_set`",
                )),
                Place::Method { .. } => check_receiver(receiver, errors),
            }
        }
        for param in &sig.generics.params {
            let (what, fix) = match param {
                GenericParam::Lifetime(_) => (
                    "lifetime parameters",
                    "take arguments as owned types (`String`, not `&'a str`) and write \
                     `#[state]` references without a lifetime (`&Db`)",
                ),
                GenericParam::Type(_) => (
                    "type parameters",
                    "the model's arguments need one concrete schema; replace the parameter \
                     with a concrete type, or write one tool per type",
                ),
                GenericParam::Const(_) => (
                    "const parameters",
                    "replace the const parameter with a constant, or make it an argument",
                ),
            };
            errors.push(syn::Error::new_spanned(
                param,
                format!("a tool cannot have {what}; {fix}"),
            ));
        }
        if let (true, Some(where_clause)) =
            (sig.generics.params.is_empty(), &sig.generics.where_clause)
        {
            errors.push(syn::Error::new_spanned(
                where_clause,
                "a tool cannot have a `where` clause; use concrete types",
            ));
        }
        if let Safety::Unsafe(token) = &sig.safety {
            errors.push(syn::Error::new_spanned(
                token,
                "a tool cannot be an `unsafe fn`: a model decides when it runs; make the \
                 function safe and use `unsafe` blocks inside it",
            ));
        }
        if let Some(variadic) = &sig.variadic {
            errors.push(syn::Error::new_spanned(
                variadic,
                "a tool cannot be variadic; take a `Vec` argument instead",
            ));
        }
    }

    /// The per-tool settings: each must make sense for this function.
    fn check_settings(&self, errors: &mut Errors) {
        self.check_blocking(errors);
        let options = &self.options;
        if let (Some(timeout), None, false) = (&options.timeout, options.blocking, self.is_async) {
            errors.push(syn::Error::new_spanned(
                &timeout.literal,
                "a synchronous tool runs to completion inside the call, where no timeout can stop \
                 it; add `blocking` to run it on another thread (`#[tool(blocking, timeout = \
                 \"...\")]`), or make it an `async fn`",
            ));
        }
        if let Some(grace) = &options.cancel_grace {
            let fix = if !self.is_async && options.blocking.is_none() {
                Some(
                    "a synchronous tool finishes inside the call, before anything can cancel it, so \
                     it has no grace; remove `cancel_grace`, or make it an `async fn` that takes \
                     `#[context] call: skyl::tool::CallContext` and races `call.cancelled()`",
                )
            } else if self.params.iter().all(|param| param.context.is_none()) {
                Some(
                    "a tool without a `#[context]` parameter cannot see its call cancelled, so a \
                     grace would only keep it running; take `#[context] call: skyl::tool::CallContext` \
                     and race `call.cancelled()` against the work, or remove `cancel_grace`",
                )
            } else {
                None
            };
            if let Some(fix) = fix {
                errors.push(syn::Error::new_spanned(&grace.literal, fix));
            }
        }
        if let (Some(read_only), Some(destructive)) = (options.read_only, options.destructive)
            && read_only.value
            && destructive.value
        {
            errors.push(syn::Error::new(
                destructive.span,
                "a `read_only` tool changes nothing, so it cannot be `destructive`; remove one of \
                 them",
            ));
        }
        if let Some(title) = &options.title
            && title.value().trim().is_empty()
        {
            errors.push(syn::Error::new_spanned(
                title,
                "the title is empty; give a short name a person reads (`title = \"Get the \
                 weather\"`), or remove `title`",
            ));
        }
        if let (Some(output_schema), None) = (options.output_schema, self.output) {
            errors.push(syn::Error::new(
                output_schema,
                "`output_schema` states the schema of a `skyl::Json<T>` output, and this tool \
                 returns nothing; return `skyl::Json<T>` with `T: JsonSchema`, or remove \
                 `output_schema`",
            ));
        }
    }

    /// `blocking`: for a synchronous function, whose parameters do not borrow the state.
    fn check_blocking(&self, errors: &mut Errors) {
        let options = &self.options;
        if let (Some(blocking), true) = (options.blocking, self.is_async) {
            errors.push(syn::Error::new(
                blocking,
                "`blocking` is for a synchronous function that blocks its thread; an `async fn` \
                 does not, so remove `blocking` and await the slow work inside it",
            ));
        }
        if options.blocking.is_some() {
            for param in &self.params {
                if let (Some(state), ParamKind::State(ty)) = (param.state, param.kind()) {
                    errors.push(syn::Error::new_spanned(
                        state,
                        format!(
                            "a `blocking` tool runs on another thread, which cannot borrow the \
                             toolbox state; {}",
                            match self.place {
                                Place::Free => format!(
                                    "make the tool a `&self` method of a `#[tools]` impl whose \
                                     instance holds the `{}` it needs",
                                    ty.to_token_stream()
                                ),
                                Place::Method { .. } => format!(
                                    "keep the `{}` it needs in the instance and use it through \
                                     `self`",
                                    ty.to_token_stream()
                                ),
                            }
                        ),
                    ));
                }
            }
        }
    }

    fn check_name(&self, errors: &mut Errors) {
        // skyl's rule for names every provider accepts (`PORTABLE` in skyl/src/provider/names.rs,
        // which a Toolbox applies to the names it is given at run time): Gemini wants a letter
        // or `_` first, and the others `[a-zA-Z0-9_-]` throughout.
        let name = self.name.as_bytes();
        let valid = name.len() <= 64
            && name
                .first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && name
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-');
        if !valid {
            errors.push(syn::Error::new(
                self.name_span,
                format!(
                    "`{}` is not a tool name every provider accepts: use an ASCII letter or `_` \
                     first, then ASCII letters, digits, `_` or `-`, at most 64 in all; set one \
                     with `#[tool(name = \"...\")]`",
                    self.name
                ),
            ));
        }
        if !matches!(self.place, Place::Free) {
            // A method's tool is a hidden struct; its name cannot clash.
            return;
        }
        if let Some(used) = self
            .types()
            .find_map(|ty| find_ident(ty, &self.struct_ident))
        {
            errors.push(syn::Error::new(
                used.span(),
                format!(
                    "`#[tool]` adds a struct named `{0}` for this tool, and the signature uses \
                     another `{0}`; rename the function (`fn get_{1}`) and keep the wire name \
                     with `#[tool(name = \"{2}\")]`",
                    self.struct_ident,
                    ast::unraw(self.fn_ident),
                    self.name
                ),
            ));
        }
        if self.struct_ident == *self.fn_ident {
            errors.push(syn::Error::new_spanned(
                self.fn_ident,
                format!(
                    "`#[tool]` adds a struct named `{0}`, the function's name in UpperCamelCase, \
                     which is the function's own name; name the function in snake_case \
                     (`fn {1}`) and keep the wire name with `#[tool(name = \"{2}\")]`",
                    self.struct_ident,
                    snake_case(&self.struct_ident.to_string()),
                    self.name
                ),
            ));
        }
    }

    /// The types written in the signature: parameters' and the return type.
    fn types(&self) -> impl Iterator<Item = &Type> {
        self.params.iter().map(|param| param.ty).chain(self.output)
    }

    fn check_description(&self, errors: &mut Errors) {
        if self.description.is_some() {
            return;
        }
        let (span, message) = match self.description_source {
            DescriptionSource::Option(span) => (
                span,
                "the description is empty, and a model cannot use an undocumented tool well; \
                 say what the tool does and when to use it, or remove `description` to use the \
                 doc comment"
                    .to_owned(),
            ),
            DescriptionSource::Doc(span) => (
                span,
                format!(
                    "the doc comment of tool `{}` is blank, and a model cannot use an \
                     undocumented tool well; write what the tool does and when to use it \
                     (`/// Gets the current weather in a city.`)",
                    self.name
                ),
            ),
            DescriptionSource::Missing(span) => (
                span,
                format!(
                    "tool `{}` has no description, and a model cannot use an undocumented tool \
                     well; add a doc comment saying what it does and when to use it \
                     (`/// Gets the current weather in a city.`), or \
                     `#[tool(description = \"...\")]`",
                    self.name
                ),
            ),
        };
        errors.push(syn::Error::new(span, message));
    }
}

impl Param<'_> {
    fn check(&self, errors: &mut Errors) {
        let Some(ident) = self.ident else {
            errors.push(syn::Error::new_spanned(self.pat, pattern_message(self.pat)));
            return;
        };
        let name = ast::unraw(ident);
        if let Some(token) = find_impl(self.ty) {
            errors.push(syn::Error::new(
                token.span(),
                format!(
                    "parameter `{name}` cannot be `impl Trait`: the model's arguments are \
                     deserialized into one concrete type; name the type"
                ),
            ));
            return;
        }
        if let Some(context) = self.context {
            self.check_context(context, &name, errors);
            return;
        }
        if let Some(named) = names_call_context(self.ty) {
            errors.push(syn::Error::new_spanned(
                self.ty,
                format!(
                    "parameter `{name}` is the call's `{named}`, which the toolbox gives and the \
                     model does not send; mark it `#[context]`"
                ),
            ));
            return;
        }
        match (self.state, self.ty) {
            (Some(state), _) if !matches!(state.meta, Meta::Path(_)) => {
                errors.push(syn::Error::new_spanned(
                    state,
                    "`#[state]` takes no arguments; write `#[state]` and choose the part of the \
                     state by the parameter's type",
                ));
            }
            (Some(_), Type::Reference(reference)) => {
                self.check_state_reference(reference, &name, errors);
            }
            (Some(_), ty) => {
                errors.push(syn::Error::new_spanned(
                    ty,
                    format!(
                        "`#[state]` parameter `{name}` must be a shared reference, since it is \
                         borrowed from the toolbox state; write `&{}`",
                        ty.to_token_stream()
                    ),
                ));
            }
            (None, ty) if !matches!(ty, Type::Reference(_)) && find_punct(ty, '&').is_some() => {
                errors.push(syn::Error::new_spanned(
                    ty,
                    format!(
                        "parameter `{name}` borrows inside its type, but a model's arguments are \
                         owned data; use owned types inside it (`String` for `&str`, `Vec<T>` \
                         for `&[T]`)"
                    ),
                ));
            }
            (None, Type::Reference(reference)) if !ast::is_str_ref(self.ty) => {
                self.check_reference(reference, &name, errors);
            }
            _ => {}
        }
    }
}

impl Param<'_> {
    /// A reference the model would send (`&T`, not `#[state]`, other than `&str`): refused,
    /// with what to write instead.
    fn check_reference(&self, reference: &syn::TypeReference, name: &str, errors: &mut Errors) {
        let is_str = matches!(&*reference.elem, Type::Path(path) if path.path.is_ident("str"));
        errors.push(syn::Error::new_spanned(
            self.ty,
            if is_str && reference.mutability.is_none() {
                format!(
                    "parameter `{name}` is a reference with a lifetime, but the model's \
                     arguments live only for the call; write `&str` or `String`"
                )
            } else {
                format!(
                    "parameter `{name}` is a reference, but a model sends owned data; take \
                     `{}` by value, or mark it `#[state]` if it is borrowed from the \
                     toolbox state",
                    owned(&reference.elem)
                )
            },
        ));
    }

    /// `#[state] name: &T`: not `&mut`, no lifetime, no `#[serde]` or `#[schemars]`.
    fn check_state_reference(
        &self,
        reference: &syn::TypeReference,
        name: &str,
        errors: &mut Errors,
    ) {
        if let Some(mutability) = &reference.mutability {
            errors.push(syn::Error::new_spanned(
                mutability,
                format!(
                    "`#[state]` parameter `{name}` cannot be `&mut`: calls run \
                     concurrently and share the state; take `&{}` and use a `Mutex` or \
                     an atomic inside it",
                    reference.elem.to_token_stream()
                ),
            ));
        } else if let Some(lifetime) = &reference.lifetime {
            errors.push(syn::Error::new_spanned(
                lifetime,
                format!(
                    "`#[state]` parameter `{name}` borrows from the toolbox state for one \
                     call; remove the lifetime and write `&{}`",
                    reference.elem.to_token_stream()
                ),
            ));
        } else if let Some(attr) = self.field_attrs.first() {
            errors.push(syn::Error::new_spanned(
                attr,
                format!(
                    "`#[state]` parameter `{name}` is not an argument of the model, so \
                     `#[serde]` and `#[schemars]` have no effect on it; remove them"
                ),
            ));
        }
    }

    /// `#[context] name: T`: no arguments, not also `#[state]`, owned, not an argument of the
    /// model. Whether `T` can be taken from the call is the compiler's to say, at the type.
    fn check_context(&self, context: &syn::Attribute, name: &str, errors: &mut Errors) {
        if !matches!(context.meta, Meta::Path(_)) {
            errors.push(syn::Error::new_spanned(
                context,
                "`#[context]` takes no arguments; write `#[context]` and choose what is taken \
                 from the call by the parameter's type (`skyl::tool::CallContext`)",
            ));
        } else if let Some(state) = self.state {
            errors.push(syn::Error::new_spanned(
                state,
                format!(
                    "parameter `{name}` cannot be both `#[context]` and `#[state]`: the context \
                     comes from the call, the state from the toolbox; keep one, and make the \
                     other a parameter of its own"
                ),
            ));
        } else if let Type::Reference(reference) = self.ty {
            errors.push(syn::Error::new_spanned(
                self.ty,
                format!(
                    "`#[context]` parameter `{name}` is taken by value: the context is a handle \
                     the tool owns (cheap to clone, and it can go to another thread or into a \
                     future); write `{}`",
                    reference.elem.to_token_stream()
                ),
            ));
        } else if let Some(attr) = self.field_attrs.first() {
            errors.push(syn::Error::new_spanned(
                attr,
                format!(
                    "`#[context]` parameter `{name}` is not an argument of the model, so \
                     `#[serde]` and `#[schemars]` have no effect on it; remove them"
                ),
            ));
        }
    }
}

/// The name of skyl's call types (`CallContext`, `Invocation`) when `ty` names one, by the last
/// segment of its path.
fn names_call_context(ty: &Type) -> Option<&'static str> {
    let path = match ty {
        Type::Path(path) => path,
        Type::Reference(reference) => return names_call_context(&reference.elem),
        _ => return None,
    };
    let last = path.path.segments.last()?;
    ["CallContext", "Invocation"]
        .into_iter()
        .find(|name| last.ident == name)
}

/// A tool method takes `&self`: the toolbox keeps the instance and lends it to every call.
fn check_receiver(receiver: &Receiver, errors: &mut Errors) {
    let error = match &receiver.kind {
        ReceiverKind::Reference(_, _, Some(mutability)) => syn::Error::new_spanned(
            mutability,
            "a tool method cannot take `&mut self`: calls run concurrently and share the \
             instance; take `&self` and put what changes behind a `Mutex` or an atomic",
        ),
        ReceiverKind::Reference(_, Some(lifetime), None) if lifetime.ident != "_" => {
            syn::Error::new_spanned(
                lifetime,
                "a tool method borrows the instance for one call; write `&self` without a \
                 lifetime",
            )
        }
        ReceiverKind::Reference(..) => return,
        ReceiverKind::Typed(_, ty) if is_ref_self(ty) => return,
        ReceiverKind::Typed(_, ty) => syn::Error::new_spanned(
            ty,
            "a tool method takes `&self`: the toolbox keeps the instance and lends it to each \
             call; write `&self`",
        ),
        _ => syn::Error::new_spanned(
            receiver.self_token,
            "a tool method cannot take `self` by value: the toolbox keeps the instance for every \
             call; take `&self`",
        ),
    };
    errors.push(error);
}

/// `&Self`, as in `self: &Self`.
fn is_ref_self(ty: &Type) -> bool {
    matches!(ty, Type::Reference(reference)
        if reference.mutability.is_none()
            && reference.lifetime.is_none()
            && matches!(&*reference.elem, Type::Path(path) if path.qself.is_none() && path.path.is_ident("Self")))
}

/// The owned type to take instead of a reference to `elem`: `Vec<T>` for `[T]`, `String` for
/// `str`, `PathBuf` for `Path`; `elem` itself when it is sized.
fn owned(elem: &Type) -> String {
    if let Type::Slice(slice) = elem {
        return format!("Vec<{}>", slice.elem.to_token_stream());
    }
    if let Type::Path(path) = elem
        && path.qself.is_none()
        && let Some(last) = path.path.segments.last()
        && last.arguments.is_none()
    {
        let owned = match last.ident.to_string().as_str() {
            "str" => Some("String"),
            "Path" => Some("PathBuf"),
            "OsStr" => Some("OsString"),
            "CStr" => Some("CString"),
            _ => None,
        };
        if let Some(owned) = owned {
            return owned.to_owned();
        }
    }
    elem.to_token_stream().to_string()
}

/// `#[tool]`, `#[tool(...)]` or `#[skyl::tool...]`.
pub(crate) fn is_tool_attribute(attr: &syn::Attribute) -> bool {
    let path = attr.path();
    path.is_ident("tool")
        || (path.segments.len() == 2
            && path.segments[0].ident == "skyl"
            && path.segments[1].ident == "tool")
}

fn pattern_message(pat: &Pat) -> String {
    if let Pat::Wild(_) = pat {
        return "a tool parameter needs a name, because the name is the argument's key in the \
                JSON the model sends; name it (`city: String`), or remove it if the tool does \
                not use it"
            .to_owned();
    }
    let example = match pat {
        Pat::Ident(ident) => ast::unraw(&ident.ident),
        _ => "name".to_owned(),
    };
    format!(
        "a tool parameter must be a plain name, because the name is the argument's key in the \
         JSON the model sends; write `{example}: Type` and destructure it in the body"
    )
}

/// The first `punct` token anywhere in `ty`.
fn find_punct(ty: &Type, punct: char) -> Option<TokenTree> {
    fn walk(tokens: proc_macro2::TokenStream, punct: char) -> Option<TokenTree> {
        for token in tokens {
            match &token {
                TokenTree::Punct(p) if p.as_char() == punct => return Some(token),
                TokenTree::Group(group) => {
                    if let Some(found) = walk(group.stream(), punct) {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        None
    }
    walk(ty.to_token_stream(), punct)
}

/// The first `ident` anywhere in `tokens`.
pub(crate) fn find_ident(tokens: &impl ToTokens, ident: &proc_macro2::Ident) -> Option<TokenTree> {
    fn walk(tokens: proc_macro2::TokenStream, ident: &proc_macro2::Ident) -> Option<TokenTree> {
        tokens.into_iter().find_map(|token| match &token {
            TokenTree::Ident(found) if found == ident => Some(token),
            TokenTree::Group(group) => walk(group.stream(), ident),
            _ => None,
        })
    }
    walk(tokens.to_token_stream(), ident)
}

/// Whether `ty` has an `impl Trait` anywhere in it.
pub(crate) fn contains_impl(ty: &Type) -> bool {
    find_impl(ty).is_some()
}

/// The `impl` keyword of an `impl Trait` anywhere in `ty`.
fn find_impl(ty: &Type) -> Option<TokenTree> {
    fn walk(tokens: proc_macro2::TokenStream) -> Option<TokenTree> {
        for token in tokens {
            match &token {
                TokenTree::Ident(ident) if ident == "impl" => return Some(token),
                TokenTree::Group(group) => {
                    if let Some(found) = walk(group.stream()) {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        None
    }
    walk(ty.to_token_stream())
}

fn snake_case(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Errors about separate tokens, reported together.
#[derive(Default)]
pub(crate) struct Errors(pub(crate) Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(errors) => errors.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
