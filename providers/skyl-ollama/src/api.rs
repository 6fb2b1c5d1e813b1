//! The HTTP part: `POST {base}/api/chat` on `http://localhost:11434`, no key needed (a bearer
//! token when one is given, as Ollama's hosted service takes it), and streams of one JSON object
//! a line.

use skyl::provider::author::{Api, Framing};

use crate::Ollama;

impl Api for Ollama {
    fn default_base_url(&self) -> Option<&'static str> {
        Some("http://localhost:11434")
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &["OLLAMA_API_KEY"]
    }

    /// Ollama's clients read `OLLAMA_HOST`, which may be a bare `host:port`: give the base URL
    /// instead.
    fn base_url_variable(&self) -> Option<&'static str> {
        None
    }

    fn url(&self, base: &str, _model: &str, _stream: bool) -> String {
        format!("{base}/api/chat")
    }

    fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        key.map(|key| ("authorization", format!("Bearer {key}")))
            .into_iter()
            .collect()
    }

    /// A local server needs no key, at its default address or any other.
    fn needs_key(&self, _base_url: &str) -> bool {
        false
    }

    fn framing(&self) -> Framing {
        Framing::JsonLines
    }
}
