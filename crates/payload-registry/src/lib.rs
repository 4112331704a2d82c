//! # payload-registry
//!
//! Link-time registration (with `inventory`) of payload types, pages and client actions.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod entry;

pub use entry::PayloadEntry;

/// What generated code needs; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use inventory;
}
