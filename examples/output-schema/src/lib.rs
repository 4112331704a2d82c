//! # output-schema
//!
//! The output-schema app's two response types, each answered as a whole response in any of five
//! formats (JSON, XML, delimited sections, tagged content, markdown) and read back to
//! the same value: [`AnalysisResult`] (`analysis_result`) and [`TaskPlan`]
//! (`task_plan`). Their per-format names and styles are the seed's `x-format` blocks,
//! attached with `#[schemars(extend("x-format" = {...}))]` on the type, so they are part
//! of the published JSON Schema (`payload schema analysis_result`) for any other tool
//! to read, and the readers, the error hints and the instructions all follow them.
//!
//! The seed's own responses are kept in `responses/<type>/`, one file per format:
//! `payload extract --type analysis_result --format auto FILE` reads each of them to
//! the same value, and `payload instructions analysis_result --format xml` prints the
//! prompt text that asks for it.

#![forbid(unsafe_code)]

mod examples;
mod types;

pub use types::{AnalysisResult, TaskPlan};
