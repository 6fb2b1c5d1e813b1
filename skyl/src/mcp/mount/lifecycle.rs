//! Which revision of MCP a mounted server is spoken to in: 2026-07-28 when it speaks it, else
//! the `initialize` handshake of 2025-11-25 and before.
//!
//! rmcp's client probes with `server/discover` and falls back to `initialize` when the server
//! answers with an error of the older revisions (it does not know the method). A server of
//! 2026-07-28's SDKs that was set to speak only older revisions answers instead that the version
//! is unsupported, listing the ones it supports; the revision says to pick one of those
//! (SEP-2575), and for a version with a handshake that is the handshake. [`Probe`] lets rmcp see
//! that answer as the older servers' one, so that the same connection goes on with `initialize`.

use std::borrow::Cow;

use rmcp::model::{ClientRequest, ErrorCode, JsonRpcMessage, ProtocolVersion};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// A mounted server's transport during and after the handshake (see the module's doc).
pub(in crate::mcp) struct Probe<T> {
    inner: T,
    /// Whether the last request sent was `server/discover`, whose answer is looked at.
    probing: bool,
}

impl<T> Probe<T> {
    pub(in crate::mcp) fn new(inner: T) -> Self {
        Probe {
            inner,
            probing: false,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Probe<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.probing = matches!(
            &item,
            JsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::DiscoverRequest(_))
        );
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let mut message = self.inner.receive().await?;
        if self.probing
            && let JsonRpcMessage::Error(error) = &mut message
            && only_older(&error.error.code, error.error.data.as_ref())
        {
            self.probing = false;
            error.error.code = ErrorCode::METHOD_NOT_FOUND;
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Whether an answer to `server/discover` says the version is unsupported, and every version the
/// server supports is one with the `initialize` handshake.
fn only_older(code: &ErrorCode, data: Option<&serde_json::Value>) -> bool {
    if *code != ErrorCode::UNSUPPORTED_PROTOCOL_VERSION {
        return false;
    }
    let supported: Vec<ProtocolVersion> = data
        .and_then(|data| data.get("supported"))
        .and_then(|supported| serde_json::from_value(supported.clone()).ok())
        .unwrap_or_default();
    !supported.is_empty() && supported.iter().all(ProtocolVersion::has_initialize)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_a_server_of_older_revisions_alone_is_spoken_to_with_the_handshake() {
        let unsupported = ErrorCode::UNSUPPORTED_PROTOCOL_VERSION;
        let older = json!({"requested": "2026-07-28", "supported": ["2025-06-18", "2025-11-25"]});
        assert!(only_older(&unsupported, Some(&older)));
        // A server with a newer revision than the one asked: rmcp asks again in it.
        let newer = json!({"requested": "2026-07-28", "supported": ["2025-11-25", "2027-01-01"]});
        assert!(!only_older(&unsupported, Some(&newer)));
        // Nothing listed, or another error: rmcp's own reading stands.
        assert!(!only_older(&unsupported, Some(&json!({"supported": []}))));
        assert!(!only_older(&unsupported, None));
        assert!(!only_older(&ErrorCode::INVALID_PARAMS, Some(&older)));
    }
}
