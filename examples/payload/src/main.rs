//! The `payload` command (docs/spec.md §6) over the built-in types and every example
//! app: linking a crate is what registers its payloads and pages, so this binary names
//! each one once. `payload serve` serves table.that (`table-that-web`, an app of the
//! generic chat server), with the replay model unless a provider is named.

use payload_registry::Registry;
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
    // `payload-serve`'s `cli` feature makes the app a `payload_cli::Serve`: it applies
    // the serve request (database, hosts, deadline, model) to itself.
    payload_cli::main_with_server(table_that_web::app(Registry::global()))
}
