//! The container attribute `#[payload(...)]`, parsed key by key.
//!
//! Every problem is recorded in the [`Ctxt`] and parsing goes on with the next key, so
//! one build reports every mistake. Values are checked here when the check needs only
//! the value (a marker's characters); checks that look at the whole declaration live in
//! `check.rs`.

use crate::ctxt::Ctxt;
use crate::format_attr::{self, Level, Options};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, ExprPath, Lit, LitStr, Path, Token};

/// The keys `#[payload(...)]` accepts, in the order the unknown-key error lists them.
pub const KEYS: &[&str] = &[
    "name",
    "marker",
    "tag",
    "kind",
    "pages",
    "register",
    "partial",
    "example",
    "check",
    "rule",
    "summary",
    "description",
    "crate",
    "registry",
    "format",
];

/// How instances summarise themselves for the payload manifest.
pub enum Summary {
    /// `summary = "..."`: a template filled from the serialized value.
    Template(LitStr),
    /// `summary = path`: a `fn(&Self) -> String`.
    Function(ExprPath),
}

/// What is wrong with a summary template, if anything. The runtime keeps an unclosed
/// `{` as written; here it is caught while the author is still looking at it.
fn template_problem(template: &str) -> Option<String> {
    placeholders(template).err()
}

/// The placeholders of a summary template (`{{` is a literal brace), in order, or what
/// is wrong with the template.
pub fn placeholders(template: &str) -> Result<Vec<&str>, String> {
    let mut found = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let tail = &rest[open..];
        if let Some(after) = tail.strip_prefix("{{") {
            rest = after;
            continue;
        }
        let Some(close) = tail.find('}') else {
            return Err("unclosed `{` (write `{{` for a literal brace)".to_string());
        };
        let placeholder = &tail[1..close];
        if placeholder.trim().is_empty() || placeholder.contains('{') {
            return Err(format!(
                "bad placeholder `{{{placeholder}}}`: expected `{{member}}` or `{{member.len}}`"
            ));
        }
        found.push(placeholder);
        rest = &tail[close + 1..];
    }
    Ok(found)
}

/// `pages("a", "b")`.
pub struct Pages {
    /// The page names, in order.
    pub names: Vec<LitStr>,
}

/// Everything `#[payload(...)]` on the type said. `None` means "not given"; defaults are
/// filled in by the expansion.
#[derive(Default)]
pub struct Container {
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// `marker = "..."`.
    pub marker: Option<LitStr>,
    /// `tag = "..."`: the type is written between `<tag>` and `</tag>` instead of
    /// after a marker.
    pub tag: Option<LitStr>,
    /// `kind = "proposal" | "command" | "display"`.
    pub kind: Option<LitStr>,
    /// `pages(...)`.
    pub pages: Option<Pages>,
    /// The `register` flag (kept as its path for spans).
    pub register: Option<Path>,
    /// The `partial` flag: also write the type's partial form.
    pub partial: Option<Path>,
    /// `example = path`.
    pub example: Option<ExprPath>,
    /// `check = path`.
    pub check: Option<ExprPath>,
    /// Every `rule = "..."`, in order.
    pub rules: Vec<LitStr>,
    /// `summary = ...`.
    pub summary: Option<Summary>,
    /// `description = "..."`.
    pub description: Option<LitStr>,
    /// `crate = "path"`.
    pub krate: Option<Path>,
    /// `registry = "path"`.
    pub registry: Option<Path>,
    /// `format(...)`: the output-schema app's `x-format` options of the type.
    pub format: Options,
}

