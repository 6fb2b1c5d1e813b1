//! Values a JSON schema allows, generated from a seed: what a model whose output is constrained by
//! that schema could send as a tool's arguments.
//!
//! skyl uses it to prove that every dialect's lowered schema and the dispatcher agree (every
//! value a lowered schema allows is accepted); use it the same way on your own tools, with the
//! schemas your adapters send:
//!
//! ```
//! use skyl::provider::dialect;
//! use skyl::testing::Instances;
//! use skyl::{Tool, ToolCall, Toolbox};
//!
//! /// Searches the archive.
//! #[skyl::tool]
//! fn search(
//!     /// What to look for.
//!     query: String,
//!     /// The newest first when true.
//!     #[serde(default)]
//!     newest_first: bool,
//! ) -> String {
//!     format!("{query} {newest_first}")
//! }
//!
//! let toolbox = Toolbox::new().with(Search);
//! let strict = dialect::openai_strict(&toolbox.definitions()[0].parameters).unwrap();
//! for (n, arguments) in Instances::new(&strict, 7).take(50).enumerate() {
//!     let result = toolbox.dispatch_blocking(&ToolCall::new(format!("c{n}"), "search", arguments));
//!     assert!(!result.is_error, "{}", result.content);
//! }
//! ```
//!
//! The generator reads JSON Schema 2020-12 as skyl's canonical schema and the OpenAI strict and
//! Gemini dialects write it, and OpenAPI's `nullable`: `type`, `enum`, `const`, `properties`,
//! `required`, `additionalProperties`, `minProperties`, `items`, `prefixItems`, `minItems`,
//! `maxItems`, `uniqueItems`, the numeric bounds and `multipleOf`, `minLength`, `maxLength`, the
//! common string `format`s, `anyOf`, `oneOf`, `allOf` of objects, and local `$ref`s. It does not
//! invent strings for a `pattern`: a schema with one gets ordinary text there.
//!
//! The same seed gives the same values on every platform and every run; the randomness is a small
//! built-in generator (SplitMix64), so skyl needs no random-number crate.

use serde_json::{Map, Number, Value};

use super::references::follow;
use super::validate::json_equal;
use crate::random::SplitMix64;

/// An endless iterator of values that `schema` allows, from a seed.
///
/// Optional properties are sometimes left out; where a type is nullable the value is sometimes
/// `null`; numbers keep to their bounds and often sit on them; strings mix ASCII, quotes,
/// backslashes and non-ASCII text. Recursive schemas stop growing at [`max_depth`](Self::max_depth).
#[derive(Clone, Debug)]
pub struct Instances<'s> {
    schema: &'s Value,
    random: SplitMix64,
    max_depth: usize,
    unknown_properties: bool,
    edges: bool,
}

impl<'s> Instances<'s> {
    /// Values of `schema`, whose `$ref`s resolve inside `schema` itself.
    pub fn new(schema: &'s Value, seed: u64) -> Self {
        Instances {
            schema,
            random: SplitMix64::new(seed),
            max_depth: 6,
            unknown_properties: false,
            edges: false,
        }
    }

