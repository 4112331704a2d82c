//! The derive input parsed into what this derive needs, keeping the syn nodes for spans.
//!
//! serde's attributes are read by serde_derive_internals, the reader serde_derive and
//! schemars_derive use, so every name and representation here is the one serde itself
//! applies. It reads them for [`Derive::Deserialize`]: the model writes JSON that is
//! *deserialized* into the type, so the names, aliases, skips and defaults that matter
//! are the deserialize ones (`rename(deserialize = "...")`, `rename_all(deserialize =
//! "...")`, `skip_deserializing`), the same contract schemars generates the schema for.
//!
//! serde's own errors about its attributes are not reported here: a `#[serde(...)]`
//! attribute is only accepted on a type that derives `Serialize`, `Deserialize` or
//! `JsonSchema` (this derive declares only `payload`), and each of those derives reports
//! them already; a second copy from here would show every mistake twice. When serde
//! found an error this derive only records it ([`Container::serde_failed`]) and emits
//! the fallback, so the user sees serde's message and, where this derive has something
//! of its own to say about the same declaration, this derive's.

use crate::attr;
use crate::ctxt::Ctxt;
use crate::doc::Doc;
use crate::serde_repr::Repr;
use heck::{ToShoutySnakeCase, ToSnakeCase};
use proc_macro2::Span;
use serde_derive_internals::ast::{self as serde_ast, Style};
use serde_derive_internals::{Derive, attr as serde_attr};
use syn::ext::IdentExt;
use syn::{DeriveInput, Ident};

/// The type the derive is on.
pub struct Container<'a> {
    /// The type's name.
    pub ident: &'a Ident,
    /// What `#[payload(...)]` said.
    pub attrs: attr::Container,
    /// What `#[serde(...)]` said, as serde reads it.
    pub serde: serde_attr::Container,
    /// Whether serde found errors in its attributes: serde's derives report them, this
    /// one steps aside (see the module docs).
    pub serde_failed: bool,
    /// The doc comment.
    pub doc: Doc,
    /// Fields or variants.
    pub data: Data<'a>,
    /// How serde writes the variants, if it is an enum.
    pub repr: Repr,
    /// The input as written.
    pub original: &'a DeriveInput,
}

/// The body of the type.
pub enum Data<'a> {
    /// A struct: its style (named fields, tuple, newtype or unit) and its fields.
    Struct(Style, Vec<Field<'a>>),
    /// An enum's variants.
    Enum(Vec<Variant<'a>>),
}

/// One enum variant.
pub struct Variant<'a> {
    /// What `#[payload(...)]` on the variant said.
    pub attrs: attr::Variant,
    /// What `#[serde(...)]` on the variant said, its name after the enum's `rename_all`.
    pub serde: serde_attr::Variant,
    /// Named fields, tuple, newtype or unit.
    pub style: Style,
    /// Its fields.
    pub fields: Vec<Field<'a>>,
    /// The variant as written.
    pub original: &'a syn::Variant,
}

/// One field of a struct or a variant.
pub struct Field<'a> {
    /// What `#[payload(...)]` on the field said.
    pub attrs: attr::Field,
    /// What `#[serde(...)]` on the field said, its name after the `rename_all` rules.
    pub serde: serde_attr::Field,
    /// The field's type.
    pub ty: &'a syn::Type,
    /// The field as written.
    pub original: &'a syn::Field,
}

impl<'a> Container<'a> {
    /// Parses `input`, recording every problem of this derive's own in `cx`. `None` when
    /// there is nothing an impl could be generated for (a union).
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Container<'a>> {
        if let syn::Data::Union(data) = &input.data {
            cx.error_spanned_by(
                data.union_token,
                "`#[derive(LlmPayload)]` does not support unions; \
                 it belongs on a struct or an enum",
            );
            return None;
        }
        let serde_cx = serde_derive_internals::Ctxt::new();
        // Only used in the paths of generated code, which this derive does not take.
        let private = Ident::new("__private", Span::call_site());
        let serde = serde_ast::Container::from_ast(&serde_cx, input, Derive::Deserialize, &private);
        // Discarded on purpose: serde's own derives report these (module docs).
        let serde_failed = serde_cx.check().is_err();
        let serde = serde?;
        let data = match serde.data {
            serde_ast::Data::Struct(style, fields) => Data::Struct(style, from_serde(cx, fields)),
            serde_ast::Data::Enum(variants) => Data::Enum(
                variants
                    .into_iter()
                    .map(|variant| Variant {
                        attrs: attr::Variant::from_attrs(cx, &variant.original.attrs),
                        serde: variant.attrs,
                        style: variant.style,
                        fields: from_serde(cx, variant.fields),
                        original: variant.original,
                    })
                    .collect(),
            ),
        };
        Some(Container {
            ident: &input.ident,
            attrs: attr::Container::from_attrs(cx, &input.attrs),
            repr: Repr::of(&serde.attrs),
            serde: serde.attrs,
            serde_failed,
            doc: Doc::from_attrs(&input.attrs),
            data,
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
            Data::Struct(_, fields) => Box::new(fields.iter()),
            Data::Enum(variants) => Box::new(variants.iter().flat_map(|v| v.fields.iter())),
        }
    }
}

