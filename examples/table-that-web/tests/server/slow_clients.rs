//! Clients that stall: a body sent a byte at a time is cut off at the body deadline, a
//! connection that sends nothing (or nothing more after its request) is closed after
//! the header deadline. Small bounds are set here so the tests are quick; the waits
//! are generous and only detect a server that never lets go.

use crate::common::*;
use payload_serve::{ServeOptions, Timeouts};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn server() -> Server {
    start_with(
        replay(),
        ServeOptions {
            timeouts: Timeouts {
                header_read: Duration::from_millis(500),
                body_read: Duration::from_millis(500),
                ..Timeouts::default()
            },
            ..ServeOptions::default()
        },
    )
    .await
}

/// Reads until the server closes the connection; what it sent, or `None` when it kept
/// the connection open for `wait`.
async fn until_closed(stream: &mut TcpStream, wait: Duration) -> Option<String> {
    let mut received = Vec::new();
    let read = tokio::time::timeout(wait, stream.read_to_end(&mut received)).await;
    read.ok()
        .map(|_| String::from_utf8_lossy(&received).into_owned())
}

#[tokio::test]
async fn a_body_sent_a_byte_at_a_time_is_cut_off() {
    let server = server().await;
    let mut stream = TcpStream::connect(authority(&server)).await.unwrap();
    let head = format!(
        "POST /api/chat HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n",
        authority(&server)
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    // The body would take 20 s; the server answers within its bound of 0.5 s.
    let mut received = [0u8; 64];
    let (mut reader, mut writer) = stream.into_split();
    let trickle = async move {
        for _ in 0..200 {
            if writer.write_all(b" ").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let answer = tokio::select! {
        () = trickle => None,
        read = reader.read(&mut received) => Some(read.unwrap()),
    };
    let n = answer.expect("the server answered before the body was done");
    let text = String::from_utf8_lossy(&received[..n]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn an_idle_connection_is_closed() {
    let server = server().await;
    // One that never sends a byte.
    let mut silent = TcpStream::connect(authority(&server)).await.unwrap();
    assert!(
        until_closed(&mut silent, Duration::from_secs(10))
            .await
            .is_some(),
        "a silent connection was kept"
    );
    // One that sends half a request head.
    let mut half = TcpStream::connect(authority(&server)).await.unwrap();
    half.write_all(b"GET / HTTP/1.1\r\nHost: ").await.unwrap();
    assert!(
        until_closed(&mut half, Duration::from_secs(10))
            .await
            .is_some()
    );
    // One kept alive after a request, then idle.
    let mut kept = TcpStream::connect(authority(&server)).await.unwrap();
    let request = format!(
        "GET /api/tables HTTP/1.1\r\nHost: {}\r\n\r\n",
        authority(&server)
    );
    kept.write_all(request.as_bytes()).await.unwrap();
    let answered = until_closed(&mut kept, Duration::from_secs(10))
        .await
        .expect("the idle kept-alive connection was closed");
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
}
