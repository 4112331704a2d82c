//! # payload-loopback
//!
//! The one loopback server the workspace's tests talk to instead of a model provider
//! (a test never reaches the network): a listener on 127.0.0.1 that answers the n-th
//! connection with the n-th [`Reply`] (a recorded event stream byte for byte, an error
//! status, or a server that stalls, trickles keep-alives, or never answers) and keeps
//! every request it read ([`Server::received`]). Each connection is served on its own
//! thread, so the server works the same under any async runtime or none.
//!
//! Beside it, the one check the workspace's error types share ([`errors`]), and a
//! PostgreSQL server of a test's own ([`postgres`]), Node with an official client's
//! packages ([`node`]). The web apps' headless Chromium is a crate of its own
//! (`payload-browser`), so that a WebDriver client and a runtime are not among what
//! the libraries' tests pull in.

#![forbid(unsafe_code)]

pub mod errors;
pub mod node;
pub mod postgres;

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// The head of every 200 reply: an event stream, closed after the reply.
const STREAM_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";

/// How long a stalling reply holds its connection at most (the clients under test give
/// up long before).
const STALL: Duration = Duration::from_secs(60);

/// What the server answers one connection with.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with these bytes of event stream, then the connection is closed.
    Stream(Vec<u8>),
    /// A status with extra headers and a JSON body.
    Status(u16, Vec<(&'static str, String)>, String),
    /// 200 with the stream's head and these bytes, then nothing (a minute at most).
    Hang(Vec<u8>),
    /// 200 with the stream's head and `prefix`, then `piece` every `every`, until the
    /// client goes away (or a minute has passed).
    Trickle {
        /// Sent once, with the head.
        prefix: Vec<u8>,
        /// Sent again and again.
        piece: Vec<u8>,
        /// The pause between two pieces.
        every: Duration,
    },
    /// 200 with the stream's head, then nothing for the wait, then the stream (a server
    /// reading a long prompt before its first token).
    Delayed(Duration, Vec<u8>),
    /// The request is read and never answered: no status, no headers.
    Silent,
}

/// A request the server read.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request line: `POST /v1/... HTTP/1.1`.
    pub line: String,
    /// Its headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Its body as JSON (`null` when it is not JSON).
    pub body: Value,
}

impl Received {
    /// The value of header `name` (lower-case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A loopback server on a free port of 127.0.0.1.
#[derive(Debug)]
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    /// Answers connection n with `replies[n]`; connections after the last are refused.
    pub fn start(replies: Vec<Reply>) -> Server {
        Server::serve(replies.into_iter())
    }

    /// Answers every connection with `reply` (a re-sent request gets the same).
    pub fn always(reply: Reply) -> Server {
        Server::serve(std::iter::repeat(reply))
    }

    fn serve(mut replies: impl Iterator<Item = Reply> + Send + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        thread::spawn(move || {
            for reply in replies.by_ref() {
                let Ok((socket, _)) = listener.accept() else {
                    return;
                };
                let log = log.clone();
                thread::spawn(move || answer(socket, reply, &log));
            }
        });
        Server { url, received }
    }

    /// The requests read so far, in the order they came.
    pub fn received(&self) -> Vec<Received> {
        lock(&self.received).clone()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn answer(mut socket: TcpStream, reply: Reply, log: &Mutex<Vec<Received>>) {
    let Some(request) = read_request(&mut socket) else {
        return;
    };
    lock(log).push(request);
    // Write errors mean the client went away: the reply simply ends.
    match reply {
        Reply::Stream(bytes) => {
            let _ = socket.write_all(STREAM_HEAD);
            let _ = socket.write_all(&bytes);
        }
        Reply::Status(status, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes());
            let _ = socket.write_all(body.as_bytes());
        }
        Reply::Hang(prefix) => {
            let _ = socket.write_all(STREAM_HEAD);
            let _ = socket.write_all(&prefix);
            let _ = socket.flush();
            thread::sleep(STALL);
        }
        Reply::Trickle {
            prefix,
            piece,
            every,
        } => {
            let _ = socket.write_all(STREAM_HEAD);
            let _ = socket.write_all(&prefix);
            let until = Instant::now() + STALL;
            while Instant::now() < until {
                if socket.write_all(&piece).is_err() || socket.flush().is_err() {
                    break;
                }
                thread::sleep(every);
            }
        }
        Reply::Delayed(wait, bytes) => {
            let _ = socket.write_all(STREAM_HEAD);
            let _ = socket.flush();
            thread::sleep(wait);
            let _ = socket.write_all(&bytes);
        }
        Reply::Silent => thread::sleep(STALL),
    }
    let _ = socket.shutdown(std::net::Shutdown::Both);
}

/// Reads one HTTP/1.1 request with a `content-length` body.
fn read_request(socket: &mut TcpStream) -> Option<Received> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let line = lines.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let n = socket.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buffer[head_end..head_end + length]).unwrap_or(Value::Null);
    Some(Received {
        line,
        headers,
        body,
    })
}