impl Container {
    /// Parses every `#[payload(...)]` among `attrs`.
    pub fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> Container {
        let mut container = Container::default();
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("payload")) {
            if let Err(error) = attr.parse_nested_meta(|meta| container.key(cx, &meta)) {
                cx.syn_error(error);
            }
        }
        container
    }

    /// Whether the type asks to be registered at link time.
    pub fn registers(&self) -> bool {
        self.pages.is_some() || self.register.is_some()
    }

    /// Parses one `key`, `key = value` or `key(...)`.
    fn key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<()> {
        let path = &meta.path;
        let key = path
            .get_ident()
            .map(|ident| ident.to_string())
            .unwrap_or_default();
        match key.as_str() {
            "name" => {
                if let Some(lit) = string_value(cx, meta, "name = \"snake_case_name\"")? {
                    check_name(cx, &lit);
                    set(cx, &mut self.name, path, lit);
                }
            }
            "marker" => {
                if let Some(lit) = string_value(cx, meta, "marker = \"MARKER\"")? {
                    check_marker(cx, &lit);
                    set(cx, &mut self.marker, path, lit);
                }
            }
            "tag" => {
                if let Some(lit) = string_value(cx, meta, "tag = \"tag-name\"")? {
                    check_tag(cx, &lit);
                    set(cx, &mut self.tag, path, lit);
                }
            }
            "kind" => {
                if let Some(lit) = string_value(cx, meta, "kind = \"command\"")? {
                    check_kind(cx, &lit);
                    set(cx, &mut self.kind, path, lit);
                }
            }
            "pages" => {
                if let Some(pages) = pages_value(cx, meta)? {
                    set(cx, &mut self.pages, path, pages);
                }
            }
            "register" => {
                if meta.input.is_empty() || meta.input.peek(Token![,]) {
                    set(cx, &mut self.register, path, path.clone());
                } else {
                    cx.error_spanned_by(
                        path,
                        "`register` is a flag and takes no value: write `#[payload(register)]`",
                    );
                    skip_value(meta)?;
                }
            }
            "partial" => {
                if meta.input.is_empty() || meta.input.peek(Token![,]) {
                    set(cx, &mut self.partial, path, path.clone());
                } else {
                    cx.error_spanned_by(
                        path,
                        "`partial` is a flag and takes no value: write `#[payload(partial)]`",
                    );
                    skip_value(meta)?;
                }
            }
            "example" => {
                if let Some(f) = path_value(cx, meta, "example = path::to_fn", "fn() -> Self")? {
                    set(cx, &mut self.example, path, f);
                }
            }
            "check" => {
                let signature = "fn(&Self) -> Vec<PayloadError>";
                if let Some(f) = path_value(cx, meta, "check = path::to_fn", signature)? {
                    set(cx, &mut self.check, path, f);
                }
            }
            "rule" => {
                if let Some(lit) = string_value(cx, meta, "rule = \"...\"")? {
                    if lit.value().trim().is_empty() {
                        cx.error_spanned_by(&lit, "empty `rule = \"\"`: say the rule in words");
                    }
                    self.rules.push(lit);
                }
            }
            "summary" => {
                if let Some(summary) = summary_value(cx, meta)? {
                    set(cx, &mut self.summary, path, summary);
                }
            }
            "description" => {
                if let Some(lit) = string_value(cx, meta, "description = \"...\"")? {
                    set(cx, &mut self.description, path, lit);
                }
            }
            "crate" => {
                if let Some(p) = string_path_value(cx, meta, "crate = \"::payload_core\"")? {
                    set(cx, &mut self.krate, path, p);
                }
            }
            "format" => format_attr::parse(cx, meta, Level::Container, &mut self.format)?,
            "registry" => {
                if let Some(p) = string_path_value(cx, meta, "registry = \"::payload_registry\"")? {
                    set(cx, &mut self.registry, path, p);
                }
            }
            _ => {
                let shown = path.to_token_stream().to_string().replace(' ', "");
                let expected: Vec<String> = KEYS.iter().map(|k| format!("`{k}`")).collect();
                cx.error_spanned_by(
                    path,
                    format!(
                        "unknown key `{shown}` in `#[payload(...)]`; expected one of {}",
                        expected.join(", ")
                    ),
                );
                skip_value(meta)?;
            }
        }
        Ok(())
    }
}

/// Everything `#[payload(...)]` on one enum variant said.
#[derive(Default)]
pub struct Variant {
    /// `check = path`: a `fn(&Content) -> Vec<PayloadError>` for a newtype variant.
    pub check: Option<ExprPath>,
    /// The first `#[payload]` on the variant, for spans.
    pub span: Option<Attribute>,
}

impl Variant {
    /// Parses every `#[payload(...)]` among a variant's `attrs`.
    pub fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> Variant {
        let mut variant = Variant::default();
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("payload")) {
            variant.span.get_or_insert_with(|| attr.clone());
            if let Err(error) = attr.parse_nested_meta(|meta| variant.key(cx, &meta)) {
                cx.syn_error(error);
            }
        }
        variant
    }

    fn key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<()> {
        let path = &meta.path;
        if path.is_ident("check") {
            let signature = "fn(&Content) -> Vec<PayloadError>";
            if let Some(f) = path_value(cx, meta, "check = path::to_fn", signature)? {
                set(cx, &mut self.check, path, f);
            }
            return Ok(());
        }
        let shown = path.to_token_stream().to_string().replace(' ', "");
        let hint = if KEYS.contains(&shown.as_str()) {
            " (the other keys belong on the type)"
        } else {
            ""
        };
        cx.error_spanned_by(
            path,
            format!(
                "unknown key `{shown}` in `#[payload(...)]` on a variant; expected `check`{hint}"
            ),
        );
        skip_value(meta)
    }
}

