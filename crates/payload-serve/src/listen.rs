//! The accept loop: HTTP/1.1 connections served by hyper with the bounds a slow or idle
//! client must not escape. A connection that has not sent a whole request head within
//! [`Timeouts::header_read`] is closed, and that clock also runs while a kept-alive
//! connection waits for its next request, so an idle connection is closed after it too.
//! At most [`Timeouts::max_connections`] connections are open at once; more wait to be
//! accepted.

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long a client may take, and how many may be connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// From a connection's opening (or the end of its last response) to the end of the
    /// next request's head; the connection is closed after it.
    pub header_read: Duration,
    /// From the request's head to the last byte of its body; 408 after it.
    pub body_read: Duration,
    /// Connections served at once.
    pub max_connections: usize,
}

impl Default for Timeouts {
    /// 10 s for a head (or idle), 10 s for a body, 1024 connections: a local page sends
    /// a few KiB at once, so these bounds only ever cut a client that is stalling.
    fn default() -> Self {
        Timeouts {
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(10),
            max_connections: 1024,
        }
    }
}

/// Serves `router` on `listener` until the future is dropped.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    timeouts: Timeouts,
) -> std::io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(timeouts.header_read)
        .keep_alive(true);
    let slots = Arc::new(Semaphore::new(timeouts.max_connections.max(1)));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return Ok(());
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: wait rather than spin or stop.
                tracing::warn!(%e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let connection = http.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(router.clone()),
        );
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(%e, "connection ended");
            }
            drop(slot);
        });
    }
}
