//! The parsed tool: what the function says, before it is checked (`valid.rs`) or expanded
//! (`expand.rs`). Parsing is lenient; every rule lives in `valid.rs`, with its span.

use proc_macro2::{Ident, Span};
use quote::format_ident;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ImplItemFn, ItemFn, Pat, ReturnType, Signature, Type};

use crate::attr::Options;
use crate::docs;

/// A function under `#[tool]`, free or a method of a `#[tools]` impl.
pub(crate) struct Tool<'a> {
    pub(crate) attrs: &'a [Attribute],
    pub(crate) sig: &'a Signature,
    pub(crate) fn_ident: &'a Ident,
    pub(crate) place: Place<'a>,
    /// The struct that implements `Tool`: for a free function, its name in UpperCamelCase; for a
    /// method, a hidden name.
    pub(crate) struct_ident: Ident,
    /// The wire name.
    pub(crate) name: String,
    /// Where the name was written: the `name = "..."` string, or the function's name.
    pub(crate) name_span: Span,
    pub(crate) description: Option<String>,
    /// Where the description was written, which is where a missing one is reported.
    pub(crate) description_source: DescriptionSource,
    pub(crate) params: Vec<Param<'a>>,
    /// The declared return type; `None` for `()`.
    pub(crate) output: Option<&'a Type>,
    pub(crate) is_async: bool,
    /// The settings of `#[tool(...)]` beyond the name and description.
    pub(crate) options: Options,
}

/// Where the function is written.
pub(crate) enum Place<'a> {
    /// A free function: its tool is a unit struct of its own.
    Free,
    /// An associated function of a `#[tools]` impl of `self_ty`: its tool holds the instance.
    Method {
        self_ty: &'a Type,
        /// Whether it takes `&self` (checked by `valid.rs`) rather than no receiver.
        has_receiver: bool,
    },
}

/// Where a tool's description comes from.
pub(crate) enum DescriptionSource {
    /// `#[tool(description = "...")]`, at the string.
    Option(Span),
    /// The doc comment, at its first line.
    Doc(Span),
    /// Nowhere: no doc comment and no option; reported at the function's name.
    Missing(Span),
}

/// One parameter of the function.
pub(crate) struct Param<'a> {
    pub(crate) pat: &'a Pat,
    /// The parameter's name when its pattern is a plain identifier.
    pub(crate) ident: Option<&'a Ident>,
    pub(crate) ty: &'a Type,
    /// The `#[state]` attribute, when the parameter has one.
    pub(crate) state: Option<&'a Attribute>,
    /// The `#[context]` attribute, when the parameter has one.
    pub(crate) context: Option<&'a Attribute>,
    pub(crate) description: Option<String>,
    /// `#[serde(...)]` and `#[schemars(...)]`, carried over to the arguments struct's field.
    pub(crate) field_attrs: Vec<&'a Attribute>,
}

impl Param<'_> {
    /// Whether `#[serde(skip)]` or `#[serde(skip_deserializing)]` keeps the model from sending
    /// it: serde then builds it with `Default` (or the `default` it names), so its type needs
    /// neither `Deserialize` nor `JsonSchema`.
    pub(crate) fn is_skipped(&self) -> bool {
        self.field_attrs.iter().any(|attr| {
            let syn::Meta::List(list) = &attr.meta else {
                return false;
            };
            if !list.path.is_ident("serde") {
                return false;
            }
            // The top-level words of `serde(...)`: `skip`, `default = "..."`, ...
            let mut at_start = true;
            list.tokens.clone().into_iter().any(|token| {
                let word = matches!(&token, proc_macro2::TokenTree::Ident(ident)
                    if at_start && (ident == "skip" || ident == "skip_deserializing"));
                at_start = matches!(&token, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',');
                word
            })
        })
    }
}

