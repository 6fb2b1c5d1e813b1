//! A scripted HTTP/1.1 server on 127.0.0.1: each request gets the next queued reply, sent in
//! small pieces and ended by closing the connection, and is recorded for the test to compare.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One reply: its content type and body.
pub(crate) struct Reply {
    pub(crate) content_type: &'static str,
    pub(crate) body: Vec<u8>,
}

/// One request as the server received it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Recorded {
    /// `POST /api/chat`.
    pub(crate) line: String,
    /// The `accept` header.
    pub(crate) accept: String,
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
    /// A server on a free port of 127.0.0.1, answering with `replies` in order. It serves as
    /// many connections as there are replies, then stops.
    pub(crate) async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let count = replies.len();
        let state = Arc::new(State {
            replies: Mutex::new(replies.into()),
            requests: Mutex::default(),
        });
        let shared = Arc::clone(&state);
        tokio::spawn(async move {
            for _ in 0..count {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                serve(stream, &shared).await;
            }
        });
        Server { url, state }
    }

    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().unwrap().clone()
    }
}

async fn serve(mut stream: TcpStream, state: &State) {
    let mut read = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the client closed before its request's head ended");
        read.extend_from_slice(&buffer[..n]);
        if let Some(end) = read.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8(read[..head_end].to_vec()).unwrap();
    let header = |name: &str| {
        head.lines()
            .find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_default()
    };
    let length: usize = header("content-length").parse().unwrap();
    while read.len() < head_end + length {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the client closed before its request's body ended");
        read.extend_from_slice(&buffer[..n]);
    }
    state.requests.lock().unwrap().push(Recorded {
        line: head.lines().next().unwrap_or_default().to_owned(),
        accept: header("accept"),
        body: serde_json::from_slice(&read[head_end..head_end + length]).unwrap(),
    });
    let reply = state.replies.lock().unwrap().pop_front().unwrap();
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {}\r\nconnection: close\r\n\r\n",
        reply.content_type
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // Pieces of varied sizes, so that lines and characters are cut anywhere.
    let mut rest = reply.body.as_slice();
    let mut size = 7;
    while !rest.is_empty() {
        let cut = size.min(rest.len());
        stream.write_all(&rest[..cut]).await.unwrap();
        stream.flush().await.unwrap();
        rest = &rest[cut..];
        size = size * 3 % 101 + 1;
        tokio::task::yield_now().await;
    }
    stream.shutdown().await.unwrap();
}
