//! The example's tests, linked into one test binary (linking dominates a cold
//! `cargo test`): its recorded responses, and its schema files.

mod responses;
mod schema_files;
