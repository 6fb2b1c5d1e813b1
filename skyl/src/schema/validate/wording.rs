//! What the validator says when a model's arguments do not fit: serde's words (`invalid type:
//! integer `42`, expected a string`, `missing field `city``), so that a model reads one style of
//! prose whether a typed tool or a declared schema refused its arguments.
//!
//! Every sentence is here; [`validate`](super) decides what does not fit and calls one of these.

use serde_json::{Map, Number, Value};

use super::super::references::follow;
use super::tag_values;

/// Which side of a limit a value missed.
#[derive(Clone, Copy)]
pub(super) enum Bound {
    AtLeast,
    AtMost,
    MoreThan,
    LessThan,
    MultipleOf,
}

impl Bound {
    fn words(self) -> &'static str {
        match self {
            Bound::AtLeast => "at least",
            Bound::AtMost => "at most",
            Bound::MoreThan => "more than",
            Bound::LessThan => "less than",
            Bound::MultipleOf => "a multiple of",
        }
    }
}

/// What a length counts.
#[derive(Clone, Copy)]
pub(super) enum Counted {
    Item,
    Property,
    Character,
}

pub(super) fn nothing_allowed(value: &Value) -> String {
    format!(
        "invalid value: {}, expected nothing here",
        unexpected(value)
    )
}

pub(super) fn undefined_reference(reference: &str) -> String {
    format!("the tool's schema refers to `{reference}`, which it does not define")
}

pub(super) fn not_the_constant(value: &Value, expected: &Value) -> String {
    format!(
        "invalid value: {}, expected {}",
        unexpected(value),
        literal(expected)
    )
}

pub(super) fn wrong_type(value: &Value, types: &[&str], nullable: bool) -> String {
    let mut expected: Vec<&str> = types.iter().map(|t| article(t)).collect();
    if nullable {
        expected.push("null");
    }
    format!(
        "invalid type: {}, expected {}",
        unexpected(value),
        either(&expected)
    )
}

pub(super) fn fits_several_forms(value: &Value, branches: &[Value], root: &Value) -> String {
    format!(
        "invalid value: {}, which fits more than one of the forms expected here ({})",
        unexpected(value),
        forms(branches, root)
    )
}

pub(super) fn fits_the_excluded(value: &Value, not: &Value, root: &Value) -> String {
    format!(
        "invalid value: {}, expected anything but {}",
        unexpected(value),
        describe_schema(not, root)
    )
}

pub(super) fn fits_no_form(value: &Value, branches: &[Value], root: &Value) -> String {
    format!(
        "invalid value: {}, expected {}",
        unexpected(value),
        forms(branches, root)
    )
}

/// An object whose tag property (`key`, holding `given`) names none of the variants `names`,
/// as serde says it for an internally tagged enum.
pub(super) fn unknown_tag(key: &str, given: &Value, names: &[String]) -> String {
    let shown = match given {
        Value::String(text) => format!("`{}`", cut(text)),
        other => unexpected(other),
    };
    format!(
        "unknown variant {shown} in `{key}`, expected {}",
        one_of(names)
    )
}

pub(super) fn length(count: u64, bound: Bound, limit: u64, counted: Counted) -> String {
    let unit = match (counted, limit == 1) {
        (Counted::Item, true) => "item",
        (Counted::Item, false) => "items",
        (Counted::Property, true) => "property",
        (Counted::Property, false) => "properties",
        (Counted::Character, true) => "character",
        (Counted::Character, false) => "characters",
    };
    format!(
        "invalid length {count}, expected {} {limit} {unit}",
        bound.words()
    )
}

pub(super) fn out_of_bounds(number: &Number, bound: Bound, limit: &Number) -> String {
    format!(
        "invalid value: {}, expected {} {limit}",
        unexpected(&Value::Number(number.clone())),
        bound.words()
    )
}

pub(super) fn repeated_item(later: usize, earlier: usize) -> String {
    format!("the items must be unique, and item {later} repeats item {earlier}")
}

pub(super) fn missing_field(name: &str) -> String {
    format!("missing field `{name}`")
}

/// A value as serde's `Unexpected` shows it, with long text cut.
fn unexpected(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("integer `{n}`"),
        Value::Number(n) => format!("floating point `{n}`"),
        Value::String(s) => format!("string {:?}", cut(s)),
        Value::Array(_) => "sequence".into(),
        Value::Object(_) => "map".into(),
    }
}

/// At most 60 characters of `text`, marked when cut.
fn cut(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

/// A literal value as the expectation in a sentence.
fn literal(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{:?}", cut(s)),
        other => other.to_string(),
    }
}

fn article(type_name: &str) -> &str {
    match type_name {
        "string" => "a string",
        "integer" => "an integer",
        "number" => "a number",
        "boolean" => "a boolean",
        "object" => "an object",
        "array" => "an array",
        other => other,
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(items: &[impl AsRef<str>]) -> String {
    match items {
        [] => "nothing".into(),
        [only] => only.as_ref().to_owned(),
        [init @ .., last] => format!(
            "{} or {}",
            init.iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", "),
            last.as_ref()
        ),
    }
}

/// serde's list of names: `` `a` ``, `` `a` or `b` ``, `` one of `a`, `b`, `c` ``.
fn one_of(names: &[String]) -> String {
    match names {
        [] => "nothing".into(),
        [only] => format!("`{only}`"),
        [a, b] => format!("`{a}` or `{b}`"),
        several => format!(
            "one of {}",
            several
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

pub(super) fn unknown_field(key: &str, properties: Option<&Map<String, Value>>) -> String {
    let names: Vec<String> = properties
        .into_iter()
        .flat_map(Map::keys)
        .cloned()
        .collect();
    if names.is_empty() {
        return format!("unknown field `{key}`, there are no fields");
    }
    format!("unknown field `{key}`, expected {}", one_of(&names))
}

pub(super) fn not_in_enum(value: &Value, allowed: &[Value]) -> String {
    match (value, allowed.iter().all(Value::is_string)) {
        (Value::String(text), true) => {
            let names: Vec<String> = allowed
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            format!(
                "unknown variant `{}`, expected {}",
                cut(text),
                one_of(&names)
            )
        }
        _ => format!(
            "invalid value: {}, expected one of {}",
            unexpected(value),
            allowed.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The forms a union allows, for a sentence: `a string, an object or null`.
fn forms(branches: &[Value], root: &Value) -> String {
    let mut seen: Vec<String> = Vec::new();
    for branch in branches {
        let form = describe_schema(branch, root);
        if !seen.contains(&form) {
            seen.push(form);
        }
    }
    either(&seen)
}

/// A schema as a few words: its type, its constant, or its variants.
fn describe_schema(schema: &Value, root: &Value) -> String {
    let schema = follow(schema, root);
    if let Some(constant) = schema.get("const") {
        return literal(constant);
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return format!(
            "one of {}",
            values.iter().map(literal).collect::<Vec<_>>().join(", ")
        );
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(one)) => vec![one],
        Some(Value::Array(several)) => several.iter().filter_map(Value::as_str).collect(),
        _ if schema.get("properties").is_some() => vec!["object"],
        _ => return "a value of another form".into(),
    };
    if types == ["object"]
        && let Some(Value::Object(properties)) = schema.get("properties")
        && let Some((key, tag)) = properties
            .iter()
            .find_map(|(key, p)| Some((key, tag_values(follow(p, root))?)))
    {
        return format!("an object with `{key}` {}", literal(tag[0]));
    }
    either(&types.iter().map(|t| article(t)).collect::<Vec<_>>())
}
