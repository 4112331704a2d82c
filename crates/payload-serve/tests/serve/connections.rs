//! Many idle connections: the page is still answered while they are held (the
//! connection idle longest makes room for a new one), and the server closes idle
//! connections by itself. Loops are bounded; every socket is on 127.0.0.1.

use crate::app::*;
use payload_agent::{Model, ModelChunk, ModelRequest, ModelStream};
use payload_registry::Registry;
use payload_serve::{App, ServeOptions, Timeouts};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The shop app with `timeouts`; its `127.0.0.1:PORT`.
async fn serve(timeouts: Timeouts) -> String {
    serve_with(timeouts, scripted(LIST_ANSWER)).await
}

/// The shop app with `timeouts` and `models`.
async fn serve_with(
    timeouts: Timeouts,
    models: impl Fn(&payload_serve::TurnInfo) -> Box<dyn Model> + Send + Sync + 'static,
) -> String {
    let service = App::new(Registry::global())
        .title("Shop")
        .pages(&["shop"])
        .model(models)
        .options(ServeOptions {
            timeouts,
            ..ServeOptions::default()
        })
        .build()
        .expect("the app builds");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let authority = listener.local_addr().unwrap().to_string();
    tokio::spawn(service.serve(listener));
    authority
}

/// The process's soft limit on open files (`/proc/self/limits`), when it says one.
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// `count` connections that send nothing, or as many as a quarter of the open-file
/// limit leaves room for (the tests of this file run at once, each holding its own; a
/// machine whose limit is 1,024 still opens more than the 100 slots the tests give the
/// server, so room must still be made).
async fn idle(authority: &str, count: usize) -> Vec<TcpStream> {
    let count = open_file_limit().map_or(count, |limit| count.min(limit.saturating_sub(256) / 4));
    let mut sockets = Vec::with_capacity(count);
    for _ in 0..count {
        // A server that stops accepting leaves the connection waiting in its backlog.
        let connect = TcpStream::connect(authority);
        let socket = tokio::time::timeout(Duration::from_secs(30), connect)
            .await
            .expect("the server stopped accepting while idle connections held its slots");
        sockets.push(socket.unwrap());
    }
    sockets
}

/// How many of `sockets` the server has closed (an end of stream is waiting).
fn closed(sockets: &[TcpStream]) -> usize {
    let mut byte = [0u8; 1];
    sockets
        .iter()
        .filter(|s| matches!(s.try_read(&mut byte), Ok(0)))
        .count()
}

