//! Inside `payload-core`, modules import only from their own layer or below, and no two
//! modules import each other, round about or directly. The layers are the ones
//! `ARCHITECTURE.md` states (its `layer N: ...` lines, read here), so the document and
//! the code cannot drift apart. And in `payload-core`, `payload-agent` and `payload-cli`
//! no two files (modules) import each other, round about or directly, within a layer
//! too.
//!
//! Read file by file from the sources' paths: `crate::...`, `super::...`, `self::...`
//! and a declared child's `child::...`, in `use` lines and in code, each followed
//! through the re-exports (`pub use`, `use`) of the file it lands in to the file that
//! defines the item; test code left out. A folder's root re-exporting what its own
//! files define (`pub use child::Item`) is its front, not a use of their code, and is
//! no import of them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module's path in its crate (`["whole", "formats"]`; the crate root is empty).
type Module = Vec<String>;

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
fn unit_of<'a>(path: &[String], layers: &'a BTreeMap<String, usize>) -> Option<&'a str> {
    (1..=path.len())
        .rev()
        .find_map(|n| layers.get_key_value(&path[..n].join("::")))
        .map(|(unit, _)| unit.as_str())
}

/// A source file's module path (`validate/plan/mod.rs` → `validate::plan`).
fn module_path(relative: &Path) -> Module {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
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
        if trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test") {
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
    inline_modules_as_self(&out)
}

