//! `payload serve`'s request applied to an [`App`] (the `cli` feature): the one place a
//! command's port, database, hosts, turn deadline and model become the app's settings,
//! so every binary that serves an app with the `payload` command does it alike.

use crate::App;
use payload_cli::{Serve, ServeRequest};

impl App {
    /// The app as `request` asks: the request's database, hosts, turn deadline and
    /// reading of reasoning replace the app's, and a provider named on the command
    /// line replaces its model (none named: the app keeps its own).
    pub fn for_request(self, request: &ServeRequest) -> App {
        let mut app = self
            .database(request.database.as_deref())
            .allowed_hosts(request.allow_hosts.clone())
            .reasoning_opened_by_prompt(request.reasoning_opened_by_prompt)
            .capture_content(request.capture_content);
        if let Some(deadline) = request.turn_deadline {
            app = app.turn_deadline(deadline);
        }
        if let Some(make) = request.model.clone() {
            app = app.model(move |_| make());
        }
        app
    }
}

impl Serve for App {
    fn serve(self: Box<Self>, request: ServeRequest) -> std::io::Result<()> {
        let port = request.port;
        self.for_request(&request).serve_on(port)
    }

    fn describe(&self) -> Option<String> {
        Some(App::describe(self))
    }
}
