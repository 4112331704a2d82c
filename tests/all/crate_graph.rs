//! The framework's crates depend on each other in one direction: schema ← core ← registry, then
//! registry ← prompt ← cli and registry ← agent ← providers (the HTTP model clients) ←
//! cli, with agent and prompt independent of each other (ARCHITECTURE.md lists the
//! rules), so that each can be used without the ones above it: an app that
//! only needs a registry links no prompt text, no agent, no HTTP stack and no clap. Read from
//! `cargo metadata` with every feature on, so an optional dependency cannot hide an edge.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The resolved dependency graph of the workspace, by package name.
struct Graph {
    /// Package name → (dependency name, whether the edge is a dev-dependency only).
    edges: BTreeMap<String, Vec<(String, bool)>>,
}

impl Graph {
    fn load() -> Graph {
        let output = cargo(&["metadata", "--format-version", "1", "--all-features"]);
        let metadata: Value = serde_json::from_str(&output).expect("metadata is JSON");
        let names: BTreeMap<&str, &str> = metadata["packages"]
            .as_array()
            .expect("packages")
            .iter()
            .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
            .collect();
        let mut edges = BTreeMap::new();
        for node in metadata["resolve"]["nodes"].as_array().expect("resolve") {
            let deps = node["deps"]
                .as_array()
                .expect("deps")
                .iter()
                .map(|dep| {
                    let dev_only = dep["dep_kinds"]
                        .as_array()
                        .expect("dep_kinds")
                        .iter()
                        .all(|kind| kind["kind"] == "dev");
                    (names[dep["pkg"].as_str().unwrap()].to_string(), dev_only)
                })
                .collect();
            edges.insert(names[node["id"].as_str().unwrap()].to_string(), deps);
        }
        Graph { edges }
    }

    /// Everything `name` pulls in: what linking it brings (its dependencies, and
    /// theirs, transitively), and what its own tests use (its dev-dependencies, with
    /// what they bring).
    fn dependencies(&self, name: &str) -> BTreeSet<String> {
        let direct = self
            .edges
            .get(name)
            .unwrap_or_else(|| panic!("{name} is in the graph"));
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&str> = direct.iter().map(|(dep, _)| dep.as_str()).collect();
        while let Some(next) = todo.pop() {
            if seen.insert(next.to_string()) {
                let deps = self.edges.get(next).map(Vec::as_slice).unwrap_or_default();
                todo.extend(
                    deps.iter()
                        .filter(|(_, dev_only)| !dev_only)
                        .map(|(dep, _)| dep.as_str()),
                );
            }
        }
        seen
    }

    /// What linking `name` brings into a program: its dependencies, transitively,
    /// without anyone's dev-dependencies.
    fn linked(&self, name: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![name];
        while let Some(next) = todo.pop() {
            let deps = self.edges.get(next).map(Vec::as_slice).unwrap_or_default();
            for (dep, dev_only) in deps {
                if !dev_only && seen.insert(dep.clone()) {
                    todo.push(dep);
                }
            }
        }
        seen
    }
}

/// What `cargo tree` resolves as linked into `package` built with `features` (normal
/// dependencies only), one package a line.
fn tree(package: &str, features: &[&str]) -> String {
    let mut args = vec!["tree", "-p", package, "-e", "normal", "--prefix", "none"];
    args.extend(features);
    cargo(&args)
}

/// What cargo prints for `args` on the workspace's manifest (the cargo running the
/// tests, else the one on the path).
fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let output = Command::new(cargo)
        .args(args)
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo {} failed: {}",
        args[0],
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// Whether `name` is in a [`tree`]'s output.
fn linked(tree: &str, name: &str) -> bool {
    tree.lines()
        .any(|line| line.starts_with(&format!("{name} v")))
}

/// Asserts that `name` depends on none of `forbidden`.
fn assert_free_of(graph: &Graph, name: &str, forbidden: &[&str]) {
    let deps = graph.dependencies(name);
    let found: Vec<&&str> = forbidden.iter().filter(|f| deps.contains(**f)).collect();
    assert!(found.is_empty(), "{name} depends on {found:?}");
}