/// Everything `#[payload(...)]` on a field said: only `format(...)` belongs there.
#[derive(Default)]
pub struct Field {
    /// `format(...)`: the field's `x-format` options.
    pub format: Options,
    /// `complete_only`: in a partial form, the member is absent until its value is
    /// whole, read by serde (for a foreign type with no partial form of its own).
    pub complete_only: Option<Path>,
    /// `stream(not_null)`: in a partial form, the struct holding the member is held
    /// back (`None`) while it is still arriving and the member has no value yet.
    pub not_null: Option<Path>,
}

impl Field {
    /// Parses every `#[payload(...)]` among a field's `attrs`.
    pub fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> Field {
        let mut field = Field::default();
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("payload")) {
            let parsed = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("format") {
                    return format_attr::parse(cx, &meta, Level::Field, &mut field.format);
                }
                if meta.path.is_ident("complete_only") {
                    set(cx, &mut field.complete_only, &meta.path, meta.path.clone());
                    return Ok(());
                }
                if meta.path.is_ident("stream") {
                    return meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("not_null") {
                            set(cx, &mut field.not_null, &inner.path, inner.path.clone());
                            return Ok(());
                        }
                        let shown = inner.path.to_token_stream().to_string().replace(' ', "");
                        let hint = if shown == "done" {
                            "; a member that must arrive whole is `#[payload(complete_only)]`"
                        } else {
                            ""
                        };
                        cx.error_spanned_by(
                            &inner.path,
                            format!(
                                "unknown key `{shown}` in `#[payload(stream(...))]`; \
                                 expected `not_null`{hint}"
                            ),
                        );
                        skip_value(&inner)
                    });
                }
                let shown = meta.path.to_token_stream().to_string().replace(' ', "");
                cx.error_spanned_by(
                    &meta.path,
                    format!(
                        "`{shown}` belongs on the type or on a variant, not on a field; \
                         a field takes only `#[payload(format(...))]`, \
                         `#[payload(complete_only)]` and `#[payload(stream(not_null))]`"
                    ),
                );
                skip_value(&meta)
            });
            if let Err(error) = parsed {
                cx.syn_error(error);
            }
        }
        field
    }
}

/// Stores `value` unless the key was given before, which is an error on the second one.
fn set<T>(cx: &Ctxt, slot: &mut Option<T>, key: &Path, value: T) {
    if slot.is_some() {
        let shown = key.to_token_stream().to_string();
        cx.error_spanned_by(
            key,
            format!("duplicate key `{shown}` in `#[payload(...)]`; give it once"),
        );
    } else {
        *slot = Some(value);
    }
}

/// Consumes whatever follows an unusable key, up to the next `,`, so parsing can go on.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

/// Looks through the invisible groups that `macro_rules!` wraps around fragments.
fn ungroup(mut expr: &Expr) -> &Expr {
    while let Expr::Group(group) = expr {
        expr = &group.expr;
    }
    expr
}

fn as_lit_str(expr: &Expr) -> Option<&LitStr> {
    match ungroup(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Some(lit),
        _ => None,
    }
}

/// `key = "..."`.
fn string_value(cx: &Ctxt, meta: &ParseNestedMeta, syntax: &str) -> syn::Result<Option<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
    match as_lit_str(&expr) {
        Some(lit) => Ok(Some(lit.clone())),
        None => {
            cx.error_spanned_by(&expr, format!("expected a string literal: `{syntax}`"));
            Ok(None)
        }
    }
}

/// `key = "a::path"`, as serde's `crate = "..."`.
fn string_path_value(cx: &Ctxt, meta: &ParseNestedMeta, syntax: &str) -> syn::Result<Option<Path>> {
    let Some(lit) = string_value(cx, meta, syntax)? else {
        return Ok(None);
    };
    match lit.parse::<Path>() {
        Ok(path) => Ok(Some(path)),
        Err(_) => {
            cx.error_spanned_by(&lit, format!("expected a path in the string: `{syntax}`"));
            Ok(None)
        }
    }
}

