//! A server nobody here wrote, listing tools a toolbox refuses: an input schema that is not an
//! object's, a `$ref` to nowhere, a `$ref` to a network URI (the conformance suite's
//! `json-schema-ref-no-deref`), a name that after sanitizing is a local tool's. Written with
//! rmcp alone and served in process; each way of mounting it says what it did with them.

use serde_json::{Value, json};
use skyl::mcp::Remote;
use skyl::mcp::rmcp::model::{CallToolResult, ContentBlock, Tool};
use skyl::{ToolCall, ToolResult, Toolbox, tool::RegistrationError};

use crate::common::{bounded, object};
use crate::tools_only::mount_tools_only;

fn tool(name: &str, schema: Value) -> Tool {
    Tool::new(name.to_owned(), format!("The tool {name}."), object(schema))
}

/// Mounts, as "odd", an rmcp server whose tool list has two good tools and four a toolbox
/// refuses; each call answers that it ran.
async fn mount() -> Remote {
    let tools = vec![
        tool("echo", json!({"type": "object"})),
        tool("text_in", json!({"type": "string"})),
        tool(
            "dangling",
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}}),
        ),
        tool(
            "lookup_user",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"userId": {"type": "string"}},
                "properties": {
                    "id": {"$ref": "#/$defs/userId"},
                    "profile": {"$ref": "http://127.0.0.1:9/canary/profile-schema.json"}
                },
                "required": ["id"]
            }),
        ),
        tool("read.file", json!({"type": "object"})),
        tool("read_file", json!({"type": "object"})),
    ];
    mount_tools_only("odd", tools, |request| {
        CallToolResult::success(vec![ContentBlock::text(format!("{} ran", request.name))])
    })
    .await
}

/// A local tool whose name is the one `read.file` is mounted as.
fn with_local_read_file() -> Toolbox {
    let definition = skyl::ToolDefinition::new(
        "odd_read_file",
        "Reads a local file.",
        json!({"type": "object"}),
    );
    Toolbox::new().with(skyl::DynamicTool::from_fn(definition, |_: Value| "local"))
}

fn refusals() -> Vec<String> {
    [
        RegistrationError::NotAnObjectSchema {
            name: "odd_text_in".into(),
            found: "a schema of \"type\": \"string\"".into(),
        },
        RegistrationError::UnresolvedReference {
            name: "odd_dangling".into(),
            reference: "#/$defs/Missing".into(),
        },
        RegistrationError::UnresolvedReference {
            name: "odd_lookup_user".into(),
            reference: "http://127.0.0.1:9/canary/profile-schema.json".into(),
        },
        RegistrationError::DuplicateName {
            name: "odd_read_file".into(),
        },
    ]
    .iter()
    .map(ToString::to_string)
    .collect()
}

#[tokio::test]
async fn add_remote_mounts_what_it_can_and_says_why_not_the_rest() {
    let odd = mount().await;
    let mut toolbox = with_local_read_file();
    let refused = toolbox.add_remote(&odd);
    assert_eq!(
        refused.iter().map(ToString::to_string).collect::<Vec<_>>(),
        refusals()
    );
    // `read_file` comes out as `odd_read_file` too, and is mounted under the next free name.
    assert_eq!(
        toolbox.names().collect::<Vec<_>>(),
        ["odd_read_file", "odd_echo", "odd_read_file_2"]
    );
    let call = ToolCall::new("call_1", "odd_read_file_2", json!({}));
    assert_eq!(
        bounded("a call", toolbox.dispatch(&call)).await,
        ToolResult::success("call_1", "read_file ran")
    );
    odd.close().await;
}

#[tokio::test]
async fn try_with_remote_refuses_the_first_tool_it_cannot_mount() {
    let odd = mount().await;
    let refused = with_local_read_file().try_with_remote(&odd).unwrap_err();
    assert_eq!(refused.to_string(), refusals()[0]);
    odd.close().await;
}

#[tokio::test]
async fn with_remote_mounts_what_it_can_and_keeps_why_not_the_rest() {
    let odd = mount().await;
    assert_eq!(odd.left_out(), []);
    let toolbox = with_local_read_file().with_remote(&odd);
    assert_eq!(
        toolbox.names().collect::<Vec<_>>(),
        ["odd_read_file", "odd_echo", "odd_read_file_2"]
    );
    assert_eq!(
        odd.left_out()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        refusals()
    );
    // Mounted again, the same refusals are not kept twice.
    let again = with_local_read_file().with_remote(&odd);
    assert_eq!(again.names().count(), 3);
    assert_eq!(odd.left_out().len(), refusals().len());
    let call = ToolCall::new("call_1", "odd_echo", json!({}));
    assert_eq!(
        bounded("a call", toolbox.dispatch(&call)).await,
        ToolResult::success("call_1", "echo ran")
    );
    odd.close().await;
}
