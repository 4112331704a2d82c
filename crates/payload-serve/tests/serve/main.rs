//! The chat server's own tests, against an app of their own (a shopping list page with
//! a type the app decides and one it only shows), linked into one test binary: the
//! generic endpoints, AG-UI and the AI SDK's UI message stream in Rust and through
//! each protocol's own packages run with Node, and the security guarantees
//! (same-origin changes, decisions made once).

mod agui;
mod ai_sdk;
#[path = "../ai-sdk/support.rs"]
mod ai_sdk_support;
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
