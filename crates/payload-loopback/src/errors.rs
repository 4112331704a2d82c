//! What every error type of the workspace holds: a cause is printed once.

/// Asserts that each error of the chain starting at `error` prints its own words only:
/// none contains the words of its cause (its `source()`), so a reporter that prints the
/// chain (`anyhow`, `eyre`, the `payload` command) shows each cause once.
pub fn assert_each_cause_printed_once(error: &dyn std::error::Error) {
    let mut current = error;
    while let Some(cause) = current.source() {
        assert!(
            !current.to_string().contains(&cause.to_string()),
            "{current:?} prints its cause {cause:?}"
        );
        current = cause;
    }
}
