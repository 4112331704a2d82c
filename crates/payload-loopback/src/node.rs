//! Node and an npm package folder for the tests that run an official JavaScript client
//! (AG-UI's, the AI SDK's): found, or skipped with a note, or a failure when
//! `PAYLOAD_REQUIRE_NODE` says the machine must have them (`.ci/run` sets it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Node (`$NODE`, else `node` on the path) and the `node_modules` folder named by the
/// environment variable `modules_var` (else `default_modules`), when Node runs and
/// every one of `packages` is installed there. Otherwise `None`, with a note on
/// standard error naming what is missing (`what`: how the packages are called in it),
/// or a panic when `PAYLOAD_REQUIRE_NODE` is set.
pub fn find(
    modules_var: &str,
    default_modules: &Path,
    packages: &[&str],
    what: &str,
) -> Option<(PathBuf, PathBuf)> {
    let node = std::env::var_os("NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let runs = Command::new(&node)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let modules = std::env::var_os(modules_var)
        .map(PathBuf::from)
        .unwrap_or_else(|| default_modules.to_path_buf());
    let installed = packages
        .iter()
        .all(|package| modules.join(package).join("package.json").exists());
    if runs && installed {
        return Some((node, modules));
    }
    let why = if runs {
        format!("{what} not installed in {}", modules.display())
    } else {
        "node is not installed".to_string()
    };
    if std::env::var_os("PAYLOAD_REQUIRE_NODE").is_some() {
        panic!("PAYLOAD_REQUIRE_NODE is set but {why}");
    }
    eprintln!("skipped: {why} (.ci/run installs it)");
    None
}
