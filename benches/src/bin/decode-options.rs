//! The ways a clean DATA_PROPOSAL value could be decoded into its Rust type, each run
//! on its own for an instruction counter (benches/README.md: the typed decode).
//!
//! Usage: `decode-options SIZE WAY TIMES`, with the realistic response of SIZE bytes
//! (`payload_benches::realistic`) and WAY one of:
//! - `borrowed`: `T::deserialize(&Value)`, what validation does today;
//! - `owned`: `T::deserialize(Value)` from a clone of the value (a clone copies each
//!   map's table instead of hashing its keys again, and an owned value's strings are
//!   moved into `T`);
//! - `clone`: the clone alone (with its drop), the least any decode that copies the
//!   value costs;
//! - `text`: `T` read from the block's text by serde_json, with no `Value` (what a
//!   decode that reads the text once, beside the `Value`, would add to the read).
//!
//! Each way drops what it built, as a parse's result is dropped. The difference between
//! two values of TIMES is the cost of that many runs.

use payload_benches::realistic;
use payload_builtin::DataProposal;
use serde::Deserialize;
use serde_json::Value;
use std::hint::black_box;

/// `times` runs of `way` on `value` (or on `text`, its JSON).
#[inline(never)]
fn runs(value: &Value, text: &str, way: &str, times: usize) {
    for _ in 0..times {
        match way {
            "borrowed" => {
                black_box(DataProposal::deserialize(black_box(value)).ok());
            }
            "owned" => {
                black_box(DataProposal::deserialize(black_box(value).clone()).ok());
            }
            "clone" => {
                black_box(black_box(value).clone());
            }
            "text" => {
                black_box(serde_json::from_str::<DataProposal>(black_box(text)).ok());
            }
            _ => {
                eprintln!("decode-options: unknown way {way:?}");
                return;
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, size, way, times] = args.as_slice() else {
        eprintln!("usage: decode-options SIZE borrowed|owned|clone|text TIMES");
        return;
    };
    let response = realistic(size.parse().unwrap_or(4096));
    let text = &response.blocks[0];
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        eprintln!("decode-options: the proposal block is not JSON");
        return;
    };
    runs(&value, text, way, times.parse().unwrap_or(1));
}