/// `key = path::to_fn`.
fn path_value(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    syntax: &str,
    signature: &str,
) -> syn::Result<Option<ExprPath>> {
    let expr: Expr = meta.value()?.parse()?;
    if let Some(lit) = as_lit_str(&expr) {
        let key = syntax.split(' ').next().unwrap_or_default();
        cx.error_spanned_by(
            lit,
            format!(
                "expected the path of a `{signature}`, not a string: write `{key} = {}`",
                lit.value()
            ),
        );
        return Ok(None);
    }
    match ungroup(&expr) {
        Expr::Path(path) => Ok(Some(path.clone())),
        _ => {
            cx.error_spanned_by(
                &expr,
                format!("expected the path of a `{signature}`: `{syntax}`"),
            );
            Ok(None)
        }
    }
}

/// `summary = "template"` or `summary = path::to_fn`.
fn summary_value(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Summary>> {
    let expr: Expr = meta.value()?.parse()?;
    if let Some(lit) = as_lit_str(&expr) {
        if let Some(problem) = template_problem(&lit.value()) {
            cx.error_spanned_by(lit, format!("{problem} in `summary = \"...\"`"));
        }
        return Ok(Some(Summary::Template(lit.clone())));
    }
    match ungroup(&expr) {
        Expr::Path(path) => Ok(Some(Summary::Function(path.clone()))),
        _ => {
            cx.error_spanned_by(
                &expr,
                "expected a template string or the path of a `fn(&Self) -> String`: \
                 `summary = \"{field} ...\"` or `summary = path::to_fn`",
            );
            Ok(None)
        }
    }
}

/// `pages("a", "b")`.
fn pages_value(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Pages>> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(
            &meta.path,
            "expected a list of page names: `pages(\"page\", ...)`",
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let entries = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    if entries.is_empty() {
        cx.error_spanned_by(
            &meta.path,
            "empty `pages()`: name at least one page, as in `pages(\"home\")`, \
             or write `register` to register the type without pages",
        );
        return Ok(None);
    }
    let mut names: Vec<LitStr> = Vec::with_capacity(entries.len());
    for entry in &entries {
        let Some(lit) = as_lit_str(entry) else {
            cx.error_spanned_by(
                entry,
                "expected a page name as a string literal: `pages(\"home\", \"settings\")`",
            );
            continue;
        };
        let value = lit.value();
        if value.trim().is_empty() {
            cx.error_spanned_by(lit, "empty page name in `pages(...)`");
        } else if names.iter().any(|seen| seen.value() == value) {
            cx.error_spanned_by(lit, format!("duplicate page `{value}` in `pages(...)`"));
        } else {
            names.push(lit.clone());
        }
    }
    Ok(Some(Pages { names }))
}

/// Whether `name` is a payload name: `[a-z][a-z0-9_]*`, the rule payload-core's
/// runtime types hold too (`runtime_check::is_name`; a type named either way is named
/// the same, and `tests/all/runtime_types.rs` and this crate's compile-fail cases
/// check both sides).
pub fn is_valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether `marker` is a marker: `[A-Z][A-Z0-9_]*`.
pub fn is_valid_marker(marker: &str) -> bool {
    let mut bytes = marker.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z'))
        && bytes.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether `tag` names a tag pair (payload-core's rule, docs/spec.md §1.21): an ASCII
/// letter, then ASCII letters, digits, `-` and `_`, at most 64 bytes, and not one of
/// the tags models write their reasoning in.
pub fn is_valid_tag(tag: &str) -> bool {
    let mut bytes = tag.bytes();
    // The tags models write their reasoning in are cut out before blocks are read.
    !["think", "thinking", "reasoning"].contains(&tag.to_ascii_lowercase().as_str())
        && tag.len() <= 64
        && matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn check_tag(cx: &Ctxt, lit: &LitStr) {
    let tag = lit.value();
    if !is_valid_tag(&tag) {
        cx.error_spanned_by(
            lit,
            format!(
                "bad tag {tag:?} in `tag = \"...\"`: a tag is its name alone, without `<` \
                 or `>`: an ASCII letter, then letters, digits, `-` and `_` (at most 64), \
                 and not a reasoning tag (think, thinking, reasoning)"
            ),
        );
    }
}

fn check_name(cx: &Ctxt, lit: &LitStr) {
    let name = lit.value();
    if !is_valid_name(&name) {
        cx.error_spanned_by(
            lit,
            format!(
                "bad name {name:?} in `name = \"...\"`: a payload name is snake_case: \
                 a lowercase letter, then only lowercase letters, digits and `_`"
            ),
        );
    }
}

/// The payload kinds `kind = "..."` takes (payload-core's `PayloadKind`).
pub const KINDS: &[&str] = &["proposal", "command", "display"];

fn check_kind(cx: &Ctxt, lit: &LitStr) {
    let kind = lit.value();
    if !KINDS.contains(&kind.as_str()) {
        cx.error_spanned_by(
            lit,
            format!(
                "unknown payload kind `kind = {kind:?}`: write one of {}",
                KINDS
                    .iter()
                    .map(|k| format!("\"{k}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
}

fn check_marker(cx: &Ctxt, lit: &LitStr) {
    let marker = lit.value();
    if !is_valid_marker(&marker) {
        cx.error_spanned_by(
            lit,
            format!(
                "bad marker characters in `marker = {marker:?}`: a marker is an uppercase \
                 letter followed by uppercase letters, digits and `_` ([A-Z][A-Z0-9_]*)"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(item: &str) -> (Container, Vec<String>) {
        let input: syn::DeriveInput = syn::parse_str(item).unwrap();
        let cx = Ctxt::new();
        let container = Container::from_attrs(&cx, &input.attrs);
        let errors = match cx.check() {
            Ok(()) => Vec::new(),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        };
        (container, errors)
    }

    #[test]
    fn every_key_is_read() {
        let (c, errors) = parse(
            r#"#[payload(name = "schema_proposal", marker = "SCHEMA_PROPOSAL",
                pages("tables", "chat"), example = examples::create_jobs,
                check = rules::check, rule = "one", rule = "two",
                summary = "{mode} {table_name}", description = "d",
                crate = "my::core", registry = "my::registry")]
            struct SchemaProposal;"#,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(c.name.unwrap().value(), "schema_proposal");
        assert_eq!(c.marker.unwrap().value(), "SCHEMA_PROPOSAL");
        let pages: Vec<String> = c.pages.unwrap().names.iter().map(LitStr::value).collect();
        assert_eq!(pages, ["tables", "chat"]);
        let rules: Vec<String> = c.rules.iter().map(LitStr::value).collect();
        assert_eq!(rules, ["one", "two"]);
        assert!(matches!(c.summary, Some(Summary::Template(_))));
        assert!(c.example.is_some() && c.check.is_some() && c.krate.is_some());
    }

    #[test]
    fn every_error_is_reported_and_parsing_goes_on() {
        let (c, errors) = parse(
            r#"#[payload(nmae = "x", marker = "bad-marker", name = "Bad", pages(),
                summary = 5, marker = "OK", register = true, rule = "kept")]
            struct A;"#,
        );
        assert_eq!(errors.len(), 7, "{errors:?}");
        assert!(errors[0].starts_with("unknown key `nmae`"), "{}", errors[0]);
        assert!(
            errors[1].starts_with("bad marker characters"),
            "{}",
            errors[1]
        );
        assert!(errors[2].starts_with("bad name \"Bad\""), "{}", errors[2]);
        assert!(errors[3].starts_with("empty `pages()`"), "{}", errors[3]);
        assert!(
            errors[4].starts_with("expected a template string"),
            "{}",
            errors[4]
        );
        assert!(
            errors[5].starts_with("duplicate key `marker`"),
            "{}",
            errors[5]
        );
        assert!(
            errors[6].starts_with("`register` is a flag"),
            "{}",
            errors[6]
        );
        assert_eq!(c.rules.len(), 1);
    }

    #[test]
    fn summary_templates_are_checked_for_braces() {
        assert_eq!(
            template_problem("{mode} {table_name}: {operations.len} ops"),
            None
        );
        assert_eq!(template_problem("literal {{braces}} and {x}"), None);
        let unclosed = template_problem("{mode} {table_name").unwrap();
        assert!(unclosed.starts_with("unclosed `{`"), "{unclosed}");
        let empty = template_problem("count: {}").unwrap();
        assert!(empty.starts_with("bad placeholder `{}`"), "{empty}");
        let nested = template_problem("{a {b}").unwrap();
        assert!(nested.starts_with("bad placeholder `{a {b}`"), "{nested}");
    }

    #[test]
    fn names_and_markers_follow_their_alphabets() {
        assert!(is_valid_name("schema_proposal") && is_valid_name("v2"));
        assert!(!is_valid_name("") && !is_valid_name("Schema") && !is_valid_name("a-b"));
        assert!(!is_valid_name("2x") && !is_valid_name("_x"));
        assert!(is_valid_marker("SCHEMA_PROPOSAL") && is_valid_marker("A1"));
        assert!(!is_valid_marker("") && !is_valid_marker("_A") && !is_valid_marker("1A"));
        assert!(!is_valid_marker("Schema") && !is_valid_marker("A B"));
    }
}
