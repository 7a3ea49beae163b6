//! What `#[derive(TableEntity)]` costs at compile time, against serde's
//! `#[derive(Serialize, Deserialize)]` on the same structs.
//!
//! ```text
//! cargo bench --bench derive_compile            # 5 timed rounds
//! cargo bench --bench derive_compile -- 9       # rounds of your choice
//! cargo bench --bench derive_compile -- --keep  # keep the generated crates, to profile them
//! ```
//!
//! Only the child builds are timed, so `--profile dev` (which reuses the dependencies of
//! `cargo test`) measures the same as the default release bench profile.
//!
//! Three throwaway library crates are generated in a temporary directory, each with 50 structs
//! of ten fields (`String`, `i32`, `i64`, `f64`, `bool`, `DateTime<Utc>`, `Uuid`,
//! `Option<String>`, `u32`, `Vec<u8>`):
//!
//! - `serde`: `#[derive(Serialize, Deserialize)]`, the baseline;
//! - `plain`: `#[derive(TableEntity)]` with one PartitionKey and one RowKey field and nothing
//!   else, to stay within 1x the baseline;
//! - `heavy`: `#[derive(TableEntity)]` with the heavier attributes (composite keys with
//!   formats, renames, `rename_from`, defaults, a records field and a flattened struct of two
//!   fields), to stay within 1.5x.
//!
//! They share one target directory, `target/derive_compile`, so their dependencies are built
//! once (on the first run only) before anything is timed. Each round then touches every
//! crate's `lib.rs` in turn and times a debug `cargo build` of that crate: only its own code
//! is compiled, in full (not incrementally). Rounds alternate the crates so a busy machine slows them alike; the table
//! gives each crate's median and minimum and their ratios to the baseline, and the size of
//! the library each produces as a proxy of how much code the derive generates.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Structs per crate.
const STRUCTS: usize = 50;

/// Timed rounds when none are given.
const DEFAULT_ROUNDS: usize = 5;

/// One generated crate.
struct Variant {
    /// Its short name in the table.
    label: &'static str,
    /// What it is measured against: `None` for the baseline.
    bound: Option<f64>,
    /// Its directory.
    dir: PathBuf,
    /// Its package name, also the stem of its library's file name.
    package: String,
    /// Wall times of the timed builds.
    times: Vec<Duration>,
}

/// How the structs of a crate are generated.
#[derive(Clone, Copy)]
enum Shape {
    Serde,
    Plain,
    Heavy,
}

