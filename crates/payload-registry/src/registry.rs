//! The registry: everything linked into the program, indexed, checked, and with one
//! compiled parser per page.

use crate::entry::{PayloadEntry, Role};
use crate::page::{GlobalAction, Page};
use payload_core::{CustomPayload, ParsedResponse, PayloadType, suggestions::ActionSpec};
use payload_core::{ParseOptions, Parser};
use payload_core::{suggestions::SUGGESTED_ACTIONS_MARKER, suggestions::SUGGESTED_VALUES_MARKER};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

/// Every payload type, page and global action linked into the program.
pub struct Registry {
    types: Vec<PayloadEntry>,
    pages: BTreeMap<&'static str, PageInfo>,
    global_actions: Vec<ActionSpec>,
    /// Page names registered more than once (the index keeps the first).
    duplicate_pages: Vec<&'static str>,
}

/// A registered page with everything derived from the registrations.
pub struct PageInfo {
    /// The page as registered.
    pub page: Page,
    /// Custom payload types offered: the page's own list, then types that name the page.
    pub payloads: Vec<PayloadType>,
    /// Actions the model may suggest: the page's, then the global ones.
    pub actions: Vec<ActionSpec>,
    options: ParseOptions,
    parser: Parser,
}

impl PageInfo {
    /// The page's compiled marker parser.
    pub fn parser(&self) -> &Parser {
        &self.parser
    }

    /// What the page's parser is built from: its payload types, the registered types it
    /// does not offer, its actions and the global ones, its suggestions and its
    /// combination rule.
    pub fn options(&self) -> &ParseOptions {
        &self.options
    }
}

impl fmt::Debug for PageInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageInfo")
            .field("name", &self.page.name)
            .field("payloads", &self.payloads)
            .field("actions", &self.actions)
            .finish_non_exhaustive()
    }
}

/// No page of that name is registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPage {
    /// The name asked for.
    pub name: String,
    /// The registered page names.
    pub known: Vec<&'static str>,
}

impl fmt::Display for UnknownPage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown page '{}' (registered pages: {})",
            self.name,
            if self.known.is_empty() {
                "none".to_string()
            } else {
                self.known.join(", ")
            }
        )
    }
}

impl std::error::Error for UnknownPage {}

/// A registration that conflicts with another, or names something not registered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two payload types share one marker, so a block could not say which it is.
    SharedMarker {
        /// The type registered first.
        first: &'static str,
        /// The type registered second.
        second: &'static str,
        /// The marker both use.
        marker: &'static str,
    },
    /// Two payload types are written in one tag (docs/spec.md §1.21), so a block could
    /// not say which it is.
    SharedTag {
        /// The type registered first.
        first: &'static str,
        /// The type registered second.
        second: &'static str,
        /// The tag both use.
        tag: &'static str,
    },
    /// A custom payload type uses a marker reserved for suggestions.
    ReservedMarker {
        /// The type.
        name: &'static str,
        /// The reserved marker.
        marker: &'static str,
    },
    /// A payload type names a page that is not registered.
    UnknownPage {
        /// The type.
        name: &'static str,
        /// The page it names.
        page: &'static str,
    },
    /// More than one payload type is registered under one name.
    SharedName {
        /// The name.
        name: &'static str,
        /// How many types use it.
        count: usize,
    },
    /// A page is registered more than once.
    DuplicatePage {
        /// The page.
        name: &'static str,
    },
    /// A page offers a payload type that is not registered.
    UnregisteredType {
        /// The page.
        page: &'static str,
        /// The type it offers.
        name: &'static str,
    },
    /// A global action is registered twice.
    DuplicateGlobalAction {
        /// The action.
        action: &'static str,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::SharedMarker {
                first,
                second,
                marker,
            } => write!(
                f,
                "payload types '{first}' and '{second}' share the marker {marker}"
            ),
            RegistryError::SharedTag { first, second, tag } => {
                write!(
                    f,
                    "payload types '{first}' and '{second}' share the tag <{tag}>"
                )
            }
            RegistryError::ReservedMarker { name, marker } => {
                write!(f, "payload type '{name}' uses the reserved marker {marker}")
            }
            RegistryError::UnknownPage { name, page } => write!(
                f,
                "payload type '{name}' names page '{page}', which is not registered"
            ),
            RegistryError::SharedName { name, count } => write!(
                f,
                "{count} payload types are registered under the name '{name}'"
            ),
            RegistryError::DuplicatePage { name } => {
                write!(f, "the page '{name}' is registered more than once")
            }
            RegistryError::UnregisteredType { page, name } => write!(
                f,
                "page '{page}' offers payload type '{name}', which is not registered \
                 (add #[payload(register)] to it)"
            ),
            RegistryError::DuplicateGlobalAction { action } => {
                write!(f, "the global action '{action}' is registered twice")
            }
        }
    }
}

