//! Error collection: every stage records its errors here instead of stopping at the
//! first, so one build shows the user every mistake in the declaration at once.

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// The errors found so far. Shared by reference between stages; interior mutability
/// keeps the parsing code free of `&mut` threading.
///
/// As serde_derive's, it must be [`Ctxt::check`]ed: dropping it unchecked panics (a
/// path that forgot to check would silently drop the user's errors and expand code for
/// a declaration that is wrong).
pub struct Ctxt {
    /// `None` once checked.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records `msg`, pointing at the tokens of `obj`.
    pub fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, msg: T) {
        self.syn_error(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// Records an error syn produced while parsing.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("errors are recorded before the context is checked")
            .push(error);
    }

    /// All recorded errors combined into one, or `Ok` if there were none.
    pub fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take();
        let mut errors = errors.expect("a context is checked once").into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        // Not while unwinding from another panic: that would abort and hide it.
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ctxt;

    #[test]
    fn a_checked_context_drops_quietly_with_its_errors_returned() {
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(x), "wrong");
        let error = cx.check().expect_err("the error is returned");
        assert_eq!(error.to_string(), "wrong");
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    #[should_panic(expected = "forgot to check for errors")]
    fn an_unchecked_context_panics_when_dropped() {
        let cx = Ctxt::new();
        cx.error_spanned_by(quote::quote!(x), "wrong");
        drop(cx);
    }
}
