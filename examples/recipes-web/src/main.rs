//! `recipes`: the recipe assistant's command. `recipes serve` serves its pages in the
//! browser (the replay model unless `--provider` names one); every other `payload`
//! command works over its registrations (`recipes parse --page cookbook FILE`).

use payload_registry::Registry;
use std::process::ExitCode;

fn main() -> ExitCode {
    // `payload-serve`'s `cli` feature makes the app a `payload_cli::Serve`: it applies
    // the serve request (database, hosts, deadline, model) to itself.
    payload_cli::main_with_server(recipes_web::app(Registry::global()))
}