/// In an inline module (`pub mod __private { ... }`), `super::` is the file's own
/// module: rewritten `self::`, so that every path of a file is read from the file.
fn inline_modules_as_self(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = find_inline_module(rest) {
        let open = at + rest[at..].find('{').expect("an inline module opens");
        let mut depth = 0;
        let mut close = rest.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push_str(&rest[..open]);
        out.push_str(&rest[open..close].replace("super::", "self::"));
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Where the next inline module (`mod name {` at the start of a line) starts.
fn find_inline_module(code: &str) -> Option<usize> {
    let mut at = 0;
    for line in code.split_inclusive('\n') {
        let declaration = visibility_stripped(line.trim());
        if let Some(rest) = declaration.strip_prefix("mod ") {
            if rest.trim_end().ends_with('{') {
                return Some(at);
            }
        }
        at += line.len();
    }
    None
}

/// `item` without a leading `pub`, `pub(crate)`, `pub(super)`.
fn visibility_stripped(item: &str) -> &str {
    let item = item.trim_start();
    for visibility in ["pub(crate) ", "pub(super) ", "pub "] {
        if let Some(rest) = item.strip_prefix(visibility) {
            return rest.trim_start();
        }
    }
    item
}

/// The child modules a file declares: (the non-test ones, the test ones).
fn children(source: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut children = BTreeSet::new();
    let mut test_children = BTreeSet::new();
    let mut test_attribute = false;
    for line in source.lines().map(str::trim) {
        if line.starts_with("#[cfg(test)]") || line.starts_with("#[cfg(all(test") {
            test_attribute = true;
            continue;
        }
        if let Some(name) = visibility_stripped(line)
            .strip_prefix("mod ")
            .and_then(|rest| rest.strip_suffix(';'))
        {
            let name = name.trim().to_string();
            if test_attribute {
                test_children.insert(name);
            } else {
                children.insert(name);
            }
        }
        test_attribute = test_attribute && line.starts_with("#[");
    }
    (children, test_children)
}

/// Reads one path (or group) at the start of `text` below `prefix`: each full path,
/// with the name it is known by in the file (the last segment, or its `as` name).
fn expand(text: &str, prefix: &[String], out: &mut Vec<(String, Module)>) {
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
    let written = &text[..end];
    let mut path = prefix.to_vec();
    path.extend(
        written
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string),
    );
    let after = text[end..].trim_start();
    if written.ends_with("::") && after.starts_with('{') {
        expand(after, &path, out);
    } else if let Some(last) = path.last().cloned() {
        let name = after
            .strip_prefix("as ")
            .map(|rest| {
                rest.trim_start()
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .unwrap_or(last);
        out.push((name, path));
    }
}

fn expand_item(item: &str, prefix: &[String], out: &mut Vec<(String, Module)>) {
    let item = item.trim();
    if item == "self" {
        if let Some(last) = prefix.last() {
            out.push((last.clone(), prefix.to_vec()));
        }
    } else if !item.is_empty() {
        expand(item, prefix, out);
    }
}

/// Every path the code names from one of `starts` (`crate`, `super`, `self`, child
/// modules), with `{a, b::c}` groups expanded: (the name it is known by, the path as
/// written).
fn written_paths(code: &str, starts: &BTreeSet<String>) -> Vec<(String, Module)> {
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let word_start = at;
        let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        if !is_word(bytes[at]) {
            at += 1;
            continue;
        }
        while at < code.len() && is_word(bytes[at]) {
            at += 1;
        }
        let word = &code[word_start..at];
        // `$crate::`, `other::crate_name::` and `a::child::` do not start a path here.
        let before = code[..word_start].chars().last();
        let starts_path = !before.is_some_and(|c| c == ':' || c == '$')
            && code[at..].starts_with("::")
            && starts.contains(word);
        if starts_path {
            expand(&code[word_start..], &[], &mut paths);
        }
    }
    paths
}

/// The paths a `use` statement of the code imports (one starts a line and ends at
/// its `;`): (the name, the path as written, whether the statement re-exports it:
/// `pub use`, `pub(crate) use`).
fn imports(code: &str) -> Vec<(String, Module, bool)> {
    let mut imports = Vec::new();
    let mut at = 0;
    for line in code.split_inclusive('\n') {
        if let Some(used) = visibility_stripped(line).strip_prefix("use ") {
            let start = at + line.len() - used.len();
            let end = code[start..]
                .find(';')
                .map_or(code.len(), |end| start + end);
            let mut paths = Vec::new();
            expand(&code[start..end], &[], &mut paths);
            let re_export = line.trim_start().starts_with("pub");
            imports.extend(
                paths
                    .into_iter()
                    .map(|(name, path)| (name, path, re_export)),
            );
        }
        at += line.len();
    }
    imports
}

/// One file of a crate: its module path, file name, what it imports (a name and the
/// absolute path it stands for) and the absolute paths it names.
struct File {
    name: String,
    imports: BTreeMap<String, Module>,
    named: Vec<Module>,
    /// What it re-exports from its own children (a folder's root listing what its
    /// files offer: a front, not a use of their code, so no import of them).
    offered: BTreeSet<Module>,
}

/// The path `written` in `module` stands for, from the crate root (`None`: another
/// crate's).
fn absolute(written: &[String], module: &[String], children: &BTreeSet<String>) -> Option<Module> {
    let (first, rest) = written.split_first()?;
    let mut path: Module = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        child if children.contains(child) => {
            let mut path = module.to_vec();
            path.push(child.to_string());
            path
        }
        _ => return None,
    };
    for segment in rest {
        if segment == "super" {
            path.pop()?;
        } else if segment != "self" {
            path.push(segment.clone());
        }
    }
    Some(path)
}

/// A crate's source files (test files left out), by module.
fn files(src: &Path) -> BTreeMap<Module, File> {
    let mut folders = vec![src.to_path_buf()];
    let mut test_files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut sources = Vec::new();
    while let Some(dir) = folders.pop() {
        let mut entries: Vec<PathBuf> = fs::read_dir(&dir)
            .expect("source folder")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let source = fs::read_to_string(&path).expect("source");
                // A file's test children live beside it (`x.rs` declares `x/tests.rs`).
                let folder = if path
                    .file_name()
                    .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
                {
                    path.parent().expect("folder").to_path_buf()
                } else {
                    path.with_extension("")
                };
                for child in children(&source).1 {
                    test_files.insert(folder.join(format!("{child}.rs")));
                    test_files.insert(folder.join(child).join("mod.rs"));
                }
                sources.push((path, source));
            }
        }
    }
    let mut files = BTreeMap::new();
    for (path, source) in sources {
        let file_name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        let tests_only = test_files.contains(&path)
            || test_files.iter().any(|test| {
                test.file_name().is_some_and(|n| n == "mod.rs")
                    && path.starts_with(test.parent().expect("folder"))
            });
        if tests_only || file_name == "tests.rs" || file_name.ends_with("_tests.rs") {
            continue;
        }
        let relative = path.strip_prefix(src).expect("under src");
        let module = module_path(relative);
        let code = code(&source);
        let children = children(&source).0;
        let mut starts: BTreeSet<String> = ["crate", "super", "self"]
            .into_iter()
            .map(str::to_string)
            .collect();
        starts.extend(children.iter().cloned());
        let mut imports = BTreeMap::new();
        let mut offered = BTreeSet::new();
        for (name, written, re_export) in self::imports(&code) {
            let Some(path) = absolute(&written, &module, &children) else {
                continue;
            };
            if re_export && path.len() > module.len() && path.starts_with(&module) {
                offered.insert(path.clone());
            }
            imports.insert(name, path);
        }
        let named = written_paths(&code, &starts)
            .into_iter()
            .filter_map(|(_, written)| absolute(&written, &module, &children))
            .collect();
        let name = relative.to_string_lossy().to_string();
        files.insert(
            module,
            File {
                name,
                imports,
                named,
                offered,
            },
        );
    }
    files
}

