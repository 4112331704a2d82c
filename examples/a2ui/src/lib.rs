//! An A2UI agent in Rust: a model's answer holds prose and A2UI v0.9 messages written
//! between `<a2ui-json>` and `</a2ui-json>`, several blocks per answer; the framework
//! reads the blocks (one-shot or streamed) as the [`A2uiMessages`] payload, and the
//! surface rules A2UI defines ([`surface`]) decide what a client is sent.
//!
//! - [`message`]: the v0.9 server-to-client messages, the payload type (written in
//!   tags: `#[payload(tag = "a2ui-json")]`); [`v08`]: v0.8's, for clients that still
//!   speak it; [`protocol`]: the version a page speaks, and a message of either;
//! - [`surface`]: components reachable from the root, placeholders for children still
//!   missing, circular references refused; [`catalog`]: only what the client's catalog
//!   can draw;
//! - [`agent`]: the page, and an answer read into its parts in text order;
//! - [`stream`]: an answer read as it arrives, each message handed on once it is
//!   complete and its surface's rules allow, or, as A2UI's SDKs stream it
//!   ([`Delivery::Progressive`]), each surface drawn as it grows.
//!
//! A2UI's own parser conformance suites run against it (`tests/conformance.rs`); the
//! README says which cases pass and why the others cannot.
#![forbid(unsafe_code)]

pub mod agent;
pub mod catalog;
pub mod message;
mod progressive;
pub mod protocol;
pub mod stream;
pub mod surface;
pub mod v08;

pub use agent::{A2uiAgent, Answer, AnswerPart};
pub use catalog::Catalog;
pub use message::{A2uiMessages, Component, ServerMessage};
pub use protocol::{Message, Protocol};
pub use stream::{A2uiStream, StreamPart};
pub use surface::{Delivery, Surface, SurfaceError, Surfaces};
pub use v08::{A2uiMessagesV08, V08Message};
