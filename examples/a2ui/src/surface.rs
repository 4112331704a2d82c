//! The surface rules A2UI defines (`specification/v0_9/docs/a2ui_protocol.md`,
//! "updateComponents"; v0.8 alike), applied to the messages an answer carries, in
//! either version ([`Message`]):
//!
//! - components arrive as a flat list in any order, linked by id; a surface's tree
//!   grows from its root (v0.9: the component with id `root`; v0.8: the one its
//!   `beginRendering` names), and until the root exists nothing shows;
//! - what shows is what is reachable from the root: a component no path from the root
//!   reaches (an orphan) is kept, but not shown;
//! - a child named but not yet defined is shown as a placeholder (a `Row` with no
//!   children, id `loading_<child>`, as A2UI's SDKs draw it) until it arrives;
//! - a component that contains itself, directly or through others, is refused: a
//!   tree cannot be drawn from it.
//!
//! [`Surfaces::ready`] says, message by message, what a client may be sent, in one of
//! two ways ([`Delivery`]): a surface's start at once; then either its components
//! once its surface's tree from the root is whole (no child missing), or, as A2UI's
//! SDKs stream, the tree from the root each time it grows, with placeholders for what
//! is still missing. Either way it holds only the reachable components, sorted by id
//! as A2UI's SDKs send them.

use crate::catalog::Catalog;
use crate::message::Component;
use crate::protocol::{Message, Protocol};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fmt;

/// The id of a v0.9 surface's root component (and of a v0.8 surface's when no
/// `beginRendering` named another).
pub const ROOT: &str = "root";

/// Why a surface's components cannot form a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SurfaceError {
    /// A component names itself as its child.
    SelfReference {
        /// The component.
        id: String,
    },
    /// Components contain each other: the ids along the cycle, first repeated last.
    Circular {
        /// The cycle.
        cycle: Vec<String>,
    },
    /// A component the client's catalog cannot draw ([`crate::Catalog`]).
    Catalog {
        /// The component's id.
        id: String,
        /// Its type.
        component: String,
        /// Why, in the catalog schema's words.
        reasons: Vec<String>,
    },
}

impl fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurfaceError::SelfReference { id } => write!(
                f,
                "Self-reference detected: component '{id}' names itself as its child"
            ),
            SurfaceError::Circular { cycle } => {
                write!(f, "Circular reference detected: {}", cycle.join(" -> "))
            }
            SurfaceError::Catalog {
                id,
                component,
                reasons,
            } => write!(
                f,
                "Validation failed: component '{id}' ({component}): {}",
                reasons.join("; ")
            ),
        }
    }
}

impl std::error::Error for SurfaceError {}

/// One surface: its root, its components by id, in the order they first arrived.
#[derive(Debug, Clone)]
pub struct Surface {
    root: String,
    components: Vec<Component>,
    index: HashMap<String, usize>,
}

impl Default for Surface {
    fn default() -> Surface {
        Surface::with_root(ROOT)
    }
}

/// The part of a surface that can be drawn now.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree<'a> {
    /// The components reachable from the root, in arrival order.
    pub components: Vec<&'a Component>,
    /// Children named on the way that are not defined yet, in the order met.
    pub missing: Vec<String>,
}

