//! The options of `#[tool(...)]`: the name and description, the per-tool settings (`timeout`,
//! `cancel_grace`, `blocking`), the annotations a host reads (`title`, `read_only`, `destructive`, `idempotent`,
//! `open_world`), and `output_schema`.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::{LitBool, LitStr};

/// The options written in `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct Options {
    /// `name = "..."`: the wire name, instead of the function's name.
    pub(crate) name: Option<LitStr>,
    /// `description = "..."`: the description, instead of the doc comment.
    pub(crate) description: Option<LitStr>,
    /// `title = "..."`: a human-readable name for a host's interface.
    pub(crate) title: Option<LitStr>,
    /// `timeout = "5s"`: how long a call may run.
    pub(crate) timeout: Option<Timeout>,
    /// `cancel_grace = "2s"`: how long a cancelled call is still polled, to clean up.
    pub(crate) cancel_grace: Option<Timeout>,
    /// `blocking`: run the synchronous function on another thread; the word's span.
    pub(crate) blocking: Option<Span>,
    /// `output_schema`: state the schema of a `Json<T>` output; the word's span.
    pub(crate) output_schema: Option<Span>,
    pub(crate) read_only: Option<Flag>,
    pub(crate) destructive: Option<Flag>,
    pub(crate) idempotent: Option<Flag>,
    pub(crate) open_world: Option<Flag>,
}

/// A hint written `read_only` (true) or `read_only = false`.
#[derive(Clone, Copy)]
pub(crate) struct Flag {
    pub(crate) value: bool,
    pub(crate) span: Span,
}

/// A duration option (`timeout = "..."`, `cancel_grace = "..."`), read at compile time.
pub(crate) struct Timeout {
    pub(crate) literal: LitStr,
    pub(crate) secs: u64,
    pub(crate) nanos: u32,
}

/// What an option's value looks like, for parsing it and for the messages about it.
#[derive(Clone, Copy)]
enum Shape {
    /// `key = "..."`.
    Text,
    /// `key`, with nothing after it.
    Word,
    /// `key`, or `key = true` / `key = false`.
    Hint,
}

const KNOWN: &[(&str, Shape)] = &[
    ("name", Shape::Text),
    ("description", Shape::Text),
    ("title", Shape::Text),
    ("timeout", Shape::Text),
    ("cancel_grace", Shape::Text),
    ("blocking", Shape::Word),
    ("read_only", Shape::Hint),
    ("destructive", Shape::Hint),
    ("idempotent", Shape::Hint),
    ("open_world", Shape::Hint),
    ("output_schema", Shape::Word),
];

const EVERY_OPTION: &str = "`#[tool]` takes `name = \"...\"`, `description = \"...\"`, \
     `title = \"...\"`, `timeout = \"5s\"`, `cancel_grace = \"1s\"`, `blocking`, `read_only`, `destructive`, `idempotent`, \
     `open_world` and `output_schema`";

/// Parses the tokens inside `#[tool(...)]`. Stops at the first mistake, so the user sees one error.
pub(crate) fn parse(args: TokenStream) -> syn::Result<Options> {
    if let Some(error) = name_without_key(&args) {
        return Err(error);
    }
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| {
        let Some(ident) = meta.path.get_ident() else {
            return Err(syn::Error::new_spanned(
                &meta.path,
                format!("unknown option; {EVERY_OPTION}"),
            ));
        };
        let key = ident.to_string();
        let Some(&(_, shape)) = KNOWN.iter().find(|(known, _)| *known == key) else {
            return Err(meta.error(unknown_option(&key)));
        };
        if options.is_set(&key) {
            return Err(meta.error(format!(
                "duplicate option `{key}`; give it once, e.g. `#[tool({})]`",
                example(&key, shape)
            )));
        }
        let span = ident.span();
        match shape {
            Shape::Text => options.set_text(&meta, &key, shape),
            Shape::Word => options.set_word(&meta, &key, span),
            Shape::Hint => options.set_hint(&meta, &key, span),
        }
    });
    parser.parse2(args)?;
    Ok(options)
}

