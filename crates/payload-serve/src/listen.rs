//! The accept loop: HTTP/1.1 connections served by hyper with the bounds a slow or idle
//! client must not escape. A connection that has not sent a whole request head within
//! [`Timeouts::header_read`] is closed, and that clock also runs while a kept-alive
//! connection waits for its next request, so an idle connection is closed after it too.
//! At most [`Timeouts::max_connections`] connections are open at once. A client past
//! that is not kept waiting behind idle ones: the connection idle longest (connected
//! but answering no request) is closed to make room ([`crate::connections`]); only when
//! every connection is answering a request does a new one wait to be accepted.

use crate::connections::{BusyBody, Connections};
use axum::Router;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper::service::Service as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, TryAcquireError};

/// How long a client may take, and how many may be connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// From a connection's opening (or the end of its last response) to the end of the
    /// next request's head; the connection is closed after it.
    pub header_read: Duration,
    /// From the request's head to the last byte of its body; 408 after it.
    pub body_read: Duration,
    /// Connections open at once. Past it, the connection idle longest is closed for a
    /// new one; a new one waits only while every connection is answering a request.
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
    let connections = Arc::new(Connections::default());
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: wait rather than spin or stop.
                tracing::warn!(%e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(TryAcquireError::Closed) => return Ok(()),
            // Full: the connection idle longest makes room (its task ends at once and
            // gives its slot back). With none idle, this one waits for a slot, looking
            // again now and then for a connection that has become idle.
            Err(TryAcquireError::NoPermits) => loop {
                connections.close_longest_idle();
                let wait = slots.clone().acquire_owned();
                match tokio::time::timeout(Duration::from_millis(100), wait).await {
                    Ok(Ok(slot)) => break slot,
                    Ok(Err(_)) => return Ok(()),
                    Err(_) => continue,
                }
            },
        };
        let registered = Arc::new(connections.open());
        let inner = TowerToHyperService::new(router.clone());
        let http = http.clone();
        tokio::spawn(async move {
            let tracked = registered.clone();
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let busy = tracked.busy();
                let answer = inner.call(request);
                async move {
                    let response = answer.await?;
                    Ok::<_, std::convert::Infallible>(
                        response.map(|body| BusyBody { body, _busy: busy }),
                    )
                }
            });
            let mut connection = Box::pin(http.serve_connection(TokioIo::new(stream), service));
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                () = registered.close_asked() => {
                    if registered.is_idle() {
                        // No request is being answered (none sent, or a head still
                        // arriving, which hyper's own shutdown would wait for): closed
                        // now, by dropping it.
                        Ok(())
                    } else {
                        // A request began since it was chosen: answered, then closed.
                        connection.as_mut().graceful_shutdown();
                        connection.as_mut().await
                    }
                }
            };
            if let Err(e) = ended {
                tracing::debug!(%e, "connection ended");
            }
            // The socket is closed before its slot is given back.
            drop(connection);
            drop(slot);
        });
    }
}
