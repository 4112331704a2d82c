//! Tests of the generated instructions, on the payload types in `fixtures`.

use super::fixtures::*;
use super::*;
use crate::payload::LlmPayload;
use crate::schema::Dialect;

#[test]
fn dump() {
    for t in [
        SchemaProposal::TYPE,
        Analysis::TYPE,
        Outline::TYPE,
        Command::TYPE,
    ] {
        let schema = t.schema(Dialect::Draft2020_12);
        println!(
            "{}\n",
            render_shape(&schema, &InstructionOptions::default())
        );
        println!("{:?}\n", size_report(&schema));
    }
    println!(
        "{}\n=====",
        payload_instructions(&SchemaProposal::TYPE, &InstructionOptions::default())
    );
    println!(
        "{}\n=====",
        payload_instructions(&SchemaProposal::TYPE, &InstructionOptions::concise())
    );
    println!(
        "{}\n=====",
        whole_response_instructions(&Analysis::TYPE, &InstructionOptions::default())
    );
    println!(
        "{}\n=====",
        suggestion_format_rules(&[crate::ActionSpec::client(
            "close_chat",
            "Close the chat panel"
        )])
    );
    println!("{}\n=====", suggestion_format_rules(&[]));
}