/// The error for `#[tool("get_weather")]` (and `#[tool = "get_weather"]`, which the compiler
/// rejects and still hands over as the string): the name, written without its key.
fn name_without_key(args: &TokenStream) -> Option<syn::Error> {
    let literal = syn::parse2::<syn::Lit>(args.clone()).ok()?;
    let hint = match &literal {
        syn::Lit::Str(text) => format!("`#[tool(name = \"{}\")]`", text.value()),
        _ => "`#[tool(name = \"...\")]`".to_owned(),
    };
    Some(syn::Error::new_spanned(
        literal,
        format!(
            "`#[tool]` takes its options by name; to set the tool's name, write {hint}, and \
             for the description, `#[tool(description = \"...\")]`"
        ),
    ))
}

impl Options {
    /// Sets the option `key` that takes a string (`name = "..."`), from `meta`.
    fn set_text(
        &mut self,
        meta: &syn::meta::ParseNestedMeta<'_>,
        key: &str,
        shape: Shape,
    ) -> syn::Result<()> {
        if !meta.input.peek(syn::Token![=]) {
            // At the option's name: `#[tool(name)]` ends right after it, where there is no
            // token to point at.
            return Err(syn::Error::new_spanned(
                &meta.path,
                format!(
                    "expected `=` and a string after `{key}`: `#[tool({})]`",
                    example(key, shape)
                ),
            ));
        }
        let literal: LitStr = meta.value()?.parse().map_err(|error| {
            syn::Error::new(
                error.span(),
                format!(
                    "expected a string literal: `#[tool({})]`",
                    example(key, shape)
                ),
            )
        })?;
        match key {
            "name" => self.name = Some(literal),
            "description" => self.description = Some(literal),
            "title" => self.title = Some(literal),
            "timeout" => self.timeout = Some(Timeout::parse(literal, "timeout")?),
            _ => self.cancel_grace = Some(Timeout::parse(literal, "cancel_grace")?),
        }
        Ok(())
    }

    /// Sets the option `key` that is a word alone (`blocking`), written at `span`.
    fn set_word(
        &mut self,
        meta: &syn::meta::ParseNestedMeta<'_>,
        key: &str,
        span: Span,
    ) -> syn::Result<()> {
        if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
            return Err(syn::Error::new_spanned(
                &meta.path,
                format!("`{key}` takes no value; write `#[tool({key})]`"),
            ));
        }
        match key {
            "blocking" => self.blocking = Some(span),
            _ => self.output_schema = Some(span),
        }
        Ok(())
    }

    /// Sets the hint `key` (`read_only`, or `read_only = false`), written at `span`.
    fn set_hint(
        &mut self,
        meta: &syn::meta::ParseNestedMeta<'_>,
        key: &str,
        span: Span,
    ) -> syn::Result<()> {
        let value = if meta.input.peek(syn::Token![=]) {
            let literal: LitBool = meta.value()?.parse().map_err(|error| {
                syn::Error::new(
                    error.span(),
                    format!(
                        "expected `true` or `false`: `#[tool({key})]` or \
                         `#[tool({key} = false)]`"
                    ),
                )
            })?;
            literal.value
        } else {
            true
        };
        let flag = Some(Flag { value, span });
        match key {
            "read_only" => self.read_only = flag,
            "destructive" => self.destructive = flag,
            "idempotent" => self.idempotent = flag,
            _ => self.open_world = flag,
        }
        Ok(())
    }
}

impl Options {
    fn is_set(&self, key: &str) -> bool {
        match key {
            "name" => self.name.is_some(),
            "description" => self.description.is_some(),
            "title" => self.title.is_some(),
            "timeout" => self.timeout.is_some(),
            "cancel_grace" => self.cancel_grace.is_some(),
            "blocking" => self.blocking.is_some(),
            "output_schema" => self.output_schema.is_some(),
            "read_only" => self.read_only.is_some(),
            "destructive" => self.destructive.is_some(),
            "idempotent" => self.idempotent.is_some(),
            _ => self.open_world.is_some(),
        }
    }
}

/// How an option is written, for the messages.
fn example(key: &str, shape: Shape) -> String {
    match (key, shape) {
        ("timeout", _) => "timeout = \"5s\"".to_owned(),
        ("cancel_grace", _) => "cancel_grace = \"1s\"".to_owned(),
        (_, Shape::Text) => format!("{key} = \"...\""),
        (_, Shape::Word | Shape::Hint) => key.to_owned(),
    }
}

