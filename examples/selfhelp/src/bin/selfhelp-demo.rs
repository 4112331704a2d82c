//! Prints the retry loop of [`selfhelp::demo`]: each attempt, its errors, and the
//! feedback the model is sent.

fn main() {
    let (outcome, requests) = selfhelp::demo::run();
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
