//! Inside `payload-core`, modules import only from their own layer or below, and no two
//! modules import each other, round about or directly. The layers are the ones
//! `ARCHITECTURE.md` states (its `layer N: ...` lines, read here), so the document and
//! the code cannot drift apart. Read from the sources' `crate::...` paths (in `use`
//! lines and in code), test code left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The layers `ARCHITECTURE.md` states, lowest first: each unit (a module path such as
/// `whole::formats`) with its layer.
fn layers() -> BTreeMap<String, usize> {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut layers = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("layer ") else {
            continue;
        };
        let Some((number, units)) = rest.split_once(':') else {
            continue;
        };
        let Ok(number) = number.trim().parse::<usize>() else {
            continue;
        };
        for unit in units.split_whitespace() {
            let previous = layers.insert(unit.to_string(), number);
            assert!(previous.is_none(), "{unit} is in two layers");
        }
    }
    assert!(layers.len() > 10, "ARCHITECTURE.md states the layers");
    layers
}

/// The unit a module path belongs to: the longest layered prefix of it.
fn unit_of<'a>(path: &[&str], layers: &'a BTreeMap<String, usize>) -> Option<&'a str> {
    (1..=path.len())
        .rev()
        .find_map(|n| layers.get_key_value(&path[..n].join("::")))
        .map(|(unit, _)| unit.as_str())
}

/// A source file's module path (`whole/formats/mod.rs` → `whole::formats`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

/// The source without comments and without its test code: an inline
/// `#[cfg(test)] mod name { ... }` (by convention the end of a file) is cut off.
fn code(source: &str) -> String {
    let mut out = String::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            let next = lines.peek().map(|l| l.trim_start()).unwrap_or_default();
            if next.starts_with("mod ") && next.ends_with('{') {
                break;
            }
        }
        let without_comment = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        out.push_str(without_comment);
        out.push('\n');
    }
    out
}

/// The child modules a file declares under `#[cfg(test)]`: test code, left out.
fn test_children(source: &str) -> BTreeSet<String> {
    let mut children = BTreeSet::new();
    let mut test_attribute = false;
    for line in source.lines().map(str::trim) {
        if line.starts_with("#[cfg(test)]") {
            test_attribute = true;
            continue;
        }
        if test_attribute {
            let declaration = line
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            if let Some(name) = declaration
                .strip_prefix("mod ")
                .and_then(|rest| rest.strip_suffix(';'))
            {
                children.insert(name.trim().to_string());
            }
        }
        test_attribute = line.starts_with("#[");
    }
    children
}

/// Every full path a `crate::` occurrence names, with `{a, b::c}` groups expanded.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` and `my_crate::` are not this crate.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        expand(rest, &mut Vec::new(), &mut paths);
    }
    paths
}

