//! The partial form of a type (`payload_core::partial::PartialType`): `#[payload(partial)]` on a
//! payload type and `#[derive(Partial)]` on the types its members hold.
//!
//! A struct `Foo` gets `FooPartial`, every member an `Option` of the member type's
//! partial form, read under serde's deserialize name and aliases; `Foo`'s partial form
//! is `Growing<FooPartial>`. An enum gets `FooPartial` with the same variants, chosen
//! once the tag is complete (internally, adjacently or externally tagged); an enum of
//! unit variants is its own partial form (shown once its string is complete), and an
//! untagged enum's is its raw JSON (which variant it is cannot be known before it
//! ends). A newtype or `transparent` struct is its content's partial form.
//!
//! Members serde skips when deserializing are left out; a `flatten`ed member reads the
//! same object. What cannot have a partial form (a tuple of two or more fields, a unit
//! struct, a generic type) is an error at the declaration.

use crate::ast::{Container, Data, Field, Variant};
use crate::ctxt::Ctxt;
use crate::serde_repr::Repr;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use serde_derive_internals::ast::Style;
use syn::spanned::Spanned;
use syn::{Ident, Path};

/// The partial type and the `PartialType` impl of `cont`, or the errors that prevent
/// them (recorded in `cx`, nothing returned).
pub fn expand(cx: &Ctxt, cont: &Container, krate: &Path) -> TokenStream {
    if !cont.original.generics.params.is_empty() {
        cx.error_spanned_by(
            &cont.original.generics,
            "a partial form is not generated for a generic type: implement \
             `PartialType` by hand, or make the type concrete",
        );
        return TokenStream::new();
    }
    let generator = Generator {
        cont,
        krate,
        partial: format_ident!("{}Partial", cont.ident),
    };
    match &cont.data {
        Data::Struct(Style::Struct, fields) if !cont.serde.transparent() => {
            generator.named_struct(fields)
        }
        Data::Struct(Style::Newtype, fields) | Data::Struct(Style::Struct, fields) => {
            match fields.iter().find(|f| !f.serde.skip_deserializing()) {
                Some(inner) => generator.delegate(inner.ty),
                None => generator.refuse(cx, "a struct with no field serde reads"),
            }
        }
        Data::Struct(Style::Tuple, _) => generator.refuse(cx, "a tuple struct"),
        Data::Struct(Style::Unit, _) => generator.refuse(cx, "a unit struct"),
        Data::Enum(variants) => generator.enumeration(cx, variants),
    }
}

struct Generator<'c, 'a> {
    cont: &'c Container<'a>,
    krate: &'c Path,
    partial: Ident,
}

impl Generator<'_, '_> {
    fn refuse(&self, cx: &Ctxt, what: &str) -> TokenStream {
        cx.error_spanned_by(
            self.cont.ident,
            format!("a partial form cannot be generated for {what}"),
        );
        TokenStream::new()
    }

