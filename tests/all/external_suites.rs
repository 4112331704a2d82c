//! Two public test suites, run as a regression corpus (their sources, commits and
//! licences are in `tests/external/README.md`).
//!
//! - JSONTestSuite's `test_parsing` files: every `y_` file reads as exactly serde_json's
//!   value with no repair; no `n_` file is accepted as if it were valid (it is refused,
//!   or accepted with a repair reported), unless serde_json accepts it too; `i_` files
//!   go either way. Nothing panics. The outcome of every `n_` and `i_` file is pinned in
//!   `json-test-suite/expected.jsonl`.
//! - json_repair's test assertions: each input is read as a whole response and the
//!   result compared with json_repair's. Every case we do not read the same way is
//!   listed, with why, in `json-repair/expected.jsonl`.
//!
//! The test fails when an outcome differs from its pinned one, improvement or
//! regression alike. `PAYLOAD_BLESS=1` rewrites both files from what is observed,
//! keeping the reasons of unchanged cases and marking new ones `unclassified`, which
//! fails the test until someone writes the reason.

#[path = "external_suites/any_json.rs"]
mod any_json;
#[path = "external_suites/expectations.rs"]
mod expectations;
#[path = "external_suites/json_repair.rs"]
mod json_repair;
#[path = "external_suites/json_test_suite.rs"]
mod json_test_suite;

#[test]
fn json_test_suite() {
    json_test_suite::run();
}

#[test]
fn json_repair_cases() {
    json_repair::run();
}
