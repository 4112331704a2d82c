//! The grammar targets' integration tests, linked into one test binary (linking
//! dominates a cold `cargo test`): Lark through llguidance, then GBNF and structural tags.

mod llguidance;
mod other_targets;
