//! The exporters' HTTP client: the reqwest (and rustls) the provider clients already
//! link, so turning export on adds no second HTTP or TLS stack.
//!
//! The SDK exports from threads of its own, outside any async runtime, and waits on
//! each export there; reqwest needs a tokio runtime to run on. So the client owns a
//! small current-thread runtime of its own and runs each request on it to the end: the
//! app's runtime (if it has one) is never borrowed or blocked.

use bytes::Bytes;
use http::{Request, Response};
use opentelemetry_http::{HttpClient, HttpError};
use std::time::Duration;

/// The most of a receiver's answer that is read.
const MAX_RESPONSE_BYTES: usize = 1 << 20;

/// reqwest on a runtime of its own.
#[derive(Debug)]
pub(crate) struct ExportClient {
    client: reqwest::Client,
    /// `None` only while being dropped.
    runtime: Option<tokio::runtime::Runtime>,
}

impl ExportClient {
    /// A client whose every request ends within `timeout`.
    pub(crate) fn new(timeout: Duration) -> std::io::Result<ExportClient> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(std::io::Error::other)?;
        Ok(ExportClient {
            client,
            runtime: Some(runtime),
        })
    }
}

impl Drop for ExportClient {
    fn drop(&mut self) {
        // Dropping a runtime where blocking is not allowed (inside the app's own
        // runtime, if the last exporter goes there) panics; this does not wait.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[async_trait::async_trait]
impl HttpClient for ExportClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let runtime = self
            .runtime
            .as_ref()
            .ok_or("the export client is shut down")?;
        if tokio::runtime::Handle::try_current().is_ok() {
            // Only an app that calls the exporter from inside a tokio runtime gets
            // here (the SDK's own threads never do); blocking there would panic.
            return Err("an OTLP export was run inside an async runtime".into());
        }
        let request = reqwest::Request::try_from(request)?;
        runtime.block_on(async {
            let response = self.client.execute(request).await?;
            let status = response.status();
            let headers = response.headers().clone();
            let mut response = response;
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                // An OTLP answer is a few bytes; a receiver that sends more is cut
                // off, not held in memory.
                if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
                    return Err("the OTLP receiver's answer is larger than 1 MiB".into());
                }
                body.extend_from_slice(&chunk);
            }
            let body = Bytes::from(body);
            let mut out = Response::builder().status(status).body(body)?;
            *out.headers_mut() = headers;
            Ok(out)
        })
    }
}
