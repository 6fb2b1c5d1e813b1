//! A mounted tool's input schema, kept as its server listed it beside the canonical form a
//! model is sent (SEP-1613: a client keeps the keywords of JSON Schema 2020-12).

use serde_json::{Value, json};
use skyl::mcp::rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, Tool};
use skyl::{ToolCall, ToolResult, Toolbox};

use crate::common::{bounded, object};
use crate::tools_only::mount_tools_only;

/// The schema as the server writes it: a dialect, a title, definitions with an anchor,
/// composition, a condition, a vendor keyword, and no `properties` or `required` at the root.
fn listed() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Address lookup",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "address",
                "type": "object",
                "properties": {"street": {"type": "string"}, "country": {"type": "string"}},
                "required": ["street"]
            }
        },
        "allOf": [{"anyOf": [
            {"properties": {"address": {"$ref": "#/$defs/address"}}, "required": ["address"]},
            {"properties": {"id": {"type": "string"}}, "required": ["id"]}
        ]}],
        "if": {"properties": {"id": {"const": "me"}}},
        "then": {"required": ["id"]},
        "else": {"properties": {"id": {"pattern": "^[a-z]+$"}}},
        "additionalProperties": false,
        "x-vendor": {"cache": true}
    })
}

/// What the server answers a call of `lookup` with: the arguments it was given.
fn looked_up(request: &CallToolRequestParams) -> CallToolResult {
    let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
    let text = format!("looked up {arguments}");
    CallToolResult::success(vec![ContentBlock::text(text)])
}

#[tokio::test]
async fn a_mounted_tool_keeps_the_schema_its_server_listed_beside_the_one_a_model_gets() {
    let lookup = Tool::new("lookup", "Looks an address up.", object(listed()));
    let remote = mount_tools_only("addresses", vec![lookup], looked_up).await;

    let tools = remote.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(Value::Object(tools[0].input_schema().clone()), listed());

    // What a model is sent is the canonical form: no dialect, no root title, a root with
    // `properties` and `required`; every other keyword as listed.
    let mut canonical = listed();
    let root = canonical.as_object_mut().unwrap();
    root.remove("$schema");
    root.remove("title");
    root.insert("properties".into(), json!({}));
    root.insert("required".into(), json!([]));
    let toolbox = Toolbox::new().with_remote(&remote);
    assert_eq!(
        serde_json::to_value(toolbox.definitions()).unwrap(),
        json!([{
            "name": "addresses_lookup",
            "description": "Looks an address up.",
            "parameters": canonical
        }])
    );

    // Either schema, the call is the server's.
    let call = ToolCall::new("call_1", "addresses_lookup", json!({"id": "me"}));
    assert_eq!(
        bounded("calling", toolbox.dispatch(&call)).await,
        ToolResult::success("call_1", r#"looked up {"id":"me"}"#)
    );
    remote.close().await;
}
