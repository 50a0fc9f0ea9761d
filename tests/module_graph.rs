//! The library's modules import one another without circles: for every module, the modules
//! its `crate::` and `super::` paths name (a child's use of its parent's items aside, which
//! Rust's module tree makes unavoidable), and no path through them leads back to it. Read from
//! the source text, so that a circle (as array -> dtype -> float -> array once was) fails here.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/codec/cast_value.rs` -> `codec::cast_value`; `src/plan/mod.rs` -> `plan`.
fn module_name(src: &Path, path: &Path) -> String {
    let rel = path
        .strip_prefix(src)
        .expect("under src")
        .with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// Identifiers following `prefix` in code (comments left out).
fn paths_after<'a>(code: &'a str, prefix: &'a str) -> impl Iterator<Item = Vec<&'a str>> + 'a {
    code.match_indices(prefix).map(move |(i, _)| {
        code[i + prefix.len()..]
            .split("::")
            .map(|seg| {
                seg.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("")
            })
            .take_while(|seg| !seg.is_empty())
            .take(2)
            .collect()
    })
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let names: BTreeSet<String> = files.iter().map(|f| module_name(&src, f)).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let name = module_name(&src, file);
        if name == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read");
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        // A glob import would hide the modules it depends on (test modules, indented, aside).
        let glob = code
            .lines()
            .find(|l| l.starts_with("use ") && l.trim_end().ends_with("::*;"));
        assert!(
            glob.is_none(),
            "{name}: {glob:?} hides what it imports from"
        );
        let parent = name.rsplit_once("::").map(|(p, _)| p.to_string());
        let mut deps = BTreeSet::new();
        for segs in paths_after(&code, "crate::") {
            let two = segs.join("::");
            let dep = if names.contains(&two) {
                two
            } else {
                segs.first().map(|s| s.to_string()).unwrap_or_default()
            };
            if names.contains(&dep) && dep != name {
                deps.insert(dep);
            }
        }
        for segs in paths_after(&code, "super::") {
            let Some(parent) = &parent else { continue };
            let sibling = format!("{parent}::{}", segs.first().copied().unwrap_or(""));
            // A sibling module is a dependency; the parent's own items are the module tree.
            if names.contains(&sibling) && sibling != name {
                deps.insert(sibling);
            }
        }
        graph.insert(name, deps);
    }
    graph
}

/// A path from `from` back to `target` through `graph`, if any.
fn path_back(
    graph: &BTreeMap<String, BTreeSet<String>>,
    target: &str,
    from: &str,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    for next in graph.get(from).into_iter().flatten() {
        if next == target {
            return Some(vec![from.to_string(), next.clone()]);
        }
        if seen.insert(next.clone()) {
            if let Some(mut rest) = path_back(graph, target, next, seen) {
                rest.insert(0, from.to_string());
                return Some(rest);
            }
        }
    }
    None
}

#[test]
fn no_module_imports_lead_back_to_it() {
    let graph = graph();
    assert!(graph.len() > 15, "read {} modules", graph.len());
    // The reading works: known edges are seen.
    assert!(graph["dtype"].contains("widths"), "{:?}", graph["dtype"]);
    assert!(
        graph["codec::fused"].contains("codec::cast_value"),
        "{:?}",
        graph["codec::fused"]
    );
    for name in graph.keys() {
        if let Some(circle) = path_back(&graph, name, name, &mut BTreeSet::new()) {
            panic!("a circle: {}", circle.join(" -> "));
        }
    }
}
