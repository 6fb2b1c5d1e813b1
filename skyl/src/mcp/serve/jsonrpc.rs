//! JSON-RPC 2.0's error response, as skyl writes it when it answers a message before rmcp reads
//! it (stdio's reader, the HTTP server's corrections, the refusal of 2025-11-25's tasks).

use serde_json::{Value, json};

/// JSON-RPC 2.0's code for a line that is not JSON.
pub(in crate::mcp) const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0's code for JSON that is not a request.
pub(in crate::mcp) const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC 2.0's code for a method the server does not have.
#[cfg(feature = "mcp-http")]
pub(in crate::mcp) const METHOD_NOT_FOUND: i32 = -32601;
/// JSON-RPC 2.0's code for a request whose params do not fit its method.
pub(in crate::mcp) const INVALID_PARAMS: i32 = -32602;

/// The error response to the request `id` (null when it has none that can be read).
pub(in crate::mcp) fn error_response(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