impl Param<'_> {
    /// The keys the model may send this parameter under: its name or `rename`, then each
    /// `alias`. `None` when another `#[serde(...)]` attribute (`flatten`, `with`,
    /// `deserialize_with`, ...) makes serde read it otherwise than as one key holding its type,
    /// so that reading its type alone would not find what serde finds.
    pub(crate) fn wire_keys(&self) -> Option<Vec<String>> {
        let mut name = unraw(self.ident?);
        let mut aliases = Vec::new();
        for attr in &self.field_attrs {
            if !attr.path().is_ident("serde") {
                continue;
            }
            let read = attr.parse_nested_meta(|meta| {
                let path = &meta.path;
                if path.is_ident("rename") {
                    if meta.input.peek(syn::Token![=]) {
                        name = meta.value()?.parse::<syn::LitStr>()?.value();
                    } else {
                        meta.parse_nested_meta(|inner| {
                            let value = inner.value()?.parse::<syn::LitStr>()?.value();
                            if inner.path.is_ident("deserialize") {
                                name = value;
                            }
                            Ok(())
                        })?;
                    }
                } else if path.is_ident("alias") {
                    aliases.push(meta.value()?.parse::<syn::LitStr>()?.value());
                } else if ["default", "skip_serializing_if", "serialize_with"]
                    .iter()
                    .any(|word| path.is_ident(word))
                {
                    if meta.input.peek(syn::Token![=]) {
                        meta.value()?.parse::<syn::LitStr>()?;
                    }
                } else if !path.is_ident("skip_serializing") {
                    return Err(meta.error("read otherwise"));
                }
                Ok(())
            });
            read.ok()?;
        }
        aliases.insert(0, name);
        Some(aliases)
    }
}

/// What a parameter is, once it passed `valid.rs`.
pub(crate) enum ParamKind<'a> {
    /// An argument the model sends, deserialized into `ty`.
    Value(&'a Type),
    /// A `&str` argument, received as a `String` and lent to the function.
    Str,
    /// `#[state] name: &T`: borrowed from the toolbox state through `FromRef`.
    State(&'a Type),
    /// `#[context] name: T`: taken from the call through `FromInvocation`.
    Context(&'a Type),
}

impl<'a> Tool<'a> {
    /// A free function under `#[tool]`.
    pub(crate) fn from_fn(function: &'a ItemFn, options: Options) -> syn::Result<Self> {
        let struct_ident = struct_ident(&function.sig.ident);
        Self::from_parts(
            &function.attrs,
            &function.sig,
            Place::Free,
            struct_ident,
            options,
        )
    }

    /// A method under `#[tool]` in a `#[tools]` impl of `self_ty`.
    pub(crate) fn from_method(
        method: &'a ImplItemFn,
        self_ty: &'a Type,
        options: Options,
    ) -> syn::Result<Self> {
        let place = Place::Method {
            self_ty,
            has_receiver: method.sig.receiver().is_some(),
        };
        let struct_ident = format_ident!("__SkylTool_{}", unraw(&method.sig.ident));
        Self::from_parts(&method.attrs, &method.sig, place, struct_ident, options)
    }

    fn from_parts(
        attrs: &'a [Attribute],
        sig: &'a Signature,
        place: Place<'a>,
        struct_ident: Ident,
        options: Options,
    ) -> syn::Result<Self> {
        let fn_ident = &sig.ident;
        let (name, name_span) = match &options.name {
            Some(literal) => (literal.value(), literal.span()),
            None => (unraw(fn_ident), fn_ident.span()),
        };
        let description = match &options.description {
            Some(literal) => Some(literal.value().trim().to_owned()).filter(|d| !d.is_empty()),
            None => docs::collect(attrs)?,
        };
        let description_source = match (&options.description, docs::first(attrs)) {
            (Some(literal), _) => DescriptionSource::Option(literal.span()),
            (None, Some(doc)) => DescriptionSource::Doc(doc.span()),
            (None, None) => DescriptionSource::Missing(fn_ident.span()),
        };
        let mut params = Vec::new();
        for input in &sig.inputs {
            // A `self` receiver is checked by `valid.rs`.
            if let FnArg::Typed(typed) = input {
                params.push(Param::from_syn(&typed.attrs, &typed.pat, &typed.ty)?);
            }
        }
        let output = match &sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some(&**ty),
        };
        Ok(Tool {
            attrs,
            sig,
            fn_ident,
            place,
            struct_ident,
            name,
            name_span,
            description,
            description_source,
            params,
            output,
            is_async: sig.asyncness.is_some(),
            options,
        })
    }

    /// The `#[cfg(...)]`s on the function, which every item generated for it must carry: a
    /// function compiled out takes its tool with it.
    pub(crate) fn cfgs(&self) -> impl Iterator<Item = &'a Attribute> + use<'a> {
        cfgs(self.attrs)
    }
}

/// The `#[cfg(...)]`s among `attrs`.
pub(crate) fn cfgs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("cfg"))
}