    /// How deep values may nest before only required properties and the fewest items are
    /// generated (6 unless set).
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Also adds properties the schema does not declare, to objects whose schema allows them (no
    /// `additionalProperties: false`), as a model that is not constrained may. Off unless set.
    pub fn unknown_properties(mut self, add: bool) -> Self {
        self.unknown_properties = add;
        self
    }

    /// Favours the edges of what the schema allows, where tools break: integers and numbers on
    /// their bounds, or without bounds at the limits of their `format` (`int32`, `uint8`, ...,
    /// `float`) or of what a JSON number holds exactly; strings empty or as long as allowed
    /// (thousands of characters without a `maxLength`); arrays with the fewest or the most items
    /// allowed (a dozen without a `maxItems`). Off unless set.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::testing::Instances;
    ///
    /// let schema = json!({"type": "integer", "format": "uint8", "minimum": 0});
    /// let values: Vec<_> = Instances::new(&schema, 3).edges(true).take(40).collect();
    /// assert!(values.contains(&json!(0)) && values.contains(&json!(255)));
    /// ```
    pub fn edges(mut self, edges: bool) -> Self {
        self.edges = edges;
        self
    }

    fn generate(&mut self, schema: &Value, depth: usize) -> Value {
        let schema = follow(schema, self.schema);
        let map = match schema {
            Value::Object(map) => map,
            // `false` allows nothing; a caller only gets here for a required property.
            Value::Bool(false) => return Value::Null,
            _ => return self.anything(depth),
        };
        if depth > self.max_depth + HARD_DEPTH_MARGIN {
            return Value::Null;
        }
        if let Some(constant) = map.get("const") {
            return constant.clone();
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && !values.is_empty()
        {
            return self.pick(values).clone();
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(keyword)
                && !branches.is_empty()
            {
                let branch = self.branch(branches, depth);
                return self.generate(&branches[branch], depth);
            }
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            let merged = merge_objects(map, parts, self.schema);
            return self.object(&merged, depth);
        }
        let mut types: Vec<&str> = match map.get("type") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(several)) => several.iter().filter_map(Value::as_str).collect(),
            _ => vec![implied_type(map)],
        };
        if map.get("nullable") == Some(&Value::Bool(true)) {
            types.push("null");
        }
        let deep = depth >= self.max_depth;
        let kind = match types.as_slice() {
            [] => "any",
            _ if deep && types.contains(&"null") => "null",
            several => *self.pick(several),
        };
        match kind {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.random.chance(1, 2)),
            "integer" => self.integer(map),
            "number" => self.number(map),
            "string" => Value::String(self.string(map)),
            "array" => self.array(map, depth),
            "object" => self.object(map, depth),
            _ => self.anything(depth),
        }
    }

    /// Which branch of a union to take, preferring one that ends the recursion once deep.
    fn branch(&mut self, branches: &[Value], depth: usize) -> usize {
        if depth >= self.max_depth
            && let Some(leaf) = branches
                .iter()
                .position(|branch| is_leaf(follow(branch, self.schema)))
        {
            return leaf;
        }
        self.random.below(branches.len() as u64) as usize
    }

    fn integer(&mut self, map: &Map<String, Value>) -> Value {
        let lower = [bound(map, "minimum"), bound(map, "exclusiveMinimum")]
            .into_iter()
            .flatten()
            .max();
        let upper = [bound(map, "maximum"), bound(map, "exclusiveMaximum")]
            .into_iter()
            .flatten()
            .min();
        let (lower, upper) = if self.edges {
            let (least, most) = format_range(map);
            (
                lower.unwrap_or(least).max(least),
                upper.unwrap_or(most).min(most),
            )
        } else {
            window(lower, upper)
        };
        let step = map
            .get("multipleOf")
            .and_then(Value::as_u64)
            .filter(|&step| step > 0)
            .map_or(1, i128::from);
        // The multiples of `step` inside the bounds, by index.
        let first = lower.div_euclid(step) + i128::from(lower.rem_euclid(step) != 0);
        let last = upper.div_euclid(step);
        let chosen = if first > last {
            first
        } else {
            match self.random.below(if self.edges { 3 } else { 5 }) {
                0 => first,
                1 => last,
                _ => self.random.between(first, last),
            }
        };
        integer_value(chosen * step)
    }

    fn number(&mut self, map: &Map<String, Value>) -> Value {
        let exclusive_min = map.get("exclusiveMinimum").and_then(Value::as_f64);
        let exclusive_max = map.get("exclusiveMaximum").and_then(Value::as_f64);
        let min = map.get("minimum").and_then(Value::as_f64);
        let max = map.get("maximum").and_then(Value::as_f64);
        let lower = [min, exclusive_min].into_iter().flatten().reduce(f64::max);
        let upper = [max, exclusive_max].into_iter().flatten().reduce(f64::min);
        let (lower, upper) = match (lower, upper) {
            (Some(l), Some(u)) => (l, u),
            (Some(l), None) => (l, l + 1000.0),
            (None, Some(u)) => (u - 1000.0, u),
            (None, None) => (-1000.0, 1000.0),
        };
        if self.edges && map.get("multipleOf").is_none() {
            // `float` is Rust's f32 (schemars writes it so): its largest value, not f64's.
            let far = if map.get("format").and_then(Value::as_str) == Some("float") {
                f64::from(f32::MAX)
            } else {
                f64::MAX
            };
            let candidates = [
                min.unwrap_or(-far),
                max.unwrap_or(far),
                0.0,
                f64::from(f32::EPSILON),
            ];
            let chosen = candidates[self.random.below(4) as usize];
            let allowed = min.is_none_or(|m| chosen >= m)
                && max.is_none_or(|m| chosen <= m)
                && exclusive_min.is_none_or(|m| chosen > m)
                && exclusive_max.is_none_or(|m| chosen < m);
            if allowed {
                return float_value(chosen);
            }
        }
        if let Some(step) = map.get("multipleOf").and_then(Value::as_f64)
            && step > 0.0
        {
            let first = (lower / step).ceil() as i64;
            let last = (upper / step).floor() as i64;
            let k = self
                .random
                .between(i128::from(first), i128::from(last.max(first)));
            return float_value(k as f64 * step);
        }
        // Quarters are exact in binary, so the value survives any round trip unchanged.
        let quarters = self
            .random
            .between((lower * 4.0).ceil() as i128, (upper * 4.0).floor() as i128);
        let mut value = quarters as f64 / 4.0;
        if exclusive_min.is_some_and(|m| value <= m) || exclusive_max.is_some_and(|m| value >= m) {
            value = (lower + upper) / 2.0;
        }
        match self.random.below(4) {
            0 if min.is_some() => float_value(lower),
            1 if max.is_some() => float_value(upper),
            _ => float_value(value),
        }
    }

    fn string(&mut self, map: &Map<String, Value>) -> String {
        if let Some(sample) = map
            .get("format")
            .and_then(Value::as_str)
            .and_then(|format| self.formatted(format))
        {
            return sample;
        }
        let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = map
            .get("maxLength")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        if self.edges && self.random.chance(2, 3) {
            let length = if self.random.chance(1, 2) {
                min
            } else {
                max.min(min.max(LONG_STRING))
            };
            return (0..length).map(|_| *self.pick(ALPHABET)).collect();
        }
        let max = max.min(min + 12);
        let length = self
            .random
            .between(i128::from(min), i128::from(max.max(min))) as usize;
        (0..length).map(|_| *self.pick(ALPHABET)).collect()
    }

    fn formatted(&mut self, format: &str) -> Option<String> {
        let n = self.random.below(9000) + 1000;
        let day = self.random.below(28) + 1;
        Some(match format {
            "date-time" => format!("2024-05-{day:02}T12:{:02}:00Z", n % 60),
            "date" => format!("2024-05-{day:02}"),
            "time" => format!("12:{:02}:00Z", n % 60),
            "email" => format!("user{n}@example.com"),
            "uri" | "url" | "iri" => format!("https://example.com/{n}"),
            "hostname" => format!("host{n}.example.com"),
            "ipv4" => format!("192.0.2.{}", n % 256),
            "ipv6" => format!("2001:db8::{n:x}"),
            "uuid" => format!("123e4567-e89b-42d3-a456-42661417{n:04}"),
            _ => return None,
        })
    }

    fn array(&mut self, map: &Map<String, Value>, depth: usize) -> Value {
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = map
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(usize::MAX, |max| max as usize);
        let prefix: &[Value] = match map.get("prefixItems") {
            Some(Value::Array(prefix)) => prefix,
            _ => &[],
        };
        let rest = map.get("items");
        let most = match rest {
            Some(Value::Bool(false)) => prefix.len(),
            _ => usize::MAX,
        }
        .min(max);
        let length = if depth >= self.max_depth {
            min
        } else if self.edges && self.random.chance(2, 3) {
            if self.random.chance(1, 2) {
                min
            } else {
                most.min(min + 12)
            }
        } else {
            self.random
                .between(min as i128, (min + 3).min(most).max(min) as i128) as usize
        };
        let unique = map.get("uniqueItems") == Some(&Value::Bool(true));
        let mut items: Vec<Value> = Vec::with_capacity(length);
        let mut attempts = 0;
        while items.len() < length && attempts < length * 8 + 8 {
            attempts += 1;
            let schema = match prefix.get(items.len()) {
                Some(schema) => schema,
                None => match rest {
                    Some(schema) => schema,
                    None => &Value::Bool(true),
                },
            };
            let item = self.generate(schema, depth + 1);
            if unique && items.iter().any(|earlier| json_equal(earlier, &item)) {
                continue;
            }
            items.push(item);
        }
        Value::Array(items)
    }

    fn object(&mut self, map: &Map<String, Value>, depth: usize) -> Value {
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let deep = depth >= self.max_depth;
        let mut object = Map::new();
        let mut left_out = Vec::new();
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (key, property) in properties {
                let include = required.contains(&key.as_str())
                    || (!deep && *property != Value::Bool(false) && self.random.chance(1, 2));
                if include {
                    let value = self.generate(property, depth + 1);
                    object.insert(key.clone(), value);
                } else if *property != Value::Bool(false) {
                    left_out.push((key.clone(), property.clone()));
                }
            }
        }
        for name in &required {
            if !object.contains_key(*name) {
                let value = self.anything(depth + 1);
                object.insert((*name).to_owned(), value);
            }
        }
        let additional = map.get("additionalProperties");
        if let Some(schema @ Value::Object(_)) = additional
            && !deep
        {
            for _ in 0..self.random.below(3) {
                let key = self.fresh_key(&object);
                let value = self.generate(schema, depth + 1);
                object.insert(key, value);
            }
        }
        let open = matches!(additional, None | Some(Value::Bool(true)));
        if self.unknown_properties && open && !deep && self.random.chance(1, 3) {
            let key = self.fresh_key(&object);
            let value = self.anything(depth + 1);
            object.insert(key, value);
        }
        let min = map
            .get("minProperties")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        while object.len() < min {
            if let Some((key, property)) = left_out.pop() {
                let value = self.generate(&property, depth + 1);
                object.insert(key, value);
            } else if !matches!(additional, Some(Value::Bool(false))) {
                let key = self.fresh_key(&object);
                let value = match additional {
                    Some(schema @ Value::Object(_)) => self.generate(schema, depth + 1),
                    _ => self.anything(depth + 1),
                };
                object.insert(key, value);
            } else {
                break;
            }
        }
        Value::Object(object)
    }

    /// A small value of any kind, for a schema that says nothing.
    fn anything(&mut self, depth: usize) -> Value {
        let kinds = if depth >= self.max_depth { 4 } else { 6 };
        match self.random.below(kinds) {
            0 => Value::Null,
            1 => Value::Bool(self.random.chance(1, 2)),
            2 => integer_value(self.random.between(-100, 100)),
            3 => Value::String(self.string(&Map::new())),
            4 => Value::Array(vec![self.anything(depth + 1)]),
            _ => {
                let mut object = Map::new();
                let key = self.fresh_key(&object);
                object.insert(key, self.anything(depth + 1));
                Value::Object(object)
            }
        }
    }

    fn fresh_key(&mut self, taken: &Map<String, Value>) -> String {
        loop {
            let key = format!("{}_{}", self.pick(EXTRA_KEYS), self.random.below(100));
            if !taken.contains_key(&key) {
                return key;
            }
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        self.random
            .pick(items)
            .expect("picked only from constant lists that are not empty")
    }
}

