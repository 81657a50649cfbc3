//! No import circle inside the crate: modules form layers (error and fields
//! at the bottom, then extractors and answers, then resources, then the route
//! table and the dispatcher), each using only those below it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every source file's module path (`resources::devices::json`) and text.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("the source folder") {
            let path = entry.expect("an entry").path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                walk(&path, &[prefix, &[stem]].concat(), out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = match stem.as_str() {
                    "mod" | "lib" => prefix.join("::"),
                    _ => [prefix, &[stem]].concat().join("::"),
                };
                out.insert(name, std::fs::read_to_string(&path).expect("a source file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut out,
    );
    out
}

/// The paths a source names after `crate::` or `super::`, and its `use` of
/// its own child modules (groups expanded); not `$crate::` in macros, nor
/// comments.
fn named_paths(module: &str, source: &str) -> Vec<String> {
    // Inline test modules come last and may use anything.
    let code: String = source
        .lines()
        .take_while(|line| !line.trim_start().starts_with("mod tests {"))
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let parent = module.rsplit_once("::").map_or("", |(parent, _)| parent);
    let mut paths = Vec::new();
    for (keyword, base) in [("crate::", ""), ("super::", parent)] {
        let mut rest = code.as_str();
        while let Some(at) = rest.find(keyword) {
            let before = rest[..at].chars().last();
            let after = &rest[at + keyword.len()..];
            rest = after;
            if before.is_some_and(|c| c == '$' || c.is_alphanumeric() || c == '_') {
                continue;
            }
            let prefix = if base.is_empty() {
                String::new()
            } else {
                format!("{base}::")
            };
            expand(&prefix, after, &mut paths);
        }
    }
    // `use child::…` in a module that declares `mod child;`.
    for line in code.lines() {
        let line = line.trim_start();
        let Some(rest) = ["use ", "pub use ", "pub(crate) use "]
            .iter()
            .find_map(|start| line.strip_prefix(start))
        else {
            continue;
        };
        if !rest.starts_with("crate::") && !rest.starts_with("super::") {
            let prefix = if module.is_empty() {
                String::new()
            } else {
                format!("{module}::")
            };
            expand(&prefix, rest, &mut paths);
        }
    }
    paths
}

/// Expands `a::b::{c, d::e}` after `prefix` into every full path.
fn expand(prefix: &str, text: &str, out: &mut Vec<String>) {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(text.len());
    let head = text[..end].trim_end_matches(':');
    let path = format!("{prefix}{head}");
    if text[end..].starts_with('{') && text[..end].ends_with("::") {
        let mut depth = 0;
        let mut start = end + 1;
        for (i, c) in text[end..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' | ',' if depth == 1 => {
                    expand(&format!("{path}::"), text[start..end + i].trim(), out);
                    start = end + i + 1;
                    if c == '}' {
                        return;
                    }
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
    }
    out.push(path);
}

/// The module a path lands in: its longest prefix that is a module.
fn owner<'a>(path: &str, modules: &'a BTreeMap<String, String>) -> Option<&'a str> {
    let parts: Vec<&str> = path.split("::").collect();
    (0..=parts.len())
        .rev()
        .map(|n| parts[..n].join("::"))
        .find_map(|candidate| modules.get_key_value(&candidate).map(|(k, _)| k.as_str()))
}

#[test]
fn modules_use_each_other_without_a_circle() {
    let modules = modules();
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (module, source) in &modules {
        if module.starts_with("tests") || module.ends_with("::tests") {
            continue;
        }
        for path in named_paths(module, source) {
            if let Some(target) = owner(&path, &modules)
                && target != module
                && !target.starts_with("tests")
            {
                edges.entry(module).or_default().insert(target);
            }
        }
    }
    // Depth-first search for a back edge, reporting the circle found.
    fn visit<'a>(
        node: &'a str,
        edges: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        stack: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(at) = stack.iter().position(|n| *n == node) {
            panic!("import circle: {} -> {node}", stack[at..].join(" -> "));
        }
        if !done.insert(node) {
            return;
        }
        stack.push(node);
        for next in edges.get(node).into_iter().flatten() {
            visit(next, edges, stack, done);
        }
        stack.pop();
    }
    let mut done = BTreeSet::new();
    for module in modules.keys() {
        visit(module, &edges, &mut Vec::new(), &mut done);
    }
    assert!(
        edges.contains_key("route_table"),
        "the scan found the route table's imports"
    );
}
