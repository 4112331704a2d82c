//! Checks that look at the whole declaration rather than at one key.

use crate::ast::{Container, Data};
use crate::attr::{is_valid_marker, is_valid_name};
use crate::ctxt::Ctxt;
use syn::Attribute;

/// Runs every check, recording problems in `cx`.
pub fn check(cx: &Ctxt, cont: &Container) {
    check_generics(cx, cont);
    check_misplaced_attrs(cx, cont);
    check_register_with_pages(cx, cont);
    check_defaults(cx, cont);
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

/// `#[payload(...)]` is a container attribute; on a field or a variant it would be
/// accepted by the compiler and silently do nothing.
fn check_misplaced_attrs(cx: &Ctxt, cont: &Container) {
    let misplaced = |attrs: &[Attribute], place: &str| {
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("payload")) {
            cx.error_spanned_by(
                attr,
                format!("`#[payload(...)]` belongs on the type, not on {place}"),
            );
        }
    };
    if let Data::Enum(variants) = &cont.data {
        for variant in variants {
            misplaced(&variant.original.attrs, "a variant");
        }
    }
    for field in cont.all_fields() {
        misplaced(&field.original.attrs, "a field");
    }
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
