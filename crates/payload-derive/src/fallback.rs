//! What is emitted next to the errors: a stub impl, so the user sees the one message
//! about their attribute and not one "trait not implemented" per use of the type.

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
        impl #krate::LlmPayload for #ident {
            const NAME: &'static str = "";
            const MARKER: &'static str = "";
            const DESCRIPTION: &'static str = "";
        }
    }
}
