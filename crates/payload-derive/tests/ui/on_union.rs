use payload_derive::LlmPayload;

/// Either.
#[derive(LlmPayload)]
union Either {
    int: u32,
    float: f32,
}

fn main() {}
