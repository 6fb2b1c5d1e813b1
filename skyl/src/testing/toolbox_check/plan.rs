//! The plan: every call, made before any runs. Each tool gets valid arguments in every
//! provider's dialect, values at its schema's edges, and hostile arguments (wrong types, missing
//! properties, huge strings, deep nesting, what is not an object, cut JSON text, unknown names).

use serde_json::{Map, Value, json};

use super::super::{Dialect, Instances};
use super::Case;
use crate::message::{Message, Part, Role, ToolCall};
use crate::random::{GAMMA, SplitMix64};
use crate::schema::absent::without_absent_nulls;
use crate::schema::validate::fits;
use crate::toolbox::Toolbox;

/// How many calls go in one assistant turn.
const CALLS_A_TURN: usize = 8;

/// How long a huge string is.
const HUGE: usize = 256 * 1024;

/// How deep nested values go, and nested JSON text.
const DEEP_VALUE: usize = 200;
const DEEP_TEXT: usize = 5_000;

pub(super) struct Planned {
    pub(super) call: ToolCall,
    pub(super) case: Case,
    /// Whether the call must be accepted: valid, and nothing excuses a refusal.
    pub(super) must_accept: bool,
}

pub(super) struct Turn {
    pub(super) calls: Vec<Planned>,
}

impl Turn {
    pub(super) fn message(&self) -> Message {
        Message {
            role: Role::Assistant,
            parts: self
                .calls
                .iter()
                .map(|planned| Part::ToolCall(planned.call.clone()))
                .collect(),
        }
    }
}

pub(super) struct Plan {
    pub(super) turns: Vec<Turn>,
    pub(super) calls: usize,
    pub(super) not_required: usize,
    pub(super) notes: Vec<String>,
}

impl Plan {
    pub(super) fn new<S: 'static>(toolbox: &Toolbox<S>, cases: usize, seed: u64) -> Plan {
        let mut planner = Planner {
            planned: Vec::new(),
            not_required: 0,
            notes: Vec::new(),
        };
        for (n, definition) in toolbox.definitions().iter().enumerate() {
            let seed = seed.wrapping_add((n as u64).wrapping_mul(GAMMA));
            planner.tool(&definition.name, &definition.parameters, cases, seed);
        }
        let calls = planner.planned.len();
        let mut turns = Vec::new();
        let mut planned = planner.planned.into_iter().enumerate().peekable();
        while planned.peek().is_some() {
            let calls = planned
                .by_ref()
                .take(CALLS_A_TURN)
                .map(|(n, mut planned)| {
                    planned.call.id = format!("check_{n}");
                    planned
                })
                .collect();
            turns.push(Turn { calls });
        }
        Plan {
            turns,
            calls,
            not_required: planner.not_required,
            notes: planner.notes,
        }
    }
}

struct Planner {
    planned: Vec<Planned>,
    not_required: usize,
    notes: Vec<String>,
}

impl Planner {
    fn push(&mut self, name: &str, arguments: Value, case: Case, must_accept: bool) {
        if case.is_valid() && !must_accept {
            self.not_required += 1;
        }
        self.planned.push(Planned {
            call: ToolCall::new(String::new(), name, arguments),
            case,
            must_accept,
        });
    }

    fn tool(&mut self, name: &str, canonical: &Value, cases: usize, seed: u64) {
        // skyl cannot generate strings for a regular expression, so their refusal is excused.
        let pattern = mentions_key(canonical, &["pattern", "patternProperties"]);
        for dialect in Dialect::ALL {
            let lowered = match dialect.lower(canonical) {
                Ok(lowered) => lowered,
                Err(error) => {
                    self.notes.push(format!(
                        "{name}: not checked in the {dialect} dialect, which cannot express its schema ({error}); that adapter refuses the tool"
                    ));
                    continue;
                }
            };
            for arguments in Instances::new(&lowered, seed).take(cases) {
                // A dialect may allow what the canonical schema does not (a dropped constraint);
                // the nulls OpenAI strict mode sends for what it leaves out mean "absent".
                let allowed = canonically_valid(&arguments, canonical);
                self.push(name, arguments, Case::Valid(dialect), allowed && !pattern);
            }
        }

        let valid: Vec<Value> = Instances::new(canonical, seed ^ 0x5eed)
            .take(cases)
            .collect();
        let mut edges = Instances::new(canonical, seed ^ 0xed9e).edges(true);
        for _ in 0..cases {
            let arguments = edges.next().expect("instances never end");
            let allowed = fits(&arguments, canonical, canonical);
            self.push(name, arguments, Case::Edge, allowed && !pattern);
        }
        for arguments in &valid {
            if arguments.is_object() {
                let text = Value::String(arguments.to_string());
                self.push(name, text, Case::JsonText, false);
            }
        }

        let mut random = SplitMix64::new(seed);
        for (n, arguments) in valid.iter().enumerate() {
            if let Some(wrong) = wrong_type(arguments, canonical, &mut random) {
                self.push(name, wrong, Case::WrongType, false);
            }
            if let Some(missing) = missing_required(arguments, canonical, &mut random) {
                self.push(name, missing, Case::MissingRequired, false);
            }
            if n < 4 {
                self.push(
                    name,
                    huge_string(arguments, &mut random),
                    Case::HugeString,
                    false,
                );
            }
            if n < 8 {
                self.push(
                    name,
                    deep(arguments, n, &mut random),
                    Case::DeepNesting,
                    false,
                );
            }
            let not_an_object = NOT_OBJECTS[n % NOT_OBJECTS.len()].clone();
            self.push(name, not_an_object, Case::NotAnObject, false);
            let text = arguments.to_string();
            let cut = Value::String(text[..text.len() - 1].to_owned());
            self.push(name, cut, Case::MalformedJsonText, false);
        }
        let unknown = [format!("{name}_unknown"), name.to_uppercase()];
        for unknown in unknown {
            if unknown != name {
                self.push(&unknown, json!({}), Case::UnknownTool, false);
            }
        }
    }
}

