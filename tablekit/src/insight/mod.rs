//! Models inferred from live tables, and drift between a model and what a table holds.
//!
//! - [`sample`] reads a bounded sample of a table, spread over its partitions.
//! - [`generate_model`] writes the source of a `#[derive(TableEntity)]` struct reading every
//!   entity of a sample: snake_case fields renamed to the stored names, Rust types from the
//!   EDM types, `Option` for properties some rows lack, key attributes for the key structure it
//!   recognises ([`KeyShape`]: constant parts, separators, zero-padded numbers, ticks and
//!   inverted ticks, GUIDs; dates are proposed in a comment, as `key_only` cannot read them
//!   back), and an entity family proposed in a comment when a text property with few values
//!   tells rows of different shapes apart. Its header says what it could not infer.
//! - [`check`] and [`check_model`] compare a sample with a model: properties the model does
//!   not know, fields the data lacks, values a field cannot read, keys of another shape. The
//!   [`DriftReport`] prints for people and serializes to JSON for CI. [`FamilyCheck`] checks
//!   an entity family's rows kind by kind.
//!
//! `tablekit generate model TABLE` and `tablekit schema check TABLE --model FILE` run them from
//! the command line.
//!
//! ```
//! use tablekit::insight::{check, generate_model, GenerateOptions};
//! use tablekit::DynamicEntity;
//!
//! let mut row = DynamicEntity::new("eu", "order_000001");
//! row.set("Total", 12.5);
//! let model = generate_model(&[row], &GenerateOptions::default());
//!
//! // Later the table holds a row the model does not read.
//! let mut newer = DynamicEntity::new("eu", "order_17");
//! newer.set("Total", "12.50");
//! newer.set("Currency", "EUR");
//! let report = check(&model.description, &[newer]);
//! assert!(report.fails_reads());
//! assert_eq!(report.unknown_properties[0].property, "Currency");
//! ```

mod drift;
mod family;
mod generate;
mod key_shape;
mod profile;
mod sample;

pub use drift::{
    check, check_model, AbsentField, DriftReport, FieldInfo, FieldStorage, KeyMismatch,
    ModelFields, UnknownProperty, Unreadable,
};
pub use family::{FamilyCheck, FamilyReport, UnclaimedRows};
pub use generate::{
    generate_model, FieldDescription, GenerateOptions, GeneratedModel, ModelDescription,
};
pub use key_shape::{KeyShape, PartShape};
pub use sample::{sample, Sample, SampleOptions};
