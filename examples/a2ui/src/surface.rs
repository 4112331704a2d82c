//! The surface rules A2UI v0.9 defines (`specification/v0_9/docs/a2ui_protocol.md`,
//! "updateComponents"), applied to the messages an answer carries:
//!
//! - components arrive as a flat list in any order, linked by id; a surface's tree
//!   grows from the component with id `root`, and until it exists nothing shows;
//! - what shows is what is reachable from the root: a component no path from the root
//!   reaches (an orphan) is kept, but not shown;
//! - a child named but not yet defined is shown as a placeholder (a `Row` with no
//!   children, id `loading_<child>`, as A2UI's SDK draws it) until it arrives;
//! - a component that contains itself, directly or through others, is refused: a
//!   tree cannot be drawn from it.
//!
//! [`Surfaces::ready`] says, message by message, what a client may be sent, in one of
//! two ways ([`Delivery`]): a `createSurface` at once; then either an `updateComponents`
//! once its surface's tree from the root is whole (no child missing), or, as A2UI's
//! SDKs stream, the tree from the root each time it grows, with placeholders for what
//! is still missing. Either way it holds only the reachable components, sorted by id
//! as A2UI's SDKs send them.

use crate::message::{Component, ServerMessage, UpdateComponents, Version};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt;

/// The id of every surface's root component.
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
        }
    }
}

impl std::error::Error for SurfaceError {}

