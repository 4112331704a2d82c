//! Checks that look at the whole declaration rather than at one key.

use crate::ast::{Container, Data, Variant};
use crate::attr::{Summary, is_valid_marker, is_valid_name, placeholders};
use crate::ctxt::Ctxt;
use crate::serde_repr::Repr;
use serde_derive_internals::ast::Style;
use syn::Type;

/// Runs every check, recording problems in `cx`.
pub fn check(cx: &Ctxt, cont: &Container) {
    check_generics(cx, cont);
    check_misplaced_attrs(cx, cont);
    check_not_null(cx, cont);
    check_register_with_pages(cx, cont);
    check_defaults(cx, cont);
    check_enum(cx, cont);
    check_struct_shape(cx, cont);
    check_tuple_fields(cx, cont);
    check_summary_template(cx, cont);
}

/// A field holding a tuple (`(u8, u8)`, also inside `Vec`, `Option`...) is written as a
/// positional JSON array, which a model fills in the wrong order: refused for the same
/// reason as a tuple struct or a tuple variant, at the tuple.
fn check_tuple_fields(cx: &Ctxt, cont: &Container) {
    for field in cont.all_fields() {
        if field.serde.skip_deserializing()
            || field.serde.deserialize_with().is_some()
            || field.attrs.complete_only.is_some()
        {
            continue;
        }
        if let Some(tuple) = positional(field.ty) {
            let count = tuple.elems.len();
            let name = field.name();
            cx.error_spanned_by(
                tuple,
                format!(
                    "`{name}` holds a tuple of {count} values: serde writes it as a positional \
                     JSON array, which a model fills in the wrong order; use a struct with \
                     named fields instead"
                ),
            );
        }
    }
}

/// The first tuple of two or more values in `ty` or its type arguments.
fn positional(ty: &Type) -> Option<&syn::TypeTuple> {
    match ty {
        Type::Tuple(tuple) if tuple.elems.len() >= 2 => Some(tuple),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(positional),
        Type::Paren(inner) => positional(&inner.elem),
        Type::Group(inner) => positional(&inner.elem),
        Type::Array(array) => positional(&array.elem),
        Type::Slice(slice) => positional(&slice.elem),
        Type::Reference(reference) => positional(&reference.elem),
        Type::Path(path) => path.path.segments.iter().find_map(|segment| {
            let syn::PathArguments::AngleBracketed(arguments) = &segment.arguments else {
                return None;
            };
            arguments.args.iter().find_map(|argument| match argument {
                syn::GenericArgument::Type(ty) => positional(ty),
                _ => None,
            })
        }),
        _ => None,
    }
}

