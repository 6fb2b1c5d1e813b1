//! skyl's MCP server against a bare rmcp server of the same tool, in one run: calls per second and
//! the median (p50) and p99 latency of a `tools/call`, over stdio and over streamable HTTP.
//!
//! Usage: `cargo run --release --manifest-path benches/Cargo.toml --bin mcp_server`. It prints a
//! Markdown table for BENCHMARKS.md.
//!
//! Both servers serve `forecast(city, days, metric)` (the workload of benches/peers.rs): skyl's
//! as `#[skyl::tool]` in a `Toolbox` behind `skyl::mcp::Server`, rmcp's as `#[tool]` on a method
//! behind `#[tool_handler]`, each as its crate documents. One rmcp client calls both, the same way:
//!
//! - stdio: each server is a child process (this binary, started again with `serve-skyl` or
//!   `serve-rmcp`), spoken to over its standard streams, as a host starts a local server;
//! - HTTP: each server listens on 127.0.0.1 in this process (skyl's `serve_http`, rmcp's
//!   `StreamableHttpService` on hyper with the same session manager), and the client sends each
//!   call as a POST.
//!
//! Calls go one at a time (a model's turn waits for its results), in alternating blocks of 100
//! so that both servers see the same moments of a busy machine; each server is warmed up first.
//! Every answer is checked to be the tool's text.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;
use tokio::net::TcpListener;

/// The workload of the peers bench, `forecast`: the tool's work, the answer to the call this
/// bench makes, and the tool as skyl writes it.
mod peers {
    #[allow(
        dead_code,
        reason = "the dispatchers' call and descriptions are the peers bench's"
    )]
    pub mod forecast;
    pub mod skyl_tool;
}

use peers::forecast::{EXPECTED, forecast_text};
use peers::skyl_tool::Forecast;

fn skyl_server() -> skyl::mcp::Server {
    skyl::mcp::Server::new(skyl::Toolbox::new().with(Forecast))
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ForecastArgs {
    /// The city, in English.
    city: String,
    /// How many days ahead, 1 to 7.
    days: Option<u8>,
    /// Metric units when true.
    #[serde(default)]
    metric: bool,
}

/// The same tool as rmcp's README writes one: the router built once and kept in a field.
#[derive(Clone)]
struct RmcpServer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpServer {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Looks up the weather forecast for a city.
    #[tool]
    fn forecast(&self, Parameters(args): Parameters<ForecastArgs>) -> String {
        forecast_text(&args.city, args.days, args.metric)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpServer {}

type Client = RunningService<RoleClient, ()>;

const BLOCK: usize = 100;
const BLOCKS: usize = 20;
const WARM_UP: usize = 200;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    match std::env::args().nth(1).as_deref() {
        Some("serve-skyl") => runtime.block_on(async {
            skyl_server()
                .serve_stdio()
                .await
                .expect("skyl serves stdio");
        }),
        Some("serve-rmcp") => runtime.block_on(async {
            let running = RmcpServer::new()
                .serve(rmcp::transport::stdio())
                .await
                .expect("rmcp serves stdio");
            let _ = running.waiting().await;
        }),
        None => runtime.block_on(measure()),
        Some(other) => panic!("unknown argument {other:?}: none, serve-skyl or serve-rmcp"),
    }
}

async fn measure() {
    println!(
        "| transport | server | calls/s | p50 | p99 | cost vs rmcp (time per call, p50, p99) |"
    );
    println!("|---|---|---|---|---|---|");
    let skyl = child("serve-skyl").await;
    let rmcp = child("serve-rmcp").await;
    report("stdio", compare(&skyl, &rmcp).await);
    let skyl = http_client(serve_skyl_http().await).await;
    let rmcp = http_client(serve_rmcp_http().await).await;
    report("streamable HTTP", compare(&skyl, &rmcp).await);
}

async fn child(argument: &str) -> Client {
    let mut command = tokio::process::Command::new(std::env::current_exe().expect("this binary"));
    command.arg(argument);
    let transport = TokioChildProcess::new(command).expect("the server starts");
    ().serve(transport).await.expect("the client connects")
}

async fn serve_skyl_http() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("its address");
    tokio::spawn(skyl_server().serve_http(listener));
    format!("http://{address}/mcp")
}

async fn serve_rmcp_http() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("its address");
    let service = Arc::new(StreamableHttpService::new(
        || Ok(RmcpServer::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    ));
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let service = Arc::clone(&service);
            tokio::spawn(async move {
                let answer = hyper::service::service_fn(move |request| {
                    let service = Arc::clone(&service);
                    async move { Ok::<_, Infallible>(service.handle(request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .serve_connection(TokioIo::new(stream), answer)
                    .await;
            });
        }
    });
    format!("http://{address}/mcp")
}

async fn http_client(url: String) -> Client {
    let transport = StreamableHttpClientTransport::from_uri(url);
    ().serve(transport).await.expect("the client connects")
}

/// The latencies of one server's calls, in the order they were made.
struct Sample {
    latencies: Vec<Duration>,
    total: Duration,
}

async fn compare(skyl: &Client, rmcp: &Client) -> [(&'static str, Sample); 2] {
    for _ in 0..WARM_UP {
        call(skyl).await;
        call(rmcp).await;
    }
    let mut samples = [("skyl", Sample::new()), ("rmcp `#[tool]`", Sample::new())];
    for _ in 0..BLOCKS {
        for (client, (_, sample)) in [skyl, rmcp].into_iter().zip(samples.iter_mut()) {
            let block = Instant::now();
            for _ in 0..BLOCK {
                let start = Instant::now();
                call(client).await;
                sample.latencies.push(start.elapsed());
            }
            sample.total += block.elapsed();
        }
    }
    samples
}

async fn call(client: &Client) {
    let arguments = json!({"city": "Kampala", "days": 3, "metric": true});
    let serde_json::Value::Object(arguments) = arguments else {
        unreachable!("an object")
    };
    let arguments: JsonObject = arguments;
    let result = client
        .peer()
        .call_tool(CallToolRequestParams::new("forecast").with_arguments(arguments))
        .await
        .expect("the call is answered");
    let text = result.content[0]
        .as_text()
        .map(|text| text.text.as_str())
        .expect("a text block");
    assert_eq!(text, EXPECTED);
}

impl Sample {
    fn new() -> Self {
        Self {
            latencies: Vec::with_capacity(BLOCK * BLOCKS),
            total: Duration::ZERO,
        }
    }

    fn percentile(&self, share: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let index = ((sorted.len() as f64 - 1.0) * share).round() as usize;
        sorted[index]
    }

    fn calls_per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.total.as_secs_f64()
    }
}

/// A row per server; the last column is each measure over rmcp's (above 1: skyl costs more).
fn report(transport: &str, samples: [(&str, Sample); 2]) {
    let rmcp = &samples[1].1;
    for (server, sample) in &samples {
        let (p50, p99) = (sample.percentile(0.5), sample.percentile(0.99));
        println!(
            "| {transport} | {server} | {:.0} | {:.1} µs | {:.1} µs | {:.2}×, {:.2}×, {:.2}× |",
            sample.calls_per_second(),
            micros(p50),
            micros(p99),
            rmcp.calls_per_second() / sample.calls_per_second(),
            p50.as_secs_f64() / rmcp.percentile(0.5).as_secs_f64(),
            p99.as_secs_f64() / rmcp.percentile(0.99).as_secs_f64(),
        );
    }
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}
