//! The grammar targets' integration tests, linked into one test binary (linking
//! dominates a cold `cargo test`): Lark through llguidance, then GBNF and structural tags,
//! then the choices (a block required, allowed, refused) in every target.

mod choices;
mod llguidance;
mod other_targets;
