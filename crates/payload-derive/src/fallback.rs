//! What is emitted next to the errors: a stub impl, so the user sees the messages about
//! their declaration and not one "trait not implemented" per use of the type.
//!
//! The stub is bounded the way thiserror bounds its own fallback: its `where` clause
//! repeats the supertraits of `LlmPayload` under a `for<'workaround>` binder. When serde's
//! or schemars' derive failed too (one misuse of `#[serde(...)]` makes all of them fail),
//! those supertraits do not hold, and an unbounded stub would add one E0277 per missing
//! supertrait to the one real error. With the bound, the impl simply does not apply; the
//! higher-ranked form keeps rustc from rejecting the clause as a trivially false bound.

use crate::ast::Container;
use crate::expand::core_path;
use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// A do-nothing `LlmPayload` impl for `input`, or nothing where even a stub would add
/// errors of its own (generic types and unions, which are rejected outright).
pub fn stub(input: &DeriveInput, cont: Option<&Container>) -> TokenStream {
    if !input.generics.params.is_empty() || matches!(input.data, syn::Data::Union(_)) {
        return TokenStream::new();
    }
    let krate = core_path(cont);
    let ident = &input.ident;
    quote! {
        #[automatically_derived]
        impl #krate::LlmPayload for #ident
        where
            for<'workaround> #ident: #krate::__private::Serialize
                + #krate::__private::DeserializeOwned
                + #krate::__private::JsonSchema,
        {
            const NAME: &'static str = "";
            const MARKER: &'static str = "";
            const DESCRIPTION: &'static str = "";
        }
    }
}
