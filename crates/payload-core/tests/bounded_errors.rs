//! docs/spec.md §8.1 measured: a 1.2 MB response of 400,000 empty operations, where every
//! operation needs two members, is rejected with 100 errors and one that counts the
//! rest, and reading it never holds more than 50 times its size in memory.
//!
//! A counting global allocator records the peak of live bytes. It is process-wide, so
//! this file holds a single test.

// A counting global allocator is `unsafe` by definition.
#![allow(unsafe_code)]

use payload_core::{LlmPayload, PayloadError, extract_as};
use payload_core::{ParseOptions, Parser};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes it holds and the most it held.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grew(by: usize) {
        let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }

    fn shrank(by: usize) {
        LIVE.fetch_sub(by, Ordering::Relaxed);
    }

    /// Starts a measurement: the peak is what is live now.
    fn reset() -> usize {
        let live = LIVE.load(Ordering::Relaxed);
        PEAK.store(live, Ordering::Relaxed);
        live
    }

    fn peak() -> usize {
        PEAK.load(Ordering::Relaxed)
    }
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are updated.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            Counting::grew(layout.size());
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let block = unsafe { System.alloc_zeroed(layout) };
        if !block.is_null() {
            Counting::grew(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        unsafe { System.dealloc(block, layout) };
        Counting::shrank(layout.size());
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            if new_size >= layout.size() {
                Counting::grew(new_size - layout.size());
            } else {
                Counting::shrank(layout.size() - new_size);
            }
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A plan of operations; every operation needs both members.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "PLAN")]
struct Plan {
    /// What to do, in order.
    operations: Vec<Operation>,
}

/// One operation.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Operation {
    /// What to do.
    action: String,
    /// What to do it to.
    target: String,
}

const COUNT: usize = 400_000;

/// `{"operations":[{},{},...]}` with `COUNT` empty operations (the benches' generator
/// of the same input cannot be used here: payload-benches depends on this crate).
fn input() -> String {
    format!("{{\"operations\":[{}]}}", vec!["{}"; COUNT].join(","))
}

fn assert_bounded(errors: &[PayloadError]) {
    assert_eq!(errors.len(), 101);
    assert_eq!(errors[0].path(), "/operations/0/action");
    let rest = 2 * COUNT - 100;
    assert!(
        errors[100]
            .message()
            .starts_with(&format!("{rest} more problems")),
        "{}",
        errors[100].message()
    );
}

/// Runs `read` and returns its result and the most memory it held beyond what was
/// live before.
fn measured<R>(read: impl FnOnce() -> R) -> (R, usize) {
    let before = Counting::reset();
    let result = read();
    (result, Counting::peak().saturating_sub(before))
}

#[test]
fn errors_and_memory_stay_bounded_for_four_hundred_thousand_failing_items() {
    let text = input();
    assert!(text.len() >= 1_200_000);
    let budget = 50 * text.len();
    // Compile the schemas first: that memory is the type's, kept for the process.
    let operations = vec![serde_json::json!({}); 300];
    let _ = Plan::TYPE.validate(&serde_json::json!({ "operations": operations }));
    let parser = Parser::new(&ParseOptions::new().payload(Plan::TYPE));

    let (result, peak) = measured(|| extract_as(&text, &Plan::TYPE, None));
    assert!(!result.success);
    assert_bounded(&result.errors);
    assert!(
        peak < budget,
        "whole-response mode peaked at {peak} bytes, budget {budget}"
    );
    drop(result);

    let (parsed, peak) = measured(|| parser.parse(&format!("Here is the plan.\nPLAN: {text}")));
    assert!(parsed.custom_payload.is_none());
    assert_bounded(&parsed.rejected[0].errors);
    assert!(
        peak < budget,
        "marker mode peaked at {peak} bytes, budget {budget}"
    );
}
