//! Adding, replacing and removing tools, and choosing the ones a request offers.

use serde_json::{Value, json};
use skyl::{
    DynamicTool, ToolCall, ToolDefinition, Toolbox,
    tool::{RegistrationError, ToolAnnotations, UnknownTool},
};

fn named(name: &str, answer: &'static str) -> DynamicTool {
    DynamicTool::from_fn(
        ToolDefinition::new(
            name,
            format!("The {name} tool."),
            json!({"type": "object", "properties": {}}),
        ),
        move |_: Value| answer,
    )
}

fn with_definition(definition: ToolDefinition) -> DynamicTool {
    DynamicTool::from_fn(definition, |_: Value| "")
}

fn answer(toolbox: &Toolbox, name: &str) -> String {
    toolbox
        .dispatch_blocking(&ToolCall::new("c", name, json!({})))
        .content
}

/// Documents a tool.
#[skyl::tool]
fn documented() -> &'static str {
    "typed"
}

#[test]
fn each_registration_mistake_is_its_own_error() {
    let base = Toolbox::new().with(named("search", "found"));
    let cases = [
        (
            named("search", "again"),
            RegistrationError::DuplicateName {
                name: "search".into(),
            },
        ),
        (
            named("search the web", ""),
            RegistrationError::InvalidName {
                name: "search the web".into(),
                suggestion: "search_the_web".into(),
            },
        ),
        (
            with_definition(ToolDefinition::new(
                "quiet",
                String::new(),
                json!({"type": "object"}),
            )),
            RegistrationError::EmptyDescription {
                name: "quiet".into(),
            },
        ),
        (
            with_definition(ToolDefinition::new(
                "listy",
                "Takes a list.",
                json!({"type": "array", "items": {"type": "string"}}),
            )),
            RegistrationError::NotAnObjectSchema {
                name: "listy".into(),
                found: "a schema of \"type\": \"array\"".into(),
            },
        ),
        (
            with_definition(ToolDefinition::new(
                "linked",
                "Follows a link.",
                json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}),
            )),
            RegistrationError::UnresolvedReference {
                name: "linked".into(),
                reference: "#/$defs/A".into(),
            },
        ),
    ];
    for (tool, expected) in cases {
        let mut toolbox = Toolbox::new().with(named("search", "found"));
        assert_eq!(toolbox.add(tool), Err(expected));
        // A failed add leaves the toolbox as it was.
        assert_eq!(toolbox.definitions(), base.definitions());
        assert_eq!(answer(&toolbox, "search"), "found");
    }
    // A typed tool passes the same checks.
    assert!(Toolbox::new().try_with(Documented).is_ok());
    assert_eq!(
        Toolbox::new()
            .with(Documented)
            .try_with(Documented)
            .unwrap_err(),
        RegistrationError::DuplicateName {
            name: "documented".into()
        }
    );
}

#[test]
#[should_panic(
    expected = "Toolbox::with: the tool \"quiet\" has no description, and a model cannot use a tool well without one; say what it does and when to use it"
)]
fn with_panics_with_the_registration_error() {
    let _ = Toolbox::new().with(with_definition(ToolDefinition::new(
        "quiet",
        String::new(),
        json!({"type": "object"}),
    )));
}