/// Waits, a bounded number of times, until at least `want` of `sockets` are closed;
/// how many are.
async fn until_closed(sockets: &[TcpStream], want: usize, tries: usize) -> usize {
    let mut count = closed(sockets);
    for _ in 0..tries {
        if count >= want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        count = closed(sockets);
    }
    count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_idle_connections_do_not_keep_the_page_waiting() {
    // The header timeout is far away: only making room can answer the page before half
    // of it has passed.
    let header_read = Duration::from_secs(120);
    let max_connections = 100;
    let authority = serve(Timeouts {
        header_read,
        max_connections,
        ..Timeouts::default()
    })
    .await;
    let held = idle(&authority, 2_000).await;
    let page = async {
        let mut stream = TcpStream::connect(&authority).await.unwrap();
        let request = format!("GET / HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    let answer = tokio::time::timeout(header_read / 2, page)
        .await
        .expect("the page was not answered while idle connections held every slot");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // The room was made by closing idle connections, all but the slots' worth of them.
    let want = held.len() - max_connections;
    let count = until_closed(&held, want, 50).await;
    assert!(
        count >= want,
        "{count} idle connections were closed, not {want}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_after_the_header_timeout() {
    let header_read = Duration::from_millis(500);
    let authority = serve(Timeouts {
        header_read,
        max_connections: 100,
        ..Timeouts::default()
    })
    .await;
    let held = idle(&authority, 300).await;
    // Every one, the 100 served and the 200 that made room, is closed; the waits are
    // bounded and generous, for a server that never lets go.
    let count = until_closed(&held, held.len(), 100).await;
    assert_eq!(count, held.len(), "idle connections were kept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_alive_connections_and_stalled_heads_make_room_too() {
    let header_read = Duration::from_secs(120);
    let max_connections = 50;
    let authority = serve(Timeouts {
        header_read,
        max_connections,
        ..Timeouts::default()
    })
    .await;
    // Connections kept alive after an answer, read whole.
    let mut kept = Vec::new();
    for _ in 0..max_connections / 2 {
        let mut stream = TcpStream::connect(&authority).await.unwrap();
        let request = format!("GET /api/app HTTP/1.1\r\nHost: {authority}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).await.unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");
        kept.push(stream);
    }
    // Connections that send half a head and stall.
    let mut half = idle(&authority, 500).await;
    for stream in &mut half {
        stream.write_all(b"GET / HTTP/1.1\r\nHost: ").await.unwrap();
    }
    let page = async {
        let mut stream = TcpStream::connect(&authority).await.unwrap();
        let request = format!("GET / HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    let answer = tokio::time::timeout(header_read / 2, page)
        .await
        .expect("the page was not answered while stalled heads held every slot");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let want = half.len() - max_connections;
    let count = until_closed(&half, want, 50).await;
    assert!(
        count >= want,
        "{count} stalled heads were closed, not {want}"
    );
    // The kept-alive connections were idle longest: they made room first.
    let drained = async {
        for stream in &mut kept {
            let mut rest = Vec::new();
            stream.read_to_end(&mut rest).await.unwrap();
        }
    };
    tokio::time::timeout(header_read / 2, drained)
        .await
        .expect("a kept-alive idle connection was kept while the page waited");
}

/// A model that writes a word, pauses for a second, then writes the rest.
struct Pauses;

impl Model for Pauses {
    fn stream(&mut self, _: &ModelRequest) -> ModelStream {
        let chunks = vec![(0, "Hello"), (1_000, " and goodbye.")];
        Box::pin(futures::stream::unfold(
            chunks.into_iter(),
            |mut chunks| async move {
                let (pause, text) = chunks.next()?;
                tokio::time::sleep(Duration::from_millis(pause)).await;
                Some((ModelChunk::Text(text.into()), chunks))
            },
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_streaming_is_never_closed_to_make_room() {
    let max_connections = 20;
    let authority = serve_with(
        Timeouts {
            header_read: Duration::from_secs(120),
            max_connections,
            ..Timeouts::default()
        },
        |_: &payload_serve::TurnInfo| Box::new(Pauses) as Box<dyn Model>,
    )
    .await;
    let mut stream = TcpStream::connect(&authority).await.unwrap();
    let body = r#"{"message": "hi", "context": {"current_page": "shop"}}"#;
    let request = format!(
        "POST /api/chat HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // The answer has begun: the connection is busy while it streams.
    let mut received = Vec::new();
    while !String::from_utf8_lossy(&received).contains("Hello") {
        let mut piece = [0u8; 4096];
        let n = stream.read(&mut piece).await.unwrap();
        assert!(n > 0, "closed before the answer began");
        received.extend_from_slice(&piece[..n]);
    }
    // Ten times the slots in idle connections, while it pauses.
    let held = idle(&authority, 10 * max_connections).await;
    // The answer streams on to its end.
    stream.read_to_end(&mut received).await.unwrap();
    let text = String::from_utf8_lossy(&received);
    assert!(text.contains("goodbye"), "{text}");
    assert!(text.contains("event: complete"), "{text}");
    // The room was made by the idle ones alone.
    let want = held.len() - (max_connections - 1);
    let count = until_closed(&held, want, 50).await;
    assert!(
        count >= want,
        "{count} idle connections were closed, not {want}"
    );
}
