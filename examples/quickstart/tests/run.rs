//! The quickstart runs offline and prints what it read: the one-shot parse, the stream's
//! text and growing card, and the streamed result equal to the one-shot one.

use std::process::Command;

#[test]
fn the_quickstart_parses_and_streams_its_response() {
    let out = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .output()
        .expect("the quickstart runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the quickstart failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    let lines: Vec<&str> = stdout.lines().collect();
    let proposal = r#"MeetingProposal { date: "2024-05-01", attendees: ["Ana", "Bo"] }"#;
    let growing = r#"date: Some(Growing { value: "2024-05", complete: false })"#;
    let complete = r#"date: Some(Growing { value: "2024-05-01", complete: true })"#;
    assert_eq!(lines[0], r#"message: "Does Wednesday work?""#);
    assert_eq!(lines[1], format!("payload: Some({proposal})"));
    assert_eq!(lines[2], r#"text: "Does Wednesday work?""#);
    // The date shows while it grows, then complete; never a value the model did not write.
    assert!(lines[3].starts_with("card so far: ") && lines[3].contains(growing));
    assert!(lines[3].ends_with("attendees: None }"), "{}", lines[3]);
    assert!(lines[4].contains(complete), "{}", lines[4]);
    assert_eq!(lines[5], format!("streamed: Some({proposal})"));
    assert_eq!(lines.len(), 6, "{stdout}");
}
