//! The type's doc comment as `DESCRIPTION`.
//!
//! Lines are joined the way schemars 0.8 did it for descriptions: every line trimmed,
//! the lines of one paragraph joined with spaces, paragraphs kept apart by a blank line,
//! and the leading `*` of `/** ... */` block comments dropped. The result is read by a
//! model inside a prompt, where hard line wraps from the source are noise.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, ExprLit, Lit};

/// The description carried by `#[doc]` attributes.
pub enum Doc {
    /// No doc comment at all.
    None,
    /// Every `#[doc]` was a string literal, so the text is known here and normalised.
    Text(String),
    /// Some `#[doc = ...]` is a macro call (`include_str!`, `concat!`): the text is only
    /// known to the compiler, so the lines are concatenated unmodified.
    Tokens(TokenStream),
}

impl Doc {
    /// Reads the `#[doc]` attributes of an item.
    pub fn from_attrs(attrs: &[Attribute]) -> Doc {
        let values: Vec<&Expr> = attrs
            .iter()
            .filter(|attr| attr.path().is_ident("doc"))
            .filter_map(|attr| attr.meta.require_name_value().ok())
            .map(|nv| &nv.value)
            .collect();
        if values.is_empty() {
            return Doc::None;
        }
        let mut lines = Vec::with_capacity(values.len());
        for value in &values {
            match value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => lines.push(s.value()),
                _ => return Doc::Tokens(concat_tokens(&values)),
            }
        }
        Doc::Text(join_lines(&lines))
    }
}

/// `concat!(line, "\n", line, ...)` for docs that are only known to the compiler.
fn concat_tokens(values: &[&Expr]) -> TokenStream {
    let mut args = TokenStream::new();
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            args.extend(quote!("\n",));
        }
        match value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                let text = s.value();
                let text = text.strip_prefix(' ').unwrap_or(&text);
                args.extend(quote!(#text,));
            }
            other => args.extend(quote!(#other,)),
        }
    }
    quote!(::core::concat!(#args))
}

/// Joins raw doc lines (one `#[doc]` attribute may hold several lines) into paragraphs.
pub fn join_lines(raw: &[String]) -> String {
    let mut lines: Vec<&str> = raw
        .iter()
        .flat_map(|s| s.split('\n'))
        .map(str::trim)
        .collect();
    if !lines.is_empty() && lines.iter().all(|l| l.is_empty() || l.starts_with('*')) {
        for line in &mut lines {
            *line = line.strip_prefix('*').unwrap_or(line).trim();
        }
    }
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines {
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
            continue;
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(line);
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    paragraphs.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc_of(item: &str) -> String {
        let input: syn::DeriveInput = syn::parse_str(item).unwrap();
        match Doc::from_attrs(&input.attrs) {
            Doc::Text(text) => text,
            Doc::None => "<none>".into(),
            Doc::Tokens(tokens) => format!("<tokens {tokens}>"),
        }
    }

    #[test]
    fn wrapped_lines_join_and_paragraphs_stay_apart() {
        let doc = doc_of(
            "/// Proposes creating a new table or changing\n\
             /// an existing table's schema.\n\
             ///\n\
             ///   Use it only when the user asked for a change.\n\
             struct SchemaProposal;",
        );
        assert_eq!(
            doc,
            "Proposes creating a new table or changing an existing table's schema.\n\n\
             Use it only when the user asked for a change."
        );
    }

    #[test]
    fn block_comments_lose_their_stars_and_blank_edges() {
        let doc = doc_of(
            "/**\n * Suggested values for the\n * open question.\n *\n * One per option.\n */\n\
             struct SuggestedValues;",
        );
        assert_eq!(
            doc,
            "Suggested values for the open question.\n\nOne per option."
        );
    }

    #[test]
    fn several_blank_lines_collapse_into_one_break() {
        let doc = doc_of("/// First.\n///\n///\n/// Second.\nstruct A;");
        assert_eq!(doc, "First.\n\nSecond.");
    }

    #[test]
    fn no_doc_and_macro_docs_are_told_apart() {
        assert_eq!(doc_of("struct A;"), "<none>");
        let tokens = doc_of("/// Head.\n#[doc = include_str!(\"x.md\")]\nstruct A;");
        assert!(tokens.starts_with("<tokens"), "{tokens}");
        assert!(tokens.contains("include_str"), "{tokens}");
    }
}
