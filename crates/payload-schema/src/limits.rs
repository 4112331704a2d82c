//! How deep the schema tools go, one name per meaning.
//!
//! Schemas come from hand-written documents and the model's own proposals as well as
//! from derives, so every walk over one is bounded; past a bound the walk stops in the
//! way its module documents (a refusal, an `any`, or no further checking). How deep a
//! *value* may nest is a different limit, the parser's (`payload_core::limits`).

/// How deep a walk over a schema's own nesting of keywords goes when it rewrites or
/// inspects it (the strict rewrite and its rules, the grammar's support table).
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// How many nested `allOf` / union levels are followed for one value when what
/// applies to it is gathered (the validator's plan, its coercion, the schema facts):
/// schemars nests one or two; a schema that nests deeper is not walked further, never
/// looped.
pub const MAX_PART_DEPTH: usize = 8;

/// How deep a schema is expanded into something written out (instructions, a
/// grammar's rules) before the rest is written as "any value".
pub const MAX_EXPANSION_DEPTH: usize = 32;

/// How deep the checks of a hand-written schema document go (every `$ref` leads
/// somewhere); a document nested deeper is refused by the meta-schema long before.
pub const MAX_DOCUMENT_DEPTH: usize = 256;

/// How many `$ref` hops (and union branches) one resolution follows (a cycle of references would otherwise
/// never end).
pub const MAX_REF_HOPS: usize = 32;

/// How many schema nodes one expansion visits at most: a schema that references the
/// same big definition from many places could otherwise grow the text (or the walk)
/// without bound even within [`MAX_EXPANSION_DEPTH`].
pub const MAX_EXPANSION_NODES: usize = 4_000;
