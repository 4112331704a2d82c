//! `recipes`: the recipe assistant's command. `recipes serve` serves its pages in the
//! browser (the replay model unless `--provider` names one); every other `payload`
//! command works over its registrations (`recipes parse --page cookbook FILE`).

use payload_cli::ServeRequest;
use payload_registry::Registry;
use payload_serve::App;
use std::process::ExitCode;

fn main() -> ExitCode {
    let app = recipes_web::app(Registry::global());
    payload_cli::main_with_server(move |request: ServeRequest| serve(app, request))
}

/// Runs `app` as `recipes serve` asked: the request's database, hosts and turn deadline
/// replace the app's, and a provider named on the command line replaces its model.
/// (The server does not know the command, so the command's request is mapped here,
/// one setting a line.)
fn serve(app: App, request: ServeRequest) -> std::io::Result<()> {
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