impl<'a> Param<'a> {
    fn from_syn(attrs: &'a [Attribute], pat: &'a Pat, ty: &'a Type) -> syn::Result<Self> {
        let ident = match pat {
            Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                Some(&ident.ident)
            }
            _ => None,
        };
        Ok(Param {
            pat,
            ident,
            ty,
            state: attrs.iter().find(|attr| is_state(attr)),
            context: attrs.iter().find(|attr| is_context(attr)),
            description: docs::collect(attrs)?,
            field_attrs: attrs.iter().filter(|attr| is_field_attr(attr)).collect(),
        })
    }

    /// Classifies a parameter that `valid.rs` accepted.
    pub(crate) fn kind(&self) -> ParamKind<'a> {
        if self.context.is_some() {
            return ParamKind::Context(self.ty);
        }
        match (self.state, self.ty) {
            (Some(_), Type::Reference(reference)) => ParamKind::State(&reference.elem),
            (None, ty) if is_str_ref(ty) => ParamKind::Str,
            (_, ty) => ParamKind::Value(ty),
        }
    }
}

/// `#[state]`.
pub(crate) fn is_state(attr: &Attribute) -> bool {
    attr.path().is_ident("state")
}

/// `#[context]`.
pub(crate) fn is_context(attr: &Attribute) -> bool {
    attr.path().is_ident("context")
}

/// `#[serde(...)]` or `#[schemars(...)]`: attributes for the arguments struct's field.
pub(crate) fn is_field_attr(attr: &Attribute) -> bool {
    attr.path().is_ident("serde") || attr.path().is_ident("schemars")
}

/// `&str` (or `&'_ str`): the one reference a model's argument can be lent as.
pub(crate) fn is_str_ref(ty: &Type) -> bool {
    let Type::Reference(reference) = ty else {
        return false;
    };
    let elided = reference
        .lifetime
        .as_ref()
        .is_none_or(|lifetime| lifetime.ident == "_");
    elided
        && reference.mutability.is_none()
        && matches!(&*reference.elem, Type::Path(path) if path.qself.is_none() && path.path.is_ident("str"))
}

/// The identifier without `r#`.
pub(crate) fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    match text.strip_prefix("r#") {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

/// `get_weather` → `GetWeather`, at the function name's span.
pub(crate) fn struct_ident(fn_ident: &Ident) -> Ident {
    Ident::new(&upper_camel_case(&unraw(fn_ident)), fn_ident.span())
}

pub(crate) fn upper_camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    for word in snake.split('_').filter(|word| !word.is_empty()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() {
        // `_` or `__`: not a useful name, but still an identifier.
        out.push_str("Tool");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::upper_camel_case;

    #[test]
    fn camel_case() {
        assert_eq!(upper_camel_case("get_weather"), "GetWeather");
        assert_eq!(upper_camel_case("get_weather_v2"), "GetWeatherV2");
        assert_eq!(upper_camel_case("_private__tool_"), "PrivateTool");
        assert_eq!(upper_camel_case("fetch_URL"), "FetchURL");
        assert_eq!(upper_camel_case("now"), "Now");
    }
}
