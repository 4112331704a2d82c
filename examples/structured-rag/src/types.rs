//! The benchmark's output types (from its own response models).

use payload_core::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An answer to the question from the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "generate_answer", register, example = examples::generate_answer)]
pub struct GenerateAnswer {
    /// The answer.
    pub answer: String,
}

/// How well the context helps answer the question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "rate_context", register, example = examples::rate_context)]
pub struct RateContext {
    /// 0 (useless) to 5 (answers it fully).
    #[schemars(range(min = 0, max = 5))]
    pub context_score: i64,
}

/// Whether the question can be answered from the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "assess_answerability", register, example = examples::assess_answerability)]
pub struct AssessAnswerability {
    /// True if the context answers the question.
    pub answerable_question: bool,
}

/// The question asked in other words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "paraphrase_questions", register, example = examples::paraphrase_questions)]
pub struct ParaphraseQuestions {
    /// The paraphrases.
    pub paraphrased_questions: Vec<String>,
}

/// RAGAS scores of an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "ragas", register, example = examples::ragas)]
pub struct Ragas {
    /// Is the answer supported by the context.
    pub faithfulness_score: f64,
    /// Does the answer address the question.
    pub answer_relevance_score: f64,
    /// Is the context relevant to the question.
    pub context_relevance_score: f64,
}

/// An answer with the model's confidence in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "generate_answer_with_confidence", register, example = examples::generate_answer_with_confidence)]
pub struct GenerateAnswerWithConfidence {
    /// The answer.
    pub answer: String,
    /// Confidence, as an integer.
    pub confidence: i64,
}

/// Several answers, each with a confidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "generate_answers_with_confidence", register, example = examples::generate_answers_with_confidence)]
pub struct GenerateAnswersWithConfidence {
    /// The answers.
    pub answers: Vec<AnswerWithConfidence>,
}

/// One answer and its confidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AnswerWithConfidence {
    /// The answer.
    pub answer: String,
    /// Confidence, as an integer.
    pub confidence: i64,
}

/// Which collection a document comes from, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "classify_document_with_rationale", register, example = examples::classify_document_with_rationale)]
pub struct ClassifyDocumentWithRationale {
    /// Why the category fits.
    pub rationale: String,
    /// The category.
    pub category: Category,
}

/// The benchmark's document categories (its prompts are not in the corpus; these are
/// the labels its classification task uses, spelled as the benchmark spells them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[allow(missing_docs)]
pub enum Category {
    #[serde(rename = "cqadupstack-android")]
    Android,
    #[serde(rename = "cqadupstack-english")]
    English,
    #[serde(rename = "cqadupstack-gaming")]
    Gaming,
    #[serde(rename = "cqadupstack-gis")]
    Gis,
    #[serde(rename = "cqadupstack-mathematica")]
    Mathematica,
    #[serde(rename = "cqadupstack-physics")]
    Physics,
    #[serde(rename = "cqadupstack-programmers")]
    Programmers,
    #[serde(rename = "cqadupstack-stats")]
    Stats,
    #[serde(rename = "cqadupstack-text")]
    Text,
    #[serde(rename = "cqadupstack-unix")]
    Unix,
    #[serde(rename = "cqadupstack-webmasters")]
    Webmasters,
    #[serde(rename = "cqadupstack-wordpress")]
    Wordpress,
    #[serde(rename = "fiqa")]
    Fiqa,
    #[serde(rename = "quora")]
    Quora,
    #[serde(rename = "scidocs")]
    Scidocs,
    #[serde(rename = "trec-covid")]
    TrecCovid,
    #[serde(rename = "webis-touche2020")]
    Touche,
}

/// The example of each type, shown in its instructions.
pub mod examples {
    use super::*;

    /// An example GenerateAnswer.
    pub fn generate_answer() -> GenerateAnswer {
        GenerateAnswer {
            answer: "Explorer 20 was launched in 1964.".into(),
        }
    }

    /// An example RateContext.
    pub fn rate_context() -> RateContext {
        RateContext { context_score: 4 }
    }

    /// An example AssessAnswerability.
    pub fn assess_answerability() -> AssessAnswerability {
        AssessAnswerability {
            answerable_question: true,
        }
    }

    /// An example ParaphraseQuestions.
    pub fn paraphrase_questions() -> ParaphraseQuestions {
        ParaphraseQuestions {
            paraphrased_questions: vec![
                "When was Explorer 20 launched?".into(),
                "In what year did Explorer 20 go into orbit?".into(),
            ],
        }
    }

    /// An example Ragas.
    pub fn ragas() -> Ragas {
        Ragas {
            faithfulness_score: 4.5,
            answer_relevance_score: 5.0,
            context_relevance_score: 4.0,
        }
    }

    /// An example GenerateAnswerWithConfidence.
    pub fn generate_answer_with_confidence() -> GenerateAnswerWithConfidence {
        GenerateAnswerWithConfidence {
            answer: "1964".into(),
            confidence: 5,
        }
    }

    /// An example GenerateAnswersWithConfidence.
    pub fn generate_answers_with_confidence() -> GenerateAnswersWithConfidence {
        GenerateAnswersWithConfidence {
            answers: vec![
                AnswerWithConfidence {
                    answer: "1964".into(),
                    confidence: 5,
                },
                AnswerWithConfidence {
                    answer: "1963".into(),
                    confidence: 2,
                },
            ],
        }
    }

    /// An example ClassifyDocumentWithRationale.
    pub fn classify_document_with_rationale() -> ClassifyDocumentWithRationale {
        ClassifyDocumentWithRationale {
            rationale: "A question about configuring a WordPress plugin".into(),
            category: Category::Wordpress,
        }
    }
}
