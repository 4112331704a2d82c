//! The grammar targets' integration tests, linked into one test binary (linking
//! dominates a cold `cargo test`): Lark through llguidance, then GBNF and structural tags,
//! then the choices (a block required, allowed, refused) in every target, then the
//! page's combination rule in the parser and every grammar.

mod choices;
mod combinations;
mod counts;
mod llguidance;
mod other_targets;