impl Timeout {
    /// Reads `"250ms"`, `"5s"`, `"1.5s"`, `"2m"` or `"1h"`, the value of the option `key`. A
    /// grace may be zero (a cancelled call is dropped at once); a timeout may not.
    fn parse(literal: LitStr, key: &str) -> syn::Result<Self> {
        let text = literal.value();
        let Some((secs, nanos)) = parse_duration(text.trim()) else {
            return Err(syn::Error::new_spanned(
                &literal,
                format!(
                    "`{text}` is not a duration; write a number and a unit, `ms`, `s`, `m` or \
                     `h`: `{key} = \"500ms\"`, `\"5s\"`, `\"1.5s\"`, `\"2m\"`"
                ),
            ));
        };
        if key == "timeout" && secs == 0 && nanos == 0 {
            return Err(syn::Error::new_spanned(
                &literal,
                "a timeout of zero would stop every call before it starts; give the time a call \
                 may take, e.g. `timeout = \"5s\"`",
            ));
        }
        Ok(Timeout {
            literal,
            secs,
            nanos,
        })
    }
}

/// `"1.5s"` → (1, 500_000_000). `None` when it is not a number and a known unit, or too long.
fn parse_duration(text: &str) -> Option<(u64, u32)> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = (&text[..split], text[split..].trim_start());
    let unit_nanos: u128 = match unit {
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || fraction.len() > 9 {
        return None;
    }
    if !fraction.bytes().all(|b| b.is_ascii_digit())
        || (number.contains('.') && fraction.is_empty())
    {
        return None;
    }
    let whole: u128 = whole.parse().ok()?;
    let fraction_value: u128 = if fraction.is_empty() {
        0
    } else {
        fraction.parse().ok()?
    };
    let scale = 10_u128.pow(u32::try_from(fraction.len()).ok()?);
    let nanos = whole
        .checked_mul(unit_nanos)?
        .checked_add(fraction_value * unit_nanos / scale)?;
    let secs = u64::try_from(nanos / 1_000_000_000).ok()?;
    let nanos = u32::try_from(nanos % 1_000_000_000).ok()?;
    Some((secs, nanos))
}

fn unknown_option(key: &str) -> String {
    let nearest = KNOWN
        .iter()
        .map(|(known, _)| (distance(key, known), *known))
        .min()
        .filter(|(distance, known)| *distance <= known.len().max(key.len()) / 3 + 1);
    match nearest {
        Some((_, known)) => format!("unknown option `{key}`; did you mean `{known}`?"),
        None => format!("unknown option `{key}`; {EVERY_OPTION}"),
    }
}

/// Parses the tokens inside `#[tools(...)]`, which takes none.
pub(crate) fn parse_tools(args: TokenStream) -> syn::Result<()> {
    if args.is_empty() {
        return Ok(());
    }
    Err(syn::Error::new_spanned(
        args,
        "`#[tools]` takes no options; write `#[tools]`, and the options of each tool on its \
         method: `#[tool(name = \"...\", timeout = \"5s\")]`",
    ))
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
        assert_eq!(
            unknown_option("readonly"),
            "unknown option `readonly`; did you mean `read_only`?"
        );
        assert!(unknown_option("retries").contains("takes `name"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Some((0, 250_000_000)));
        assert_eq!(parse_duration("5s"), Some((5, 0)));
        assert_eq!(parse_duration("1.5s"), Some((1, 500_000_000)));
        assert_eq!(parse_duration("0.25ms"), Some((0, 250_000)));
        assert_eq!(parse_duration("2 m"), Some((120, 0)));
        assert_eq!(parse_duration("1h"), Some((3600, 0)));
        assert_eq!(parse_duration("0s"), Some((0, 0)));
        for wrong in [
            "5",
            "s",
            "5sec",
            "1.s",
            ".5s",
            "1.2.3s",
            "-1s",
            "5S",
            "99999999999999999999h",
        ] {
            assert_eq!(parse_duration(wrong), None, "{wrong}");
        }
    }
}
