//! A `futures::Stream` face for [`StreamParser`] (feature `stream`): a stream of text
//! chunks in (a model API's streamed completion), a stream of events out, ending with
//! `complete`.

use super::{StreamEvent, StreamParser};
use futures::{Stream, StreamExt};
use std::collections::VecDeque;

/// The events of `chunks` parsed by `parser`, ending with [`StreamEvent::Complete`].
pub fn events<S>(parser: StreamParser, chunks: S) -> impl Stream<Item = StreamEvent>
where
    S: Stream,
    S::Item: AsRef<str>,
{
    let state = (Some(parser), Box::pin(chunks), VecDeque::new());
    futures::stream::unfold(state, |(mut parser, mut chunks, mut queue)| async move {
        loop {
            if let Some(event) = queue.pop_front() {
                return Some((event, (parser, chunks, queue)));
            }
            let live = parser.as_mut()?;
            match chunks.next().await {
                Some(chunk) => queue.extend(live.push(chunk.as_ref())),
                None => {
                    let mut last = Vec::new();
                    parser.take()?.finish_into(&mut last);
                    queue.extend(last);
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParseOptions;

    #[test]
    fn a_stream_of_chunks_becomes_a_stream_of_events() {
        let chunks = futures::stream::iter([
            "Pick.\n\nSUGGESTED_VAL",
            "UES: [{\"label\": \"A\", ",
            "\"value\": \"a\"}]",
        ]);
        let parser = StreamParser::new(&ParseOptions::new());
        let events: Vec<StreamEvent> =
            futures::executor::block_on(events(parser, chunks).collect());
        let names: Vec<&str> = events.iter().map(StreamEvent::name).collect();
        assert_eq!(names.first(), Some(&"text_delta"));
        assert!(names.contains(&"payload_start"));
        let Some(StreamEvent::Complete(parsed)) = events.last() else {
            panic!("{events:?}")
        };
        assert_eq!(parsed.message, "Pick.");
    }
}