/// The file (module) that defines what `path` names: the longest module prefix of it,
/// followed through that file's imports of the next name.
fn defining_file(path: &[String], files: &BTreeMap<Module, File>, hops: usize) -> Module {
    let len = (0..=path.len())
        .rev()
        .find(|n| files.contains_key(&path[..*n]))
        .expect("the crate root is a file");
    let module = path[..len].to_vec();
    if hops < 16 {
        if let Some(imported) = path
            .get(len)
            .and_then(|name| files[&module].imports.get(name))
        {
            if imported.as_slice() != path {
                let mut followed = imported.clone();
                followed.extend(path[len + 1..].iter().cloned());
                return defining_file(&followed, files, hops + 1);
            }
        }
    }
    module
}

/// Every import between two files of the crate in `src` (the crate root left out: it
/// only re-exports): (from, to).
fn file_edges(src: &Path) -> (BTreeMap<Module, File>, BTreeSet<(Module, Module)>) {
    let files = files(src);
    let mut edges = BTreeSet::new();
    for (module, file) in &files {
        if module.is_empty() {
            continue;
        }
        for path in file.named.iter().filter(|p| !file.offered.contains(*p)) {
            let to = defining_file(path, &files, 0);
            if !to.is_empty() && &to != module {
                edges.insert((module.clone(), to));
            }
        }
    }
    (files, edges)
}

/// The circles of a directed graph: each strongly connected part of two or more nodes.
fn circles<N: Ord + Clone>(edges: &BTreeSet<(N, N)>) -> Vec<BTreeSet<N>> {
    let mut graph: BTreeMap<&N, BTreeSet<&N>> = BTreeMap::new();
    for (from, to) in edges {
        graph.entry(from).or_default().insert(to);
    }
    let reach = |start: &N| -> BTreeSet<&N> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&N> = graph.get(start).into_iter().flatten().copied().collect();
        while let Some(next) = todo.pop() {
            if seen.insert(next) {
                todo.extend(graph.get(next).into_iter().flatten().copied());
            }
        }
        seen
    };
    let reached: BTreeMap<&N, BTreeSet<&N>> = graph.keys().map(|n| (*n, reach(n))).collect();
    let mut circles: Vec<BTreeSet<N>> = Vec::new();
    for (node, reaches) in &reached {
        if !reaches.contains(node) || circles.iter().any(|c| c.contains(*node)) {
            continue;
        }
        let circle = reaches
            .iter()
            .filter(|other| reached.get(*other).is_some_and(|r| r.contains(node)))
            .map(|n| (*n).clone())
            .collect();
        circles.push(circle);
    }
    circles
}

