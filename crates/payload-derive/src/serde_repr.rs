//! How serde writes the enum, as serde_derive_internals read it from `#[serde(...)]`:
//! what an enum may hold and where a variant's content sits in the JSON depend on it.

use serde_derive_internals::attr::{self, TagType};

/// serde's enum representations.
#[derive(Clone)]
pub enum Repr {
    /// `{"variant": content}`, unit variants as `"variant"` (serde's default).
    External,
    /// `#[serde(tag = "t")]`: `{"t": "variant", ...content's members}`.
    Internal {
        /// The tag member.
        tag: String,
    },
    /// `#[serde(tag = "t", content = "c")]`: `{"t": "variant", "c": content}`.
    Adjacent {
        /// The tag member.
        tag: String,
        /// The content member.
        content: String,
    },
    /// `#[serde(untagged)]` on the enum or on the variant: the content alone.
    Untagged,
}

impl Repr {
    /// The representation of the enum's variants, from its container attributes.
    pub fn of(container: &attr::Container) -> Repr {
        match container.tag() {
            TagType::External => Repr::External,
            TagType::Internal { tag } => Repr::Internal { tag: tag.clone() },
            TagType::Adjacent { tag, content } => Repr::Adjacent {
                tag: tag.clone(),
                content: content.clone(),
            },
            TagType::None => Repr::Untagged,
        }
    }

    /// The representation of one variant: the enum's, unless the variant itself is
    /// `#[serde(untagged)]` (serde then tries its content alone, after the tagged ones).
    pub fn of_variant(&self, variant: &attr::Variant) -> Repr {
        if variant.untagged() {
            Repr::Untagged
        } else {
            self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_derive_internals::{Ctxt, Derive, ast};

    fn repr(item: &str) -> Repr {
        let input: syn::DeriveInput = syn::parse_str(item).unwrap();
        let cx = Ctxt::new();
        let private = proc_macro2::Ident::new("__private", proc_macro2::Span::call_site());
        let cont = ast::Container::from_ast(&cx, &input, Derive::Deserialize, &private).unwrap();
        cx.check().unwrap();
        Repr::of(&cont.attrs)
    }

    #[test]
    fn each_representation_is_recognised() {
        assert!(matches!(repr("enum A { X }"), Repr::External));
        assert!(matches!(
            repr("#[serde(rename_all = \"snake_case\", tag = \"action\")] enum A { X }"),
            Repr::Internal { tag } if tag == "action"
        ));
        assert!(matches!(
            repr("#[serde(tag = \"intent\", content = \"parameters\")] enum A { X }"),
            Repr::Adjacent { tag, content } if tag == "intent" && content == "parameters"
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
