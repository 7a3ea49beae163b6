//! Keeps the README true: its set-up section holds exactly the two commands a fresh machine
//! needs, and its examples table lists exactly the examples that exist. (The quick start is
//! compiled as the root package's doctest.)

use std::path::Path;

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of the `## title` section, up to the next `## `.
fn section(text: &str, title: &str) -> String {
    let heading = format!("## {title}\n");
    let start = text
        .find(&heading)
        .unwrap_or_else(|| panic!("README has no `{heading}`"));
    let body = &text[start + heading.len()..];
    let end = body.find("\n## ").unwrap_or(body.len());
    body[..end].to_owned()
}

/// The lines inside ``` fences of a section.
fn commands(section: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in section.lines() {
        if line.starts_with("```") {
            inside = !inside;
        } else if inside && !line.trim().is_empty() {
            out.push(line.trim().to_owned());
        }
    }
    out
}

#[test]
fn set_up_is_exactly_the_two_commands() {
    let setup = section(&readme(), "Set-up on a fresh machine");
    assert_eq!(
        commands(&setup),
        ["cargo run --example gamers", "cargo test"]
    );
}

#[test]
fn the_examples_table_lists_every_example_and_no_other() {
    let examples = section(&readme(), "Examples");
    let mut listed: Vec<String> = examples
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once('`'))
        .map(|(name, _)| name.to_owned())
        .collect();
    listed.sort();

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            name.strip_suffix(".rs").map(str::to_owned)
        })
        // Benchmark workloads are documented under Benchmarks, not as scenarios.
        .filter(|name| !name.starts_with("bench_"))
        .collect();
    present.sort();
    assert_eq!(listed, present);
}
