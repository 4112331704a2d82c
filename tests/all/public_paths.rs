//! No public item of a library crate is reachable at two paths in that crate
//! (ARCHITECTURE.md, "Errors and results" and the crate table): an item is defined in a
//! public module, or defined in a private one and re-exported once, never both, never
//! re-exported twice. Read from the sources: each crate's module tree from its `lib.rs`
//! (`mod` files and inline `mod name { ... }` blocks), its `pub` items and its `pub use`
//! lines, with test code, `#[doc(hidden)]` modules and the underscored `__internals` /
//! `__private` modules left out (they are documented as no public API). Re-exports of
//! another crate's items (`pub use payload_core::...`) are that crate's paths and are
//! not counted here.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// One module of a crate: its path from the crate root, whether the crate's users can
/// name it, and its top-level statements.
struct Module {
    path: Vec<String>,
    public: bool,
    /// `pub` items defined here: their names.
    items: Vec<String>,
    /// `pub use` lines here: (the name it is exported as, the path it names).
    uses: Vec<(String, Vec<String>)>,
    /// Child modules: their names.
    children: Vec<String>,
}

/// What a path names, once re-exports are followed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    /// An item defined in the module at this path, by name.
    Item(Vec<String>, String),
    /// A module of the crate.
    Module(Vec<String>),
    /// Another crate's item (not counted).
    External,
}

/// `source` with comments removed and the insides of string and char literals blanked,
/// so braces and `;` can be counted.
fn strip(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'r' && !ident_before && matches!(b.get(i + 1), Some(b'"' | b'#')) {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            j += 1;
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            out.push_str("\"\"");
            i = j + close.len();
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            out.push_str("' '");
            i += 1;
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            out.push_str("' '");
            i += 3;
        } else {
            // Multi-byte characters are copied whole.
            let len = source[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&source[i..i + len]);
            i += len;
        }
    }
    out
}

