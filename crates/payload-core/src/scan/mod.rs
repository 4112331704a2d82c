//! Cutting a response into prose and blocks: one recogniser, one scanner and one marker
//! table, shared by the one-shot parser and the streaming parser so that they cannot
//! disagree (docs/spec.md §1.2-1.4, §1.11, §1.12).
//!
//! - [`table`]: every marker and opening tag of a page in one Aho-Corasick automaton;
//! - [`spelling`]: whether a name is written as a marker (emphasis, spaces, colon,
//!   fence opener), and what follows an opening tag (docs/spec.md §1.21);
//! - [`lines`]: the Markdown around it (code fences by [`crate::fence`], quotes, block
//!   prefixes);
//! - what counts as space (Unicode spaces and invisible characters) is
//!   `crate::space`, below the code-fence rule that reads it too;
//! - [`quotes`]: where strings open and close, one rule for the scanner and the lexer;
//! - [`reasoning`]: what is the model's reasoning, not its answer (docs/spec.md §9.1);
//! - [`value`]: where a value ends (balanced matching, resumable);
//! - [`segmenter`]: the pass that puts them together, chunk by chunk.
//!
//! This is hand-written because it is what is specific to LLM text: no Markdown parser
//! answers "is this marker one the model meant", and none can stop at the end of a
//! chunk and resume.

// Used by the invariant tests and benches only (the parsers call the scanner directly).
#[cfg(feature = "__internals")]
pub(crate) mod balanced;
pub(crate) mod lines;
pub(crate) mod quotes;
pub(crate) mod reasoning;
pub(crate) mod segmenter;
pub(crate) mod spelling;
pub(crate) mod table;
pub(crate) mod value;
