//! Every public item of the published crates has an example in its documentation.
//!
//! rustdoc's own coverage report is unstable, so this walks the sources instead: each `pub`
//! item outside test modules and trait implementations, each method of a public trait, and
//! each `pub` method, constant and type of an inherent `impl`. `unreachable_pub` (denied in
//! CI) makes every such item part of the public API. Modules are covered by their crate's
//! example, and the crate documentation that comes from a README is tested by `readme.rs`.

use std::fs;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, ImplItem, Item, ItemImpl, ItemTrait, TraitItem, Visibility};

/// The source folders of the published crates, from the workspace root.
const SOURCES: &[&str] = &[
    "tablekit/src",
    "tablekit-testing/src",
    "tablekit-derive/src",
    "tablekit-rules/src",
];

/// Files whose `pub` items are reachable only through `#[doc(hidden)]` modules: support for
/// generated code, and fuzzing entry points.
const HIDDEN: &[&str] = &[
    "tablekit/src/__private.rs",
    "tablekit/src/fuzzing.rs",
    "tablekit-testing/src/fuzzing.rs",
    "tablekit/src/record/dispatch.rs",
];

/// A proc-macro crate exports only its macros: its other modules are private by nature.
const MACROS_ONLY: &str = "tablekit-derive/src";

#[test]
fn every_public_item_has_an_example() {
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
    assert!(checked > 500, "only {checked} public items found");
    assert!(
        missing.is_empty(),
        "{} of {checked} public items have no example:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The public items of one source file and whether each has an example; `None` for a file
/// that holds no public API.
fn api_items(file: &Path, relative: &str) -> Option<Vec<(String, bool)>> {
    let macros_crate_module = relative.starts_with(MACROS_ONLY) && !relative.ends_with("lib.rs");
    if HIDDEN.contains(&relative) || macros_crate_module {
        return None;
    }
    let source = fs::read_to_string(file).unwrap();
    let parsed = syn::parse_file(&source).unwrap_or_else(|e| panic!("{relative}: {e}"));
    let mut items = Vec::new();
    public_items(&parsed.items, "", &mut items);
    Some(items)
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

/// Each public item among `items` (inline modules and inherent impls entered), named with
/// `prefix`, and whether its documentation holds a code block.
fn public_items(items: &[Item], prefix: &str, out: &mut Vec<(String, bool)>) {
    for item in items {
        let (attrs, vis, name) = match item {
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    if !is_test_or_hidden(&m.attrs) {
                        public_items(inner, &format!("{prefix}{}::", m.ident), out);
                    }
                }
                continue;
            }
            Item::Impl(i) if i.trait_.is_none() && !is_test_or_hidden(&i.attrs) => {
                inherent_members(i, prefix, out);
                continue;
            }
            Item::Trait(t) if is_public(&t.vis, &t.attrs) => {
                out.push((format!("{prefix}{}", t.ident), has_example(&t.attrs)));
                trait_methods(t, prefix, out);
                continue;
            }
            Item::Fn(f) => (&f.attrs, &f.vis, f.sig.ident.to_string()),
            Item::Struct(s) => (&s.attrs, &s.vis, s.ident.to_string()),
            Item::Enum(e) => (&e.attrs, &e.vis, e.ident.to_string()),
            Item::Const(c) => (&c.attrs, &c.vis, c.ident.to_string()),
            Item::Static(s) => (&s.attrs, &s.vis, s.ident.to_string()),
            Item::Type(t) => (&t.attrs, &t.vis, t.ident.to_string()),
            _ => continue,
        };
        if is_public(vis, attrs) {
            out.push((format!("{prefix}{name}"), has_example(attrs)));
        }
    }
}

/// Plain `pub` (not `pub(crate)`), and not hidden from the documentation.
/// The public methods, constants and types of an inherent `impl`.
fn inherent_members(block: &ItemImpl, prefix: &str, out: &mut Vec<(String, bool)>) {
    let owner = block.self_ty.to_token_stream().to_string().replace(' ', "");
    for member in &block.items {
        let (attrs, vis, name) = match member {
            ImplItem::Fn(f) => (&f.attrs, &f.vis, f.sig.ident.to_string()),
            ImplItem::Const(c) => (&c.attrs, &c.vis, c.ident.to_string()),
            ImplItem::Type(t) => (&t.attrs, &t.vis, t.ident.to_string()),
            _ => continue,
        };
        if is_public(vis, attrs) {
            out.push((format!("{prefix}{owner}::{name}"), has_example(attrs)));
        }
    }
}

/// The methods of a public trait, public with it.
fn trait_methods(block: &ItemTrait, prefix: &str, out: &mut Vec<(String, bool)>) {
    for member in &block.items {
        if let TraitItem::Fn(f) = member {
            if !is_test_or_hidden(&f.attrs) {
                let name = format!("{prefix}{}::{}", block.ident, f.sig.ident);
                out.push((name, has_example(&f.attrs)));
            }
        }
    }
}

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

/// Whether the `///` lines hold a fenced code block.
fn has_example(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("doc") && a.meta.to_token_stream().to_string().contains("```"))
}
