//! The retry driver (SelfHelp): ask, validate, and on failure ask again with a message
//! naming every error, up to a number of attempts.
//!
//! Generic over the caller's model function, sync or async; no HTTP client here, and
//! no async runtime: the async driver takes the caller's sleep function, which also
//! times each attempt out.
//!
//! Nothing the model function does loses the attempts before it: a panic ends the loop
//! with an attempt marked [`AttemptOutcome::Panicked`], an attempt that outlives
//! [`RetryPolicy::attempt_timeout`] is marked [`AttemptOutcome::TimedOut`] and the loop
//! goes on, and an error ends the loop with the error kept in
//! [`RetryOutcome::model_error`].

use crate::error::PayloadError;
use crate::payload::LlmPayload;
pub use crate::reprompt::reprompt_message;
use crate::whole::extract::{ExtractResult, extract_json};
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

/// How many attempts, and how long to wait between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (default 3).
    pub max_attempts: usize,
    /// Wait before each retry (default 0.5 s; zero for none).
    pub delay: Duration,
    /// How long one attempt of the async driver may take before it is given up and the
    /// next one starts (default 120 s; `None` waits for ever). The sync driver cannot
    /// interrupt a call and ignores it.
    pub attempt_timeout: Option<Duration>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            delay: Duration::from_millis(500),
            attempt_timeout: Some(Duration::from_secs(120)),
        }
    }
}

impl RetryPolicy {
    /// `max_attempts` attempts with no wait between them and the default timeout.
    pub fn attempts(max_attempts: usize) -> RetryPolicy {
        RetryPolicy {
            max_attempts,
            delay: Duration::ZERO,
            ..RetryPolicy::default()
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

/// How one attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AttemptOutcome {
    /// The response was valid.
    Accepted,
    /// The response had errors (in [`Attempt::errors`]); the next attempt is told them.
    Rejected,
    /// The model function panicked (with this message); the loop stopped.
    Panicked(String),
    /// The attempt outlived [`RetryPolicy::attempt_timeout`]; the next one started.
    TimedOut,
}

/// One attempt: what the model said and what was wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// The model's response (empty when it panicked or timed out).
    pub response: String,
    /// Every error of that response (empty for the accepted one).
    pub errors: Vec<PayloadError>,
    /// How the attempt ended.
    pub outcome: AttemptOutcome,
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

    /// Records an attempt that gave no answer; returns whether the loop is over. A timed
    /// out attempt leaves the feedback for the next one.
    fn interrupted(&mut self, outcome: AttemptOutcome, feedback: Option<String>) -> bool {
        let over = matches!(outcome, AttemptOutcome::Panicked(_));
        self.feedback = feedback;
        self.outcome.attempts.push(Attempt {
            response: String::new(),
            errors: Vec::new(),
            outcome,
        });
        over
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
            outcome: if done {
                AttemptOutcome::Accepted
            } else {
                AttemptOutcome::Rejected
            },
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
        let response = match catch_unwind(AssertUnwindSafe(|| model(&request))) {
            Ok(response) => response,
            Err(panic) => {
                attempts.interrupted(AttemptOutcome::Panicked(panic_message(panic)), None);
                break;
            }
        };
        if attempts.record(response, &mut check) {
            break;
        }
    }
    attempts.outcome
}

/// [`retry`] for one `T` written as JSON (whole-response mode): each answer is read
/// with [`crate::extract_json`] against `T`'s schema, and the accepted value comes back
/// typed beside the outcome (`None` when no attempt was valid), as
/// [`crate::extract()`] returns it for one answer.
pub fn retry_as<T: LlmPayload, E>(
    policy: RetryPolicy,
    model: impl FnMut(&RetryRequest) -> Result<String, E>,
) -> (Option<T>, RetryOutcome<E>) {
    let mut outcome = retry(policy, model, |text| extract_json(text, &T::TYPE));
    let value = typed(&mut outcome);
    (value, outcome)
}

/// [`retry_as`] for an async model function, with the caller's timer as in
/// [`retry_async`].
pub async fn retry_async_as<T, E, Fut, SleepFut>(
    policy: RetryPolicy,
    model: impl FnMut(RetryRequest) -> Fut,
    sleep: impl Fn(Duration) -> SleepFut,
) -> (Option<T>, RetryOutcome<E>)
where
    T: LlmPayload,
    Fut: Future<Output = Result<String, E>>,
    SleepFut: Future<Output = ()>,
{
    let mut outcome = retry_async(policy, model, |text| extract_json(text, &T::TYPE), sleep).await;
    let value = typed(&mut outcome);
    (value, outcome)
}

/// The accepted value of `outcome` as a `T`.
fn typed<T: LlmPayload, E>(outcome: &mut RetryOutcome<E>) -> Option<T> {
    outcome
        .result
        .as_mut()
        .filter(|result| result.success)
        .and_then(ExtractResult::take_typed)
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
        let feedback = request.feedback.clone();
        let answer = model(request);
        let timer = policy.attempt_timeout.map(&sleep);
        let response = match race(answer, timer).await {
            Raced::Answer(response) => response,
            Raced::Panicked(message) => {
                attempts.interrupted(AttemptOutcome::Panicked(message), None);
                break;
            }
            Raced::TimedOut => {
                attempts.interrupted(AttemptOutcome::TimedOut, feedback);
                continue;
            }
        };
        if attempts.record(response, &mut check) {
            break;
        }
    }
    attempts.outcome
}