/// The crates whose files are read for circles.
const CRATES: [&str; 3] = ["payload-core", "payload-agent", "payload-cli"];

/// The sources of `name`.
fn src(name: &str) -> PathBuf {
    root().join("crates").join(name).join("src")
}

/// Every import between layered units of payload-core: (from, to, the file it is in).
fn unit_edges(layers: &BTreeMap<String, usize>) -> Vec<(String, String, String)> {
    let (files, edges) = file_edges(&src("payload-core"));
    for (module, file) in &files {
        if !module.is_empty() {
            assert!(
                unit_of(module, layers).is_some(),
                "{}: its module {module:?} is in no layer",
                file.name
            );
        }
    }
    edges
        .iter()
        .filter_map(|(from, to)| {
            let from_unit = unit_of(from, layers)?;
            let to_unit = unit_of(to, layers)?;
            (from_unit != to_unit).then(|| {
                (
                    from_unit.to_string(),
                    to_unit.to_string(),
                    files[from].name.clone(),
                )
            })
        })
        .collect()
}

#[test]
fn core_modules_import_only_from_their_layer_or_below() {
    let layers = layers();
    let edges = unit_edges(&layers);
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
    let edges: BTreeSet<(String, String)> = unit_edges(&layers)
        .into_iter()
        .map(|(from, to, _)| (from, to))
        .collect();
    let circles = circles(&edges);
    assert!(circles.is_empty(), "modules in a circle: {circles:?}");
}

#[test]
fn no_two_files_import_each_other() {
    let mut found = Vec::new();
    for name in CRATES {
        let (files, edges) = file_edges(&src(name));
        assert!(
            edges.len() > 10,
            "{name}: the imports are read ({} found)",
            edges.len()
        );
        for circle in circles(&edges) {
            let names: Vec<&str> = circle.iter().map(|m| files[m].name.as_str()).collect();
            found.push(format!("{name}: {}", names.join(", ")));
        }
    }
    assert!(found.is_empty(), "files in a circle:\n{}", found.join("\n"));
}

#[test]
fn each_folder_of_the_core_is_one_layer() {
    let layers = layers();
    let mut folders: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for (unit, layer) in &layers {
        let folder = unit.split("::").next().expect("a name");
        folders.entry(folder).or_default().insert(*layer);
    }
    folders.retain(|_, layers| layers.len() > 1);
    assert!(folders.is_empty(), "folders across layers: {folders:?}");
}

#[test]
fn the_path_reader_expands_groups_and_resolves_relative_paths() {
    let starts: BTreeSet<String> = ["crate", "super", "self", "child"]
        .into_iter()
        .map(str::to_string)
        .collect();
    let paths = written_paths(
        "use crate::a::{b, c::{d, e as f}, self};\nlet x = crate::g::h(1); $crate::i; \
         super::super::j::k(); child::l; other::child::m; self::n",
        &starts,
    );
    let module: Module = vec!["p".into(), "q".into()];
    let children: BTreeSet<String> = ["child".to_string()].into();
    let read: Vec<(String, String)> = paths
        .iter()
        .map(|(name, written)| {
            let path = absolute(written, &module, &children).expect("this crate's");
            (name.clone(), path.join("::"))
        })
        .collect();
    let expected = [
        ("b", "a::b"),
        ("d", "a::c::d"),
        ("f", "a::c::e"),
        ("a", "a"),
        ("h", "g::h"),
        ("k", "j::k"),
        ("l", "p::q::child::l"),
        ("n", "p::q::n"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(read, expected);
}

#[test]
fn the_circle_finder_finds_each_circle_once() {
    let edges: BTreeSet<(u8, u8)> = [(1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 4), (6, 1)]
        .into_iter()
        .collect();
    let found = circles(&edges);
    let expected: Vec<BTreeSet<u8>> = vec![[1, 2, 3].into(), [4, 5].into()];
    assert_eq!(found, expected);
}