/// Arguments that are not an object. (`null` is not among them: skyl reads it as no
/// arguments.)
static NOT_OBJECTS: std::sync::LazyLock<[Value; 6]> = std::sync::LazyLock::new(|| {
    [
        json!(42),
        json!(-1.5),
        json!(true),
        json!([]),
        json!([{"a": 1}]),
        json!("plain words, not JSON"),
    ]
});

/// Whether `arguments`, from a lowered schema, is a value of the canonical schema once the
/// nulls a lowering adds for absent properties are removed.
fn canonically_valid(arguments: &Value, canonical: &Value) -> bool {
    match without_absent_nulls(arguments, canonical) {
        Some(cleaned) => fits(&cleaned, canonical, canonical),
        None => fits(arguments, canonical, canonical),
    }
}

/// Whether `schema` uses any of `keys` anywhere.
pub(super) fn mentions_key(schema: &Value, keys: &[&str]) -> bool {
    match schema {
        Value::Object(map) => map
            .iter()
            .any(|(key, value)| keys.contains(&key.as_str()) || mentions_key(value, keys)),
        Value::Array(items) => items.iter().any(|item| mentions_key(item, keys)),
        _ => false,
    }
}

/// `arguments` with one property replaced by a value of a type its schema refuses.
fn wrong_type(arguments: &Value, canonical: &Value, random: &mut SplitMix64) -> Option<Value> {
    let object = arguments.as_object()?;
    let keys: Vec<&String> = object.keys().collect();
    let key = random.pick(&keys)?;
    let others = [
        json!(7),
        json!(2.5),
        json!("text"),
        json!(false),
        json!([1, "two"]),
        json!({"nested": true}),
        Value::Null,
    ];
    let start = random.next() as usize;
    (0..others.len()).find_map(|i| {
        let mut wrong = object.clone();
        wrong.insert((*key).clone(), others[(start + i) % others.len()].clone());
        let wrong = Value::Object(wrong);
        (!canonically_valid(&wrong, canonical)).then_some(wrong)
    })
}

/// `arguments` without one of the properties the schema requires.
fn missing_required(
    arguments: &Value,
    canonical: &Value,
    random: &mut SplitMix64,
) -> Option<Value> {
    let required: Vec<&str> = canonical
        .get("required")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let key = random.pick(&required)?;
    let mut missing = arguments.as_object()?.clone();
    missing.remove(*key)?;
    Some(Value::Object(missing))
}

/// `arguments` with a huge string: in place of one property, or as a property of its own.
fn huge_string(arguments: &Value, random: &mut SplitMix64) -> Value {
    let huge: String = "Lorem ipsum \u{1f600} \"quoted\" \\ "
        .chars()
        .cycle()
        .take(HUGE)
        .collect();
    let mut object = arguments.as_object().cloned().unwrap_or_default();
    let keys: Vec<String> = object.keys().cloned().collect();
    let key = random.pick(&keys).cloned().unwrap_or_else(|| "huge".into());
    object.insert(key, Value::String(huge));
    Value::Object(object)
}

/// `arguments` with a value nested [`DEEP_VALUE`] deep in one property, or (every other time)
/// JSON text nested [`DEEP_TEXT`] deep.
fn deep(arguments: &Value, n: usize, random: &mut SplitMix64) -> Value {
    if n % 2 == 1 {
        let mut text = "[".repeat(DEEP_TEXT);
        text.push_str(&"]".repeat(DEEP_TEXT));
        return Value::String(format!("{{\"deep\": {text}}}"));
    }
    let mut value = json!("bottom");
    for depth in 0..DEEP_VALUE {
        value = if depth % 2 == 0 {
            Value::Array(vec![value])
        } else {
            let mut inner = Map::new();
            inner.insert("a".into(), value);
            Value::Object(inner)
        };
    }
    let mut object = arguments.as_object().cloned().unwrap_or_default();
    let keys: Vec<String> = object.keys().cloned().collect();
    let key = random.pick(&keys).cloned().unwrap_or_else(|| "deep".into());
    object.insert(key, value);
    Value::Object(object)
}
