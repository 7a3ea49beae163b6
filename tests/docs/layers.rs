//! Keeps `tablekit`'s layers layered: a file of one layer folder imports nothing from a layer
//! above it. The layers are the folders of `tablekit/src`, bottom to top as in [`LAYERS`]; the
//! crate docs' "Layout" section describes them.
//!
//! A reference is any `crate::…` path in code (comments and doc comments are skipped: a doc
//! link upwards is documentation, not a dependency). A path through a root re-export
//! (`crate::Error`, `crate::value`) belongs to the layer `lib.rs` re-exports it from.
//!
//! Exceptions, outside every layer: `lib.rs` (it declares and re-exports them all),
//! `__private` (the derive macros' support, which names items of every layer, the client's
//! `Table` included) and `fuzzing` (the fuzz entry points, into the client's decoder).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The layer folders of `tablekit/src`, bottom to top.
const LAYERS: &[&str] = &[
    "values", "codec", "filter", "protocol", "model", "query", "client", "patterns", "insight",
];

/// Top-level modules that belong to no layer (see the module docs).
const EXCEPTIONS: &[&str] = &["lib.rs", "__private", "__private.rs", "fuzzing.rs"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tablekit/src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments: whole comment lines and trailing `// …`.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            return None;
        }
        Some((i + 1, line.split(" //").next().unwrap_or(line)))
    })
}

/// The first segment of every `crate::` path on a line, the names of a `crate::{…}` group each.
fn crate_references(line: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` is a macro's path to the crate, `foo_crate::` another name.
        if before.is_some_and(|c| c == '$' || c == '_' || c.is_alphanumeric()) {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                names.push(first_segment(item.trim()));
            }
        } else {
            names.push(first_segment(rest));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

fn first_segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Root names of `lib.rs`'s `pub use <layer>::…` re-exports, each with its layer.
fn root_reexports(lib: &str) -> HashMap<String, &'static str> {
    let mut map = HashMap::new();
    for statement in lib.split(';') {
        let statement = statement.trim();
        let Some(path) = statement
            .rsplit("pub use ")
            .next()
            .filter(|_| statement.contains("pub use "))
        else {
            continue;
        };
        let Some(layer) = LAYERS.iter().find(|l| path.starts_with(&format!("{l}::"))) else {
            continue;
        };
        let names: Vec<&str> = match path.find('{') {
            Some(open) => path[open + 1..].trim_end_matches('}').split(',').collect(),
            None => path.rsplit("::").next().into_iter().collect(),
        };
        for name in names {
            let name = name.trim().rsplit(" as ").next().unwrap_or("").trim();
            if !name.is_empty() {
                map.insert(name.to_owned(), *layer);
            }
        }
    }
    map
}

/// The layer a reference's first segment names, if any (external crates, `prelude`: none).
fn layer_of_reference(name: &str, reexports: &HashMap<String, &'static str>) -> Option<usize> {
    let layer = LAYERS
        .iter()
        .find(|l| **l == name)
        .copied()
        .or_else(|| reexports.get(name).copied())?;
    LAYERS.iter().position(|l| *l == layer)
}

/// Every `file:line: layer → layer (crate::name)` where a file imports from above its layer.
fn upward_references() -> Vec<String> {
    let src = src();
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("tablekit/src/lib.rs");
    let reexports = root_reexports(&lib);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut offenders = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("under src");
        let top = relative.components().next().expect("a component");
        let top = top.as_os_str().to_str().expect("UTF-8 path");
        if EXCEPTIONS.contains(&top) {
            continue;
        }
        let Some(own) = LAYERS.iter().position(|l| *l == top) else {
            offenders.push(format!("{}: in no layer folder", relative.display()));
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("a source file");
        for (line_number, line) in code_lines(&text) {
            for name in crate_references(line) {
                if let Some(target) = layer_of_reference(&name, &reexports) {
                    if target > own {
                        offenders.push(format!(
                            "{}:{line_number}: {} imports {} (crate::{name})",
                            relative.display(),
                            LAYERS[own],
                            LAYERS[target],
                        ));
                    }
                }
            }
        }
    }
    offenders
}

#[test]
fn no_layer_imports_a_layer_above_it() {
    let offenders = upward_references();
    assert!(
        offenders.is_empty(),
        "layers bottom to top: {}\nupward imports:\n{}",
        LAYERS.join(", "),
        offenders.join("\n")
    );
}

#[test]
fn the_reexports_are_read() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("tablekit/src/lib.rs");
    let reexports = root_reexports(&lib);
    // Without these the check would miss `crate::Error` and `crate::value` paths.
    assert_eq!(reexports.get("Error"), Some(&"client"));
    assert_eq!(reexports.get("value"), Some(&"values"));
    assert_eq!(reexports.get("Query"), Some(&"query"));
}

#[test]
fn references_are_found_in_paths_and_groups() {
    assert_eq!(crate_references("use crate::client::Table;"), ["client"]);
    assert_eq!(
        crate_references("use crate::{Column, model::Index};"),
        ["Column", "model"]
    );
    assert_eq!(
        crate_references("-> crate::Result<()> { $crate::x; my_crate::y }"),
        ["Result"]
    );
    let comments: Vec<_> =
        code_lines("/// [x](crate::client)\nlet a = 1; // crate::client").collect();
    assert_eq!(comments, [(2, "let a = 1;")]);
}
