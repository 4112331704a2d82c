//! The derive input parsed into what this derive needs, keeping the syn nodes for spans.
//!
//! Shaped like serde_derive's `Container` / `Data::{Struct, Enum}` so that per-field and
//! per-variant attributes can be added without reshaping the stages after it.

use crate::attr;
use crate::ctxt::Ctxt;
use crate::doc::Doc;
use crate::serde_repr::Repr;
use heck::{ToShoutySnakeCase, ToSnakeCase};
use syn::ext::IdentExt;
use syn::{DeriveInput, Ident};

/// The type the derive is on.
pub struct Container<'a> {
    /// The type's name.
    pub ident: &'a Ident,
    /// What `#[payload(...)]` said.
    pub attrs: attr::Container,
    /// The doc comment.
    pub doc: Doc,
    /// Fields or variants.
    pub data: Data<'a>,
    /// How serde writes it, if it is an enum.
    pub repr: Repr,
    /// The input as written.
    pub original: &'a DeriveInput,
}

/// The body of the type.
pub enum Data<'a> {
    /// A struct's fields (named, tuple or none).
    Struct(Vec<Field<'a>>),
    /// An enum's variants.
    Enum(Vec<Variant<'a>>),
}

/// One enum variant.
pub struct Variant<'a> {
    /// What `#[payload(...)]` on the variant said.
    pub attrs: attr::Variant,
    /// Its fields.
    pub fields: Vec<Field<'a>>,
    /// The variant as written.
    pub original: &'a syn::Variant,
}

/// One field of a struct or a variant.
pub struct Field<'a> {
    /// What `#[payload(...)]` on the field said.
    pub attrs: attr::Field,
    /// The field as written.
    pub original: &'a syn::Field,
}

impl<'a> Container<'a> {
    /// Parses `input`, recording every problem in `cx`. `None` when there is nothing an
    /// impl could be generated for (a union).
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Container<'a>> {
        let attrs = attr::Container::from_attrs(cx, &input.attrs);
        let data = match &input.data {
            syn::Data::Struct(data) => Data::Struct(fields(cx, &data.fields)),
            syn::Data::Enum(data) => Data::Enum(
                data.variants
                    .iter()
                    .map(|variant| Variant {
                        attrs: attr::Variant::from_attrs(cx, &variant.attrs),
                        fields: fields(cx, &variant.fields),
                        original: variant,
                    })
                    .collect(),
            ),
            syn::Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "`#[derive(LlmPayload)]` does not support unions; \
                     it belongs on a struct or an enum",
                );
                return None;
            }
        };
        Some(Container {
            ident: &input.ident,
            attrs,
            doc: Doc::from_attrs(&input.attrs),
            data,
            repr: Repr::from_attrs(&input.attrs),
            original: input,
        })
    }

    /// `NAME`: `name = "..."`, or the type name in snake_case.
    pub fn name(&self) -> String {
        match &self.attrs.name {
            Some(lit) => lit.value(),
            None => default_name(self.ident),
        }
    }

    /// `MARKER`: `marker = "..."`, or the type name in SCREAMING_SNAKE_CASE.
    pub fn marker(&self) -> String {
        match &self.attrs.marker {
            Some(lit) => lit.value(),
            None => default_marker(self.ident),
        }
    }

    /// Every field of the type, across variants.
    pub fn all_fields(&self) -> Box<dyn Iterator<Item = &Field<'a>> + '_> {
        match &self.data {
            Data::Struct(fields) => Box::new(fields.iter()),
            Data::Enum(variants) => Box::new(variants.iter().flat_map(|v| v.fields.iter())),
        }
    }
}

fn fields<'a>(cx: &Ctxt, fields: &'a syn::Fields) -> Vec<Field<'a>> {
    fields
        .iter()
        .map(|original| Field {
            attrs: attr::Field::from_attrs(cx, &original.attrs),
            original,
        })
        .collect()
}

/// The default `NAME` of a type: `SchemaProposal` → `schema_proposal`.
pub fn default_name(ident: &Ident) -> String {
    ident.unraw().to_string().to_snake_case()
}

/// The default `MARKER` of a type: `SchemaProposal` → `SCHEMA_PROPOSAL`.
pub fn default_marker(ident: &Ident) -> String {
    ident.unraw().to_string().to_shouty_snake_case()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    fn ident(name: &str) -> Ident {
        syn::parse_str(name).unwrap_or_else(|_| Ident::new(name, Span::call_site()))
    }

    #[test]
    fn defaults_come_from_the_type_name() {
        let cases = [
            ("SchemaProposal", "schema_proposal", "SCHEMA_PROPOSAL"),
            ("SuggestedValues", "suggested_values", "SUGGESTED_VALUES"),
            ("HTTPRequest", "http_request", "HTTP_REQUEST"),
            ("ChartV2", "chart_v2", "CHART_V2"),
            ("r#Match", "match", "MATCH"),
            ("Plan", "plan", "PLAN"),
        ];
        for (type_name, name, marker) in cases {
            let ident = ident(type_name);
            assert_eq!(default_name(&ident), name, "{type_name}");
            assert_eq!(default_marker(&ident), marker, "{type_name}");
            assert!(attr::is_valid_name(name) && attr::is_valid_marker(marker));
        }
    }

    #[test]
    fn enums_keep_their_variants() {
        let input: DeriveInput =
            syn::parse_str("enum Tone { Warm, Cold { degrees: i32 }, Other(String) }").unwrap();
        let cx = Ctxt::new();
        let container = Container::from_ast(&cx, &input).unwrap();
        cx.check().unwrap();
        match &container.data {
            Data::Enum(variants) => assert_eq!(variants.len(), 3),
            Data::Struct(_) => panic!("an enum parsed as a struct"),
        }
        assert_eq!(container.all_fields().count(), 2);
    }
}