#[test]
fn each_crate_depends_only_on_the_ones_below_it() {
    let graph = Graph::load();
    assert_free_of(
        &graph,
        "payload-core",
        &[
            "payload-registry",
            "payload-prompt",
            "payload-agent",
            "payload-cli",
        ],
    );
    assert_free_of(
        &graph,
        "payload-instructions",
        &[
            "clap",
            "payload-registry",
            "payload-prompt",
            "payload-agent",
            "payload-cli",
        ],
    );
    assert_free_of(
        &graph,
        "payload-registry",
        &["clap", "payload-prompt", "payload-agent", "payload-cli"],
    );
    assert_free_of(
        &graph,
        "payload-prompt",
        &["clap", "payload-agent", "payload-cli"],
    );
    assert_free_of(
        &graph,
        "payload-agent",
        &[
            "clap",
            "payload-cli",
            "payload-providers",
            "reqwest",
            "tokio",
        ],
    );
    assert_free_of(
        &graph,
        "payload-providers",
        &["clap", "payload-cli", "payload-prompt"],
    );
    // What the grammar crate links (its tests use example apps, which bring the agent).
    let grammar = graph.linked("payload-grammar");
    for forbidden in [
        "clap",
        "payload-cli",
        "payload-prompt",
        "payload-agent",
        "payload-providers",
        "reqwest",
        "llguidance",
    ] {
        assert!(
            !grammar.contains(forbidden),
            "payload-grammar links {forbidden}"
        );
    }
}

#[test]
fn the_schema_crate_is_the_floor() {
    let graph = Graph::load();
    let schema = graph.dependencies("payload-schema");
    let payload: Vec<&String> = schema
        .iter()
        .filter(|name| name.starts_with("payload"))
        .collect();
    assert!(payload.is_empty(), "payload-schema depends on {payload:?}");
    // What it links is serde_json and what serde_json brings, nothing of a validator or
    // a schema generator.
    let linked = graph.linked("payload-schema");
    assert!(linked.contains("serde_json"));
    for heavy in ["jsonschema", "schemars", "regex", "aho-corasick"] {
        assert!(!linked.contains(heavy), "payload-schema links {heavy}");
    }
    for user in ["payload-core", "payload-grammar"] {
        assert!(
            graph.linked(user).contains("payload-schema"),
            "{user} does not use payload-schema"
        );
    }
}

#[test]
fn the_layers_are_really_stacked() {
    // The checks above pass trivially if the names or the graph are wrong: the edges
    // that must exist are found the same way.
    let graph = Graph::load();
    let cli = graph.dependencies("payload-cli");
    for layer in [
        "clap",
        "payload-core",
        "payload-registry",
        "payload-prompt",
        "payload-agent",
        "payload-providers",
        "payload-grammar",
    ] {
        assert!(
            cli.contains(layer),
            "payload-cli does not depend on {layer}"
        );
    }
    assert!(
        graph
            .dependencies("payload-prompt")
            .contains("payload-registry")
    );
    assert!(
        graph
            .dependencies("payload-agent")
            .contains("payload-registry")
    );
    assert!(
        graph
            .dependencies("payload-registry")
            .contains("payload-core")
    );
    let providers = graph.dependencies("payload-providers");
    for dependency in ["payload-agent", "payload-core", "reqwest"] {
        assert!(
            providers.contains(dependency),
            "payload-providers does not depend on {dependency}"
        );
    }
}

#[test]
fn apps_that_need_only_a_registry_do_not_link_the_command_line() {
    let graph = Graph::load();
    for app in [
        "payload-builtin",
        "table-that",
        "selfhelp",
        "structured-rag",
        "contacts-bridge",
        "output-schema",
        "chat-architecture",
        "quickstart",
    ] {
        let linked = graph.linked(app);
        assert!(linked.contains("payload-registry"), "{app} has a registry");
        assert!(!linked.contains("clap"), "{app} links clap");
        assert!(!linked.contains("payload-cli"), "{app} links payload-cli");
        assert!(!linked.contains("reqwest"), "{app} links an HTTP client");
    }
    assert!(graph.linked("payload").contains("payload-cli"));
}

