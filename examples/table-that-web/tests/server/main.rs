//! The server's HTTP tests, linked into one test binary (linking dominates a cold
//! `cargo test`): the API, applying proposals, load, hostile requests and slow
//! clients, each against an app on 127.0.0.1. The browser tests stay a binary of their
//! own: they drive a headless Chromium per test.

#[path = "../common/mod.rs"]
mod common;

mod api;
mod apply_properties;
mod load;
mod security;
mod slow_clients;
