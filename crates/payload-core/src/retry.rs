//! The retry driver (seed 003): ask, validate, and on failure ask again with a message
//! naming every error, up to a number of attempts.
//!
//! Generic over the caller's model function, sync or async; no HTTP client here, and
//! no async runtime: the async driver takes the caller's sleep function.

use crate::error::PayloadError;
use crate::reprompt::reprompt_message;
use crate::whole::extract::ExtractResult;
use std::future::Future;
use std::time::Duration;

/// How many attempts, and how long to wait between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (default 3).
    pub max_attempts: usize,
    /// Wait before each retry (default 0.5 s; zero for none).
    pub delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            delay: Duration::from_millis(500),
        }
    }
}

/// What the model function is asked for on one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryRequest {
    /// 1 for the first attempt.
    pub attempt: usize,
    /// The re-prompt message naming the previous attempt's errors (none on the first
    /// attempt): append it to the conversation as a user message.
    pub feedback: Option<String>,
}

/// One attempt: what the model said and what was wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// The model's response (empty if the model function failed).
    pub response: String,
    /// Every error of that response (empty for the accepted one).
    pub errors: Vec<PayloadError>,
}

/// The outcome of a retry loop.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryOutcome<E> {
    /// The last attempt's result (successful if any attempt was).
    pub result: Option<ExtractResult>,
    /// Every attempt, in order.
    pub attempts: Vec<Attempt>,
    /// The model function's error, if it failed (the loop stops there).
    pub model_error: Option<E>,
}

impl<E> RetryOutcome<E> {
    /// Whether an attempt produced a valid value.
    pub fn succeeded(&self) -> bool {
        self.result.as_ref().is_some_and(|r| r.success)
    }
}

/// The bookkeeping the sync and async drivers share: attempts, feedback, outcome.
struct Attempts<E> {
    outcome: RetryOutcome<E>,
    feedback: Option<String>,
}

impl<E> Attempts<E> {
    fn new() -> Self {
        Attempts {
            outcome: RetryOutcome {
                result: None,
                attempts: Vec::new(),
                model_error: None,
            },
            feedback: None,
        }
    }

    /// The request of attempt `attempt`, carrying the previous attempt's feedback.
    fn request(&mut self, attempt: usize) -> RetryRequest {
        RetryRequest {
            attempt,
            feedback: self.feedback.take(),
        }
    }

    /// Records the model's answer or failure; returns whether the loop is over.
    fn record(
        &mut self,
        response: Result<String, E>,
        check: &mut impl FnMut(&str) -> ExtractResult,
    ) -> bool {
        let response = match response {
            Ok(response) => response,
            Err(error) => {
                self.outcome.model_error = Some(error);
                return true;
            }
        };
        let result = check(&response);
        let done = result.success;
        self.feedback = Some(reprompt_message(&result.errors));
        self.outcome.attempts.push(Attempt {
            response,
            errors: result.errors.clone(),
        });
        self.outcome.result = Some(result);
        done
    }
}

/// Runs the loop: calls `model`, checks its answer with `check`, and retries with the
/// re-prompt message until the answer is valid or `policy.max_attempts` are spent.
pub fn retry<E>(
    policy: RetryPolicy,
    mut model: impl FnMut(&RetryRequest) -> Result<String, E>,
    mut check: impl FnMut(&str) -> ExtractResult,
) -> RetryOutcome<E> {
    let mut attempts = Attempts::new();
    for attempt in 1..=policy.max_attempts.max(1) {
        if attempt > 1 && !policy.delay.is_zero() {
            std::thread::sleep(policy.delay);
        }
        let request = attempts.request(attempt);
        let response = model(&request);
        if attempts.record(response, &mut check) {
            break;
        }
    }
    attempts.outcome
}

/// [`retry`] for an async model function; `sleep` is the caller's timer (for example
/// `tokio::time::sleep`), so no runtime is assumed.
pub async fn retry_async<E, Fut, SleepFut>(
    policy: RetryPolicy,
    mut model: impl FnMut(RetryRequest) -> Fut,
    mut check: impl FnMut(&str) -> ExtractResult,
    sleep: impl Fn(Duration) -> SleepFut,
) -> RetryOutcome<E>
where
    Fut: Future<Output = Result<String, E>>,
    SleepFut: Future<Output = ()>,
{
    let mut attempts = Attempts::new();
    for attempt in 1..=policy.max_attempts.max(1) {
        if attempt > 1 && !policy.delay.is_zero() {
            sleep(policy.delay).await;
        }
        let request = attempts.request(attempt);
        let response = model(request).await;
        if attempts.record(response, &mut check) {
            break;
        }
    }
    attempts.outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    fn check(response: &str) -> ExtractResult {
        if response == "good" {
            ExtractResult::success(serde_json::json!({"ok": true}), "json", 1.0, Vec::new())
        } else {
            ExtractResult::failure(
                "json",
                0.5,
                vec![PayloadError::new(ErrorKind::Parsing, "", "not JSON")],
            )
        }
    }

    fn no_delay(max_attempts: usize) -> RetryPolicy {
        RetryPolicy {
            max_attempts,
            delay: Duration::ZERO,
        }
    }

    /// Runs a future whose every await is ready at once.
    fn ready<F: Future>(future: F) -> F::Output {
        let mut future = pin!(future);
        match future
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(output) => output,
            Poll::Pending => panic!("the future was not ready"),
        }
    }

    #[test]
    fn stops_at_the_first_valid_answer_and_feeds_back_errors() {
        let answers = ["bad", "good", "never asked"];
        let mut requests = Vec::new();
        let outcome = retry(
            no_delay(3),
            |request: &RetryRequest| {
                requests.push(request.clone());
                Ok::<_, ()>(answers[request.attempt - 1].to_string())
            },
            check,
        );
        assert!(outcome.succeeded());
        assert_eq!(outcome.attempts.len(), 2);
        assert_eq!(requests[0].feedback, None);
        assert!(
            requests[1]
                .feedback
                .as_deref()
                .unwrap()
                .contains("not JSON")
        );
    }

    #[test]
    fn returns_every_attempts_errors_when_all_fail() {
        let outcome = retry(
            no_delay(3),
            |_: &RetryRequest| Ok::<_, ()>("bad".to_string()),
            check,
        );
        assert!(!outcome.succeeded());
        assert_eq!(outcome.attempts.len(), 3);
        assert!(outcome.attempts.iter().all(|a| a.errors.len() == 1));
    }

    #[test]
    fn a_failing_model_stops_the_loop() {
        let outcome = retry(
            no_delay(3),
            |_: &RetryRequest| Err::<String, _>("timeout"),
            check,
        );
        assert_eq!(outcome.model_error, Some("timeout"));
        assert!(outcome.attempts.is_empty());
    }

    #[test]
    fn the_async_driver_sleeps_between_attempts_with_the_callers_timer() {
        let slept = std::cell::Cell::new(0);
        let policy = RetryPolicy {
            max_attempts: 3,
            delay: Duration::from_millis(500),
        };
        let outcome = ready(retry_async(
            policy,
            |request: RetryRequest| async move {
                Ok::<_, ()>(if request.attempt == 3 { "good" } else { "bad" }.to_string())
            },
            check,
            |delay| {
                assert_eq!(delay, Duration::from_millis(500));
                slept.set(slept.get() + 1);
                async {}
            },
        ));
        assert!(outcome.succeeded());
        assert_eq!(outcome.attempts.len(), 3);
        assert_eq!(slept.get(), 2);
    }
}