impl Surface {
    /// An empty surface whose tree grows from `root`.
    pub fn with_root(root: &str) -> Surface {
        Surface {
            root: root.to_string(),
            components: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// The id of the component its tree grows from.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Adds or replaces components (a component sent again replaces the one with its
    /// id), then refuses the surface when its components contain themselves.
    pub fn update(&mut self, components: &[Component]) -> Result<(), SurfaceError> {
        for component in components {
            match self.index.get(&component.id) {
                Some(&at) => self.components[at] = component.clone(),
                None => {
                    self.index
                        .insert(component.id.clone(), self.components.len());
                    self.components.push(component.clone());
                }
            }
        }
        self.check_cycles()
    }

    /// A component by id.
    pub fn get(&self, id: &str) -> Option<&Component> {
        self.index.get(id).map(|&at| &self.components[at])
    }

    /// The tree from the root, when the root is defined.
    pub fn tree(&self) -> Option<Tree<'_>> {
        self.get(&self.root)?;
        let mut seen = vec![false; self.components.len()];
        let mut missing = Vec::new();
        // Depth-first from the root; the cycle check guarantees it ends, and `seen`
        // that a component shared by two parents is visited once.
        let mut stack = vec![self.root.clone()];
        while let Some(id) = stack.pop() {
            match self.index.get(&id) {
                Some(&at) if !seen[at] => {
                    seen[at] = true;
                    let children = self.components[at].children();
                    stack.extend(children.into_iter().rev().map(str::to_string));
                }
                Some(_) => {}
                None if !missing.contains(&id) => missing.push(id),
                None => {}
            }
        }
        let components = self
            .components
            .iter()
            .zip(&seen)
            .filter_map(|(c, &reached)| reached.then_some(c))
            .collect();
        Some(Tree {
            components,
            missing,
        })
    }

    /// What a client draws while the answer still arrives: the components reachable
    /// from the root, sorted by id, then a placeholder (`loading_<id>`, a `Row` with no
    /// children) for each missing child, which the child takes the place of when it
    /// arrives. Empty until the root exists.
    pub fn preview(&self) -> Vec<Component> {
        self.view(&[], Protocol::V09)
    }

    /// [`Surface::preview`], where each component named in `open_lists` whose
    /// `children` list is still arriving and holds no id yet shows one placeholder for
    /// the whole list (`loading_children_<id>`, as A2UI's SDKs draw it). Placeholders
    /// come in the order the sorted components name them.
    pub(crate) fn view(&self, open_lists: &[String], protocol: Protocol) -> Vec<Component> {
        let Some(tree) = self.tree() else {
            return Vec::new();
        };
        let mut reachable: Vec<&Component> = tree.components;
        reachable.sort_by(|a, b| a.id.cmp(&b.id));
        let mut placeholders: Vec<Component> = Vec::new();
        let mut out: Vec<Component> = Vec::with_capacity(reachable.len());
        for component in reachable {
            let mut shown = component.clone();
            shown.rename_children(&mut |id| {
                if tree.missing.contains(id) {
                    *id = placeholder_id(id);
                    push_placeholder(&mut placeholders, id.clone(), protocol);
                }
            });
            if open_lists.contains(&component.id)
                && let Some(ids) = empty_id_list(&mut shown)
            {
                let id = format!("loading_children_{}", component.id);
                ids.push(json!(id));
                push_placeholder(&mut placeholders, id, protocol);
            }
            out.push(shown);
        }
        out.extend(placeholders);
        out
    }

    /// Refuses a component that contains itself: a self-reference, or a cycle through
    /// others (an iterative depth-first walk with three colours, linear in the
    /// components and references).
    fn check_cycles(&self) -> Result<(), SurfaceError> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        for component in &self.components {
            if component.children().contains(&component.id.as_str()) {
                return Err(SurfaceError::SelfReference {
                    id: component.id.clone(),
                });
            }
        }
        let mut marks = vec![Mark::New; self.components.len()];
        for start in 0..self.components.len() {
            if marks[start] != Mark::New {
                continue;
            }
            // (component, index of its next child to visit)
            let mut path: Vec<(usize, usize)> = vec![(start, 0)];
            marks[start] = Mark::Open;
            while let Some(&mut (at, ref mut next)) = path.last_mut() {
                let children = self.components[at].children();
                let Some(child) = children.get(*next) else {
                    marks[at] = Mark::Done;
                    path.pop();
                    continue;
                };
                *next += 1;
                let Some(&child) = self.index.get(*child) else {
                    continue;
                };
                match marks[child] {
                    Mark::New => {
                        marks[child] = Mark::Open;
                        path.push((child, 0));
                    }
                    Mark::Open => {
                        let from = path.iter().position(|&(c, _)| c == child).unwrap_or(0);
                        let mut cycle: Vec<String> = path[from..]
                            .iter()
                            .map(|&(c, _)| self.components[c].id.clone())
                            .collect();
                        cycle.push(self.components[child].id.clone());
                        return Err(SurfaceError::Circular { cycle });
                    }
                    Mark::Done => {}
                }
            }
        }
        Ok(())
    }
}

/// The placeholder id of a missing child.
pub fn placeholder_id(id: &str) -> String {
    format!("loading_{id}")
}

/// Adds the placeholder component `id` once.
fn push_placeholder(placeholders: &mut Vec<Component>, id: String, protocol: Protocol) {
    if placeholders.iter().all(|p| p.id != id) {
        placeholders.push(protocol.placeholder(id));
    }
}

