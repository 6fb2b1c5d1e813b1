//! The parsed function under `#[prompt]` or `#[resource]`, and the options of its attribute.
//! Parsing is lenient; the rules live in `valid.rs`, with their spans.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::{FnArg, Ident, ItemFn, LitStr, Pat, Type};

use super::Kind;
use crate::ast::unraw;
use crate::docs;

/// A function under `#[prompt]` or `#[resource]`.
pub(crate) struct Served<'a> {
    pub(crate) kind: Kind,
    pub(crate) function: &'a ItemFn,
    /// The struct that implements the trait: the function's name in UpperCamelCase.
    pub(crate) struct_ident: Ident,
    pub(crate) options: Options,
    /// The wire name: `name = "..."` or the function's name.
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) params: Vec<Param<'a>>,
    /// For a method of a `#[served]` impl block, the block's type (its receiver is not a
    /// parameter).
    pub(crate) self_ty: Option<&'a Type>,
}

/// One parameter: a prompt's argument, or a template's variable.
pub(crate) struct Param<'a> {
    pub(crate) arg: &'a FnArg,
    pub(crate) ident: Option<&'a Ident>,
    pub(crate) ty: Option<&'a Type>,
    pub(crate) description: Option<String>,
}

impl Param<'_> {
    /// Its name on the wire.
    pub(crate) fn name(&self) -> String {
        self.ident.map(unraw).unwrap_or_default()
    }

    /// Whether it may be left out: its type is written `Option<...>`.
    pub(crate) fn is_optional(&self) -> bool {
        let Some(Type::Path(path)) = self.ty else {
            return false;
        };
        path.qself.is_none()
            && path
                .path
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "Option")
    }
}

/// The options written in the attribute.
pub(crate) struct Options {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    /// `#[resource(uri = "...")]`.
    pub(crate) uri: Option<LitStr>,
    /// `#[resource(uri_template = "...")]`.
    pub(crate) uri_template: Option<LitStr>,
    /// `#[resource(mime_type = "...")]`.
    pub(crate) mime_type: Option<LitStr>,
    /// Where the attribute's options are, for a rule about them as a whole.
    pub(crate) span: Span,
}

impl Options {
    /// The resource's URI or template, as written.
    pub(crate) fn address(&self) -> Option<&LitStr> {
        self.uri.as_ref().or(self.uri_template.as_ref())
    }
}

/// Parses the options of `kind`'s attribute; an unknown key or a value that is not a string
/// is an error at it, saying what the attribute takes.
pub(crate) fn options(kind: Kind, args: TokenStream) -> syn::Result<Options> {
    let span = args
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |token| token.span());
    let mut options = Options {
        name: None,
        title: None,
        description: None,
        uri: None,
        uri_template: None,
        mime_type: None,
        span,
    };
    let known = match kind {
        Kind::Prompt => {
            "`#[prompt]` takes `name = \"...\"`, `title = \"...\"` and \
                         `description = \"...\"`"
        }
        Kind::Resource => {
            "`#[resource]` takes `uri = \"...\"` or `uri_template = \"...\"`, and \
                           `name = \"...\"`, `title = \"...\"`, `description = \"...\"` and \
                           `mime_type = \"...\"`"
        }
    };
    let parser = syn::meta::parser(|meta| {
        let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
            return Err(meta.error(format!("unknown option; {known}")));
        };
        let slot = match (kind, key.as_str()) {
            (_, "name") => &mut options.name,
            (_, "title") => &mut options.title,
            (_, "description") => &mut options.description,
            (Kind::Resource, "uri") => &mut options.uri,
            (Kind::Resource, "uri_template") => &mut options.uri_template,
            (Kind::Resource, "mime_type") => &mut options.mime_type,
            _ => return Err(meta.error(format!("unknown option `{key}`; {known}"))),
        };
        if slot.is_some() {
            return Err(meta.error(format!("`{key}` is given twice; keep one")));
        }
        let value = meta
            .value()
            .map_err(|_| meta.error(format!("`{key}` takes a string: write `{key} = \"...\"`")))?;
        *slot = Some(value.parse::<LitStr>().map_err(|error| {
            syn::Error::new(
                error.span(),
                format!("`{key}` takes a string: write `{key} = \"...\"`"),
            )
        })?);
        Ok(())
    });
    parser.parse2(args)?;
    Ok(options)
}

impl<'a> Served<'a> {
    /// The function's model.
    pub(crate) fn from_fn(
        kind: Kind,
        function: &'a ItemFn,
        options: Options,
        self_ty: Option<&'a Type>,
    ) -> syn::Result<Self> {
        let fn_ident = &function.sig.ident;
        let description = match &options.description {
            Some(text) => Some(text.value()),
            None => docs::collect(&function.attrs)?,
        };
        let name = options
            .name
            .as_ref()
            .map_or_else(|| unraw(fn_ident), LitStr::value);
        let mut params = Vec::new();
        // A method's receiver is checked by `valid.rs`, and is no parameter of the request's.
        let skip = usize::from(
            self_ty.is_some() && matches!(function.sig.inputs.first(), Some(FnArg::Receiver(_))),
        );
        for arg in function.sig.inputs.iter().skip(skip) {
            params.push(match arg {
                FnArg::Receiver(_) => Param {
                    arg,
                    ident: None,
                    ty: None,
                    description: None,
                },
                FnArg::Typed(typed) => Param {
                    arg,
                    ident: match &*typed.pat {
                        Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                            Some(&pat.ident)
                        }
                        _ => None,
                    },
                    ty: Some(&typed.ty),
                    description: docs::collect(&typed.attrs)?,
                },
            });
        }
        Ok(Served {
            kind,
            function,
            struct_ident: crate::ast::struct_ident(fn_ident),
            options,
            name,
            description,
            params,
            self_ty,
        })
    }
}

/// The variables of a URI template, or why it is not
/// one skyl reads (`{name}` or `{+name}`), as the runtime reads them.
pub(crate) fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut variables = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err("a `{` is never closed".to_owned());
        };
        let expression = &rest[open + 1..open + close];
        let name = expression.strip_prefix('+').unwrap_or(expression);
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            return Err(format!(
                "`{{{expression}}}` is not a variable skyl reads: write `{{name}}` for one segment \
                 or `{{+name}}` for any text"
            ));
        }
        if open == 0 && !variables.is_empty() {
            return Err(format!(
                "`{{{expression}}}` follows another variable with no text between them, so a URI \
                 cannot tell where one ends"
            ));
        }
        variables.push(name.to_owned());
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return Err("a `}` closes no `{`".to_owned());
    }
    Ok(variables)
}
