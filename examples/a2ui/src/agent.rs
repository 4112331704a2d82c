//! The A2UI page and an answer read into its parts, in the order the model wrote them.

use crate::protocol::{Message, Protocol};
use crate::surface::{SurfaceError, Surfaces};
use payload_core::response::PartContents;
use payload_core::{ParseOptions, ParsedResponse, Parser, PayloadCount};

/// The page an A2UI agent answers on: the A2UI payload of one version, written in its
/// tags, up to `max_blocks` blocks per answer; no suggestion chips (A2UI draws its own
/// buttons).
#[derive(Debug, Clone)]
pub struct A2uiAgent {
    protocol: Protocol,
    options: ParseOptions,
    parser: Parser,
}

/// One part of an answer, in text order.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerPart {
    /// Prose shown to the user (trimmed).
    Text(String),
    /// One `<a2ui-json>` block's messages, as the model wrote them.
    Ui(Vec<Message>),
}

/// An answer, read.
#[derive(Debug, Clone)]
pub struct Answer {
    /// Its parts in text order.
    pub parts: Vec<AnswerPart>,
    /// The framework's parse: rejected blocks (with their errors), missed blocks,
    /// warnings.
    pub parsed: ParsedResponse,
}

impl A2uiAgent {
    /// The page for A2UI v0.9, allowing up to `max_blocks` `<a2ui-json>` blocks per
    /// answer.
    pub fn new(max_blocks: u32) -> A2uiAgent {
        A2uiAgent::with_protocol(Protocol::V09, max_blocks)
    }

    /// The page for an A2UI version, allowing up to `max_blocks` `<a2ui-json>` blocks
    /// per answer (as A2UI's SDKs choose their parser by the catalog's version).
    pub fn with_protocol(protocol: Protocol, max_blocks: u32) -> A2uiAgent {
        let options = ParseOptions {
            suggestions: false,
            ..ParseOptions::default()
        }
        .payload(protocol.payload())
        .payload_count(PayloadCount::at_most(max_blocks));
        A2uiAgent {
            protocol,
            parser: Parser::new(&options),
            options,
        }
    }

    /// The A2UI version the page speaks.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// What the model is told about the A2UI payload, for the system prompt: the
    /// messages' shape, their rules and an example, written between `<a2ui-json>` and
    /// `</a2ui-json>` as the parser reads them.
    pub fn instructions(&self) -> String {
        payload_instructions::payload_instructions(
            &self.protocol.payload(),
            &payload_instructions::InstructionOptions::default(),
        )
    }

    /// The page's options (for a stream, or a prompt).
    pub fn options(&self) -> &ParseOptions {
        &self.options
    }

    /// Reads a whole answer into its parts.
    pub fn parse(&self, text: &str) -> Answer {
        let parsed = self.parser.parse(text);
        Answer {
            parts: parts(self.protocol, &parsed),
            parsed,
        }
    }
}

impl Answer {
    /// The messages a client is sent for this answer, block by block, under the surface
    /// rules ([`Surfaces::ready`]), starting from `surfaces` (the conversation's).
    pub fn ready(&self, surfaces: &mut Surfaces) -> Result<Vec<Message>, SurfaceError> {
        let mut out = Vec::new();
        for part in &self.parts {
            if let AnswerPart::Ui(messages) = part {
                for message in messages {
                    out.extend(surfaces.ready(message)?);
                }
            }
        }
        Ok(out)
    }
}

/// A piece of an answer in text order ([`ordered`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ordered<'a> {
    /// Prose between blocks (not trimmed).
    Text(&'a str),
    /// An accepted payload, where its block stood.
    Payload(&'a payload_core::CustomPayload),
}

/// The pieces of an answer in text order, read from the parse's parts (docs/spec.md
/// §1.22): the prose between blocks (the message's own bytes, as the whitespace rules of
/// §1.9 join it), and each accepted payload where its block stood. Reasoning, refused
/// and missed blocks leave no piece (they are in the parse).
pub fn ordered(parsed: &ParsedResponse) -> Vec<Ordered<'_>> {
    parsed
        .parts
        .iter()
        .filter_map(|part| match parsed.contents(part)? {
            PartContents::Text(prose) => Some(Ordered::Text(prose)),
            PartContents::Payload(payload) => Some(Ordered::Payload(payload)),
            _ => None,
        })
        .collect()
}

/// The parts of an answer in order ([`ordered`]): prose trimmed (empty prose left
/// out), and each A2UI block's messages.
fn parts(protocol: Protocol, parsed: &ParsedResponse) -> Vec<AnswerPart> {
    ordered(parsed)
        .into_iter()
        .filter_map(|piece| match piece {
            Ordered::Text(prose) => {
                let prose = prose.trim();
                (!prose.is_empty()).then(|| AnswerPart::Text(prose.to_string()))
            }
            Ordered::Payload(payload) => protocol
                .read_all(payload.data().clone())
                .ok()
                .map(AnswerPart::Ui),
        })
        .collect()
}