/// The component's `children` list of ids when it is empty (a v0.9 list, or v0.8's
/// `explicitList`).
fn empty_id_list(component: &mut Component) -> Option<&mut Vec<Value>> {
    let ids = match component.properties.get_mut("children")? {
        Value::Array(ids) => ids,
        Value::Object(map) => map.get_mut("explicitList")?.as_array_mut()?,
        _ => return None,
    };
    ids.is_empty().then_some(ids)
}

/// How component updates are handed on ([`Surfaces::ready`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Delivery {
    /// A surface's components once its tree from the root is whole: a client is never
    /// sent a placeholder or a component still being written.
    #[default]
    Whole,
    /// As A2UI's SDKs stream: each time a surface's tree from the root changes, the
    /// reachable components with a placeholder for each child still missing (a client
    /// replaces components by id, so each update supersedes the one before). A stream
    /// in this mode also sends components and data still being written
    /// ([`crate::A2uiStream::progressive`]).
    Progressive,
}

/// Every surface an answer (or a conversation) has touched, by id.
#[derive(Debug, Clone, Default)]
pub struct Surfaces {
    /// How component updates are handed on.
    delivery: Delivery,
    /// What the client can draw, when known.
    catalog: Option<Catalog>,
    /// The tree last sent for each surface ([`Delivery::Progressive`]), so an update
    /// that changes nothing is not sent again.
    sent: HashMap<String, Vec<Component>>,
    surfaces: HashMap<String, Surface>,
    /// Surfaces created (by a `createSurface` seen here, or [`Surfaces::created`]).
    created: Vec<String>,
    /// Messages for surfaces not created yet, in arrival order.
    early: Vec<Message>,
    /// Surfaces whose last `updateComponents` waits for its tree to be whole.
    waiting: Vec<String>,
}

impl Surfaces {
    /// Surfaces a conversation created in earlier turns (their trees grow from
    /// `root`; a v0.8 surface that named another root: [`Surfaces::started`]).
    pub fn created(ids: impl IntoIterator<Item = String>) -> Surfaces {
        Surfaces::started(ids.into_iter().map(|id| (id, ROOT.to_string())))
    }

    /// Surfaces a conversation started in earlier turns, each with its root.
    pub fn started(surfaces: impl IntoIterator<Item = (String, String)>) -> Surfaces {
        let mut out = Surfaces::default();
        for (id, root) in surfaces {
            out.surfaces.insert(id.clone(), Surface::with_root(&root));
            out.created.push(id);
        }
        out
    }

    /// The same surfaces, handing component updates on as `delivery` says.
    pub fn with_delivery(mut self, delivery: Delivery) -> Surfaces {
        self.delivery = delivery;
        self
    }

    /// How component updates are handed on.
    pub fn delivery(&self) -> Delivery {
        self.delivery
    }

    /// The same surfaces, sending only what `catalog` can draw ([`crate::catalog`]).
    pub fn with_catalog(mut self, catalog: Catalog) -> Surfaces {
        self.catalog = Some(catalog);
        self
    }

    /// A surface by id.
    pub fn get(&self, id: &str) -> Option<&Surface> {
        self.surfaces.get(id)
    }

    /// Applies `message` to its surface, in whatever order messages come; refuses
    /// components that contain themselves. A v0.8 component that does not hold exactly
    /// one type is left out (its block's check refuses it).
    pub fn apply(&mut self, message: &Message) -> Result<(), SurfaceError> {
        let Some(surface_id) = message.surface_id() else {
            return Ok(());
        };
        if let Some(root) = message.starts_surface() {
            let surface = self
                .surfaces
                .entry(surface_id.to_string())
                .or_insert_with(|| Surface::with_root(root));
            surface.root = root.to_string();
        }
        if let Some(components) = message.components() {
            let components: Vec<Component> = components.unwrap_or_default();
            self.surfaces
                .entry(surface_id.to_string())
                .or_default()
                .update(&components)?;
        }
        if message.deletes_surface() {
            self.surfaces.remove(surface_id);
            self.sent.remove(surface_id);
            self.waiting.retain(|s| s != surface_id);
        }
        Ok(())
    }

    /// Takes `message` and returns what a client may be sent now, in protocol order
    /// (module docs): components and deletions for a surface not started yet wait for
    /// its start (`createSurface`, `beginRendering`; a deletion that came first deleted
    /// nothing and is dropped); a start is sent at once, followed by what waited for
    /// it; components are sent, cut to the tree reachable from the root, once the
    /// surface's tree is whole, and a surface that waited is sent once a later message
    /// makes its tree whole (with [`Delivery::Progressive`]: whenever the tree from the
    /// root changes, with placeholders); data and deletions are sent as they are. What
    /// is sent is written in the message's version.
    pub fn ready(&mut self, message: &Message) -> Result<Vec<Message>, SurfaceError> {
        let mut out = Vec::new();
        self.take(message, &mut out)?;
        Ok(out)
    }

