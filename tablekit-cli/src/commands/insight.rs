//! `generate model` and `schema check`: a model inferred from a sample of a table, and a
//! table's drift from a model kept as JSON.
//!
//! A Rust type cannot be loaded at run time, so `schema check` compares the table with the
//! model's description: the JSON `generate model --json` writes (kept beside the generated
//! source, and edited with it), naming each field's property, Rust type and optionality and
//! both keys' shapes.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use tablekit::insight::{
    check, generate_model, sample, GenerateOptions, ModelDescription, SampleOptions,
};
use tablekit::DynamicEntity;

use crate::cli::Connection;
use crate::common::require_table;
use crate::connect::client;
use crate::exit::{Failure, Outcome};
use crate::jsonl::write_failed;

/// `generate` commands.
#[derive(Debug, Subcommand)]
pub(crate) enum GenerateCommand {
    /// Prints a `#[derive(TableEntity)]` struct inferred from a sample of a table (or, with
    /// `--json`, the model as JSON for `schema check`)
    Model(GenerateModelArgs),
}

/// `generate model`.
#[derive(Debug, Args)]
pub(crate) struct GenerateModelArgs {
    /// The table
    pub(crate) table: String,
    /// The most entities sampled, spread over the partitions
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub(crate) sample: usize,
    /// The struct's name (default: from the table's)
    #[arg(long, value_name = "NAME")]
    pub(crate) name: Option<String>,
    /// Prints the model as JSON (what `schema check --model` reads) instead of Rust
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `schema` commands.
#[derive(Debug, Subcommand)]
pub(crate) enum SchemaCommand {
    /// Compares a sample of a table with a model written by `generate model --json`: unknown
    /// properties, absent fields, unreadable values, keys of another shape. Exits with 1 when
    /// a read would fail
    Check(SchemaCheckArgs),
}

/// `schema check`.
#[derive(Debug, Args)]
pub(crate) struct SchemaCheckArgs {
    /// The table
    pub(crate) table: String,
    /// The model's JSON file, from `tablekit generate model TABLE --json`
    #[arg(long, value_name = "PATH")]
    pub(crate) model: PathBuf,
    /// The most entities sampled, spread over the partitions
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub(crate) sample: usize,
    /// Prints the report as JSON
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// The sample `--sample` asks for.
async fn read_sample(
    connection: &Connection,
    table: &str,
    max: usize,
) -> Outcome<Vec<DynamicEntity>> {
    if max == 0 {
        return Err(Failure::bad_input("--sample must be at least 1"));
    }
    let client = client(connection)?;
    require_table(&client, table).await?;
    let table = client.table_named::<DynamicEntity>(table);
    let options = SampleOptions {
        max_entities: max,
        ..SampleOptions::default()
    };
    Ok(sample(&table, &options).await?.entities)
}

/// Runs `generate`.
pub(crate) async fn generate(command: GenerateCommand) -> Outcome {
    let GenerateCommand::Model(args) = command;
    let entities = read_sample(&args.connection, &args.table, args.sample).await?;
    let model = generate_model(
        &entities,
        &GenerateOptions {
            name: args.name,
            table: Some(args.table),
        },
    );
    let mut out = std::io::stdout().lock();
    let text = match args.json {
        true => json(&model.description)?,
        false => model.source,
    };
    out.write_all(text.as_bytes()).map_err(write_failed)?;
    out.flush().map_err(write_failed)
}

/// Runs `schema`.
pub(crate) async fn schema(command: SchemaCommand) -> Outcome {
    let SchemaCommand::Check(args) = command;
    let text = std::fs::read_to_string(&args.model)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", args.model.display())))?;
    let model: ModelDescription = serde_json::from_str(&text).map_err(|e| {
        Failure::bad_input(format!(
            "{} is not a model from `generate model --json`: {e}",
            args.model.display()
        ))
    })?;
    let entities = read_sample(&args.connection, &args.table, args.sample).await?;
    let report = check(&model, &entities);
    let mut out = std::io::stdout().lock();
    let text = match args.json {
        true => json(&report)?,
        false => report.to_string(),
    };
    out.write_all(text.as_bytes()).map_err(write_failed)?;
    out.flush().map_err(write_failed)?;
    match report.fails_reads() {
        true => Err(Failure::failed(format!(
            "table {} has values or keys model `{}` cannot read",
            args.table, model.name
        ))),
        false => Ok(()),
    }
}

fn json(value: &impl serde::Serialize) -> Outcome<String> {
    serde_json::to_string_pretty(value)
        .map(|mut text| {
            text.push('\n');
            text
        })
        .map_err(|e| Failure::failed(format!("cannot write JSON: {e}")))
}