/// Every `{member}` of a `summary = "..."` template names a member of the serialized
/// value (the template is filled from it, `payload_core::default_summary`'s rule):
/// a name that is no member would render as nothing, so it is refused here, at the
/// template. A type with a flattened field or written as another type
/// (`from`/`into`, `transparent`) has members this derive cannot see, so it is not
/// checked.
fn check_summary_template(cx: &Ctxt, cont: &Container) {
    let Some(Summary::Template(template)) = &cont.attrs.summary else {
        return;
    };
    let Some(members) = serialized_members(cont) else {
        return;
    };
    let text = template.value();
    // A malformed template is reported where it is read (`attr`).
    let Ok(placeholders) = placeholders(&text) else {
        return;
    };
    for placeholder in placeholders {
        let member = placeholder.strip_suffix(".len").unwrap_or(placeholder);
        if !members.iter().any(|m| m == member) {
            cx.error_spanned_by(
                template,
                format!(
                    "`{{{placeholder}}}` in `summary` names no member of `{}`: its members are {}",
                    cont.ident,
                    members
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
}

/// The member names the serialized value has at its top level, `None` when this derive
/// cannot know them all.
fn serialized_members(cont: &Container) -> Option<Vec<String>> {
    if cont.serde.transparent()
        || cont.serde.type_into().is_some()
        || cont.all_fields().any(|f| f.serde.flatten())
    {
        return None;
    }
    let field_names = |fields: &[crate::ast::Field]| -> Vec<String> {
        fields
            .iter()
            .filter(|f| !f.serde.skip_serializing())
            .map(|f| f.serde.name().serialize_name().value.clone())
            .collect()
    };
    match &cont.data {
        Data::Struct(Style::Struct, fields) => Some(field_names(fields)),
        Data::Struct(..) => None,
        Data::Enum(variants) => {
            let mut names = Vec::new();
            match &cont.repr {
                Repr::Internal { tag } => names.push(tag.clone()),
                Repr::Adjacent { tag, content } => {
                    names.push(tag.clone());
                    names.push(content.clone());
                }
                Repr::External => names.extend(
                    variants
                        .iter()
                        .map(|v| v.serde.name().serialize_name().value.clone()),
                ),
                Repr::Untagged => {}
            }
            for variant in variants {
                names.extend(field_names(&variant.fields));
            }
            Some(names)
        }
    }
}

/// A payload's schema is compiled once and cached per type, and the constants are
/// per type too; a generic type would be many payloads under one name.
fn check_generics(cx: &Ctxt, cont: &Container) {
    let generics = &cont.original.generics;
    if !generics.params.is_empty() {
        cx.error_spanned_by(
            generics,
            "`#[derive(LlmPayload)]` does not support generic types: the schema cache is \
             keyed per concrete type; derive it on a concrete type instead",
        );
    }
}

/// Format options name a member of the struct the model writes: on a variant's field,
/// a tuple field, a field serde never deserializes or one flattened into its parent
/// there is no such member for them to name.
/// `#[payload(stream(not_null))]` holds back the struct whose named member it marks: it
/// needs a member of its own that the model writes (not a variant's field, which
/// the variant's partial form does not hold back, nor a skipped or flattened one).
fn check_not_null(cx: &Ctxt, cont: &Container) {
    let named_struct = matches!(cont.data, Data::Struct(Style::Struct, _));
    for field in cont.all_fields() {
        let Some(path) = &field.attrs.not_null else {
            continue;
        };
        let why = if !named_struct || field.original.ident.is_none() {
            "it holds back a struct until this member has a value, so it belongs on a \
             named field of a struct, not on a variant's field"
        } else if field.serde.skip_deserializing() {
            "serde skips this member when deserializing: the model never writes it, so \
             the struct would never show"
        } else if field.serde.flatten() {
            "a `#[serde(flatten)]` field has no member of its own (its members sit in \
             this object); mark the flattened type's field instead"
        } else {
            continue;
        };
        cx.error_spanned_by(path, format!("`#[payload(stream(not_null))]`: {why}"));
    }
}

fn check_misplaced_attrs(cx: &Ctxt, cont: &Container) {
    let named_struct = matches!(cont.data, Data::Struct(Style::Struct, _));
    for field in cont.all_fields() {
        if field.attrs.format.is_empty() {
            continue;
        }
        if !named_struct || field.original.ident.is_none() {
            cx.error_spanned_by(
                field.original,
                "`#[payload(format(...))]` belongs on a named field of a struct payload",
            );
        } else if field.serde.skip_deserializing() {
            cx.error_spanned_by(
                field.original,
                format!(
                    "`#[payload(format(...))]` on `{}`, which serde skips when deserializing: \
                     the model never writes it, so its format options would never be read",
                    field.name()
                ),
            );
        } else if field.serde.flatten() {
            cx.error_spanned_by(
                field.original,
                "`#[payload(format(...))]` on a `#[serde(flatten)]` field, which has no member \
                 of its own (its members sit in this object); give the options to the \
                 flattened type's fields with `#[schemars(extend(\"x-format\" = ...))]`",
            );
        }
    }
}

/// What an enum may hold to be a payload a model can write: at least one variant it can
/// write, no positional arrays, and (internally tagged) only content serde can put beside
/// the tag.
fn check_enum(cx: &Ctxt, cont: &Container) {
    let Data::Enum(variants) = &cont.data else {
        return;
    };
    if variants.is_empty() {
        cx.error_spanned_by(
            cont.ident,
            "an enum with no variants has no value a model could write; \
             add at least one variant",
        );
    } else if variants.iter().all(|v| v.serde.skip_deserializing()) {
        cx.error_spanned_by(
            cont.ident,
            "every variant is `#[serde(skip_deserializing)]`, so serde accepts no value a \
             model could write; leave at least one variant deserializable",
        );
    }
    for variant in variants {
        check_variant(cx, &cont.repr.of_variant(&variant.serde), variant);
    }
}

fn check_variant(cx: &Ctxt, repr: &Repr, variant: &Variant) {
    let ident = &variant.original.ident;
    // A variant serde never deserializes is never written by the model either.
    let written = !variant.serde.skip_deserializing();
    if written && matches!(variant.style, Style::Tuple) {
        let count = variant.fields.len();
        let place = match repr {
            Repr::Adjacent { content, .. } => {
                format!("under `content = \"{content}\"` its content")
            }
            Repr::Internal { tag } => {
                format!("serde cannot write it beside `tag = \"{tag}\"`, and its content")
            }
            Repr::External | Repr::Untagged => "its content".to_string(),
        };
        cx.error_spanned_by(
            &variant.original.fields,
            format!(
                "tuple variant `{ident}` has {count} fields: {place} would be a positional \
                 JSON array, which a model fills in the wrong order; name the fields \
                 (`{ident} {{ a: A, b: B }}`) or wrap them in one struct (`{ident}({ident}Params)`)"
            ),
        );
    }
    if let (true, Repr::Internal { tag }, Style::Newtype) = (written, repr, variant.style) {
        let ty = variant.fields[0].ty;
        if let Some(shown) = not_an_object(ty) {
            cx.error_spanned_by(
                ty,
                format!(
                    "newtype variant `{ident}` holds `{shown}`, which serde cannot write \
                     beside `tag = \"{tag}\"` (it fails at run time); hold a struct, or use an \
                     adjacent tag: `#[serde(tag = \"{tag}\", content = \"...\")]`"
                ),
            );
        }
    }
    if let (Some(check), attr) = (&variant.attrs.check, &variant.attrs.span) {
        if !matches!(variant.style, Style::Newtype) {
            let span: &dyn quote::ToTokens = match attr {
                Some(attr) => attr,
                None => check,
            };
            cx.error_spanned_by(
                span,
                format!(
                    "`check` on a variant is given the variant's content, so it needs a \
                     newtype variant such as `{ident}({ident}Params)`; put rules for unit and \
                     struct variants in the type's `#[payload(check = ...)]`"
                ),
            );
        }
    }
}

/// A struct payload is written as an object, or, holding one list, as an array (the
/// suggestion blocks). A unit struct is `null`, a tuple struct a positional array, and a
/// newtype over a scalar (or a `#[serde(transparent)]` struct around one) a bare scalar:
/// a marker block can carry none of them (it opens with `{` or `[`), and their
/// instructions would contradict themselves. Refused here rather than failing every
/// parse at run time. A type deserialized `from`/`try_from` another is written as that
/// type, which this derive cannot see, so it is left to the schema.
fn check_struct_shape(cx: &Ctxt, cont: &Container) {
    let Data::Struct(style, fields) = &cont.data else {
        return;
    };
    if cont.serde.type_from().is_some() || cont.serde.type_try_from().is_some() {
        return;
    }
    let ident = cont.ident;
    match style {
        Style::Struct if cont.serde.transparent() => {
            let inner = fields.iter().find(|f| f.serde.transparent());
            if let Some(field) = inner {
                if let Some(shown) = scalar(field.ty) {
                    cx.error_spanned_by(
                        field.ty,
                        format!(
                            "`#[serde(transparent)]` struct `{ident}` is written as its field \
                             `{}`, a bare `{shown}`, not the object a payload block holds; \
                             remove `transparent` so the field is a member",
                            field.name()
                        ),
                    );
                }
            }
        }
        Style::Struct => {}
        Style::Unit => cx.error_spanned_by(
            ident,
            format!(
                "unit struct `{ident}` is written as `null`, which no model can send as a \
                 payload; give it named fields (`struct {ident} {{ ... }}`)"
            ),
        ),
        Style::Tuple => cx.error_spanned_by(
            struct_fields(cont),
            format!(
                "tuple struct `{ident}` has {} fields: serde writes it as a positional JSON \
                 array, which a model fills in the wrong order; name the fields \
                 (`struct {ident} {{ a: A, b: B }}`)",
                fields.len()
            ),
        ),
        Style::Newtype => {
            let ty = fields[0].ty;
            if let Some(shown) = scalar(ty) {
                cx.error_spanned_by(
                    ty,
                    format!(
                        "newtype `{ident}` holds `{shown}`, so serde writes it as a bare \
                         value, not the object a payload block holds; use a named field \
                         (`struct {ident} {{ value: {shown} }}`)"
                    ),
                );
            }
        }
    }
}

/// The fields of the struct as written, for spans.
fn struct_fields<'a>(cont: &'a Container) -> Option<&'a syn::Fields> {
    match &cont.original.data {
        syn::Data::Struct(data) => Some(&data.fields),
        _ => None,
    }
}

/// Scalar and string type names, as written.
const SCALARS: &[&str] = &[
    "String", "str", "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
    "u32", "u64", "u128", "usize", "f32", "f64", "Cow",
];
/// Sequence type names, as written.
const SEQUENCES: &[&str] = &["Vec", "VecDeque", "HashSet", "BTreeSet"];

/// The type, as written, if it is plainly not a struct or map: a scalar, a string, a
/// sequence or a tuple. Types it cannot see through (a struct, an alias) pass.
fn not_an_object(ty: &Type) -> Option<String> {
    match ty {
        Type::Array(_) | Type::Slice(_) => Some(shown(ty)),
        Type::Tuple(tuple) if !tuple.elems.is_empty() => Some(shown(ty)),
        Type::Reference(reference) => not_an_object(&reference.elem),
        _ => named_among(ty, SEQUENCES).or_else(|| scalar(ty)),
    }
}

/// The type, as written, if it is plainly a scalar or a string.
fn scalar(ty: &Type) -> Option<String> {
    match ty {
        Type::Reference(reference) => scalar(&reference.elem),
        _ => named_among(ty, SCALARS),
    }
}

/// The type, as written, if its last path segment is one of `names`.
fn named_among(ty: &Type, names: &[&str]) -> Option<String> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    (path.qself.is_none() && names.contains(&last.ident.to_string().as_str())).then(|| shown(ty))
}

fn shown(ty: &Type) -> String {
    quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(' ', "")
}

fn check_register_with_pages(cx: &Ctxt, cont: &Container) {
    if let (Some(register), Some(_)) = (&cont.attrs.register, &cont.attrs.pages) {
        cx.error_spanned_by(
            register,
            "`register` is implied by `pages(...)` in `#[payload(...)]`; remove `register`",
        );
    }
}

/// A name or marker derived from a type name outside ASCII (`Café`) is not valid; the
/// user has to spell one out.
fn check_defaults(cx: &Ctxt, cont: &Container) {
    if let (Some(marker), Some(_)) = (&cont.attrs.marker, &cont.attrs.tag) {
        cx.error_spanned_by(
            marker,
            "both `marker` and `tag` in `#[payload(...)]`: a type is written after its \
             marker or between its tags, not both; keep one",
        );
    }
    if cont.attrs.name.is_none() && !is_valid_name(&cont.name()) {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "the type name gives the payload name {:?}, which is not snake_case ASCII; \
                 set one with `#[payload(name = \"...\")]`",
                cont.name()
            ),
        );
    }
    if cont.attrs.marker.is_none() && !is_valid_marker(&cont.marker()) {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "the type name gives the marker {:?}, which is not [A-Z][A-Z0-9_]*; \
                 set one with `#[payload(marker = \"...\")]`",
                cont.marker()
            ),
        );
    }
}
