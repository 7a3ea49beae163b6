//! Every public type, trait and module of the published crates has an example in its
//! documentation.
//!
//! Types, traits and modules are where a reader starts, so each shows its use. Functions,
//! methods and constants are the author's judgment: an example where it teaches something (a
//! non-obvious behaviour, an error case, how pieces fit together), none where the doc sentence
//! says it all. rustdoc's own coverage report is unstable, so this walks the sources instead:
//! each `pub` type and trait outside test modules, and each `pub mod` (its docs on the
//! declaration or inside its file). `unreachable_pub` (denied in CI) makes every such item part
//! of the public API. Crate roots are covered by their README, tested by `readme.rs`.

use std::fs;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, Item, ItemMod, Visibility};

/// The source folders of the published crates, from the workspace root.
const SOURCES: &[&str] = &[
    "tablekit/src",
    "tablekit-emulator/src",
    "tablekit-testing/src",
    "tablekit-derive/src",
    "tablekit-rules/src",
];

/// Files whose `pub` items are reachable only through `#[doc(hidden)]` modules: support for
/// generated code, and fuzzing entry points.
const HIDDEN: &[&str] = &[
    "tablekit/src/__private.rs",
    "tablekit/src/__private/flatten.rs",
    "tablekit/src/fuzzing.rs",
    "tablekit-emulator/src/fuzzing.rs",
    "tablekit/src/model/record/dispatch.rs",
];

/// A proc-macro crate exports only its macros: its other modules are private by nature.
const MACROS_ONLY: &str = "tablekit-derive/src";

#[test]
fn every_public_type_trait_and_module_has_an_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    let mut checked = 0;
    for folder in SOURCES {
        for file in rust_files(&root.join(folder)) {
            let relative = file.strip_prefix(root).unwrap().to_string_lossy();
            let Some(items) = api_items(&file, &relative) else {
                continue;
            };
            checked += items.len();
            missing.extend(
                items
                    .into_iter()
                    .filter(|(_, has_example)| !has_example)
                    .map(|(name, _)| format!("{relative}: {name}")),
            );
        }
    }
    // The walk must see the API at all: a broken walk would pass with nothing to check.
    assert!(
        checked > 100,
        "only {checked} public types, traits and modules found"
    );
    assert!(
        missing.is_empty(),
        "{} of {checked} public types, traits and modules have no example:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The public types, traits and modules declared in one source file and whether each has an
/// example; `None` for a file that holds no public API.
fn api_items(file: &Path, relative: &str) -> Option<Vec<(String, bool)>> {
    let macros_crate_module = relative.starts_with(MACROS_ONLY) && !relative.ends_with("lib.rs");
    if HIDDEN.contains(&relative) || macros_crate_module {
        return None;
    }
    let parsed = parse(file, relative);
    let mut items = Vec::new();
    public_items(&parsed.items, file, "", &mut items);
    Some(items)
}

fn parse(file: &Path, relative: &str) -> syn::File {
    let source = fs::read_to_string(file).unwrap();
    syn::parse_file(&source).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The `.rs` files under `folder`, in a stable order.
fn rust_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Each public type, trait and module among `items` of `file` (inline modules entered), named
/// with `prefix`, and whether its documentation holds a code block.
fn public_items(items: &[Item], file: &Path, prefix: &str, out: &mut Vec<(String, bool)>) {
    for item in items {
        let (attrs, vis, name) = match item {
            Item::Mod(m) if !is_test_or_hidden(&m.attrs) => {
                let name = format!("{prefix}{}", m.ident);
                if let Some((_, inner)) = &m.content {
                    public_items(inner, file, &format!("{name}::"), out);
                }
                if is_public(&m.vis, &m.attrs) {
                    let documented = has_example(&m.attrs) || module_file_has_example(file, m);
                    out.push((format!("mod {name}"), documented));
                }
                continue;
            }
            Item::Trait(t) => (&t.attrs, &t.vis, t.ident.to_string()),
            Item::Struct(s) => (&s.attrs, &s.vis, s.ident.to_string()),
            Item::Enum(e) => (&e.attrs, &e.vis, e.ident.to_string()),
            Item::Type(t) => (&t.attrs, &t.vis, t.ident.to_string()),
            _ => continue,
        };
        if is_public(vis, attrs) {
            out.push((format!("{prefix}{name}"), has_example(attrs)));
        }
    }
}

/// Whether the file of an out-of-line module (`pub mod name;` in `file`) opens with an example
/// in its `//!` docs. Inline modules have no file of their own.
fn module_file_has_example(file: &Path, module: &ItemMod) -> bool {
    if module.content.is_some() {
        return false;
    }
    let owner = file.file_stem().unwrap();
    let folder = if owner == "lib" || owner == "mod" {
        file.parent().unwrap().to_path_buf()
    } else {
        file.with_extension("")
    };
    let name = module.ident.to_string();
    let candidates = [
        folder.join(format!("{name}.rs")),
        folder.join(name).join("mod.rs"),
    ];
    let module_file = candidates
        .iter()
        .find(|path| path.exists())
        .unwrap_or_else(|| {
            panic!(
                "no file for module `{}` of {}",
                module.ident,
                file.display()
            )
        });
    has_example(&parse(module_file, &module_file.to_string_lossy()).attrs)
}

/// Plain `pub` (not `pub(crate)`), and not hidden from the documentation.
fn is_public(vis: &Visibility, attrs: &[Attribute]) -> bool {
    matches!(vis, Visibility::Public(_)) && !is_test_or_hidden(attrs)
}

/// `#[cfg(test)]` or `#[doc(hidden)]`.
fn is_test_or_hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let text = a.meta.to_token_stream().to_string().replace(' ', "");
        text == "cfg(test)" || text == "doc(hidden)"
    })
}

/// Whether the doc attributes (`///` or `//!`) hold a fenced code block.
fn has_example(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("doc") && a.meta.to_token_stream().to_string().contains("```"))
}
