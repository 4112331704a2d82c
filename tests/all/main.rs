//! The workspace tests, linked into one test binary: a cold `cargo test` spends most of
//! its time linking, and each file here used to be a binary of its own. Each module
//! keeps its own theme; run one with `cargo test -p payload-tests --test all <module>::`.
//!
//! `memory` stays a binary of its own: its counting global allocator is process-wide,
//! and a process has one. (`formats` counts per thread, so it can live here.)

// Parsing: marker mode, its decisions, the seed conversation, partial values.
mod decode_once;
mod inside_strings;
mod marker_decisions;
mod marker_mode;
mod partial;
mod partial_hold;
mod seed_000;
mod strict_reads;
mod tags;

// Whole-response mode and values: JSON text, enums, numbers, the external suites.
mod enums;
mod external_suites;
mod formats;
mod json_text;
mod values;

// Types, prompts and registries: derive, runtime types, dialects, prompt docs.
mod derive_serde;
mod openai_strict;
mod prompt_docs;
mod registry_checks;
mod runtime_types;
mod serde_attributes;

// Properties over any input, the real-output corpus and the crate graph.
mod coercion;
mod corpus;
mod crate_graph;
mod fuzz_replay;
mod hostile;
mod keyword_table;
mod module_graph;
mod properties;
mod public_paths;
mod regression_files;
mod validation_plan;