impl Shape {
    fn label(self) -> &'static str {
        match self {
            Shape::Serde => "serde",
            Shape::Plain => "plain",
            Shape::Heavy => "heavy",
        }
    }

    fn bound(self) -> Option<f64> {
        match self {
            Shape::Serde => None,
            Shape::Plain => Some(1.0),
            Shape::Heavy => Some(1.5),
        }
    }

    /// The `[dependencies]` section of the crate's manifest.
    fn dependencies(self, workspace: &Path) -> String {
        let tablekit = workspace.join("tablekit");
        let common = "chrono = { version = \"0.4\", default-features = false, features = [\"std\", \"clock\"";
        match self {
            Shape::Serde => format!(
                "{common}, \"serde\"] }}\n\
                 serde = {{ version = \"1\", features = [\"derive\"] }}\n\
                 uuid = {{ version = \"1\", features = [\"serde\"] }}\n"
            ),
            Shape::Plain | Shape::Heavy => format!(
                "{common}] }}\n\
                 tablekit = {{ path = {:?} }}\n\
                 uuid = \"1\"\n",
                tablekit.display().to_string()
            ),
        }
    }

    /// The crate's `lib.rs`.
    fn source(self) -> String {
        let mut out = String::from(
            "#![allow(missing_docs, dead_code)]\n\
             use chrono::{DateTime, Utc};\n\
             use uuid::Uuid;\n",
        );
        match self {
            Shape::Serde => out.push_str("use serde::{Deserialize, Serialize};\n"),
            Shape::Plain => out.push_str("use tablekit::TableEntity;\n"),
            Shape::Heavy => out.push_str(
                "use tablekit::{Record, TableEntity, TableFields};\n\
                 #[derive(Debug, Clone, PartialEq, Default, TableFields)]\n\
                 pub struct Place {\n    pub city: String,\n    \
                 #[tablekit(default = true)]\n    pub active: bool,\n}\n\
                 #[derive(Debug, Clone, PartialEq, Default, Record)]\n\
                 #[record(version = 1)]\n\
                 pub struct Item {\n    pub level: i32,\n    pub done: DateTime<Utc>,\n    \
                 #[record(since = 1)]\n    pub stars: u8,\n}\n",
            ),
        }
        for i in 0..STRUCTS {
            out.push('\n');
            out.push_str(&self.item(i));
        }
        out
    }

    /// Struct number `i`.
    fn item(self, i: usize) -> String {
        let mut s = String::new();
        let items = match self {
            Shape::Serde => "Vec<u8>",
            Shape::Plain => "Vec<u8>",
            Shape::Heavy => "Vec<Item>",
        };
        // (attribute, field, type): ten fields in a mix of the types models store.
        let fields: [(&str, &str, &str); 10] = match self {
            Shape::Serde => [
                ("", "name", "String"),
                ("", "count", "i32"),
                ("", "total", "i64"),
                ("", "ratio", "f64"),
                ("", "active", "bool"),
                ("", "at", "DateTime<Utc>"),
                ("", "id", "Uuid"),
                ("", "note", "Option<String>"),
                ("", "level", "u32"),
                ("", "blob", items),
            ],
            Shape::Plain => [
                ("#[tablekit(partition_key)]", "name", "String"),
                ("", "count", "i32"),
                ("", "total", "i64"),
                ("", "ratio", "f64"),
                ("", "active", "bool"),
                ("", "at", "DateTime<Utc>"),
                ("#[tablekit(row_key)]", "id", "Uuid"),
                ("", "note", "Option<String>"),
                ("", "level", "u32"),
                ("", "blob", items),
            ],
            Shape::Heavy => [
                (
                    "#[tablekit(partition_key(order = 1), transform = lowercase, rename = \"Tenant\")]",
                    "name",
                    "String",
                ),
                ("#[tablekit(default = 7)]", "count", "i32"),
                ("#[tablekit(rename = \"Sum\", default = -1)]", "total", "i64"),
                ("#[tablekit(rename_from = \"Rate\")]", "ratio", "f64"),
                ("#[tablekit(flatten)]", "place", "Place"),
                ("#[tablekit(row_key(order = 1, inverted_ticks))]", "at", "DateTime<Utc>"),
                ("#[tablekit(row_key(order = 2))]", "id", "Uuid"),
                ("#[tablekit(rename = \"Remark\", rename_from = \"Note\")]", "note", "Option<String>"),
                ("#[tablekit(partition_key(order = 2, pad = 10))]", "level", "u32"),
                ("#[tablekit(records(max_properties = 4))]", "blob", items),
            ],
        };
        let derive = match self {
            Shape::Serde => "#[derive(Debug, Clone, Serialize, Deserialize)]".to_owned(),
            Shape::Plain => "#[derive(Debug, Clone, TableEntity)]".to_owned(),
            Shape::Heavy => {
                format!("#[derive(Debug, Clone, TableEntity)]\n#[tablekit(table = \"Things{i}\")]")
            }
        };
        let _ = writeln!(s, "{derive}\npub struct Thing{i} {{");
        for (attribute, field, ty) in fields {
            if !attribute.is_empty() {
                let _ = writeln!(s, "    {attribute}");
            }
            let _ = writeln!(s, "    pub {field}: {ty},");
        }
        s.push_str("}\n");
        s
    }
}

fn main() -> Result<(), BoxError> {
    let keep = std::env::args().any(|a| a == "--keep");
    let rounds = match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(n) => n
            .parse()
            .map_err(|_| format!("`{n}` is not a number of rounds"))?,
        None => DEFAULT_ROUNDS,
    };
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = workspace.join("target").join("derive_compile");
    let temp = tempfile::Builder::new()
        .prefix("derive_compile")
        .tempdir()?;
    let mut variants = [Shape::Serde, Shape::Plain, Shape::Heavy]
        .into_iter()
        .map(|shape| generate(shape, temp.path(), workspace))
        .collect::<Result<Vec<_>, _>>()?;

    eprintln!("building dependencies into {}", target.display());
    for v in &variants {
        build(v, &target)?;
    }
    // One untimed rebuild each: the first build of a crate's own code also writes its
    // fingerprints and warms the file cache.
    for v in &variants {
        touch(v)?;
        build(v, &target)?;
    }
    for round in 1..=rounds {
        eprintln!("round {round}/{rounds}");
        for v in &mut variants {
            touch(v)?;
            let time = build(v, &target)?;
            v.times.push(time);
        }
    }
    report(&variants, &target);
    if keep {
        println!("\nthe crates are kept in {}", temp.keep().display());
    }
    Ok(())
}