/// One surface: its components by id, in the order they first arrived.
#[derive(Debug, Clone, Default)]
pub struct Surface {
    components: Vec<Component>,
    index: HashMap<String, usize>,
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
        self.get(ROOT)?;
        let mut seen = vec![false; self.components.len()];
        let mut missing = Vec::new();
        // Depth-first from the root; the cycle check guarantees it ends, and `seen`
        // that a component shared by two parents is visited once.
        let mut stack = vec![ROOT.to_string()];
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
        self.view(&[])
    }

    /// [`Surface::preview`], where each component named in `open_lists` whose
    /// `children` list is still arriving and holds no id yet shows one placeholder for
    /// the whole list (`loading_children_<id>`, as A2UI's SDKs draw it). Placeholders
    /// come in the order the sorted components name them.
    pub(crate) fn view(&self, open_lists: &[String]) -> Vec<Component> {
        let Some(tree) = self.tree() else {
            return Vec::new();
        };
        let mut reachable: Vec<&Component> = tree.components;
        reachable.sort_by(|a, b| a.id.cmp(&b.id));
        let mut placeholders: Vec<Component> = Vec::new();
        let mut out: Vec<Component> = Vec::with_capacity(reachable.len());
        for component in reachable {
            let mut shown = with_placeholders(component, &tree.missing);
            for id in component.children() {
                if tree.missing.iter().any(|m| m == id) {
                    push_placeholder(&mut placeholders, placeholder_id(id));
                }
            }
            let empty_open_list = open_lists.contains(&component.id)
                && matches!(shown.properties.get("children"), Some(Value::Array(ids)) if ids.is_empty());
            if empty_open_list {
                let id = format!("loading_children_{}", component.id);
                shown
                    .properties
                    .insert("children".to_string(), json!([id.clone()]));
                push_placeholder(&mut placeholders, id);
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
fn push_placeholder(placeholders: &mut Vec<Component>, id: String) {
    if placeholders.iter().all(|p| p.id != id) {
        placeholders.push(Component {
            id,
            component: "Row".to_string(),
            properties: Map::from_iter([("children".to_string(), json!([]))]),
        });
    }
}

/// `component` with each reference to a missing child pointing at its placeholder.
fn with_placeholders(component: &Component, missing: &[String]) -> Component {
    let mut out = component.clone();
    for (key, value) in out.properties.iter_mut() {
        if matches!(key.as_str(), "child" | "children" | "componentId") {
            replace_ids(value, missing);
        }
    }
    out
}

fn replace_ids(value: &mut Value, missing: &[String]) {
    match value {
        Value::String(id) if missing.contains(id) => *id = placeholder_id(id),
        Value::Array(items) => items.iter_mut().for_each(|v| replace_ids(v, missing)),
        Value::Object(map) => {
            if let Some(v) = map.get_mut("componentId") {
                replace_ids(v, missing);
            }
        }
        _ => {}
    }
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
    /// The tree last sent for each surface ([`Delivery::Progressive`]), so an update
    /// that changes nothing is not sent again.
    sent: HashMap<String, Vec<Component>>,
    surfaces: HashMap<String, Surface>,
    /// Surfaces created (by a `createSurface` seen here, or [`Surfaces::created`]).
    created: Vec<String>,
    /// Messages for surfaces not created yet, in arrival order.
    early: Vec<ServerMessage>,
    /// Surfaces whose last `updateComponents` waits for its tree to be whole.
    waiting: Vec<String>,
}

impl Surfaces {
    /// Surfaces a conversation created in earlier turns.
    pub fn created(ids: impl IntoIterator<Item = String>) -> Surfaces {
        Surfaces {
            created: ids.into_iter().collect(),
            ..Surfaces::default()
        }
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

    /// A surface by id.
    pub fn get(&self, id: &str) -> Option<&Surface> {
        self.surfaces.get(id)
    }

    /// Applies `message` to its surface, in whatever order messages come; refuses
    /// components that contain themselves.
    pub fn apply(&mut self, message: &ServerMessage) -> Result<(), SurfaceError> {
        if let Some(create) = &message.create_surface {
            self.surfaces.entry(create.surface_id.clone()).or_default();
        }
        if let Some(update) = &message.update_components {
            self.surfaces
                .entry(update.surface_id.clone())
                .or_default()
                .update(&update.components)?;
        }
        if let Some(delete) = &message.delete_surface {
            self.surfaces.remove(&delete.surface_id);
            self.sent.remove(&delete.surface_id);
            self.waiting.retain(|s| *s != delete.surface_id);
        }
        Ok(())
    }

    /// Takes `message` and returns what a client may be sent now, in protocol order
    /// (module docs): components and deletions for a surface not created yet wait for
    /// its `createSurface` (a `deleteSurface` that came first deleted nothing and is
    /// dropped); a `createSurface` is sent at once, followed by what waited for it; an
    /// `updateComponents` is sent, cut to the tree reachable from the root, once its
    /// surface's tree is whole, and a surface that waited is sent once a later message
    /// makes its tree whole (with [`Delivery::Progressive`]: whenever the tree from the
    /// root changes, with placeholders); data model updates and deletions are sent as
    /// they are.
    pub fn ready(&mut self, message: &ServerMessage) -> Result<Vec<ServerMessage>, SurfaceError> {
        let mut out = Vec::new();
        self.take(message, &mut out)?;
        Ok(out)
    }

    fn take(
        &mut self,
        message: &ServerMessage,
        out: &mut Vec<ServerMessage>,
    ) -> Result<(), SurfaceError> {
        let Some(surface_id) = message.surface_id().map(str::to_string) else {
            return Ok(());
        };
        if message.create_surface.is_some() {
            self.apply(message)?;
            if !self.created.contains(&surface_id) {
                self.created.push(surface_id.clone());
            }
            out.push(message.clone());
            let (early, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.early)
                .into_iter()
                .partition(|m| m.surface_id() == Some(surface_id.as_str()));
            self.early = later;
            for waited in early.iter().filter(|m| m.delete_surface.is_none()) {
                self.take(waited, out)?;
            }
            return Ok(());
        }
        // Components and deletions wait for their surface; a data model update is sent
        // as it comes (A2UI's SDKs do: a client keeps data for a surface it is about to
        // be told of).
        if !self.created.contains(&surface_id) && message.update_data_model.is_none() {
            self.early.push(message.clone());
            return Ok(());
        }
        self.apply(message)?;
        if message.delete_surface.is_some() {
            self.created.retain(|s| *s != surface_id);
        }
        if message.update_components.is_none() {
            out.push(message.clone());
            return Ok(());
        }
        if self.delivery == Delivery::Progressive {
            out.extend(self.changed_view(&surface_id, &[], &[])?);
            return Ok(());
        }
        if !self.waiting.contains(&surface_id) {
            self.waiting.push(surface_id);
        }
        let mut still = Vec::new();
        for surface_id in std::mem::take(&mut self.waiting) {
            match self.whole_tree(&surface_id) {
                Some(components) => out.push(ServerMessage {
                    version: Version::V09,
                    create_surface: None,
                    update_components: Some(UpdateComponents {
                        surface_id,
                        components,
                    }),
                    update_data_model: None,
                    delete_surface: None,
                }),
                None => still.push(surface_id),
            }
        }
        self.waiting = still;
        Ok(())
    }

    /// The `updateComponents` a progressive client is sent for `surface_id` with
    /// `partial` (components of a message still arriving) laid over it: the surface's
    /// view ([`Surface::view`]) when it differs from the one last sent; nothing for a
    /// surface not created, or with no root yet. Components that contain themselves are
    /// refused, as in a complete message.
    pub(crate) fn changed_view(
        &mut self,
        surface_id: &str,
        partial: &[Component],
        open_lists: &[String],
    ) -> Result<Option<ServerMessage>, SurfaceError> {
        if !self.created.iter().any(|s| s == surface_id) {
            return Ok(None);
        }
        let view = match (self.surfaces.get(surface_id), partial.is_empty()) {
            (Some(surface), true) => surface.view(open_lists),
            (surface, _) => {
                let mut laid = surface.cloned().unwrap_or_default();
                laid.update(partial)?;
                laid.view(open_lists)
            }
        };
        if view.is_empty() || self.sent.get(surface_id) == Some(&view) {
            return Ok(None);
        }
        self.sent.insert(surface_id.to_string(), view.clone());
        Ok(Some(ServerMessage {
            version: Version::V09,
            create_surface: None,
            update_components: Some(UpdateComponents {
                surface_id: surface_id.to_string(),
                components: view,
            }),
            update_data_model: None,
            delete_surface: None,
        }))
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
