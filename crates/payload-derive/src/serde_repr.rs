//! How serde writes the enum: read from its `#[serde(...)]` attributes, because what an
//! enum may hold and where a variant's content sits in the JSON depend on it.
//!
//! Only the representation keys are read (`tag`, `content`, `untagged`); every other
//! serde key is skipped, and serde itself reports malformed ones.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, LitStr, Token};

/// serde's enum representations.
#[derive(Clone, Default)]
pub enum Repr {
    /// `{"variant": content}`, unit variants as `"variant"` (serde's default).
    #[default]
    External,
    /// `#[serde(tag = "t")]`: `{"t": "variant", ...content's members}`.
    Internal {
        /// The tag member.
        tag: LitStr,
    },
    /// `#[serde(tag = "t", content = "c")]`: `{"t": "variant", "c": content}`.
    Adjacent {
        /// The tag member.
        tag: LitStr,
        /// The content member.
        content: LitStr,
    },
    /// `#[serde(untagged)]`: the content alone.
    Untagged,
}

impl Repr {
    /// The representation the type's serde attributes ask for.
    pub fn from_attrs(attrs: &[Attribute]) -> Repr {
        let mut tag = None;
        let mut content = None;
        let mut untagged = false;
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
            // A malformed serde attribute is serde's to report.
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("tag") {
                    tag = string(&meta)?;
                } else if meta.path.is_ident("content") {
                    content = string(&meta)?;
                } else if meta.path.is_ident("untagged") {
                    untagged = true;
                } else {
                    skip(&meta)?;
                }
                Ok(())
            });
        }
        match (untagged, tag, content) {
            (true, _, _) => Repr::Untagged,
            (false, Some(tag), Some(content)) => Repr::Adjacent { tag, content },
            (false, Some(tag), None) => Repr::Internal { tag },
            (false, None, _) => Repr::External,
        }
    }
}

fn string(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
    Ok(match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Some(lit),
        _ => None,
    })
}

/// The value of `#[serde(KEY = "...")]` among `attrs` (the plain form only; serde's
/// `rename(serialize = ..., deserialize = ...)` form is not read).
fn string_key(attrs: &[Attribute], key: &str) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(key) && meta.input.peek(Token![=]) {
                found = string(&meta)?.map(|lit| lit.value());
            } else {
                skip(&meta)?;
            }
            Ok(())
        });
    }
    found
}

/// The name serde writes a field under: its `rename`, or its identifier under the
/// container's `rename_all`.
pub fn field_name(field: &syn::Field, container_attrs: &[Attribute]) -> Option<String> {
    use heck::{
        ToKebabCase, ToLowerCamelCase, ToShoutyKebabCase, ToShoutySnakeCase, ToUpperCamelCase,
    };
    use syn::ext::IdentExt;
    if let Some(renamed) = string_key(&field.attrs, "rename") {
        return Some(renamed);
    }
    let ident = field.ident.as_ref()?.unraw().to_string();
    Some(match string_key(container_attrs, "rename_all").as_deref() {
        Some("lowercase") => ident.to_lowercase(),
        Some("UPPERCASE") => ident.to_uppercase(),
        Some("PascalCase") => ident.to_upper_camel_case(),
        Some("camelCase") => ident.to_lower_camel_case(),
        Some("SCREAMING_SNAKE_CASE") => ident.to_shouty_snake_case(),
        Some("kebab-case") => ident.to_kebab_case(),
        Some("SCREAMING-KEBAB-CASE") => ident.to_shouty_kebab_case(),
        _ => ident,
    })
}

/// Consumes `= value` or `(...)` after a key this module does not read.
fn skip(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(item: &str) -> Repr {
        let input: syn::DeriveInput = syn::parse_str(item).unwrap();
        Repr::from_attrs(&input.attrs)
    }

    #[test]
    fn each_representation_is_recognised() {
        assert!(matches!(repr("enum A { X }"), Repr::External));
        assert!(matches!(
            repr("#[serde(rename_all = \"snake_case\", tag = \"action\")] enum A { X }"),
            Repr::Internal { tag } if tag.value() == "action"
        ));
        assert!(matches!(
            repr("#[serde(tag = \"intent\", content = \"parameters\")] enum A { X }"),
            Repr::Adjacent { tag, content }
                if tag.value() == "intent" && content.value() == "parameters"
        ));
        assert!(matches!(
            repr("#[serde(untagged, bound(serialize = \"\"))] enum A { X }"),
            Repr::Untagged
        ));
        assert!(matches!(
            repr("#[serde(deny_unknown_fields)]\n#[serde(tag = \"t\")] enum A { X }"),
            Repr::Internal { .. }
        ));
    }
}
