//! The open connections, and which of them are idle: connected but with no request
//! being answered (never sent one, sending a head, or kept alive after an answer).
//! When every slot is taken, the listener closes the one idle longest to make room for
//! a new client, so idle connections, however many a client opens, never keep a page
//! waiting for the header timeout to free them. A connection answering a request is
//! never chosen: it is busy from its request's head to the last byte of its response.

use axum::body::{Body, Bytes};
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::sync::Notify;

/// Every open connection, by id.
#[derive(Default)]
pub(crate) struct Connections {
    open: Mutex<HashMap<u64, Arc<Connection>>>,
    /// Ids, and the order in which connections became idle.
    clock: AtomicU64,
}

/// One open connection's state.
pub(crate) struct Connection {
    id: u64,
    /// Requests being answered (0 or 1 over HTTP/1.1; counted all the same).
    busy: AtomicU64,
    /// When it last became idle, on [`Connections::clock`].
    idle_since: AtomicU64,
    /// Told when the listener wants it closed.
    close: Notify,
}

impl Connections {
    /// Registers a connection just accepted (idle until its first request's head).
    pub(crate) fn open(self: &Arc<Self>) -> Registered {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let connection = Arc::new(Connection {
            id: now,
            busy: AtomicU64::new(0),
            idle_since: AtomicU64::new(now),
            close: Notify::new(),
        });
        self.lock().insert(now, connection.clone());
        Registered {
            connections: self.clone(),
            connection,
        }
    }

    /// Asks the connection idle longest to close; false when none is idle. It is taken
    /// out of the registry at once, so it is never asked twice.
    pub(crate) fn close_longest_idle(&self) -> bool {
        let mut open = self.lock();
        let oldest = open
            .values()
            .filter(|c| c.busy.load(Ordering::Acquire) == 0)
            .min_by_key(|c| c.idle_since.load(Ordering::Acquire))
            .map(|c| c.id);
        let Some(connection) = oldest.and_then(|id| open.remove(&id)) else {
            return false;
        };
        // A permit is stored if the task is not waiting yet: the request is never lost.
        connection.close.notify_one();
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Connection>>> {
        // The map stays consistent whatever panicked while holding it.
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A connection's place in the registry, freed when it is dropped.
pub(crate) struct Registered {
    connections: Arc<Connections>,
    connection: Arc<Connection>,
}

impl Registered {
    /// Resolves when the listener asks this connection to close.
    pub(crate) async fn close_asked(&self) {
        self.connection.close.notified().await
    }

    /// Whether no request is being answered on it.
    pub(crate) fn is_idle(&self) -> bool {
        self.connection.busy.load(Ordering::Acquire) == 0
    }

    /// Marks a request as being answered until the returned guard is dropped.
    pub(crate) fn busy(&self) -> Busy {
        self.connection.busy.fetch_add(1, Ordering::AcqRel);
        Busy {
            connections: self.connections.clone(),
            connection: self.connection.clone(),
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.connections.lock().remove(&self.connection.id);
    }
}

/// A request being answered; the connection is idle again when the last one is dropped.
pub(crate) struct Busy {
    connections: Arc<Connections>,
    connection: Arc<Connection>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        let now = self.connections.clock.fetch_add(1, Ordering::Relaxed);
        self.connection.idle_since.store(now, Ordering::Release);
        self.connection.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body holding its request's [`Busy`] until hyper has sent it whole (or
/// dropped it): a streamed answer keeps its connection busy for as long as it streams.
pub(crate) struct BusyBody {
    /// The response's body.
    pub(crate) body: Body,
    /// Dropped with the body.
    pub(crate) _busy: Busy,
}

impl HttpBody for BusyBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_idle_longest_is_closed_never_a_busy_one() {
        let connections = Arc::new(Connections::default());
        let first = connections.open();
        let second = connections.open();
        let third = connections.open();
        // The first answers a request; the second becomes idle again after one.
        let answering = first.busy();
        drop(second.busy());
        // The third has been idle since it opened, before the second's answer ended.
        assert!(connections.close_longest_idle());
        assert_eq!(connections.lock().len(), 2);
        assert!(!connections.lock().contains_key(&third.connection.id));
        assert!(connections.close_longest_idle());
        assert!(!connections.lock().contains_key(&second.connection.id));
        // Only the busy one is left: nothing is closed.
        assert!(!connections.close_longest_idle());
        drop(answering);
        assert!(connections.close_longest_idle());
        drop((first, second, third));
        assert!(connections.lock().is_empty());
    }
}
