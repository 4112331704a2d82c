//! The metrics: the GenAI client metrics the conventions define, and the framework's
//! own counters under `payload.`. A `tracing` layer reads them off the spans the
//! framework already opens (the `chat` span of each model call, the `read_answer`
//! span of each answer read, the `payload rejected` events inside it), so the
//! framework itself depends on no metrics API.

use crate::fields::Fields;
use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};
use std::time::Instant;
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

/// `gen_ai.client.token.usage`'s bucket boundaries, as the conventions recommend.
pub const TOKEN_BUCKETS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0,
    16777216.0, 67108864.0,
];

/// `gen_ai.client.operation.duration`'s bucket boundaries (seconds), as the conventions
/// recommend.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/// `gen_ai.client.operation.time_to_first_chunk`'s bucket boundaries (seconds), the
/// conventions' set for a first token.
pub const FIRST_CHUNK_BUCKETS: [f64; 16] = [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];

/// The attributes a model call's metrics carry, read off its span.
const CALL_ATTRIBUTES: &[&str] = &[
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.request.model",
    "gen_ai.response.model",
    "server.address",
    "server.port",
];

/// The instruments, made once.
struct Instruments {
    token_usage: Histogram<u64>,
    duration: Histogram<f64>,
    first_chunk: Histogram<f64>,
    accepted: Counter<u64>,
    rejected: Counter<u64>,
    reasks: Counter<u64>,
    truncated: Counter<u64>,
}

impl Instruments {
    fn new(meter: &Meter) -> Instruments {
        Instruments {
            token_usage: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Number of input and output tokens used.")
                .with_boundaries(TOKEN_BUCKETS.to_vec())
                .build(),
            duration: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("GenAI operation duration.")
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build(),
            first_chunk: meter
                .f64_histogram("gen_ai.client.operation.time_to_first_chunk")
                .with_unit("s")
                .with_description(
                    "Time to receive the first chunk, from when the request was issued.",
                )
                .with_boundaries(FIRST_CHUNK_BUCKETS.to_vec())
                .build(),
            accepted: meter
                .u64_counter("payload.accepted")
                .with_unit("{payload}")
                .with_description("Payloads the parser accepted, by type.")
                .build(),
            rejected: meter
                .u64_counter("payload.rejected")
                .with_unit("{payload}")
                .with_description("Blocks the parser rejected, by type and first error kind.")
                .build(),
            reasks: meter
                .u64_counter("payload.reasks")
                .with_unit("{reask}")
                .with_description("Answers sent back to the model to be corrected.")
                .build(),
            truncated: meter
                .u64_counter("payload.truncated")
                .with_unit("{answer}")
                .with_description("Answers the model's token limit cut.")
                .build(),
        }
    }
}

/// What the layer keeps on a span it measures.
struct Measured {
    kind: SpanKind,
    opened: Instant,
    fields: Fields,
}

/// The spans the layer measures.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SpanKind {
    /// A model call (`chat`).
    Call,
    /// The read of an answer (`read_answer`).
    Read,
}

impl SpanKind {
    fn of(metadata: &tracing::Metadata<'_>) -> Option<SpanKind> {
        let has = |name: &str| metadata.fields().field(name).is_some();
        match metadata.name() {
            "chat" if has("gen_ai.operation.name") => Some(SpanKind::Call),
            "read_answer" if has("payload.accepted") => Some(SpanKind::Read),
            _ => None,
        }
    }
}

/// The layer that turns the framework's spans into metrics.
pub(crate) struct MetricsLayer {
    instruments: Instruments,
}

impl MetricsLayer {
    pub(crate) fn new(meter: &Meter) -> MetricsLayer {
        MetricsLayer {
            instruments: Instruments::new(meter),
        }
    }

    fn call_closed(&self, measured: &Measured) {
        let fields = &measured.fields;
        let mut attributes: Vec<KeyValue> = CALL_ATTRIBUTES
            .iter()
            .filter_map(|name| attribute(fields, name))
            .collect();
        let tokens = [
            ("input", fields.count("gen_ai.usage.input_tokens")),
            ("output", fields.count("gen_ai.usage.output_tokens")),
        ];
        for (kind, count) in tokens {
            if let Some(count) = count {
                let mut with_type = attributes.clone();
                with_type.push(KeyValue::new("gen_ai.token.type", kind));
                self.instruments.token_usage.record(count, &with_type);
            }
        }
        if let Some(seconds) = fields.float("gen_ai.response.time_to_first_chunk") {
            self.instruments.first_chunk.record(seconds, &attributes);
        }
        if let Some(error) = fields.text("error.type") {
            attributes.push(KeyValue::new("error.type", error.to_string()));
        }
        self.instruments
            .duration
            .record(measured.opened.elapsed().as_secs_f64(), &attributes);
    }

    fn read_closed(&self, measured: &Measured) {
        let fields = &measured.fields;
        let agent: Vec<KeyValue> = attribute(fields, "gen_ai.agent.name").into_iter().collect();
        for kind in list(fields.text("payload.accepted")) {
            let mut attributes = agent.clone();
            attributes.push(KeyValue::new("payload.type", kind.to_string()));
            self.instruments.accepted.add(1, &attributes);
        }
        if fields.flag("payload.reask") {
            self.instruments.reasks.add(1, &agent);
        }
        if fields.flag("payload.truncated") {
            self.instruments.truncated.add(1, &agent);
        }
    }
}

impl<S> Layer<S> for MetricsLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(kind) = SpanKind::of(attrs.metadata()) else {
            return;
        };
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Measured {
                kind,
                opened: Instant::now(),
                fields,
            });
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(measured) = span.extensions_mut().get_mut::<Measured>()
        {
            values.record(&mut measured.fields);
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        // A rejected block: `payload.type` and `error.type` on an event in a read.
        let metadata = event.metadata();
        let fields = metadata.fields();
        if fields.field("payload.type").is_none() || fields.field("error.type").is_none() {
            return;
        }
        let Some(span) = ctx.event_span(event) else {
            return;
        };
        let extensions = span.extensions();
        let Some(read) = extensions
            .get::<Measured>()
            .filter(|m| m.kind == SpanKind::Read)
        else {
            return;
        };
        let mut values = Fields::default();
        event.record(&mut values);
        let mut attributes: Vec<KeyValue> = attribute(&read.fields, "gen_ai.agent.name")
            .into_iter()
            .collect();
        attributes.extend(attribute(&values, "payload.type"));
        attributes.extend(attribute(&values, "error.type"));
        self.instruments.rejected.add(1, &attributes);
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        let Some(measured) = span.extensions_mut().remove::<Measured>() else {
            return;
        };
        match measured.kind {
            SpanKind::Call => self.call_closed(&measured),
            SpanKind::Read => self.read_closed(&measured),
        }
    }
}

/// `name`'s value as a metric attribute, if recorded.
fn attribute(fields: &Fields, name: &'static str) -> Option<KeyValue> {
    use crate::fields::FieldValue;
    Some(match fields.get(name)? {
        FieldValue::Text(text) => KeyValue::new(name, text.clone()),
        FieldValue::Int(n) => KeyValue::new(name, *n),
        FieldValue::Float(x) => KeyValue::new(name, *x),
        FieldValue::Bool(b) => KeyValue::new(name, *b),
    })
}

/// The items of a joined list field.
fn list(joined: Option<&str>) -> impl Iterator<Item = &str> {
    joined
        .unwrap_or_default()
        .split(crate::lists::LIST_SEPARATOR)
        .filter(|item| !item.is_empty())
}
