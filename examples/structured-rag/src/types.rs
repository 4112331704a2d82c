//! The benchmark's output types (from its own response models).

use payload_derive::LlmPayload;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An answer to the question from the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "generate_answer", register)]
pub struct GenerateAnswer {
    /// The answer.
    pub answer: String,
}

/// How well the context helps answer the question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "rate_context", register)]
pub struct RateContext {
    /// 0 (useless) to 5 (answers it fully).
    #[schemars(range(min = 0, max = 5))]
    pub context_score: i64,
}

/// Whether the question can be answered from the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "assess_answerability", register)]
pub struct AssessAnswerability {
    /// True if the context answers the question.
    pub answerable_question: bool,
}

/// The question asked in other words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "paraphrase_questions", register)]
pub struct ParaphraseQuestions {
    /// The paraphrases.
    pub paraphrased_questions: Vec<String>,
}

/// RAGAS scores of an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "ragas", register)]
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
#[payload(name = "generate_answer_with_confidence", register)]
pub struct GenerateAnswerWithConfidence {
    /// The answer.
    pub answer: String,
    /// Confidence, as an integer.
    pub confidence: i64,
}

/// Several answers, each with a confidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "generate_answers_with_confidence", register)]
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
#[payload(name = "classify_document_with_rationale", register)]
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
