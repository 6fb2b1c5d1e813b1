//! A scripted HTTP/1.1 server on 127.0.0.1 for the transport tests, on hyper: each request gets
//! the next queued [`Reply`], and is recorded (method, path, headers, JSON body) for the test to
//! compare.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

/// What the server answers one request with.
pub(crate) enum Reply {
    /// A whole body.
    Body {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// A `text/event-stream` body sent in `pieces`, each written on its own, then ended as `end`
    /// says.
    Stream {
        headers: Vec<(&'static str, String)>,
        pieces: Vec<Vec<u8>>,
        end: End,
    },
}

/// How a streamed body ends.
pub(crate) enum End {
    /// Properly.
    Close,
    /// The connection is cut before the body's end.
    Drop,
    /// It never ends: the server sends an SSE comment every 20 ms (for at most 10 s), and reports
    /// on `closed` when a write fails because the client went away.
    Hang { closed: oneshot::Sender<()> },
}

impl Reply {
    pub(crate) fn json(status: u16, body: impl Into<String>) -> Reply {
        Reply::Body {
            status,
            headers: vec![("content-type", "application/json".into())],
            body: body.into(),
        }
    }

    pub(crate) fn with_header(mut self, name: &'static str, value: &str) -> Reply {
        match &mut self {
            Reply::Body { headers, .. } | Reply::Stream { headers, .. } => {
                headers.push((name, value.to_owned()))
            }
        }
        self
    }

    /// `bytes` streamed in pieces of varied sizes, so that lines and events are cut anywhere.
    pub(crate) fn stream(bytes: &[u8], end: End) -> Reply {
        let mut pieces = Vec::new();
        let mut rest = bytes;
        let mut size = 7;
        while !rest.is_empty() {
            let cut = size.min(rest.len());
            pieces.push(rest[..cut].to_vec());
            rest = &rest[cut..];
            size = size * 3 % 101 + 1;
        }
        Reply::Stream {
            headers: vec![("content-type", "text/event-stream".into())],
            pieces,
            end,
        }
    }
}

/// One request as the server received it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Recorded {
    pub(crate) method: String,
    pub(crate) path: String,
    /// Every header but `host` and `content-length` (they change with the port and the body).
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) body: Value,
}

#[derive(Default)]
struct State {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Recorded>>,
}

pub(crate) struct Server {
    pub(crate) url: String,
    state: Arc<State>,
}

impl Server {
    /// A server on a free port of 127.0.0.1, answering with `replies` in order (a 500 once they
    /// run out).
    pub(crate) async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(State {
            replies: Mutex::new(replies.into()),
            requests: Mutex::default(),
        });
        let shared = Arc::clone(&state);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&shared);
                let service = service_fn(move |request| answer(request, Arc::clone(&state)));
                tokio::spawn(async move {
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Server { url, state }
    }

    /// The requests received so far.
    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().unwrap().clone()
    }
}

async fn answer(
    request: hyper::Request<Incoming>,
    state: Arc<State>,
) -> Result<hyper::Response<ChannelBody>, Infallible> {
    let method = request.method().to_string();
    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let headers = request
        .headers()
        .iter()
        .filter(|(name, _)| *name != "host" && *name != "content-length")
        .map(|(name, value)| {
            (
                name.to_string(),
                value.to_str().unwrap_or("<not text>").to_owned(),
            )
        })
        .collect();
    let bytes = request.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    state.requests.lock().unwrap().push(Recorded {
        method,
        path,
        headers,
        body,
    });
    let reply = state
        .replies
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| Reply::json(500, r#"{"error": "the test queued no reply"}"#));
    let (sender, receiver) = mpsc::channel(4);
    let (status, headers) = match reply {
        Reply::Body {
            status,
            headers,
            body,
        } => {
            tokio::spawn(async move {
                let _ = sender.send(Ok(Bytes::from(body))).await;
            });
            (status, headers)
        }
        Reply::Stream {
            headers,
            pieces,
            end,
        } => {
            tokio::spawn(feed(sender, pieces, end));
            (200, headers)
        }
    };
    let mut response = hyper::Response::builder().status(status);
    for (name, value) in headers {
        response = response.header(name, value);
    }
    Ok(response.body(ChannelBody { receiver }).unwrap())
}

async fn feed(sender: mpsc::Sender<Result<Bytes, std::io::Error>>, pieces: Vec<Vec<u8>>, end: End) {
    for piece in pieces {
        if sender.send(Ok(Bytes::from(piece))).await.is_err() {
            return;
        }
        tokio::task::yield_now().await;
    }
    match end {
        End::Close => {}
        End::Drop => {
            let _ = sender
                .send(Err(std::io::Error::other("the test cut the connection")))
                .await;
        }
        End::Hang { closed } => {
            for _ in 0..500 {
                tokio::time::sleep(Duration::from_millis(20)).await;
                if sender
                    .send(Ok(Bytes::from_static(b": waiting\n\n")))
                    .await
                    .is_err()
                {
                    let _ = closed.send(());
                    return;
                }
            }
        }
    }
}

/// A response body fed through a channel: a test decides when each piece goes out, and an error
/// makes hyper cut the connection.
pub(crate) struct ChannelBody {
    receiver: mpsc::Receiver<Result<Bytes, std::io::Error>>,
}

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        self.receiver
            .poll_recv(cx)
            .map(|item| item.map(|result| result.map(Frame::data)))
    }
}

/// `body` as the transport sends it when it streams from `provider`: OpenAI Chat asks for the
/// usage in the last chunk too, Gemini streams from another endpoint with the same body, and the
/// others only say `"stream": true`.
pub(crate) fn streamed(provider: &str, mut body: Value) -> Value {
    match provider {
        "openai_chat" => {
            body["stream"] = Value::Bool(true);
            body["stream_options"] = serde_json::json!({"include_usage": true});
        }
        "gemini" => {}
        _ => body["stream"] = Value::Bool(true),
    }
    body
}