/// How a model call raced against its timer.
enum Raced<T> {
    Answer(T),
    Panicked(String),
    TimedOut,
}

/// Polls the model's answer and the timer together (the answer first, so an answer
/// ready at the deadline still counts); a panic while polling the answer is caught.
async fn race<T>(
    answer: impl Future<Output = T>,
    timer: Option<impl Future<Output = ()>>,
) -> Raced<T> {
    let mut answer = pin!(answer);
    let mut timer = pin!(timer);
    std::future::poll_fn(|cx| {
        match catch_unwind(AssertUnwindSafe(|| answer.as_mut().poll(cx))) {
            Ok(Poll::Ready(value)) => return Poll::Ready(Raced::Answer(value)),
            Ok(Poll::Pending) => {}
            Err(panic) => return Poll::Ready(Raced::Panicked(panic_message(panic))),
        }
        match timer.as_mut().as_pin_mut().map(|t| t.poll(cx)) {
            Some(Poll::Ready(())) => Poll::Ready(Raced::TimedOut),
            _ => Poll::Pending,
        }
    })
    .await
}

/// The message a panic carried.
fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the model function panicked".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use std::task::{Context, Waker};

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
        RetryPolicy::attempts(max_attempts)
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
            attempt_timeout: None,
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

    #[test]
    fn a_panicking_model_keeps_the_attempts_before_it() {
        let outcome = retry(
            no_delay(3),
            |request: &RetryRequest| {
                if request.attempt == 2 {
                    panic!("model bug");
                }
                Ok::<_, ()>("bad".to_string())
            },
            check,
        );
        assert_eq!(outcome.attempts.len(), 2);
        assert_eq!(outcome.attempts[0].outcome, AttemptOutcome::Rejected);
        assert_eq!(outcome.attempts[0].errors.len(), 1);
        assert_eq!(
            outcome.attempts[1].outcome,
            AttemptOutcome::Panicked("model bug".into())
        );

        let outcome = ready(retry_async(
            no_delay(3),
            |request: RetryRequest| async move {
                if request.attempt == 2 {
                    panic!("async bug");
                }
                Ok::<_, ()>("bad".to_string())
            },
            check,
            |_| async {},
        ));
        assert_eq!(outcome.attempts.len(), 2);
        assert_eq!(
            outcome.attempts[1].outcome,
            AttemptOutcome::Panicked("async bug".into())
        );
    }

    #[test]
    fn a_hanging_attempt_times_out_and_the_next_keeps_its_feedback() {
        let mut requests = Vec::new();
        let outcome = ready(retry_async(
            no_delay(3),
            |request: RetryRequest| {
                requests.push(request.clone());
                let attempt = request.attempt;
                async move {
                    match attempt {
                        1 => Ok::<_, ()>("bad".to_string()),
                        // Never answers: only the timer ends it.
                        2 => std::future::pending().await,
                        _ => Ok("good".to_string()),
                    }
                }
            },
            check,
            // A timer that has already run out.
            |_| async {},
        ));
        assert!(outcome.succeeded());
        let ends: Vec<_> = outcome.attempts.iter().map(|a| a.outcome.clone()).collect();
        assert_eq!(
            ends,
            [
                AttemptOutcome::Rejected,
                AttemptOutcome::TimedOut,
                AttemptOutcome::Accepted
            ]
        );
        assert_eq!(requests[1].feedback, requests[2].feedback);
        assert!(
            requests[2]
                .feedback
                .as_deref()
                .unwrap()
                .contains("not JSON")
        );
    }
}
