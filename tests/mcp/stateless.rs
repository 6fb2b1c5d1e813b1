//! Several skyl server processes behind a load balancer: served without sessions, any process
//! answers any request, so a client's calls land on all of them and every call is answered.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hyper_util::rt::TokioIo;
use serde_json::json;
use skyl::mcp::Remote;
use skyl::{ToolCall, Toolbox};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};

use crate::common::bounded;

/// Starts the `http_server` binary on a free loopback port; returns it and its address.
async fn start_server() -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_http_server"))
        .arg("127.0.0.1:0")
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = bounded("the server's address", lines.next_line())
        .await
        .unwrap()
        .expect("the server printed its address");
    let address = line
        .strip_prefix("serving MCP at http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .parse()
        .unwrap();
    (child, address)
}

/// A load balancer on a free loopback port that sends each HTTP request (not each connection)
/// to the next of `backends` in turn, over a connection of its own.
async fn round_robin(backends: Vec<SocketAddr>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let next = Arc::new(AtomicUsize::new(0));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let backends = backends.clone();
            let next = Arc::clone(&next);
            let forward = hyper::service::service_fn(move |request| {
                let backend = backends[next.fetch_add(1, Ordering::Relaxed) % backends.len()];
                async move {
                    let stream = TcpStream::connect(backend).await?;
                    let (mut sender, connection) =
                        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
                    tokio::spawn(connection);
                    Ok::<_, Box<dyn std::error::Error + Send + Sync>>(
                        sender.send_request(request).await?,
                    )
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), forward),
            );
        }
    });
    address
}

#[tokio::test]
async fn two_stateless_servers_behind_a_round_robin_balancer_answer_every_call() {
    let (first, first_address) = start_server().await;
    let (second, second_address) = start_server().await;
    let balancer = round_robin(vec![first_address, second_address]).await;

    let remote = bounded(
        "mounting through the balancer",
        Remote::builder("weather").connect_http(&format!("http://{balancer}/mcp")),
    )
    .await
    .unwrap();
    let toolbox = Toolbox::new().with_remote(&remote);

    let mut answered_by = HashSet::new();
    for n in 0..6 {
        let call = ToolCall::new(format!("call_{n}"), "weather_process_id", json!({}));
        let result = bounded("a call", toolbox.dispatch(&call)).await;
        assert!(!result.is_error, "{}", result.content);
        answered_by.insert(result.content.parse::<u32>().unwrap());
    }
    let call = ToolCall::new("w", "weather_get_weather", json!({"city": "Gulu"}));
    let result = bounded("a call", toolbox.dispatch(&call)).await;
    assert_eq!(result.content, "27C and cloudy in Gulu");
    let processes: HashSet<u32> = [first.id().unwrap(), second.id().unwrap()].into();
    assert_eq!(answered_by, processes, "every process answered calls");
    remote.close().await;
}