impl Iterator for Instances<'_> {
    type Item = Value;

    fn next(&mut self) -> Option<Value> {
        Some(self.generate(self.schema, 0))
    }
}

/// How far past `max_depth` a schema that cannot stop (a required recursive property) may
/// nest before the generator gives up with `null`.
const HARD_DEPTH_MARGIN: usize = 16;

/// Text to build strings from: what a JSON encoder must escape, and more than ASCII.
const ALPHABET: &[char] = &[
    'a', 'b', 'c', 'x', 'y', 'z', 'K', 'Q', '0', '7', ' ', '-', '_', '.', '"', '\'', '\\', '/',
    '\n', '\t', 'é', 'ß', 'ø', 'ж', '日', '本', '🙂', '\u{200b}',
];

const EXTRA_KEYS: &[&str] = &["note", "extra", "debug", "hint", "x"];

/// The type a schema without `type` implies by its keywords.
fn implied_type(map: &Map<String, Value>) -> &'static str {
    let has = |key: &str| map.contains_key(key);
    if has("properties") || has("required") || has("additionalProperties") {
        "object"
    } else if has("items") || has("prefixItems") {
        "array"
    } else if has("minLength") || has("maxLength") || has("format") {
        "string"
    } else if has("minimum") || has("maximum") || has("multipleOf") {
        "number"
    } else {
        "any"
    }
}