    fn take(&mut self, message: &Message, out: &mut Vec<Message>) -> Result<(), SurfaceError> {
        let Some(surface_id) = message.surface_id().map(str::to_string) else {
            return Ok(());
        };
        let protocol = message.protocol();
        if let (Some(catalog), Some(Ok(components))) = (&self.catalog, message.components()) {
            for component in &components {
                let reasons = catalog.check(protocol, component);
                if !reasons.is_empty() {
                    return Err(SurfaceError::Catalog {
                        id: component.id.clone(),
                        component: component.component.clone(),
                        reasons,
                    });
                }
            }
        }
        if message.starts_surface().is_some() {
            self.apply(message)?;
            if !self.created.contains(&surface_id) {
                self.created.push(surface_id.clone());
            }
            out.push(message.clone());
            let (early, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.early)
                .into_iter()
                .partition(|m| m.surface_id() == Some(surface_id.as_str()));
            self.early = later;
            for waited in early.iter().filter(|m| !m.deletes_surface()) {
                self.take(waited, out)?;
            }
            return Ok(());
        }
        // Components and deletions wait for their surface; data is sent as it comes
        // (A2UI's SDKs do: a client keeps data for a surface it is about to be told
        // of).
        if !self.created.contains(&surface_id) && !message.sets_data() {
            self.early.push(message.clone());
            return Ok(());
        }
        self.apply(message)?;
        if message.deletes_surface() {
            self.created.retain(|s| *s != surface_id);
        }
        if message.components().is_none() {
            out.push(message.clone());
            return Ok(());
        }
        if self.delivery == Delivery::Progressive {
            out.extend(self.changed_view(protocol, &surface_id, &[], &[])?);
            return Ok(());
        }
        if !self.waiting.contains(&surface_id) {
            self.waiting.push(surface_id);
        }
        let mut still = Vec::new();
        for surface_id in std::mem::take(&mut self.waiting) {
            match self.whole_tree(&surface_id) {
                Some(components) => out.push(protocol.components_update(surface_id, components)),
                None => still.push(surface_id),
            }
        }
        self.waiting = still;
        Ok(())
    }

    /// The components update a progressive client is sent for `surface_id` with
    /// `partial` (components of a message still arriving) laid over it: the surface's
    /// view ([`Surface::view`]) when it differs from the one last sent; nothing for a
    /// surface not started, or with no root yet. Components that contain themselves are
    /// refused, as in a complete message.
    pub(crate) fn changed_view(
        &mut self,
        protocol: Protocol,
        surface_id: &str,
        partial: &[Component],
        open_lists: &[String],
    ) -> Result<Option<Message>, SurfaceError> {
        if !self.created.iter().any(|s| s == surface_id) {
            return Ok(None);
        }
        let view = match (self.surfaces.get(surface_id), partial.is_empty()) {
            (Some(surface), true) => surface.view(open_lists, protocol),
            (surface, _) => {
                let mut laid = surface.cloned().unwrap_or_default();
                laid.update(partial)?;
                laid.view(open_lists, protocol)
            }
        };
        if view.is_empty() || self.sent.get(surface_id) == Some(&view) {
            return Ok(None);
        }
        // A tree the client cannot draw yet waits, as A2UI's SDKs hold back an update
        // that fails the catalog while the answer arrives.
        if let Some(catalog) = &self.catalog
            && view.iter().any(|c| !catalog.check(protocol, c).is_empty())
        {
            return Ok(None);
        }
        self.sent.insert(surface_id.to_string(), view.clone());
        Ok(Some(
            protocol.components_update(surface_id.to_string(), view),
        ))
    }

    /// The reachable components of a surface whose tree from the root is whole, sorted
    /// by id as A2UI's SDKs send them (a flat list's order carries no meaning: the ids
    /// link it).
    fn whole_tree(&self, surface_id: &str) -> Option<Vec<Component>> {
        let tree = self.surfaces.get(surface_id)?.tree()?;
        if !tree.missing.is_empty() {
            return None;
        }
        let mut components: Vec<Component> = tree.components.into_iter().cloned().collect();
        components.sort_by(|a, b| a.id.cmp(&b.id));
        Some(components)
    }
}
