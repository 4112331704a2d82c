//! The provider clients' integration tests, linked into one test binary (linking
//! dominates a cold `cargo test`): each client against loopback servers replaying
//! recorded streams, the faults real servers have, and the secrecy of keys.

mod support;

mod anthropic;
mod fallback;
mod faults;
mod gemini;
mod native;
mod openai;
mod responses;
mod secrets;
