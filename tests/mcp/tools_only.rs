//! A server written with rmcp alone that offers tools and nothing else, mounted in process: the
//! stand-in for a server nobody here wrote.

use skyl::mcp::Remote;
use skyl::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use skyl::mcp::rmcp::service::{RequestContext, RoleServer};
use skyl::mcp::rmcp::{ErrorData, ServerHandler, ServiceExt};

use crate::common::bounded;

/// Lists `tools`, and answers each call with what `answer` makes of it.
struct ToolsOnly {
    tools: Vec<Tool>,
    answer: fn(&CallToolRequestParams) -> CallToolResult,
}

impl ServerHandler for ToolsOnly {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok((self.answer)(&request).into())
    }
}

/// Mounts as `name` a server that lists `tools` and answers each call with what `answer` makes
/// of it.
pub(crate) async fn mount_tools_only(
    name: &str,
    tools: Vec<Tool>,
    answer: fn(&CallToolRequestParams) -> CallToolResult,
) -> Remote {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let server = ToolsOnly { tools, answer };
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    bounded("mounting", Remote::builder(name).connect(client_end))
        .await
        .unwrap()
}
