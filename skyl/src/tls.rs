//! TLS for the HTTP clients skyl builds (the transport's, and MCP's over streamable HTTP): rustls
//! on aws-lc-rs (its default provider, post-quantum key exchange included; rustls 0.23.48
//! deprecated its ring provider, which has none), checking certificates against the system's
//! roots (rustls-platform-verifier). No process-wide crypto provider is installed, so an
//! application's own choice stays its own.

use std::fmt;
use std::sync::Arc;

/// TLS could not be set up: what failed, in a few words, and rustls's error.
#[derive(Debug)]
pub(crate) struct TlsError {
    pub(crate) what: &'static str,
    pub(crate) source: rustls::Error,
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.what)
    }
}

impl std::error::Error for TlsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The client configuration for a server at an `https` URL, or for plain HTTP (a server on this
/// machine), which needs no roots.
pub(crate) fn config(https: bool) -> Result<rustls::ClientConfig, TlsError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|source| TlsError {
            what: "cannot set up TLS",
            source,
        })?;
    if !https {
        return Ok(builder
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth());
    }
    let verifier =
        rustls_platform_verifier::Verifier::new(provider).map_err(|source| TlsError {
            what: "cannot check HTTPS certificates; install the system's CA certificates (the ca-certificates package)",
            source,
        })?;
    Ok(builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}

/// A client builder on this TLS, for the HTTP clients other than the transport's (MCP over
/// streamable HTTP), so that none of them needs a process-wide crypto provider.
#[cfg(feature = "mcp-http")]
pub(crate) fn client_builder(https: bool) -> Result<reqwest::ClientBuilder, TlsError> {
    Ok(reqwest::Client::builder().tls_backend_preconfigured(config(https)?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_key_exchange_offers_post_quantum_first() {
        let config = super::config(false).unwrap();
        let groups: Vec<rustls::NamedGroup> = config
            .crypto_provider()
            .kx_groups
            .iter()
            .map(|group| group.name())
            .collect();
        assert_eq!(
            groups,
            [
                rustls::NamedGroup::X25519MLKEM768,
                rustls::NamedGroup::secp384r1,
                rustls::NamedGroup::X25519,
                rustls::NamedGroup::secp256r1,
            ]
        );
    }
}