#[test]
fn only_the_web_app_links_a_web_server_and_a_database() {
    let graph = Graph::load();
    for name in [
        "payload-core",
        "payload-registry",
        "payload-prompt",
        "payload-agent",
        "payload-providers",
        "payload-cli",
        "payload-builtin",
        "payload-agui",
        "table-that",
    ] {
        let linked = graph.linked(name);
        for heavy in ["axum", "rusqlite", "payload-serve"] {
            assert!(!linked.contains(heavy), "{name} links {heavy}");
        }
    }
    // The protocols (AG-UI, the AI SDK's stream) stand alone: an app answers them from
    // its own server with the core and the agent, and the chat server uses the same.
    let agui = graph.linked("payload-agui");
    for heavy in ["hyper", "tokio"] {
        assert!(!agui.contains(heavy), "payload-agui links {heavy}");
    }
    for dependency in ["payload-core", "payload-agent"] {
        assert!(
            agui.contains(dependency),
            "payload-agui does not link {dependency}"
        );
    }
    assert_free_of(
        &graph,
        "payload-agui",
        &["payload-prompt", "payload-cli", "clap", "reqwest"],
    );
    let serve = graph.dependencies("payload-serve");
    for dependency in [
        "axum",
        "rusqlite",
        "payload-agent",
        "payload-prompt",
        "payload-agui",
    ] {
        assert!(
            serve.contains(dependency),
            "payload-serve does not depend on {dependency}"
        );
    }
    // An app that embeds the server compiles no command line: only the `cli` feature
    // (off by default) brings payload-cli, for a binary that has the `payload` command.
    let default = tree("payload-serve", &[]);
    let with_cli = tree("payload-serve", &["--features", "cli"]);
    for command_line in ["payload-cli", "clap"] {
        assert!(
            !linked(&default, command_line),
            "payload-serve's default build links {command_line}"
        );
        assert!(
            linked(&with_cli, command_line),
            "payload-serve's cli feature does not link {command_line}"
        );
    }
    // The chat server is generic: it knows no app (table.that's web part depends on
    // it, never the other way round), and the web part of table.that is its own crate.
    let served = graph.linked("payload-serve");
    for app in ["table-that", "table-that-web", "payload-builtin"] {
        assert!(!served.contains(app), "payload-serve links the app {app}");
    }
    let web = graph.linked("table-that-web");
    for dependency in ["payload-serve", "table-that", "rusqlite"] {
        assert!(
            web.contains(dependency),
            "table-that-web does not link {dependency}"
        );
    }
    assert!(graph.linked("payload").contains("table-that-web"));
}

/// payload-cli without its `providers` feature links no HTTP client, no TLS and no
/// async runtime (docs/cli.md, "The `payload` command"): the tree `cargo tree` resolves for
/// it holds none of them, while the default build does.
#[test]
fn the_command_without_providers_links_no_http_stack() {
    let lean = tree("payload-cli", &["--no-default-features"]);
    let full = tree("payload-cli", &[]);
    for heavy in ["reqwest", "hyper", "rustls", "tokio", "payload-providers"] {
        assert!(!linked(&lean, heavy), "{heavy} is linked without providers");
        assert!(linked(&full, heavy), "{heavy} is not linked with providers");
    }
}

/// OpenTelemetry is linked only where an app asks for export: the framework's crates
/// open `tracing` spans and link no OpenTelemetry crate and no subscriber; the exporter
/// (`payload-otel`) depends on no payload crate; the command links it through its
/// `otel` feature only (docs/observability.md).
#[test]
fn only_the_exporter_links_opentelemetry() {
    const OTEL: [&str; 5] = [
        "opentelemetry",
        "opentelemetry_sdk",
        "opentelemetry-otlp",
        "tracing-opentelemetry",
        "tracing-subscriber",
    ];
    let graph = Graph::load();
    for name in [
        "payload-core",
        "payload-registry",
        "payload-prompt",
        "payload-agent",
        "payload-providers",
        "payload-grammar",
        "payload-builtin",
        "table-that",
    ] {
        let linked = graph.linked(name);
        for otel in OTEL {
            assert!(!linked.contains(otel), "{name} links {otel}");
        }
    }
    // The server's `cli` feature brings the command, which exports: read its default
    // build, and an app's that embeds it, on their own (the workspace's graph unifies
    // the features every binary turns on).
    for name in ["payload-serve", "table-that-web"] {
        let built = tree(name, &[]);
        for otel in OTEL {
            assert!(!linked(&built, otel), "{name} links {otel}");
        }
    }
    let exporter = graph.linked("payload-otel");
    let payload: Vec<&String> = exporter
        .iter()
        .filter(|name| name.starts_with("payload"))
        .collect();
    assert!(payload.is_empty(), "payload-otel links {payload:?}");
    for otel in OTEL {
        assert!(exporter.contains(otel), "payload-otel does not link {otel}");
    }
    // The binaries that are the command (`payload`, `recipes`) export through it.
    for command in ["payload-cli", "payload", "recipes-web"] {
        assert!(
            graph.linked(command).contains("payload-otel"),
            "{command} cannot export"
        );
    }
}

/// The command with export links one HTTP client and one TLS stack, the provider
/// clients' (the exporters post through the same reqwest), and without its `otel`
/// feature no OpenTelemetry crate at all.
#[test]
fn export_adds_no_second_http_stack() {
    // Each crate once, whichever dependents reach it.
    let tree = |features: &[&str]| -> Vec<String> {
        let mut lines: Vec<String> = tree("payload-cli", features)
            .lines()
            .map(|line| line.trim_end_matches(" (*)").to_string())
            .collect();
        lines.sort();
        lines.dedup();
        lines
    };
    let versions = |tree: &[String], name: &str| -> Vec<String> {
        tree.iter()
            .filter(|line| line.starts_with(&format!("{name} v")))
            .cloned()
            .collect()
    };
    let full = tree(&[]);
    assert_eq!(
        versions(&full, "payload-otel").len(),
        1,
        "the command exports"
    );
    for stack in ["reqwest", "hyper", "rustls", "hyper-rustls", "tokio"] {
        assert_eq!(
            versions(&full, stack).len(),
            1,
            "one {stack}: {:?}",
            versions(&full, stack)
        );
    }
    let without = tree(&["--no-default-features", "--features", "providers"]);
    assert!(!versions(&without, "reqwest").is_empty());
    for otel in ["payload-otel", "opentelemetry", "tracing-opentelemetry"] {
        assert!(
            versions(&without, otel).is_empty(),
            "{otel} without the feature"
        );
    }
}

