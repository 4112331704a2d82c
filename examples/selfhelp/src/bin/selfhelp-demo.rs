//! Prints the retry loop of [`selfhelp::demo`]: each attempt, its errors, and the
//! feedback the model is sent. The response schema is loaded from
//! `schemas/llm-response.schema.json` when the demo starts, as SelfHelp's plugin does.

fn main() {
    let schema = selfhelp::schema_file::load(&selfhelp::schema_file::path())
        .unwrap_or_else(|e| panic!("{}", e.chain()));
    println!(
        "schema loaded from {}",
        selfhelp::schema_file::path().display()
    );
    let (outcome, requests) = selfhelp::demo::run_with(schema);
    for (attempt, request) in outcome.attempts.iter().zip(&requests) {
        println!("--- attempt {} ---", request.attempt);
        if let Some(feedback) = &request.feedback {
            println!("feedback sent:\n{feedback}");
        }
        println!("model answered:\n{}\n", attempt.response);
        if attempt.errors.is_empty() {
            println!("accepted");
        } else {
            println!("{} errors", attempt.errors.len());
        }
    }
    let result = outcome.result.expect("at least one attempt");
    println!(
        "{}",
        serde_json::to_string_pretty(&result).expect("results serialize")
    );
}