/// Reads one path (or group) at the start of `text` below `prefix`.
fn expand(text: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let text = text.trim_start();
    if let Some(group) = text.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    expand_item(&group[start..i], prefix, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_item(&group[start..i], prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(text.len());
    let segments: Vec<String> = text[..end]
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let after = &text[end..];
    let mut path = prefix.clone();
    path.extend(segments);
    if text[..end].ends_with("::") && after.starts_with('{') {
        expand(after, &mut path, out);
    } else if !path.is_empty() {
        out.push(path);
    }
}

fn expand_item(item: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let item = item.trim();
    if item.is_empty() || item == "self" {
        if item == "self" && !prefix.is_empty() {
            out.push(prefix.clone());
        }
        return;
    }
    expand(item, prefix, out);
}

/// Names the crate root re-exports from its own modules, each with the path it
/// re-exports.
fn root_exports(lib: &str, layers: &BTreeMap<String, usize>) -> BTreeMap<String, Vec<String>> {
    let mut exports = BTreeMap::new();
    for statement in code(lib).split(';') {
        let statement = statement.trim();
        let Some(used) = statement.strip_prefix("pub use ") else {
            continue;
        };
        let mut paths = Vec::new();
        expand(used, &mut Vec::new(), &mut paths);
        for path in paths {
            if let Some(last) = path.last().filter(|_| layers_know(&path[0], layers)) {
                exports.insert(last.clone(), path.clone());
            }
        }
    }
    exports
}

/// Every import between units of payload-core: (from, to, the file it is in).
fn edges(layers: &BTreeMap<String, usize>) -> Vec<(String, String, String)> {
    let src = root().join("crates/payload-core/src");
    let exports = root_exports(
        &fs::read_to_string(src.join("lib.rs")).expect("lib.rs"),
        layers,
    );
    let mut files = vec![src.clone()];
    let mut edges = Vec::new();
    let mut test_files: BTreeSet<PathBuf> = BTreeSet::new();
    while let Some(dir) = files.pop() {
        let mut entries: Vec<PathBuf> = fs::read_dir(&dir)
            .expect("source folder")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                files.push(path);
                continue;
            }
            let relative = path.strip_prefix(&src).expect("under src").to_path_buf();
            let name = relative.to_string_lossy().to_string();
            if name == "lib.rs" || !name.ends_with(".rs") {
                continue;
            }
            let source = fs::read_to_string(&path).expect("source");
            // A file's test children live beside it (`x.rs` declares `x/tests.rs`).
            let stem = path.with_extension("");
            let folder = if path.file_name().is_some_and(|n| n == "mod.rs") {
                path.parent().expect("folder").to_path_buf()
            } else {
                stem
            };
            for child in test_children(&source) {
                test_files.insert(folder.join(format!("{child}.rs")));
                test_files.insert(folder.join(child).join("mod.rs"));
            }
            let file_name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .to_string();
            if test_files.contains(&path)
                || file_name == "tests.rs"
                || file_name.ends_with("_tests.rs")
            {
                continue;
            }
            let module = module_path(&relative);
            let module: Vec<&str> = module.iter().map(String::as_str).collect();
            let from = unit_of(&module, layers)
                .unwrap_or_else(|| panic!("{name}: its module {module:?} is in no layer"));
            for path in crate_paths(&code(&source)) {
                let path = if layers_know(&path[0], layers) {
                    path
                } else if let Some(target) = exports.get(&path[0]) {
                    target.iter().chain(&path[1..]).cloned().collect()
                } else {
                    panic!(
                        "{name}: crate::{} is neither a module nor a re-export",
                        path.join("::")
                    )
                };
                let segments: Vec<&str> = path.iter().map(String::as_str).collect();
                let Some(to) = unit_of(&segments, layers) else {
                    panic!("{name}: crate::{} is in no layer", path.join("::"));
                };
                if to != from {
                    edges.push((from.to_string(), to.to_string(), name.clone()));
                }
            }
        }
    }
    edges
}

/// Whether `name` is a module some layer names.
fn layers_know(name: &str, layers: &BTreeMap<String, usize>) -> bool {
    layers
        .keys()
        .any(|unit| unit.split("::").next() == Some(name))
}

#[test]
fn core_modules_import_only_from_their_layer_or_below() {
    let layers = layers();
    let edges = edges(&layers);
    assert!(
        edges.len() > 50,
        "the imports are read ({} found)",
        edges.len()
    );
    let upward: Vec<String> = edges
        .iter()
        .filter(|(from, to, _)| layers[to] > layers[from])
        .map(|(from, to, file)| {
            format!(
                "{from} (layer {}) imports {to} (layer {}) in {file}",
                layers[from], layers[to]
            )
        })
        .collect();
    assert!(
        upward.is_empty(),
        "imports up the layers:\n{}",
        upward.join("\n")
    );
}

#[test]
fn core_modules_import_each_other_in_no_circle() {
    let layers = layers();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to, _) in edges(&layers) {
        graph.entry(from).or_default().insert(to);
    }
    // A unit is in a circle when it reaches itself.
    let mut circles = Vec::new();
    for start in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&String> = graph[start].iter().collect();
        while let Some(next) = todo.pop() {
            if next == start {
                circles.push(start.clone());
                break;
            }
            if seen.insert(next) {
                todo.extend(graph.get(next).into_iter().flatten());
            }
        }
    }
    assert!(circles.is_empty(), "modules in a circle: {circles:?}");
}

#[test]
fn the_path_reader_expands_groups() {
    let paths =
        crate_paths("use crate::a::{b, c::{d, e}, self};\nlet x = crate::f::g(1); $crate::h");
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(joined, ["a::b", "a::c::d", "a::c::e", "a", "f::g"]);
}
