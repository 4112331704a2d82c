//! Code generation: the `LlmPayload` impl and, when asked for, the registry entry.

use crate::ast::{Container, Data};
use crate::attr::Summary;
use crate::check;
use crate::ctxt::Ctxt;
use crate::doc::Doc;
use crate::fallback;
use crate::serde_repr::Repr;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use serde_derive_internals::ast::Style;
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr, Path, parse_quote};

/// The whole expansion of `#[derive(LlmPayload)]` on `input`: the impl, or every error
/// found plus a stub impl (so uses of the type do not each report a missing impl).
///
/// When serde refused its own attributes, serde's derives report that and this one adds
/// only its own errors, if any, and the stub: a real impl would fail on the missing
/// `Serialize`/`Deserialize`/`JsonSchema` impls and add errors about nothing the user
/// wrote.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let cont = Container::from_ast(&cx, input);
    let mut partial = TokenStream::new();
    if let Some(cont) = &cont {
        check::check(&cx, cont);
        if cont.attrs.partial.is_some() {
            partial = crate::partial::expand(&cx, cont, &core_path(Some(cont)));
        }
    }
    match (cx.check(), cont) {
        (Ok(()), Some(cont)) if !cont.serde_failed => {
            let mut out = impl_payload(&cont);
            out.extend(partial);
            out
        }
        (result, cont) => {
            let mut out = match result {
                Ok(()) => TokenStream::new(),
                Err(errors) => errors.into_compile_error(),
            };
            out.extend(fallback::stub(input, cont.as_ref()));
            out
        }
    }
}

/// The expansion of `#[derive(Partial)]`: the partial form of a type a partial payload
/// holds, or the errors that prevent it (serde's own are left to serde's derives).
pub fn derive_partial(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let Some(cont) = Container::from_ast(&cx, input) else {
        return cx
            .check()
            .err()
            .map(|e| e.into_compile_error())
            .unwrap_or_default();
    };
    let tokens = crate::partial::expand(&cx, &cont, &core_path(Some(&cont)));
    match cx.check() {
        Ok(()) if !cont.serde_failed => tokens,
        Ok(()) => TokenStream::new(),
        Err(errors) => errors.into_compile_error(),
    }
}

/// The path generated code names the core crate by.
pub fn core_path(cont: Option<&Container>) -> Path {
    cont.and_then(|cont| cont.attrs.krate.clone())
        .unwrap_or_else(|| parse_quote!(::payload_core))
}

fn impl_payload(cont: &Container) -> TokenStream {
    let krate = core_path(Some(cont));
    let ident = cont.ident;
    let where_clause = &cont.original.generics.where_clause;
    let name = cont.name();
    let marker = cont.marker();
    let description = description(cont);
    let tag = cont
        .attrs
        .tag
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_default();
    let rules = rules(cont);
    let kind = kind(cont, &krate);
    let example = example(cont);
    let check = check_fn(cont, &krate);
    let summarize = summarize(cont, &krate);
    let registration = registration(cont, &krate);
    let format_options = format_options(cont);
    let stream_marks = stream_marks(cont, &krate);
    quote! {
        #[automatically_derived]
        impl #krate::LlmPayload for #ident #where_clause {
            const NAME: &'static str = #name;
            const MARKER: &'static str = #marker;
            const TAG: &'static str = #tag;
            const DESCRIPTION: &'static str = #description;
            #format_options
            #rules
            #kind
            #example
            #check
            #summarize
            #stream_marks
        }
        #registration
    }
}

/// `FORMAT_OPTIONS`: the `x-format` object of `format(...)` on the type and its fields,
/// the fields keyed by the member names the model writes (serde's deserialize names).
fn format_options(cont: &Container) -> TokenStream {
    let fields: Vec<(String, &crate::format_attr::Options)> = match &cont.data {
        Data::Struct(_, fields) => fields
            .iter()
            .filter(|f| !f.attrs.format.is_empty())
            .map(|f| (f.name().to_string(), &f.attrs.format))
            .collect(),
        Data::Enum(_) => Vec::new(),
    };
    let json = crate::format_attr::to_json(&cont.attrs.format, &fields);
    if json.is_empty() {
        return TokenStream::new();
    }
    quote!(const FORMAT_OPTIONS: &'static str = #json;)
}

/// `stream_marks`: the `stream(not_null)` marks the type's schema gets. A partial type
/// gathers them through its partial form, which reaches the types its members hold;
/// any other type has only its own members' (no partial form to reach the others by).
fn stream_marks(cont: &Container, krate: &Path) -> TokenStream {
    let body = if cont.attrs.partial.is_some() {
        quote!(marks.visit::<Self>();)
    } else {
        match &cont.data {
            Data::Struct(Style::Struct, fields) if !cont.serde.transparent() => {
                crate::marks::own(fields)
            }
            _ => return TokenStream::new(),
        }
    };
    if body.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn stream_marks(marks: &mut #krate::partial::StreamMarks) {
            #body
        }
    }
}

