//! The `payload` command (docs/spec.md §6) over the built-in types and every example
//! app: linking a crate is what registers its payloads and pages, so this binary names
//! each one once.

use std::process::ExitCode;
use std::sync::Arc;

// Referenced so the linker keeps each crate, and with it its registrations.
use chat_architecture as _;
use contacts_bridge as _;
use output_schema as _;
use payload_builtin as _;
use selfhelp as _;
use structured_rag as _;
use table_that as _;

fn main() -> ExitCode {
    payload_cli::main_with_server(serve)
}

/// `payload serve`: the table.that app, with the replay model unless a provider was
/// named.
fn serve(request: payload_cli::ServeRequest) -> std::io::Result<()> {
    let mut options = payload_serve::ServeOptions {
        db: request.db,
        security: payload_serve::SecurityPolicy {
            allowed_hosts: request.allow_hosts,
            ..payload_serve::SecurityPolicy::default()
        },
        turn_deadline: request
            .turn_deadline
            .unwrap_or(payload_serve::DEFAULT_TURN_DEADLINE),
        ..payload_serve::ServeOptions::default()
    };
    if let Some(make) = request.model {
        options.models = Arc::new(move |_: &payload_serve::TurnInfo| make());
    }
    payload_serve::run(request.port, options)
}
