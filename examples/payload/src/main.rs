//! The `payload` command (docs/spec.md §6) over the built-in types and every example
//! app: linking a crate is what registers its payloads and pages, so this binary names
//! each one once. `payload serve` serves table.that (`table-that-web`, an app of the
//! generic chat server), with the replay model unless a provider is named.

use payload_cli::ServeRequest;
use payload_registry::Registry;
use payload_serve::App;
use std::process::ExitCode;

// Referenced so the linker keeps each crate, and with it its registrations.
use chat_architecture as _;
use contacts_bridge as _;
use output_schema as _;
use payload_builtin as _;
use selfhelp as _;
use structured_rag as _;
use table_that as _;

fn main() -> ExitCode {
    let app = table_that_web::app(Registry::global());
    payload_cli::main_with_server(move |request: ServeRequest| serve(app, request))
}

/// Runs `app` as `payload serve` asked: the request's database, hosts and turn deadline
/// replace the app's, and a provider named on the command line replaces its model.
/// (The server does not know the command, so the command's request is mapped here,
/// one setting a line.)
fn serve(app: App, request: ServeRequest) -> std::io::Result<()> {
    // table.that's own tables are real SQLite tables, one per user table: it runs on
    // SQLite only, and says so rather than failing at the first accept.
    if let Some(location) = request.database.as_deref() {
        let location = location.trim_start();
        if location.starts_with("postgres://") || location.starts_with("postgresql://") {
            return Err(std::io::Error::other(
                "table.that keeps its tables in SQLite: give --database a file (or none)",
            ));
        }
    }
    let mut app = app
        .database(request.database.as_deref())
        .allowed_hosts(request.allow_hosts)
        .reasoning_opened_by_prompt(request.reasoning_opened_by_prompt);
    if let Some(deadline) = request.turn_deadline {
        app = app.turn_deadline(deadline);
    }
    if let Some(make) = request.model {
        app = app.model(move |_| make());
    }
    app.serve_on(request.port)
}