fn description(cont: &Container) -> TokenStream {
    match (&cont.attrs.description, &cont.doc) {
        (Some(lit), _) => quote!(#lit),
        (None, Doc::Text(text)) => quote!(#text),
        (None, Doc::Tokens(tokens)) => tokens.clone(),
        (None, Doc::None) => quote!(""),
    }
}

fn rules(cont: &Container) -> TokenStream {
    let rules = &cont.attrs.rules;
    if rules.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const RULES: &'static [&'static str] = &[#(#rules),*];
    }
}

/// `KIND`, when the type states one (the trait's default is a proposal).
fn kind(cont: &Container, krate: &Path) -> TokenStream {
    let Some(lit) = &cont.attrs.kind else {
        return TokenStream::new();
    };
    let variant = match lit.value().as_str() {
        "command" => quote!(Command),
        "display" => quote!(Display),
        _ => quote!(Proposal),
    };
    quote!(const KIND: #krate::PayloadKind = #krate::PayloadKind::#variant;)
}

/// The user's function is first bound to a variable of the expected fn-pointer type,
/// spanned on their path, so a function of the wrong type is reported at the path.
fn example(cont: &Container) -> TokenStream {
    let Some(path) = &cont.attrs.example else {
        return TokenStream::new();
    };
    let binding = quote_spanned! {path.span()=>
        let example: fn() -> Self = #path;
    };
    quote! {
        fn example() -> ::core::option::Option<Self> {
            #binding
            ::core::option::Option::Some(example())
        }
    }
}

/// The type's `check`, then the `check` of the variant the value is, its errors moved
/// under the variant's content and naming the variant as the model writes it (serde's
/// deserialize name and the variant's representation, known here rather than read back
/// from the serialized value, whose names may differ).
fn check_fn(cont: &Container, krate: &Path) -> TokenStream {
    let type_check = cont.attrs.check.as_ref().map(|path| {
        let binding = quote_spanned! {path.span()=>
            let check: fn(&Self) -> ::std::vec::Vec<#krate::PayloadError> = #path;
        };
        quote! {
            #binding
            errors.extend(check(self));
        }
    });
    let arms: Vec<TokenStream> = match &cont.data {
        Data::Enum(variants) => variants
            .iter()
            .filter_map(|variant| {
                let path = variant.attrs.check.as_ref()?;
                let ty = variant.fields.first()?.ty;
                let ident = &variant.original.ident;
                let name = variant.name();
                let (tag, content, untagged) = match cont.repr.of_variant(&variant.serde) {
                    Repr::External => (quote!(None), quote!(None), false),
                    Repr::Internal { tag } => (quote!(Some(#tag)), quote!(None), false),
                    Repr::Adjacent { tag, content } => {
                        (quote!(Some(#tag)), quote!(Some(#content)), false)
                    }
                    Repr::Untagged => (quote!(None), quote!(None), true),
                };
                let binding = quote_spanned! {path.span()=>
                    let check: fn(&#ty) -> ::std::vec::Vec<#krate::PayloadError> = #path;
                };
                Some(quote! {
                    Self::#ident(content) => {
                        #binding
                        #krate::__private::variant_errors(
                            #name, #tag, #content, #untagged, check(content),
                        )
                    }
                })
            })
            .collect(),
        Data::Struct(..) => Vec::new(),
    };
    if type_check.is_none() && arms.is_empty() {
        return TokenStream::new();
    }
    let variant_check = (!arms.is_empty()).then(|| {
        quote! {
            #[allow(unreachable_patterns)]
            let variant_errors = match self {
                #(#arms)*
                _ => ::std::vec::Vec::new(),
            };
            errors.extend(variant_errors);
        }
    });
    quote! {
        fn check(&self) -> ::std::vec::Vec<#krate::PayloadError> {
            let mut errors = ::std::vec::Vec::new();
            #type_check
            #variant_check
            errors
        }
    }
}

fn summarize(cont: &Container, krate: &Path) -> TokenStream {
    match &cont.attrs.summary {
        None => TokenStream::new(),
        Some(Summary::Template(template)) => quote! {
            fn summarize(&self) -> ::std::string::String {
                let value = #krate::__private::to_value(self).unwrap_or_default();
                #krate::__private::fill_template(#template, &value)
            }
        },
        Some(Summary::Function(path)) => {
            let binding = quote_spanned! {path.span()=>
                let summarize: fn(&Self) -> ::std::string::String = #path;
            };
            quote! {
                fn summarize(&self) -> ::std::string::String {
                    #binding
                    summarize(self)
                }
            }
        }
    }
}

/// `inventory::submit!` of a `PayloadEntry`, only for types that asked to be registered:
/// a user of whole-response mode needs no registry crate at all.
fn registration(cont: &Container, krate: &Path) -> TokenStream {
    if !cont.attrs.registers() {
        return TokenStream::new();
    }
    let registry: Path = cont
        .attrs
        .registry
        .clone()
        .unwrap_or_else(|| parse_quote!(::payload_registry));
    let ident = cont.ident;
    let pages = cont.attrs.pages.iter().flat_map(|pages| &pages.names);
    quote! {
        #registry::__private::inventory::submit! {
            #registry::PayloadEntry::new(
                <#ident as #krate::LlmPayload>::TYPE,
                &[#(#pages),*],
            )
        }
    }
}