/// Writes the crate of `shape` under `root`.
fn generate(shape: Shape, root: &Path, workspace: &Path) -> Result<Variant, BoxError> {
    let package = format!("derive_compile_{}", shape.label());
    let dir = root.join(&package);
    fs::create_dir_all(dir.join("src"))?;
    let manifest = format!(
        "[package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [lib]\npath = \"src/lib.rs\"\n\n[dependencies]\n{}\n\
         # A workspace of its own, whatever directory it is in.\n[workspace]\n",
        shape.dependencies(workspace)
    );
    fs::write(dir.join("Cargo.toml"), manifest)?;
    fs::write(dir.join("src").join("lib.rs"), shape.source())?;
    // The workspace's lock file: the same versions it already built and downloaded.
    fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock"))?;
    Ok(Variant {
        label: shape.label(),
        bound: shape.bound(),
        dir,
        package,
        times: Vec::new(),
    })
}

/// Marks the crate's own code as changed.
fn touch(v: &Variant) -> Result<(), BoxError> {
    let lib = fs::File::options()
        .append(true)
        .open(v.dir.join("src").join("lib.rs"))?;
    lib.set_modified(SystemTime::now())?;
    Ok(())
}

/// Runs a debug `cargo build` of the crate and returns how long it took.
fn build(v: &Variant, target: &Path) -> Result<Duration, BoxError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let start = Instant::now();
    let output = Command::new(cargo)
        .args(["build", "--offline", "--quiet", "--lib"])
        .current_dir(&v.dir)
        .env("CARGO_TARGET_DIR", target)
        // Touching changes no code, so an incremental build would reuse last round's work.
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()?;
    let elapsed = start.elapsed();
    if !output.status.success() {
        return Err(format!(
            "`cargo build` of the {} crate failed:\n{}",
            v.label,
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(elapsed)
}

/// The median of `times`.
fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

/// The size of the crate's library, if built.
fn library_size(v: &Variant, target: &Path) -> Option<u64> {
    let name = format!("lib{}.rlib", v.package);
    fs::metadata(target.join("debug").join(name))
        .ok()
        .map(|m| m.len())
}

fn report(variants: &[Variant], target: &Path) {
    let Some(baseline) = variants.first() else {
        return;
    };
    let (base_median, base_min) = (median(&baseline.times), min(&baseline.times));
    println!(
        "\n{STRUCTS} structs of ten fields, debug build of the crate's own code, {} rounds\n",
        baseline.times.len()
    );
    println!(
        "{:<6} {:>10} {:>10} {:>14} {:>11} {:>10} {:>9}",
        "crate", "median s", "min s", "ratio median", "ratio min", "bound", "rlib KiB"
    );
    for v in variants {
        let (m, lo) = (median(&v.times), min(&v.times));
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        let (rm, rl) = (ratio(m, base_median), ratio(lo, base_min));
        let bound = match v.bound {
            Some(b) if rm <= b => format!("{b}x ok"),
            Some(b) => format!("{b}x OVER"),
            None => "-".to_owned(),
        };
        let size = library_size(v, target).map_or("-".to_owned(), |s| (s / 1024).to_string());
        println!(
            "{:<6} {:>10.2} {:>10.2} {:>14.2} {:>11.2} {:>10} {:>9}",
            v.label,
            m.as_secs_f64(),
            lo.as_secs_f64(),
            rm,
            rl,
            bound,
            size
        );
    }
}

/// The shortest of `times`.
fn min(times: &[Duration]) -> Duration {
    times.iter().copied().min().unwrap_or(Duration::ZERO)
}