    /// `impl PartialType for Type { type Partial = ...; fn read_partial ...; fn
    /// stream_marks ... }`, `marks` the body of `stream_marks` (the trait's default,
    /// which gathers nothing, when empty).
    fn impl_block(
        &self,
        partial: TokenStream,
        body: TokenStream,
        marks: TokenStream,
    ) -> TokenStream {
        let krate = self.krate;
        let ident = self.cont.ident;
        let stream_marks = (!marks.is_empty()).then(|| {
            quote! {
                fn stream_marks(marks: &mut #krate::partial::StreamMarks) {
                    #marks
                }
            }
        });
        quote! {
            #[automatically_derived]
            impl #krate::partial::PartialType for #ident {
                type Partial = #partial;

                #[allow(unused_variables)]
                fn read_partial(
                    value: &#krate::partial::__private::serde_json::Value,
                    at: #krate::partial::Cursor<'_>,
                ) -> ::core::option::Option<Self::Partial> {
                    #body
                }

                #stream_marks
            }
        }
    }

    /// A newtype or `transparent` struct: its content's partial form.
    fn delegate(&self, inner: &syn::Type) -> TokenStream {
        let krate = self.krate;
        self.impl_block(
            quote!(<#inner as #krate::partial::PartialType>::Partial),
            quote!(<#inner as #krate::partial::PartialType>::read_partial(value, at)),
            crate::marks::visit(krate, inner),
        )
    }

    fn named_struct(&self, fields: &[Field]) -> TokenStream {
        let krate = self.krate;
        let vis = &self.cont.original.vis;
        let ident = self.cont.ident;
        let partial = &self.partial;
        let kept = read_fields(fields);
        let declarations = kept.iter().map(|f| field_declaration(krate, f, true));
        let reads = kept
            .iter()
            .map(|f| field_read(krate, f, quote!(object), quote!(at)));
        let doc = format!(
            "The partial form of [`{ident}`] while it streams: every member `None` until \
             the model begins it."
        );
        let name = partial.to_string();
        let at_type = |f: &&Field| {
            let span = f.ty.span();
            (span, respanned(&f.original.ident, span))
        };
        let debugs = kept.iter().map(|f| {
            let (span, ident) = at_type(f);
            quote_spanned!(span=> .field(::core::stringify!(#ident), &self.#ident))
        });
        let clones = kept.iter().map(|f| {
            let (span, ident) = at_type(f);
            quote_spanned!(span=> #ident: ::core::clone::Clone::clone(&self.#ident),)
        });
        let equals = kept.iter().map(|f| {
            let (span, ident) = at_type(f);
            quote_spanned!(span=> && self.#ident == other.#ident)
        });
        // Written out rather than derived, each use of a field spanned at its type as
        // its declaration is: a member type with no partial form is then one report,
        // at the member, where derives would each repeat it at the derive.
        let definition = quote! {
            #[doc = #doc]
            // The field types are spanned at the user's members, so clippy would read
            // the generated `Option<<T as PartialType>::Partial>` as theirs.
            #[allow(clippy::type_complexity)]
            #vis struct #partial {
                #(#declarations)*
            }

            #[automatically_derived]
            impl ::core::fmt::Debug for #partial {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(#name)
                        #(#debugs)*
                        .finish()
                }
            }

            #[automatically_derived]
            impl ::core::clone::Clone for #partial {
                fn clone(&self) -> Self {
                    #partial { #(#clones)* }
                }
            }

            #[automatically_derived]
            impl ::core::cmp::PartialEq for #partial {
                fn eq(&self, other: &Self) -> bool {
                    true #(#equals)*
                }
            }
        };
        // `stream(not_null)` members: while the struct is still arriving, it is held
        // back until each has a value (begun, and not `null`).
        let held = kept.iter().filter(|f| f.attrs.not_null.is_some()).map(|f| {
            let ident = &f.original.ident;
            let names = names(f.name(), f.serde.aliases());
            quote! {
                if !at.complete()
                    && !(shown.#ident.is_some()
                        && #krate::partial::__private::has_value(object, &[#(#names),*]))
                {
                    return ::core::option::Option::None;
                }
            }
        });
        let body = quote! {
            let object = value.as_object()?;
            let shown = #partial { #(#reads)* };
            #(#held)*
            ::core::option::Option::Some(#krate::partial::Growing {
                value: shown,
                complete: at.complete(),
            })
        };
        // The members' marks, then those of the types the members hold.
        let marks = crate::marks::own(fields);
        let visits = kept
            .iter()
            .filter_map(|f| held_type(f))
            .map(|ty| crate::marks::visit(krate, ty));
        let implementation = self.impl_block(
            quote!(#krate::partial::Growing<#partial>),
            body,
            quote!(#marks #(#visits)*),
        );
        quote!(#definition #implementation)
    }

    fn enumeration(&self, cx: &Ctxt, variants: &[Variant]) -> TokenStream {
        let krate = self.krate;
        let variants: Vec<&Variant> = variants
            .iter()
            .filter(|v| !v.serde.skip_deserializing())
            .collect();
        if variants.iter().all(|v| matches!(v.style, Style::Unit))
            && matches!(self.cont.repr, Repr::External)
        {
            let ident = self.cont.ident;
            let (impl_generics, ty_generics, where_clause) =
                self.cont.original.generics.split_for_impl();
            let implementation = self.impl_block(
                quote!(Self),
                quote!(#krate::partial::__private::unit(value, &at)),
                TokenStream::new(),
            );
            // Shown only once whole.
            return quote! {
                #implementation
                #[automatically_derived]
                impl #impl_generics #krate::partial::PartialState for #ident #ty_generics #where_clause {
                    fn state(&self) -> #krate::partial::ValueState {
                        #krate::partial::ValueState::Complete
                    }
                }
            };
        }
        if matches!(self.cont.repr, Repr::Untagged) {
            // Shown as raw JSON, which holds nothing back.
            return self.impl_block(
                quote!(#krate::partial::Growing<#krate::partial::__private::serde_json::Value>),
                quote!(<#krate::partial::__private::serde_json::Value as #krate::partial::PartialType>::read_partial(value, at)),
                TokenStream::new(),
            );
        }
        if let Some(tuple) = variants.iter().find(|v| matches!(v.style, Style::Tuple)) {
            cx.error_spanned_by(
                tuple.original,
                "a partial form cannot be generated for a tuple variant of two or more fields",
            );
            return TokenStream::new();
        }
        // Variants serde only tries untagged (`#[serde(untagged)]` on the variant) are
        // never chosen by a tag, so a partial value never shows them.
        let variants: Vec<&Variant> = variants
            .into_iter()
            .filter(|v| !v.serde.untagged())
            .collect();
        let vis = &self.cont.original.vis;
        let ident = self.cont.ident;
        let partial = &self.partial;
        let declarations = variants.iter().map(|v| self.variant_declaration(v));
        let doc = format!(
            "The partial form of [`{ident}`] while it streams: the variant, once its tag is \
             complete, with every member `None` until the model begins it."
        );
        let impls = self.enum_impls(&variants);
        let definition = quote! {
            #[doc = #doc]
            #[allow(clippy::type_complexity)]
            #vis enum #partial {
                #(#declarations)*
            }
            #impls
        };
        let arms = variants.iter().map(|v| self.variant_arm(v));
        let choose = match &self.cont.repr {
            Repr::Internal { tag } => quote! {
                let object = value.as_object()?;
                let name = #krate::partial::__private::tag(object, #tag, &at)?;
                let (content, inner) = (value, at.clone());
            },
            Repr::Adjacent { tag, content } => quote! {
                let object = value.as_object()?;
                let name = #krate::partial::__private::tag(object, #tag, &at)?;
                let inner = at.member(#content);
                let content = object.get(#content);
            },
            // External: `"unit"` or `{"variant": content}`.
            _ => quote! {
                let (name, content, inner) = match value {
                    #krate::partial::__private::serde_json::Value::String(name) if at.complete() => {
                        (name.as_str(), ::core::option::Option::None, at.clone())
                    }
                    #krate::partial::__private::serde_json::Value::Object(object) => {
                        let (name, content) = object.iter().next()?;
                        (name.as_str(), ::core::option::Option::Some(content), at.member(name))
                    }
                    _ => return ::core::option::Option::None,
                };
            },
        };
        let content_is_option = !matches!(self.cont.repr, Repr::Internal { .. });
        let arms = arms.map(|(names, build)| {
            let build = if content_is_option {
                quote!({
                    #[allow(unused_variables)]
                    let content = content;
                    #build
                })
            } else {
                quote!({
                    #[allow(unused_variables)]
                    let content = ::core::option::Option::Some(content);
                    #build
                })
            };
            quote!(#(#names)|* => #build,)
        });
        let body = quote! {
            #choose
            let chosen = match name {
                #(#arms)*
                _ => return ::core::option::Option::None,
            };
            ::core::option::Option::Some(#krate::partial::Growing { value: chosen, complete: at.complete() })
        };
        // The marks of the types the variants hold (a variant's own fields are never
        // marked: `check` refuses it).
        let visits = variants
            .iter()
            .flat_map(|v| match v.style {
                Style::Newtype => vec![v.fields[0].ty],
                Style::Struct => read_fields(&v.fields)
                    .into_iter()
                    .filter_map(held_type)
                    .collect(),
                Style::Unit | Style::Tuple => Vec::new(),
            })
            .map(|ty| crate::marks::visit(krate, ty));
        let implementation = self.impl_block(
            quote!(#krate::partial::Growing<#partial>),
            body,
            quote!(#(#visits)*),
        );
        quote!(#definition #implementation)
    }

    /// `Debug`, `Clone` and `PartialEq` of the partial enum, written out as for a struct
    /// (`named_struct`): each use of a member spanned at its type, so a member type
    /// with no partial form is one report, at the member.
    fn enum_impls(&self, variants: &[&Variant]) -> TokenStream {
        let partial = &self.partial;
        let mut debug = Vec::new();
        let mut clone = Vec::new();
        let mut equal = Vec::new();
        for variant in variants {
            let ident = &variant.original.ident;
            let name = ident.to_string();
            match variant.style {
                Style::Unit => {
                    debug.push(quote!(#partial::#ident => f.write_str(#name),));
                    clone.push(quote!(#partial::#ident => #partial::#ident,));
                    equal.push(quote!((#partial::#ident, #partial::#ident) => true,));
                }
                Style::Newtype | Style::Tuple => {
                    let span = variant.fields[0].ty.span();
                    debug.push(quote_spanned!(span=>
                        #partial::#ident(x) => f.debug_tuple(#name).field(x).finish(),));
                    clone.push(quote_spanned!(span=>
                        #partial::#ident(x) => #partial::#ident(::core::clone::Clone::clone(x)),));
                    equal.push(quote_spanned!(span=>
                        (#partial::#ident(x), #partial::#ident(y)) => x == y,));
                }
                Style::Struct => {
                    let kept = read_fields(&variant.fields);
                    let fields: Vec<(proc_macro2::Span, TokenStream)> = kept
                        .iter()
                        .map(|f| {
                            let span = f.ty.span();
                            (span, respanned(&f.original.ident, span))
                        })
                        .collect();
                    let names: Vec<&TokenStream> = fields.iter().map(|(_, i)| i).collect();
                    let theirs: Vec<proc_macro2::Ident> = (0..fields.len())
                        .map(|i| format_ident!("__other_{i}"))
                        .collect();
                    let debugs = fields.iter().map(|(span, field)| {
                        quote_spanned!(*span=> .field(::core::stringify!(#field), #field))
                    });
                    let clones = fields.iter().map(|(span, field)| {
                        quote_spanned!(*span=> #field: ::core::clone::Clone::clone(#field),)
                    });
                    let equals = fields
                        .iter()
                        .zip(&theirs)
                        .map(|((span, field), other)| quote_spanned!(*span=> && #field == #other));
                    debug.push(quote!(#partial::#ident { #(#names),* } =>
                        f.debug_struct(#name) #(#debugs)* .finish(),));
                    clone.push(quote!(#partial::#ident { #(#names),* } =>
                        #partial::#ident { #(#clones)* },));
                    equal.push(quote!((
                        #partial::#ident { #(#names),* },
                        #partial::#ident { #(#names: #theirs),* },
                    ) => true #(#equals)*,));
                }
            }
        }
        quote! {
            #[automatically_derived]
            impl ::core::fmt::Debug for #partial {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    match self { #(#debug)* }
                }
            }

            #[automatically_derived]
            impl ::core::clone::Clone for #partial {
                fn clone(&self) -> Self {
                    match self { #(#clone)* }
                }
            }

            #[automatically_derived]
            impl ::core::cmp::PartialEq for #partial {
                #[allow(unreachable_patterns)]
                fn eq(&self, other: &Self) -> bool {
                    match (self, other) {
                        #(#equal)*
                        _ => false,
                    }
                }
            }
        }
    }

    fn variant_declaration(&self, variant: &Variant) -> TokenStream {
        let krate = self.krate;
        let ident = &variant.original.ident;
        let doc = format!("The `{}` variant.", variant.name());
        match variant.style {
            Style::Unit => quote!(#[doc = #doc] #ident,),
            Style::Newtype | Style::Tuple => {
                let ty = variant.fields[0].ty;
                let span = ty.span();
                let krate = respanned(krate, span);
                let declared = quote_spanned!(span=>
                    ::core::option::Option<<#ty as #krate::partial::PartialType>::Partial>);
                quote!(#[doc = #doc] #ident(#declared),)
            }
            Style::Struct => {
                let kept = read_fields(&variant.fields);
                let fields = kept.iter().map(|f| field_declaration(krate, f, false));
                quote!(#[doc = #doc] #ident { #(#fields)* },)
            }
        }
    }

    /// The names a variant is chosen by, and how its partial form is built from
    /// `content` (an `Option<&Value>`) read at the cursor `inner`.
    fn variant_arm(&self, variant: &Variant) -> (Vec<String>, TokenStream) {
        let krate = self.krate;
        let partial = &self.partial;
        let ident = &variant.original.ident;
        let names = names(variant.name(), variant.serde.aliases());
        let build = match variant.style {
            Style::Unit => quote!(#partial::#ident),
            Style::Newtype | Style::Tuple => {
                let ty = variant.fields[0].ty;
                quote!(#partial::#ident(content.and_then(|content| {
                    <#ty as #krate::partial::PartialType>::read_partial(content, inner.clone())
                })))
            }
            Style::Struct => {
                let kept = read_fields(&variant.fields);
                let reads = kept
                    .iter()
                    .map(|f| field_read(krate, f, quote!(object), quote!(inner)));
                quote!({
                    let empty = #krate::partial::__private::serde_json::Map::new();
                    let object = content.and_then(#krate::partial::__private::serde_json::Value::as_object).unwrap_or(&empty);
                    #partial::#ident { #(#reads)* }
                })
            }
        };
        (names, build)
    }
}

/// The fields serde reads.
fn read_fields<'f, 'a>(fields: &'f [Field<'a>]) -> Vec<&'f Field<'a>> {
    fields
        .iter()
        .filter(|f| !f.serde.skip_deserializing())
        .collect()
}

/// How a member's partial form is read.
enum Reader<'f> {
    /// Through its type's `PartialType`.
    Partial,
    /// Complete only, by its type's `Deserialize` (`#[payload(complete_only)]`).
    Deserialize,
    /// Complete only, by serde's `deserialize_with` (or `with`) function: the JSON is
    /// whatever that function reads, so only the whole value can be shown.
    With(&'f syn::ExprPath),
}

impl<'f> Reader<'f> {
    fn of(field: &'f Field) -> Reader<'f> {
        if field.serde.flatten() {
            Reader::Partial
        } else if let Some(with) = field.serde.deserialize_with() {
            Reader::With(with)
        } else if field.attrs.complete_only.is_some() {
            Reader::Deserialize
        } else {
            Reader::Partial
        }
    }
}

/// The type of `field` when its partial form is its type's (so the type's own marks
/// count); `None` for a member that is complete only.
fn held_type<'a>(field: &Field<'a>) -> Option<&'a syn::Type> {
    matches!(Reader::of(field), Reader::Partial).then_some(field.ty)
}

/// `pub name: Option<<Ty as PartialType>::Partial>,` with a doc line (`Option<Ty>` for
/// a member that is complete only). The type's tokens carry the field type's span, so
/// a type with no partial form is reported at the field, once.
fn field_declaration(krate: &Path, field: &Field, with_visibility: bool) -> TokenStream {
    let ident = &field.original.ident;
    let ty = field.ty;
    let vis = with_visibility.then_some(&field.original.vis);
    let reader = Reader::of(field);
    let doc = if field.serde.flatten() {
        "The flattened members, read from the same object.".to_string()
    } else if matches!(reader, Reader::Partial) {
        format!(
            "The `{}` member, `None` until the model begins it.",
            field.name()
        )
    } else {
        format!(
            "The `{}` member, `None` until the model has written it whole.",
            field.name()
        )
    };
    let span = ty.span();
    let partial = match reader {
        Reader::Partial => {
            let krate = respanned(krate, span);
            quote_spanned!(span=> <#ty as #krate::partial::PartialType>::Partial)
        }
        Reader::Deserialize | Reader::With(_) => quote!(#ty),
    };
    // Every token of the field's type at the member's own type: a type with no partial
    // form is then reported there, and the reports of the struct and of its derives are
    // one report (the same message at the same place), printed once.
    let declared = quote_spanned!(span=> ::core::option::Option<#partial>);
    quote! {
        #[doc = #doc]
        #vis #ident: #declared,
    }
}

/// `tokens` with every token at `span`.
pub(crate) fn respanned(tokens: &impl quote::ToTokens, span: proc_macro2::Span) -> TokenStream {
    tokens
        .to_token_stream()
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}

/// `name: <read of the member>,`: under serde's name and aliases, or, flattened, from
/// the same object.
fn field_read(krate: &Path, field: &Field, object: TokenStream, at: TokenStream) -> TokenStream {
    let ident = &field.original.ident;
    let ty = field.ty;
    if field.serde.flatten() {
        let read = quote_spanned!(ty.span()=> <#ty as #krate::partial::PartialType>::read_partial);
        return quote! {
            #ident: #read(
                &#krate::partial::__private::serde_json::Value::Object(#object.clone()),
                #at.clone(),
            ),
        };
    }
    let names = names(field.name(), field.serde.aliases());
    let private = quote!(#krate::partial::__private);
    match Reader::of(field) {
        Reader::Partial => {
            // At the member's type, as its declaration is (one report, at the member).
            let span = ty.span();
            let (private, ident) = (respanned(&private, span), respanned(ident, span));
            let (object, at) = (respanned(&object, span), respanned(&at, span));
            quote_spanned!(span=> #ident: #private::member::<#ty>(#object, &[#(#names),*], &#at),)
        }
        Reader::Deserialize => quote! {
            #ident: #private::complete_member(#object, &[#(#names),*], &#at, #private::deserialize::<#ty>),
        },
        Reader::With(with) => quote! {
            #ident: #private::complete_member(#object, &[#(#names),*], &#at, |value| -> ::core::option::Option<#ty> {
                #with(value).ok()
            }),
        },
    }
}

/// serde's deserialize name, then its other aliases.
fn names(
    primary: &str,
    aliases: &std::collections::BTreeSet<serde_derive_internals::name::Name>,
) -> Vec<String> {
    let mut names = vec![primary.to_string()];
    for alias in aliases {
        if alias.value != primary {
            names.push(alias.value.clone());
        }
    }
    names
}
