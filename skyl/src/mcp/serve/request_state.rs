//! The request states a server signs (MCP 2026-07-28, SEP-2322): what an input-required result
//! gives the client to send back with its answers, the answers of the earlier rounds bound to
//! the call (or prompt) they are for, so that any instance of the server behind one URL reads
//! them and no state given for one call serves another.

use rmcp::ErrorData;
use rmcp::model::{InputResponses, RequestStateCodec, SealOptions};

use crate::arguments::canonical::arguments_fingerprint;
use crate::message::ToolCall;
use crate::prose::mcp as prose;

/// Signs and opens one server's request states, with its key: random unless
/// [`Server::with_state_key`](crate::mcp::Server::with_state_key) gives one.
pub(in crate::mcp) struct RequestStates(RequestStateCodec);

impl RequestStates {
    /// The states signed with `key`.
    pub(in crate::mcp) fn new(key: &[u8; 32]) -> Self {
        let codec = RequestStateCodec::try_new(key.to_vec())
            .expect("32 bytes is RequestStateCodec's minimum");
        RequestStates(codec)
    }

    /// The states signed with a key from the system's random source, for a server whose state
    /// key is not given.
    pub(in crate::mcp) fn random() -> Self {
        RequestStates::new(&random_key())
    }

    /// The request state of `call` holding `answers`, signed for it.
    pub(in crate::mcp) fn sealed(&self, call: &ToolCall, answers: &InputResponses) -> String {
        let payload = serde_json::to_vec(answers).unwrap_or_default();
        let bound = bound_to(call);
        self.0
            .seal_with(&payload, &SealOptions::new().associated_data(&bound))
    }

    /// The answers a request state of `call` holds, when this server signed it for `call`;
    /// the JSON-RPC error -32602 when it did not.
    pub(in crate::mcp) fn opened(
        &self,
        call: &ToolCall,
        state: &str,
    ) -> Result<InputResponses, ErrorData> {
        let refused = || ErrorData::invalid_params(prose::approval_state_refused(&call.name), None);
        let payload = self
            .0
            .open_with(state, &bound_to(call))
            .map_err(|_| refused())?;
        serde_json::from_slice(&payload).map_err(|_| refused())
    }
}

/// What a request state for approving `call` is signed together with: the tool and what its
/// arguments are, so that a state given for one call does not approve another.
fn bound_to(call: &ToolCall) -> Vec<u8> {
    format!("skyl/approve/{}/{}", call.name, arguments_fingerprint(call)).into_bytes()
}

/// A key from the system's random source.
fn random_key() -> [u8; 32] {
    let mut key = [0; 32];
    // Without a random source (no such system is among Rust's tier-1 targets) the key is
    // still secret from clients of another process: std's hasher keys are random per process.
    if getrandom::fill(&mut key).is_err() {
        use std::hash::{BuildHasher, Hasher};
        let seed = std::collections::hash_map::RandomState::new();
        for (n, chunk) in key.chunks_mut(8).enumerate() {
            let mut hasher = seed.build_hasher();
            hasher.write_usize(n);
            chunk.copy_from_slice(&hasher.finish().to_le_bytes());
        }
    }
    key
}