/// A schema whose values hold no subschema, so choosing it ends a recursion.
fn is_leaf(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => ![
            "properties",
            "items",
            "prefixItems",
            "anyOf",
            "oneOf",
            "allOf",
            "additionalProperties",
        ]
        .iter()
        .any(|key| map.contains_key(*key)),
        _ => true,
    }
}

/// The object schemas of an `allOf` as one: their properties and required names together.
fn merge_objects(map: &Map<String, Value>, parts: &[Value], root: &Value) -> Map<String, Value> {
    let mut merged = map.clone();
    merged.remove("allOf");
    let mut properties = match merged.remove("properties") {
        Some(Value::Object(properties)) => properties,
        _ => Map::new(),
    };
    let mut required = match merged.remove("required") {
        Some(Value::Array(required)) => required,
        _ => Vec::new(),
    };
    for part in parts {
        let part = follow(part, root);
        if let Some(Value::Object(more)) = part.get("properties") {
            properties.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if let Some(Value::Array(more)) = part.get("required") {
            required.extend(more.iter().cloned());
        }
        if let Some(Value::Bool(false)) = part.get("additionalProperties") {
            merged.insert("additionalProperties".into(), Value::Bool(false));
        }
    }
    merged.insert("properties".into(), Value::Object(properties));
    merged.insert("required".into(), Value::Array(required));
    merged
}

/// How long an edge string is when its schema sets no `maxLength`.
const LONG_STRING: u64 = 4096;

/// The integers an integer schema's `format` allows (schemars writes Rust's integer types so):
/// without one, those a JSON number holds exactly in every parser.
fn format_range(map: &Map<String, Value>) -> (i128, i128) {
    const SAFE: i128 = (1 << 53) - 1;
    match map.get("format").and_then(Value::as_str) {
        Some("int8") => (i8::MIN.into(), i8::MAX.into()),
        Some("uint8") => (0, u8::MAX.into()),
        Some("int16") => (i16::MIN.into(), i16::MAX.into()),
        Some("uint16") => (0, u16::MAX.into()),
        Some("int32") => (i32::MIN.into(), i32::MAX.into()),
        Some("uint32") => (0, u32::MAX.into()),
        Some("int64") => (i64::MIN.into(), i64::MAX.into()),
        Some("uint64") => (0, u64::MAX.into()),
        Some("uint") => (0, u64::MAX.into()),
        Some("int") => (i64::MIN.into(), i64::MAX.into()),
        _ => (-SAFE, SAFE),
    }
}

/// A numeric bound as the integer limit it sets: `None` when the schema has none.
fn bound(map: &Map<String, Value>, key: &str) -> Option<i128> {
    let number = map.get(key)?.as_f64()?;
    Some(match key {
        "minimum" => number.ceil() as i128,
        "exclusiveMinimum" => number.floor() as i128 + 1,
        "maximum" => number.floor() as i128,
        _ => number.ceil() as i128 - 1,
    })
}

/// Bounds for a generated integer: the schema's, or a window of a thousand beside the one it
/// has, kept where a JSON number is an exact integer everywhere.
fn window(lower: Option<i128>, upper: Option<i128>) -> (i128, i128) {
    const SAFE: i128 = (1 << 53) - 1;
    let (lower, upper) = match (lower, upper) {
        (Some(l), Some(u)) => (l, u),
        (Some(l), None) => (l, l + 1000),
        (None, Some(u)) => (u - 1000, u),
        (None, None) => (-1000, 1000),
    };
    (lower.max(-SAFE), upper.min(SAFE).max(lower.max(-SAFE)))
}

fn integer_value(value: i128) -> Value {
    match i64::try_from(value) {
        Ok(small) => Value::Number(small.into()),
        Err(_) => Value::Number(u64::try_from(value).unwrap_or(u64::MAX).into()),
    }
}

/// A float as JSON; an integral one is written as an integer, as a model would write it.
fn float_value(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        return Value::Number((value as i64).into());
    }
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::validate::validate;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 5},
                "sort": {"$ref": "#/$defs/Sort"},
                "days": {"type": ["integer", "null"], "minimum": 0, "maximum": 255},
                "step": {"type": "integer", "multipleOf": 7, "exclusiveMinimum": 0, "maximum": 50},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "legacy": {"type": "string", "nullable": true},
                "when": {"type": "string", "format": "date-time"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
                "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}], "items": false, "minItems": 2},
                "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
                "tree": {"$ref": "#/$defs/Node"},
                "target": {"oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "file"}, "path": {"type": "string"}}, "required": ["kind", "path"], "additionalProperties": false},
                    {"type": "object", "properties": {"kind": {"const": "url"}, "url": {"type": "string", "format": "uri"}}, "required": ["kind", "url"], "additionalProperties": false}
                ]},
                "both": {"allOf": [
                    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                    {"type": "object", "properties": {"b": {"type": "boolean"}}, "required": ["b"]}
                ]}
            },
            "required": ["query", "tags", "pair", "target", "both"],
            "additionalProperties": false,
            "$defs": {
                "Sort": {"type": "string", "enum": ["relevance", "date"]},
                "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["children"]}
            }
        })
    }

    #[test]
    fn every_instance_fits_its_schema() {
        let schema = schema();
        for (n, instance) in Instances::new(&schema, 1).take(300).enumerate() {
            if let Err(mismatch) = validate(&instance, &schema) {
                panic!("instance {n} does not fit: {mismatch}\n{instance:#}");
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_instances() {
        let schema = schema();
        let first: Vec<Value> = Instances::new(&schema, 42).take(20).collect();
        let again: Vec<Value> = Instances::new(&schema, 42).take(20).collect();
        let other: Vec<Value> = Instances::new(&schema, 43).take(20).collect();
        assert_eq!(first, again);
        assert_ne!(first, other);
    }

    #[test]
    fn optional_properties_come_and_go_and_nulls_appear() {
        let schema = schema();
        let instances: Vec<Value> = Instances::new(&schema, 5).take(100).collect();
        let with = |key: &str| instances.iter().filter(|i| i.get(key).is_some()).count();
        assert!(
            (1..100).contains(&with("sort")),
            "sort in {} of 100",
            with("sort")
        );
        assert!(
            instances
                .iter()
                .any(|i| i.get("days") == Some(&Value::Null))
        );
        assert!(
            instances
                .iter()
                .any(|i| i.get("legacy") == Some(&Value::Null))
        );
    }

    #[test]
    fn unknown_properties_are_added_only_where_the_schema_allows_them() {
        let schema = json!({
            "type": "object",
            "properties": {
                "open": {"type": "object", "properties": {"a": {"type": "integer"}}},
                "closed": {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}
            },
            "required": ["open", "closed"],
            "additionalProperties": false
        });
        let instances: Vec<Value> = Instances::new(&schema, 9)
            .unknown_properties(true)
            .take(60)
            .collect();
        assert!(instances.iter().all(|i| validate(i, &schema).is_ok()));
        assert!(
            instances
                .iter()
                .any(|i| i["open"].as_object().unwrap().keys().any(|k| k != "a"))
        );
        assert!(instances.iter().all(|i| i.as_object().unwrap().len() == 2));
    }

    #[test]
    fn a_required_recursion_is_cut_off() {
        let schema = json!({"$ref": "#/$defs/A", "$defs": {"A": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"]}}});
        let instance = Instances::new(&schema, 3).max_depth(2).next().unwrap();
        let mut depth = 0;
        let mut node = &instance;
        while let Some(inner) = node.get("a") {
            depth += 1;
            node = inner;
        }
        assert_eq!(depth, 2 + HARD_DEPTH_MARGIN + 1);
    }
}
