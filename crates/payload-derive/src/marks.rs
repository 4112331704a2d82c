//! `#[payload(stream(not_null))]` in the type's schema: the `stream_marks` the derive
//! writes so that payload-core puts `"x-stream": {"not_null": true}` on each marked
//! member of the schema schemars generates (`payload_core::partial::StreamMarks`), the
//! keyword the stream's JSON preview holds objects back by. One rule for the typed
//! partial form and the preview: the members marked here are the members the partial
//! form waits for.

use crate::ast::Field;
use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::Path;
use syn::spanned::Spanned;

/// `marks.mark::<Self>(&[...])` with the names the model writes (serde's deserialize
/// names) of the members of `fields` marked `stream(not_null)`; nothing when none is.
/// Spanned at the first mark, so a type without a `JsonSchema` impl is reported there.
pub fn own(fields: &[Field]) -> TokenStream {
    let marked: Vec<&Field> = fields
        .iter()
        .filter(|f| f.attrs.not_null.is_some())
        .collect();
    let Some(first) = marked.first().and_then(|f| f.attrs.not_null.as_ref()) else {
        return TokenStream::new();
    };
    let names = marked.iter().map(|f| f.name());
    quote_spanned! {first.span()=>
        marks.mark::<Self>(&[#(#names),*]);
    }
}

/// `StreamMarks::visit` of `Ty`: the marks of a type a member holds. Written with
/// `<Ty as PartialType>`, spanned at the type, as the member's declaration is: a type
/// with no partial form is then one report, at the member (a call of `visit::<Ty>`
/// would add one naming `visit`'s bound).
pub fn visit(krate: &Path, ty: &syn::Type) -> TokenStream {
    let span = ty.span();
    let krate = crate::partial::respanned(krate, span);
    // Every token at the type's span, so the report's place is the declaration's.
    let ty = crate::partial::respanned(ty, span);
    quote_spanned! {span=>
        #krate::partial::__private::visit(
            marks,
            ::core::any::TypeId::of::<#ty>(),
            <#ty as #krate::partial::PartialType>::stream_marks,
        );
    }
}