impl std::error::Error for RegistryError {}

impl Registry {
    /// The registry of everything linked into this program, built and checked on
    /// first use.
    ///
    /// # Panics
    ///
    /// On first use, when the registrations linked in conflict ([`Registry::check`]:
    /// two types with one marker, a page offering an unregistered type, ...). That is
    /// a mistake in the program, not in its input, and a registry that half works
    /// would let it go unnoticed; the message lists every conflict. A program that
    /// wants to handle them builds its registry with [`Registry::from_parts`] and
    /// calls [`Registry::check`] itself.
    pub fn global() -> &'static Registry {
        static GLOBAL: OnceLock<Registry> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            let registry = Registry::linked_with(Vec::new());
            if let Err(errors) = registry.check() {
                let list: Vec<String> = errors.iter().map(|e| format!("- {e}")).collect();
                panic!(
                    "the payload registrations linked into this program conflict:\n{}",
                    list.join("\n")
                );
            }
            registry
        })
    }

    /// Everything linked into the program (as [`Registry::global`] holds it) plus
    /// `types`: the way to put a type known only at run time
    /// (`PayloadType::from_schema`, which is not `const` and so cannot be in a
    /// [`Page::payloads`] list or registered at link time) on registered pages. Each
    /// entry names its pages, as `#[payload(pages(...))]` does for a derived type:
    ///
    /// ```standalone_crate
    /// use payload_core::{PayloadType, runtime::RuntimeOptions};
    /// use payload_registry::{Page, PayloadEntry, Registry};
    ///
    /// payload_registry::register_page!(Page::new("support"));
    ///
    /// # fn main() {
    /// let schema = serde_json::json!({
    ///     "title": "Ticket",
    ///     "description": "A support ticket to open.",
    ///     "type": "object",
    ///     "properties": {"subject": {"type": "string"}},
    ///     "required": ["subject"]
    /// });
    /// let ticket = PayloadType::from_schema(&schema, RuntimeOptions::default()).unwrap();
    /// let registry = Registry::linked_with(vec![PayloadEntry::new(*ticket, &["support"])]);
    /// registry.check().expect("no conflicting registrations");
    /// let text = "Opened.\n\nTICKET: {\"subject\": \"Login fails\"}";
    /// let parsed = registry.parse_response("support", text).unwrap();
    /// assert_eq!(parsed.custom_payload.unwrap().data()["subject"], "Login fails");
    /// # }
    /// ```
    ///
    /// Unlike [`Registry::global`] it does not panic on conflicting registrations: call
    /// [`Registry::check`]. Build it once and keep it (each page's parser is compiled
    /// here).
    pub fn linked_with(types: Vec<PayloadEntry>) -> Registry {
        Registry::from_parts(
            inventory::iter::<PayloadEntry>
                .into_iter()
                .copied()
                .chain(types)
                .collect(),
            inventory::iter::<Page>.into_iter().copied().collect(),
            inventory::iter::<GlobalAction>
                .into_iter()
                .map(|a| a.0)
                .collect(),
        )
    }

    /// A registry of exactly these registrations (for tests and for apps that build
    /// their registry by hand, runtime types included: see [`Registry::linked_with`]). Conflicts are reported by [`Registry::check`]; lookups
    /// take the first of two conflicting entries.
    pub fn from_parts(
        mut types: Vec<PayloadEntry>,
        mut pages: Vec<Page>,
        mut global_actions: Vec<ActionSpec>,
    ) -> Registry {
        // inventory's order depends on the linker: sort for deterministic output.
        types.sort_by_key(|entry| entry.payload.name);
        pages.sort_by_key(|page| page.name);
        global_actions.sort_by_key(|action| action.action);
        let mut infos = BTreeMap::new();
        let mut duplicate_pages = Vec::new();
        for page in pages {
            if infos.contains_key(page.name) {
                duplicate_pages.push(page.name);
                continue;
            }
            let info = page_info(page, &types, &global_actions);
            infos.insert(page.name, info);
        }
        Registry {
            types,
            pages: infos,
            global_actions,
            duplicate_pages,
        }
    }

    /// Every registered payload type, by name.
    pub fn types(&self) -> impl Iterator<Item = &PayloadType> {
        self.types.iter().map(|entry| &entry.payload)
    }

    /// Every registration, with its role and declared pages.
    pub fn entries(&self) -> &[PayloadEntry] {
        &self.types
    }

    /// The registered type named `name`.
    pub fn payload_type(&self, name: &str) -> Option<&PayloadType> {
        self.types().find(|t| t.name == name)
    }

    /// Every registered page, by name.
    pub fn pages(&self) -> impl Iterator<Item = &PageInfo> {
        self.pages.values()
    }

    /// The page named `name`.
    pub fn page(&self, name: &str) -> Result<&PageInfo, UnknownPage> {
        self.pages.get(name).ok_or_else(|| UnknownPage {
            name: name.to_string(),
            known: self.pages.keys().copied().collect(),
        })
    }

    /// The actions offered on every page.
    pub fn global_actions(&self) -> &[ActionSpec] {
        &self.global_actions
    }

    /// The pages that offer the type named `name`.
    pub fn pages_offering(&self, name: &str) -> Vec<&'static str> {
        self.pages()
            .filter(|info| info.payloads.iter().any(|t| t.name == name))
            .map(|info| info.page.name)
            .collect()
    }

    /// Parses a response given on `page` (docs/spec.md §1).
    pub fn parse_response(&self, page: &str, text: &str) -> Result<ParsedResponse, UnknownPage> {
        Ok(self.page(page)?.parser.parse(text))
    }

    /// Parses a response and applies tool-payload precedence (docs/spec.md §1.10): the last
    /// payload a tool returned this turn wins over one parsed from the text.
    pub fn parse_turn(
        &self,
        page: &str,
        text: &str,
        tool_payloads: &[CustomPayload],
    ) -> Result<ParsedResponse, UnknownPage> {
        let mut parsed = self.parse_response(page, text)?;
        parsed.apply_tool_payloads(tool_payloads);
        Ok(parsed)
    }

    /// Every conflict among the registrations: two types with one name, one marker or
    /// one tag, a
    /// marker that is a suggestion marker, a type naming a page that does not exist,
    /// a page offering a type that is not registered, two pages or two global actions
    /// with one name. Apps call this from a test (the `payload` binary's tests do).
    pub fn check(&self) -> Result<(), Vec<RegistryError>> {
        let mut errors = Vec::new();
        let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
        let mut by_marker: BTreeMap<&str, &str> = BTreeMap::new();
        let mut by_tag: BTreeMap<&str, &str> = BTreeMap::new();
        for entry in &self.types {
            let t = entry.payload;
            *by_name.entry(t.name).or_default() += 1;
            if !t.tag.is_empty() {
                if let Some(other) = by_tag.insert(t.tag, t.name) {
                    if other != t.name {
                        errors.push(RegistryError::SharedTag {
                            first: other,
                            second: t.name,
                            tag: t.tag,
                        });
                    }
                }
            }
            if let Some(other) = by_marker.insert(t.marker, t.name) {
                if other != t.name {
                    errors.push(RegistryError::SharedMarker {
                        first: other,
                        second: t.name,
                        marker: t.marker,
                    });
                }
            }
            let reserved =
                t.marker == SUGGESTED_VALUES_MARKER || t.marker == SUGGESTED_ACTIONS_MARKER;
            if reserved && entry.role == Role::Custom {
                errors.push(RegistryError::ReservedMarker {
                    name: t.name,
                    marker: t.marker,
                });
            }
            for page in entry.pages {
                if !self.pages.contains_key(page) {
                    errors.push(RegistryError::UnknownPage { name: t.name, page });
                }
            }
        }
        for (name, count) in by_name {
            if count > 1 {
                errors.push(RegistryError::SharedName { name, count });
            }
        }
        for name in &self.duplicate_pages {
            errors.push(RegistryError::DuplicatePage { name });
        }
        for info in self.pages() {
            for t in info.page.payloads {
                if !self.types.iter().any(|e| e.payload == *t) {
                    errors.push(RegistryError::UnregisteredType {
                        page: info.page.name,
                        name: t.name,
                    });
                }
            }
        }
        for pair in self.global_actions.windows(2) {
            if pair[0].action == pair[1].action {
                errors.push(RegistryError::DuplicateGlobalAction {
                    action: pair[0].action,
                });
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

fn page_info(page: Page, types: &[PayloadEntry], global_actions: &[ActionSpec]) -> PageInfo {
    let mut payloads: Vec<PayloadType> = Vec::new();
    for t in page.payloads {
        if !payloads.contains(t) {
            payloads.push(*t);
        }
    }
    let custom = || types.iter().filter(|entry| entry.role == Role::Custom);
    for entry in custom() {
        if entry.pages.contains(&page.name) && !payloads.contains(&entry.payload) {
            payloads.push(entry.payload);
        }
    }
    let mut actions: Vec<ActionSpec> = page.actions.to_vec();
    for action in global_actions {
        if !actions.iter().any(|a| a.action == action.action) {
            actions.push(*action);
        }
    }
    let foreign = custom()
        .map(|entry| entry.payload)
        .filter(|t| !payloads.contains(t))
        .collect();
    let options = ParseOptions {
        payloads: payloads.clone(),
        foreign,
        actions: actions.clone(),
        suggestions: page.suggestions,
        combination: page.combination,
        payload_count: page.payload_count,
        // Which model answers is not the page's to say.
        reasoning_opened_by_prompt: false,
    };
    PageInfo {
        page,
        parser: Parser::new(&options),
        options,
        payloads,
        actions,
    }
}