/// An app that adds a payload crate keeps its own serde_json: no crate of ours turns on
/// a serde_json feature that changes how the app's own JSON reads or writes
/// (`preserve_order` changes every map's order, `unbounded_depth` and
/// `arbitrary_precision` what a text may hold). Member order is payload-core's
/// `preserve_order` feature, an app's choice. `float_roundtrip` is turned on by the
/// schema validator (jsonschema) and only by it; payload reads every float as the
/// nearest one either way (`json::precision::read_number`).
#[test]
fn an_app_keeps_serde_jsons_defaults() {
    // serde_json's features as `cargo tree` resolves them for `package` alone, and
    // what asks for each (the lines one level below a feature's line).
    let features_of = |package: &str, extra: &[&str]| -> Vec<(String, Vec<String>)> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
        let output = Command::new(cargo)
            .args([
                "tree",
                "-p",
                package,
                "-e",
                "normal,features",
                "-i",
                "serde_json",
            ])
            .args(["--prefix", "depth"])
            .args(extra)
            .arg("--manifest-path")
            .arg(&manifest)
            .output()
            .expect("cargo tree runs");
        assert!(
            output.status.success(),
            "cargo tree failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut features: Vec<(String, Vec<String>)> = Vec::new();
        for line in String::from_utf8(output.stdout).expect("UTF-8").lines() {
            let depth: String = line.chars().take_while(char::is_ascii_digit).collect();
            let rest = &line[depth.len()..];
            match depth.as_str() {
                "1" => {
                    let name = rest
                        .strip_prefix("serde_json feature \"")
                        .and_then(|r| r.split('"').next())
                        .unwrap_or_default();
                    features.push((name.to_string(), Vec::new()));
                }
                "2" => {
                    if let Some((_, askers)) = features.last_mut() {
                        askers.push(rest.split(' ').next().unwrap_or_default().to_string());
                    }
                }
                _ => {}
            }
        }
        features
    };
    for package in [
        "payload-schema",
        "payload-core",
        "payload-registry",
        "payload-prompt",
        "payload-agent",
        "payload-builtin",
        "payload-grammar",
        "payload-providers",
        "payload-serve",
        "payload-otel",
    ] {
        let features = features_of(package, &[]);
        assert!(!features.is_empty(), "{package} links serde_json");
        for (feature, askers) in &features {
            assert!(
                !matches!(
                    feature.as_str(),
                    "preserve_order" | "unbounded_depth" | "arbitrary_precision" | "indexmap"
                ),
                "{package} turns on serde_json's {feature} (asked by {askers:?})"
            );
            if feature == "float_roundtrip" {
                assert!(
                    askers.iter().all(|asker| asker.starts_with("jsonschema")),
                    "{package}: float_roundtrip asked by {askers:?}"
                );
            }
        }
    }
    // The opt-in does what it says.
    let ordered = features_of(
        "payload-core",
        &["--features", "payload-core/preserve_order"],
    );
    assert!(
        ordered
            .iter()
            .any(|(feature, _)| feature == "preserve_order")
    );
}

/// PostgreSQL is payload-serve's `postgres` feature: an app that leaves it off compiles
/// no PostgreSQL client (docs/serve.md, "Where the chat is kept"), and with it on there
/// is still one SQLite library (`libsqlite3-sys`, rusqlite's), as Cargo allows one
/// crate per native library.
#[test]
fn the_server_links_postgresql_only_with_its_feature() {
    let lean = tree("payload-serve", &[]);
    let full = tree("payload-serve", &["--features", "postgres"]);
    for postgres in ["tokio-postgres", "deadpool-postgres", "postgres-protocol"] {
        assert!(
            !linked(&lean, postgres),
            "{postgres} is linked without the feature"
        );
        assert!(
            linked(&full, postgres),
            "{postgres} is not linked with the feature"
        );
    }
    for tree in [&lean, &full] {
        assert!(linked(tree, "libsqlite3-sys"));
        assert!(!linked(tree, "sqlx"), "a second SQLite library");
    }
}