#[test]
fn a_tool_is_replaced_in_place_and_removed_without_rebuilding_the_toolbox() {
    let mut toolbox = Toolbox::new()
        .with(named("a", "a1"))
        .with(named("b", "b1"))
        .with(named("c", "c1"));
    toolbox.replace(named("b", "b2")).unwrap();
    assert_eq!(toolbox.names().collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(answer(&toolbox, "b"), "b2");

    // Replacing a name the toolbox lacks adds the tool at the end.
    toolbox.replace(named("d", "d1")).unwrap();
    assert_eq!(toolbox.names().collect::<Vec<_>>(), ["a", "b", "c", "d"]);

    // A replacement is checked like any tool, and a refused one changes nothing.
    assert!(matches!(
        toolbox.replace(named("b!", "")),
        Err(RegistrationError::InvalidName { .. })
    ));
    assert_eq!(answer(&toolbox, "b"), "b2");

    assert!(toolbox.remove("b"));
    assert!(!toolbox.remove("b"));
    assert!(!toolbox.contains("b"));
    assert!(toolbox.contains("c"));
    assert_eq!(toolbox.names().collect::<Vec<_>>(), ["a", "c", "d"]);
    let names: Vec<&str> = toolbox
        .definitions()
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(names, ["a", "c", "d"]);
    // The tools after a removed one still answer by their own names.
    assert_eq!(
        ["a", "c", "d"].map(|name| answer(&toolbox, name)),
        ["a1", "c1", "d1"]
    );
    assert_eq!(
        answer(&toolbox, "b"),
        "ERROR: there is no tool named \"b\". Did you mean \"a\"? The available tools are: a, c, d. Call one of them by its exact name."
    );
    // A removed name is free again.
    toolbox.add(named("b", "b3")).unwrap();
    assert_eq!(answer(&toolbox, "b"), "b3");
    assert_eq!(toolbox.len(), 4);
}

#[test]
fn a_request_can_offer_a_subset_of_the_tools() {
    let read_only = ToolAnnotations::new().with_read_only(true);
    let mut read = named("read", "");
    let mut list = named("list", "");
    for tool in [&mut read, &mut list] {
        let definition = {
            let mut definition = skyl::Tool::<()>::definition(tool).clone();
            definition.annotations = read_only.clone();
            definition
        };
        *tool = with_definition(definition);
    }
    let toolbox = Toolbox::new()
        .with(read)
        .with(named("write", ""))
        .with(list)
        .with(named("delete", ""));

    let names = |definitions: Vec<ToolDefinition>| -> Vec<String> {
        definitions.into_iter().map(|d| d.name).collect()
    };
    assert_eq!(
        names(toolbox.definitions_of(["list", "read", "list"]).unwrap()),
        ["list", "read"]
    );
    assert_eq!(
        names(toolbox.definitions_of([]).unwrap()),
        Vec::<String>::new()
    );
    assert_eq!(
        toolbox.definitions_of(["read", "wrte"]),
        Err(UnknownTool {
            name: "wrte".into(),
            available: vec![
                "read".into(),
                "write".into(),
                "list".into(),
                "delete".into()
            ],
        })
    );
    assert_eq!(
        names(toolbox.definitions_where(|d| d.annotations.is_read_only())),
        ["read", "list"]
    );
    assert_eq!(
        toolbox.definitions_of(["delete"]).unwrap()[0],
        toolbox.definitions()[3]
    );
}

/// The new user's mistake: a tool made at run time under a name only Gemini accepts. The
/// toolbox refuses it when it is added, with a hint for a definition (not for `#[tool]`), so no
/// request ever fails at encode because of a name the toolbox took.
#[test]
fn a_name_some_provider_cannot_encode_is_refused_when_the_tool_is_added() {
    let mut toolbox = Toolbox::new();
    for (name, suggestion) in [("files.read", "files_read"), ("2fa", "_2fa")] {
        let error = toolbox.add(named(name, "read")).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "the tool name \"{name}\" is not one every provider accepts (a letter or `_` first, then a-z, A-Z, 0-9, `_` or `-`, at most 64 characters); give the tool's ToolDefinition another name, for example \"{suggestion}\""
            )
        );
    }
    assert!(toolbox.is_empty());

    // What the toolbox takes, every adapter encodes.
    let toolbox = Toolbox::new()
        .with(named("files_read", "read"))
        .with(named("_2fa", "ok"))
        .with(named("x-y", "ok"))
        .with(Documented);
    let request = skyl::provider::Request::new("m", vec![skyl::Message::user("hi")])
        .with_tools(toolbox.definitions());
    for adapter in crate::support::adapters() {
        assert!(adapter.encode(&request).is_ok(), "{:?}", adapter.provider());
    }
}

/// A set of typed tools, for the prefix a set is added with.
struct Shelf;

#[skyl::tools]
impl Shelf {
    /// Counts the books.
    #[tool]
    fn count(&self) -> usize {
        3
    }
}

#[test]
fn a_prefix_that_makes_a_name_some_provider_refuses_is_refused_by_name() {
    let mut toolbox = Toolbox::new();
    assert_eq!(
        toolbox.add_set("shelf.", Shelf),
        Err(RegistrationError::InvalidPrefix {
            prefix: "shelf.".into(),
            name: "shelf.count".into(),
            suggestion: "shelf_".into(),
        })
    );
    assert!(toolbox.is_empty());
    toolbox.add_set("shelf_", Shelf).unwrap();
    assert_eq!(toolbox.names().collect::<Vec<_>>(), ["shelf_count"]);
}
