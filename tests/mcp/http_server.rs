//! The weather tools and one that says which process answered, served over streamable HTTP
//! without sessions, for the test of several server processes behind a load balancer.
//!
//! `http_server 127.0.0.1:0` prints `serving MCP at http://ADDRESS/mcp` on stderr once it
//! listens, and serves until killed.

#[path = "../../examples/weather_tools.rs"]
mod weather_tools;

/// Says which server process answered.
#[skyl::tool]
fn process_id() -> String {
    std::process::id().to_string()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .ok_or("usage: http_server 127.0.0.1:PORT")?;
    let listener = tokio::net::TcpListener::bind(address).await?;
    eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
    skyl::mcp::Server::new(weather_tools::toolbox().with(ProcessId))
        .with_stateless_http()
        .serve_http(listener)
        .await?;
    Ok(())
}
