//! The `payload` command (docs/spec.md §6) over the built-in types and every example
//! app: linking a crate is what registers its payloads and pages, so this binary names
//! each one once. `payload serve` serves table.that (`table-that-web`, an app of the
//! generic chat server), with the replay model unless a provider is named.

use payload_cli::{Serve, ServeRequest};
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
    payload_cli::main_with_server(TableThat(table_that_web::app(Registry::global())))
}

/// table.that served as `payload serve` asks. Its own tables are real SQLite tables,
/// one per user table: it runs on SQLite only, and says so at start rather than failing
/// at the first accept. Everything else is the server's one mapping of the request
/// (`payload-serve`'s `cli` feature).
struct TableThat(App);

impl Serve for TableThat {
    fn serve(self: Box<Self>, request: ServeRequest) -> std::io::Result<()> {
        if let Some(location) = request.database.as_deref() {
            let location = location.trim_start();
            if location.starts_with("postgres://") || location.starts_with("postgresql://") {
                return Err(std::io::Error::other(
                    "table.that keeps its tables in SQLite: give --database a file (or none)",
                ));
            }
        }
        Box::new(self.0).serve(request)
    }

    fn describe(&self) -> Option<String> {
        Serve::describe(&self.0)
    }
}