impl Field<'_> {
    /// The member name the model writes for this field: serde's deserialize name (its
    /// `rename`, `rename(deserialize = ...)` or the container's `rename_all`).
    pub fn name(&self) -> &str {
        &self.serde.name().deserialize_name().value
    }
}

impl Variant<'_> {
    /// The variant name the model writes: serde's deserialize name.
    pub fn name(&self) -> &str {
        &self.serde.name().deserialize_name().value
    }
}

fn from_serde<'a>(cx: &Ctxt, fields: Vec<serde_ast::Field<'a>>) -> Vec<Field<'a>> {
    fields
        .into_iter()
        .map(|field| Field {
            attrs: attr::Field::from_attrs(cx, &field.original.attrs),
            serde: field.attrs,
            ty: field.ty,
            original: field.original,
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

    fn ident(name: &str) -> Ident {
        syn::parse_str(name).unwrap_or_else(|_| Ident::new(name, Span::call_site()))
    }

    fn parse(item: &str, test: impl FnOnce(&Container)) {
        let input: DeriveInput = syn::parse_str(item).unwrap();
        let cx = Ctxt::new();
        let container = Container::from_ast(&cx, &input).unwrap();
        cx.check().unwrap();
        assert!(!container.serde_failed, "serde refused {item}");
        test(&container);
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
    fn enums_keep_their_variants_and_styles() {
        parse(
            "enum Tone { Warm, Cold { degrees: i32 }, Other(String), Pair(u8, u8) }",
            |container| {
                let Data::Enum(variants) = &container.data else {
                    panic!("an enum parsed as a struct");
                };
                let styles: Vec<&str> = variants
                    .iter()
                    .map(|v| match v.style {
                        Style::Unit => "unit",
                        Style::Struct => "struct",
                        Style::Newtype => "newtype",
                        Style::Tuple => "tuple",
                    })
                    .collect();
                assert_eq!(styles, ["unit", "struct", "newtype", "tuple"]);
                assert_eq!(container.all_fields().count(), 4);
            },
        );
    }

    #[test]
    fn names_are_the_ones_serde_deserializes() {
        parse(
            r#"#[serde(rename_all(serialize = "SCREAMING_SNAKE_CASE", deserialize = "camelCase"))]
            struct Row {
                row_id: u32,
                #[serde(rename(serialize = "a", deserialize = "b"))]
                both: u32,
                #[serde(rename = "plain")]
                renamed: u32,
                #[serde(alias = "colour")]
                color: String,
            }"#,
            |container| {
                let names: Vec<&str> = container.all_fields().map(Field::name).collect();
                assert_eq!(names, ["rowId", "b", "plain", "color"]);
            },
        );
        parse(
            r#"#[serde(tag = "t", rename_all(deserialize = "kebab-case"))]
            enum Act { ViewDetails { x: u8 }, #[serde(rename(deserialize = "go"))] Run { y: u8 } }"#,
            |container| {
                let Data::Enum(variants) = &container.data else {
                    panic!("an enum parsed as a struct");
                };
                let names: Vec<&str> = variants.iter().map(Variant::name).collect();
                assert_eq!(names, ["view-details", "go"]);
            },
        );
    }

    #[test]
    fn serde_errors_are_recorded_not_reported() {
        let input: DeriveInput =
            syn::parse_str("#[serde(tag = \"t\")] enum A { Pair(u8, u8) }").unwrap();
        let cx = Ctxt::new();
        let container = Container::from_ast(&cx, &input).unwrap();
        assert!(cx.check().is_ok(), "serde's error is serde's to report");
        assert!(container.serde_failed);
    }
}
