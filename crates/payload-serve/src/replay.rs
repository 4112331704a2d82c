//! The model an app runs without a key ([`crate::App::replay`]): it plays the app's
//! recorded conversation, one recorded answer per user message (the conversation's
//! first message gets the first answer, and so on, starting over after the last),
//! streamed in small pieces with short pauses so the streaming can be seen. The page
//! says so on a first visit: whatever the user writes, the next recording answers.

use payload_agent::{FinishReason, Model, ModelChunk, ModelRequest, ModelStream};
use std::time::Duration;

/// One recorded answer: what a model wrote on a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordedAnswer {
    /// The page it was given on.
    pub page: &'static str,
    /// The answer, as the model wrote it.
    pub text: &'static str,
    /// Whether the answer stops where a token limit cut it (the replay then reports
    /// the finish as `length`, the way a provider would).
    pub cut: bool,
}

/// How many characters each streamed piece holds, by default.
pub const DEFAULT_CHUNK_CHARS: usize = 6;

/// The pause between pieces, by default.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(12);

/// Plays one recorded answer.
#[derive(Debug, Clone)]
pub struct ReplayModel {
    answer: RecordedAnswer,
    chunk_chars: usize,
    delay: Duration,
}

impl ReplayModel {
    /// The model playing `answer`.
    pub fn new(answer: RecordedAnswer) -> ReplayModel {
        ReplayModel {
            answer,
            chunk_chars: DEFAULT_CHUNK_CHARS,
            delay: DEFAULT_DELAY,
        }
    }

    /// The model for the conversation's turn `turn` (from 0): the recording's answer of
    /// that turn, counting round when the conversation is longer than the recording;
    /// `None` for an empty recording.
    pub fn for_turn(recording: &[RecordedAnswer], turn: usize) -> Option<ReplayModel> {
        (!recording.is_empty()).then(|| ReplayModel::new(recording[turn % recording.len()]))
    }

    /// Sets the pause between pieces (zero streams as fast as the client reads).
    pub fn delay(mut self, delay: Duration) -> ReplayModel {
        self.delay = delay;
        self
    }

    /// The page the answer was recorded on.
    pub fn page(&self) -> &'static str {
        self.answer.page
    }
}

impl Model for ReplayModel {
    /// Every call of the turn gets the same answer: the recording has one per message,
    /// and its pages offer no tools, so a second call only comes from a re-ask.
    fn stream(&mut self, _request: &ModelRequest) -> ModelStream {
        let pieces = split(self.answer.text, self.chunk_chars.max(1));
        // A recorded answer that stops mid-value is reported as cut by the token limit,
        // the way a provider reports it, so it is shown as truncated, not re-asked.
        let finish = if self.answer.cut {
            FinishReason::Length
        } else {
            FinishReason::Stop
        };
        let delay = self.delay;
        let chunks = pieces
            .into_iter()
            .map(ModelChunk::Text)
            .chain([ModelChunk::Finish(finish)]);
        Box::pin(futures::stream::unfold(
            (chunks, true),
            move |(mut chunks, first)| async move {
                if !first && !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                chunks.next().map(|chunk| (chunk, (chunks, false)))
            },
        ))
    }
}

/// `text` in pieces of `chars` characters.
fn split(text: &str, chars: usize) -> Vec<String> {
    let all: Vec<char> = text.chars().collect();
    all.chunks(chars).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    const RECORDING: [RecordedAnswer; 2] = [
        RecordedAnswer {
            page: "a",
            text: "Hello, wörld: NOTE: {\"text\": \"x\"}",
            cut: false,
        },
        RecordedAnswer {
            page: "b",
            text: "NOTE: {\"text\": \"cut her",
            cut: true,
        },
    ];

    #[tokio::test]
    async fn the_pieces_join_into_the_recorded_answer_and_the_cut_one_says_so() {
        for (turn, recorded) in RECORDING.iter().enumerate() {
            let mut model = ReplayModel::for_turn(&RECORDING, turn)
                .unwrap()
                .delay(Duration::ZERO);
            let chunks: Vec<ModelChunk> = model.stream(&ModelRequest::new(vec![])).collect().await;
            let text: String = chunks
                .iter()
                .filter_map(|c| match c {
                    ModelChunk::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(text, recorded.text);
            let expected = if recorded.cut {
                FinishReason::Length
            } else {
                FinishReason::Stop
            };
            assert_eq!(chunks.last(), Some(&ModelChunk::Finish(expected)));
        }
        assert_eq!(ReplayModel::for_turn(&RECORDING, 2).unwrap().page(), "a");
        assert!(ReplayModel::for_turn(&[], 0).is_none());
    }
}