/// The top-level statements of `code`: each with its attributes, up to its `;` or the
/// `}` that closes its block.
fn statements(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in code.char_indices() {
        match c {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && c == '}' {
                    out.push(code[start..=i].trim());
                    start = i + 1;
                }
            }
            ';' if depth == 0 => {
                out.push(code[start..=i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.retain(|s| !s.is_empty() && *s != ";");
    out
}

/// A statement's attributes and what follows them.
fn split_attributes(statement: &str) -> (Vec<&str>, &str) {
    let mut attributes = Vec::new();
    let mut rest = statement.trim_start();
    while rest.starts_with("#[") || rest.starts_with("#![") {
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        attributes.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    (attributes, rest)
}

/// The identifier at the start of `text`.
fn ident(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Reads the module at `path` whose code is `code` (its file is `file`), and its
/// children, into `out`.
fn read_module(path: Vec<String>, public: bool, code: &str, file: &Path, out: &mut Vec<Module>) {
    let mut module = Module {
        path: path.clone(),
        public,
        items: Vec::new(),
        uses: Vec::new(),
        children: Vec::new(),
    };
    // A file's children live beside it (`lib.rs`, `mod.rs`) or in its folder.
    let folder = match file.file_name().and_then(|n| n.to_str()) {
        Some("lib.rs" | "mod.rs") => file.parent().expect("folder").to_path_buf(),
        _ => file.with_extension(""),
    };
    for statement in statements(code) {
        let (attributes, rest) = split_attributes(statement);
        if attributes
            .iter()
            .any(|a| a.contains("cfg(test)") || a.contains("cfg(all(test"))
        {
            continue;
        }
        let hidden = attributes.iter().any(|a| a.contains("doc(hidden)"));
        let is_pub = rest.starts_with("pub ");
        let declaration = rest
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ");
        if let Some(after) = declaration.strip_prefix("mod ") {
            let name = ident(after);
            let child_public = public && is_pub && !hidden && !name.starts_with("__");
            let mut child_path = path.clone();
            child_path.push(name.clone());
            if let Some(open) = after.find('{') {
                let body = &after[open + 1..after.len() - 1];
                read_module(
                    child_path,
                    child_public,
                    body,
                    &folder.join(&name).join("mod.rs"),
                    out,
                );
            } else {
                let own = folder.join(format!("{name}.rs"));
                let nested = folder.join(&name).join("mod.rs");
                let child_file = if own.exists() { own } else { nested };
                let source = fs::read_to_string(&child_file)
                    .unwrap_or_else(|e| panic!("{}: {e}", child_file.display()));
                read_module(child_path, child_public, &strip(&source), &child_file, out);
            }
            module.children.push(name);
        } else if is_pub && let Some(used) = declaration.strip_prefix("use ") {
            assert!(
                !used.contains('*'),
                "{path:?}: a glob re-export is not read: {used}"
            );
            for (name, target) in use_paths(used.trim_end_matches(';')) {
                module.uses.push((name, target));
            }
        } else if is_pub {
            let kinds = [
                "struct ", "enum ", "union ", "trait ", "type ", "fn ", "const ", "static ",
            ];
            // `pub const fn`, `pub async fn`, `pub unsafe fn` are functions.
            let mut header = declaration;
            for qualifier in ["async ", "unsafe ", "extern \"\" "] {
                header = header.trim_start_matches(qualifier);
            }
            if let Some(function) = header.strip_prefix("const fn ") {
                header = &header[header.len() - function.len() - "fn ".len()..];
            }
            if let Some(kind) = kinds.iter().find(|k| header.starts_with(**k)) {
                let name = ident(&header[kind.len()..]);
                if !name.is_empty() && name != "_" {
                    module.items.push(name);
                }
            }
        }
    }
    out.push(module);
}

/// The paths a `use` tree names, each with the name it is bound to.
fn use_paths(tree: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    walk_tree(tree.trim(), &[], &mut out);
    out
}

fn walk_tree(tree: &str, prefix: &[String], out: &mut Vec<(String, Vec<String>)>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let mut base = prefix.to_vec();
        base.extend(
            tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
        let inner = &tree[open + 1..tree.rfind('}').expect("closed group")];
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    walk_tree(&inner[start..i], &base, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        walk_tree(&inner[start..], &base, out);
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((path, alias)) => (path, Some(alias.trim().to_string())),
        None => (tree, None),
    };
    let mut full = prefix.to_vec();
    full.extend(path.split("::").map(str::trim).map(str::to_string));
    if full.last().is_some_and(|last| last == "self") {
        full.pop();
    }
    let name = alias.unwrap_or_else(|| full.last().cloned().unwrap_or_default());
    if name != "_" {
        out.push((name, full));
    }
}

/// What `path`, written in the module at `from`, names.
fn resolve(
    modules: &BTreeMap<Vec<String>, Module>,
    from: &[String],
    path: &[String],
    steps: usize,
) -> Target {
    assert!(steps < 64, "re-exports in a circle at {path:?}");
    let (mut at, rest): (Vec<String>, &[String]) = match path[0].as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (from.to_vec(), &path[1..]),
        "super" => (from[..from.len() - 1].to_vec(), &path[1..]),
        first if modules[from].children.iter().any(|c| c == first) => (from.to_vec(), path),
        _ => return Target::External,
    };
    let mut rest = rest.to_vec();
    while rest.first().is_some_and(|s| s == "super") {
        at.pop();
        rest.remove(0);
    }
    // Walk down the modules; the last segment is an item, a module or a re-export.
    for (i, segment) in rest.iter().enumerate() {
        let module = &modules[&at];
        let last = i + 1 == rest.len();
        if last && module.items.contains(segment) {
            return Target::Item(at, segment.clone());
        }
        // Inside a path a segment is a module: a module and a function may share a
        // name (`mod extract` and `pub use extract::extract`).
        if !last && module.children.contains(segment) {
            at.push(segment.clone());
            continue;
        }
        if let Some((_, target)) = module.uses.iter().find(|(name, _)| name == segment) {
            let through = resolve(modules, &at, target, steps + 1);
            return match through {
                // A re-exported module, and the path goes on inside it.
                Target::Module(inner) if !last => {
                    let absolute: Vec<String> = std::iter::once("crate".to_string())
                        .chain(inner)
                        .chain(rest[i + 1..].iter().cloned())
                        .collect();
                    resolve(modules, from, &absolute, steps + 1)
                }
                other => other,
            };
        }
        if module.children.contains(segment) {
            at.push(segment.clone());
            continue;
        }
        // An item no statement defines is a macro's (`#[derive(Partial)]` writes
        // `NamePartial`): it is named by its module and name all the same.
        assert!(
            last,
            "{path:?} from {from:?}: `{segment}` is not a module of {at:?}"
        );
        return Target::Item(at, segment.clone());
    }
    Target::Module(at)
}

/// Every public path of the crate at `src`, by what it names: a name reachable at more
/// than one path is listed with all of them.
fn paths_by_target(src: &Path) -> BTreeMap<Target, Vec<String>> {
    let lib = src.join("lib.rs");
    let source = fs::read_to_string(&lib).expect("lib.rs");
    let mut list = Vec::new();
    read_module(Vec::new(), true, &strip(&source), &lib, &mut list);
    let modules: BTreeMap<Vec<String>, Module> =
        list.into_iter().map(|m| (m.path.clone(), m)).collect();
    let mut paths: BTreeMap<Target, Vec<String>> = BTreeMap::new();
    for module in modules.values().filter(|m| m.public) {
        let at = |name: &str| {
            let mut path = module.path.clone();
            path.push(name.to_string());
            path.join("::")
        };
        for item in &module.items {
            let target = Target::Item(module.path.clone(), item.clone());
            paths.entry(target).or_default().push(at(item));
        }
        if !module.path.is_empty() {
            let target = Target::Module(module.path.clone());
            paths
                .entry(target)
                .or_default()
                .push(module.path.join("::"));
        }
        for (name, used) in &module.uses {
            let target = resolve(&modules, &module.path, used, 0);
            if target != Target::External {
                paths.entry(target).or_default().push(at(name));
            }
        }
    }
    for list in paths.values_mut() {
        list.sort();
    }
    paths
}

#[test]
fn no_public_item_is_reachable_at_two_paths() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
    let mut read = 0;
    let mut doubles = Vec::new();
    let mut folders: Vec<PathBuf> = fs::read_dir(&crates)
        .expect("crates/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("src/lib.rs").exists())
        .collect();
    folders.sort();
    for folder in folders {
        let name = folder
            .file_name()
            .expect("name")
            .to_string_lossy()
            .replace('-', "_");
        for (target, paths) in paths_by_target(&folder.join("src")) {
            read += 1;
            if paths.len() > 1 {
                doubles.push(format!("{name}: {target:?} at {}", paths.join(", ")));
            }
        }
    }
    assert!(
        read > 200,
        "the crates' public items are read ({read} found)"
    );
    assert!(
        doubles.is_empty(),
        "reachable at two paths:\n{}",
        doubles.join("\n")
    );
}

#[test]
fn the_reader_sees_a_second_path() {
    // The check above fails when it should: an item of a public module re-exported at
    // the root is two paths, a private module's item re-exported once is one.
    let dir = std::env::temp_dir().join(format!("public_paths_{}", std::process::id()));
    fs::create_dir_all(dir.join("inner")).unwrap();
    fs::write(
        dir.join("lib.rs"),
        "pub mod shown;\nmod inner;\npub use shown::Twice;\npub use inner::{Once, deeper::Deep as Renamed};\n\
         /// A doc with a brace { and a \"string ; }\".\npub struct Here;\n#[cfg(test)]\nmod tests { pub use super::Here; }\n",
    )
    .unwrap();
    fs::write(
        dir.join("shown.rs"),
        "pub struct Twice;\npub fn helper() -> char { '}' }\n",
    )
    .unwrap();
    fs::write(dir.join("inner.rs"), "pub struct Once;\npub mod deeper;\n").unwrap();
    fs::write(dir.join("inner/deeper.rs"), "pub enum Deep { A }\n").unwrap();
    let paths = paths_by_target(&dir);
    let _ = fs::remove_dir_all(&dir);
    let at = |module: &[&str], name: &str| {
        paths[&Target::Item(
            module.iter().map(|s| s.to_string()).collect(),
            name.to_string(),
        )]
            .clone()
    };
    assert_eq!(at(&["shown"], "Twice"), ["Twice", "shown::Twice"]);
    assert_eq!(at(&["inner"], "Once"), ["Once"]);
    assert_eq!(at(&["inner", "deeper"], "Deep"), ["Renamed"]);
    assert_eq!(at(&[], "Here"), ["Here"]);
    assert_eq!(at(&["shown"], "helper"), ["shown::helper"]);
}
