//! The chat server's own tests, against an app of their own (a shopping list page with
//! a type the app decides and one it only shows), linked into one test binary: the
//! generic endpoints, AG-UI in Rust, AG-UI through the protocol's own packages run
//! with Node, and the security guarantees (same-origin changes, decisions made once).

mod agui;
mod ai_sdk;
mod app;
mod connections;
mod decisions;
mod generic;
mod history;
mod kept;
mod node;
mod page;
mod security;
mod turn_properties;
mod ui_message;
