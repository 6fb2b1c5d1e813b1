//! An MCP server written with rmcp alone, the way a server skyl mounts was written by someone
//! else: names with dots, every kind of content block, an error result, a protocol error, a call
//! that never answers, a crash in the middle of a call, a tool list that changes, and results
//! written the way the Python SDK's FastMCP writes a typed function's: the value as text and
//! again as `structuredContent`.
//!
//! It serves one client on stdio, until stdin closes.

use std::sync::Mutex;

use serde_json::{Value, json};
use skyl::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, EmbeddedResource,
    ImageContent, JsonObject, ListToolsResult, PaginatedRequestParams, Resource, ResourceContents,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use skyl::mcp::rmcp::service::{RequestContext, RoleServer};
use skyl::mcp::rmcp::{ErrorData, ServerHandler, ServiceExt};

/// Whether `swap` has run: `echo.text` is then gone and `late.tool` is there.
struct Server {
    swapped: Mutex<bool>,
}

fn schema(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("schemas here are objects"),
    }
}

fn tool(name: &'static str, description: &'static str, input: Value) -> Tool {
    Tool::new(name, description, schema(input))
}

impl Server {
    fn tools(&self) -> Vec<Tool> {
        let empty = || json!({"type": "object", "properties": {}});
        let mut tools = vec![
            tool("media", "Returns one block of every kind.", empty()),
            tool("fail", "Fails the way a tool reports failure.", empty()),
            tool(
                "refuse",
                "Answers with a JSON-RPC error.",
                json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            ),
            tool("hang", "Never answers.", empty()),
            tool("crash", "Exits in the middle of the call.", empty()),
            tool("swap", "Replaces echo.text with late.tool.", empty()),
            tool("count", "Counts, as FastMCP answers an int.", empty()),
            tool("list", "Lists, as FastMCP answers a list.", empty()),
        ];
        let swapped = *self.swapped.lock().unwrap();
        let changing = if swapped {
            tool("late.tool", "Added by swap.", empty())
        } else {
            tool(
                "echo.text",
                "Repeats the text.",
                json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            )
            .with_title("Echo")
            .with_annotations(ToolAnnotations::new().read_only(true))
        };
        tools.insert(0, changing);
        tools
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = |text: &str| ContentBlock::text(text.to_owned());
        let argument = |key: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|arguments| arguments.get(key))
                .cloned()
        };
        let result = match request.name.as_ref() {
            "echo.text" if !*self.swapped.lock().unwrap() => {
                let said = argument("text").unwrap_or(Value::Null);
                CallToolResult::success(vec![text(&format!(
                    "echo: {}",
                    said.as_str().unwrap_or("?")
                ))])
            }
            "late.tool" if *self.swapped.lock().unwrap() => {
                CallToolResult::success(vec![text("late and present")])
            }
            "media" => {
                let mut result = CallToolResult::success(vec![
                    text("one of each"),
                    ContentBlock::Image(ImageContent::new("iVBORw0KGgo=", "image/png")),
                    ContentBlock::Resource(EmbeddedResource::new(ResourceContents::text(
                        "line one",
                        "file:///notes.txt",
                    ))),
                    ContentBlock::Resource(EmbeddedResource::new(
                        ResourceContents::blob("AAECAw==", "file:///data.bin")
                            .with_mime_type("application/octet-stream"),
                    )),
                    ContentBlock::ResourceLink(Resource::new("file:///big.csv", "big.csv")),
                ]);
                result.structured_content = Some(json!({"blocks": 5}));
                result
            }
            // FastMCP: `def count() -> int: return 3` is the text "3" and `{"result": 3}`.
            "count" => {
                let mut result = CallToolResult::success(vec![text("3")]);
                result.structured_content = Some(json!({"result": 3}));
                result
            }
            // A list is a text block per item, and the list under "result".
            "list" => {
                let mut result = CallToolResult::success(vec![text("1"), text("two")]);
                result.structured_content = Some(json!({"result": [1, "two"]}));
                result
            }
            "fail" => CallToolResult::error(vec![text("the disk is full")]),
            "refuse" => {
                return Err(ErrorData::invalid_params("n must be positive", None));
            }
            "hang" => {
                context.ct.cancelled().await;
                return Err(ErrorData::internal_error("cancelled", None));
            }
            "crash" => std::process::exit(7),
            "swap" => {
                *self.swapped.lock().unwrap() = true;
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(vec![text("swapped")])
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = Server {
        swapped: Mutex::new(false),
    };
    let Ok(running) = server.serve(skyl::mcp::rmcp::transport::stdio()).await else {
        return;
    };
    let _ = running.waiting().await;
}
