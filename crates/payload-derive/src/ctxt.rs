//! Error collection: every stage records its errors here instead of stopping at the
//! first, so one build shows the user every mistake in the declaration at once.

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// The errors found so far. Shared by reference between stages; interior mutability
/// keeps the parsing code free of `&mut` threading.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt::default()
    }

    /// Records `msg`, pointing at the tokens of `obj`.
    pub fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, msg: T) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Records an error syn produced while parsing.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// All recorded errors combined into one, or `Ok` if there were none.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}
