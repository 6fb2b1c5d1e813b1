//! The options of `#[tool(...)]`: `name = "..."` and `description = "..."`.

use proc_macro2::TokenStream;
use syn::LitStr;
use syn::parse::Parser;

/// The options written in `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct Options {
    /// `name = "..."`: the wire name, instead of the function's name.
    pub(crate) name: Option<LitStr>,
    /// `description = "..."`: the description, instead of the doc comment.
    pub(crate) description: Option<LitStr>,
}

const KNOWN: &[&str] = &["name", "description"];

/// Parses the tokens inside `#[tool(...)]`. Stops at the first mistake, so the user sees one error.
pub(crate) fn parse(args: TokenStream) -> syn::Result<Options> {
    // `#[tool("get_weather")]` (and `#[tool = "get_weather"]`, which the compiler rejects and
    // still hands over as the string): the name, written without its key.
    if let Ok(literal) = syn::parse2::<syn::Lit>(args.clone()) {
        let hint = match &literal {
            syn::Lit::Str(text) => format!("`#[tool(name = \"{}\")]`", text.value()),
            _ => "`#[tool(name = \"...\")]`".to_owned(),
        };
        return Err(syn::Error::new_spanned(
            literal,
            format!(
                "`#[tool]` takes its options by name; to set the tool's name, write {hint}, and \
                 for the description, `#[tool(description = \"...\")]`"
            ),
        ));
    }
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| {
        let key = match meta.path.get_ident() {
            Some(ident) => ident.to_string(),
            None => {
                return Err(syn::Error::new_spanned(
                    &meta.path,
                    "unknown option; `#[tool]` takes `name = \"...\"` and `description = \"...\"`",
                ));
            }
        };
        let slot = match key.as_str() {
            "name" => &mut options.name,
            "description" => &mut options.description,
            _ => return Err(meta.error(unknown_option(&key))),
        };
        if slot.is_some() {
            return Err(meta.error(format!(
                "duplicate option `{key}`; give it once, e.g. `#[tool({key} = \"...\")]`"
            )));
        }
        if !meta.input.peek(syn::Token![=]) {
            // At the option's name: `#[tool(name)]` ends right after it, where there is no token
            // to point at.
            return Err(syn::Error::new_spanned(
                &meta.path,
                format!("expected `=` and a string after `{key}`: `#[tool({key} = \"...\")]`"),
            ));
        }
        let value = meta.value()?;
        let literal: LitStr = value.parse().map_err(|error| {
            syn::Error::new(
                error.span(),
                format!("expected a string literal: `#[tool({key} = \"...\")]`"),
            )
        })?;
        *slot = Some(literal);
        Ok(())
    });
    parser.parse2(args)?;
    Ok(options)
}

fn unknown_option(key: &str) -> String {
    let nearest = KNOWN
        .iter()
        .map(|known| (distance(key, known), *known))
        .min()
        .filter(|(distance, known)| *distance <= known.len().max(key.len()) / 3 + 1);
    match nearest {
        Some((_, known)) => format!("unknown option `{key}`; did you mean `{known}`?"),
        None => format!(
            "unknown option `{key}`; `#[tool]` takes `name = \"...\"` and `description = \"...\"`"
        ),
    }
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(distance("descripton", "description"), 1);
        assert_eq!(
            unknown_option("descripton"),
            "unknown option `descripton`; did you mean `description`?"
        );
        assert_eq!(
            unknown_option("nam"),
            "unknown option `nam`; did you mean `name`?"
        );
        assert!(unknown_option("timeout").contains("takes `name"));
    }
}
