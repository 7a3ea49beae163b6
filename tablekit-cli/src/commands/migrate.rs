//! `migrate`: renames, removes or retypes properties across a table, with the library's
//! migration (each changed entity replaced with `If-Match` on the version read, conflicts
//! retried), or only reports what would change with `--dry-run`.

use std::sync::{Arc, Mutex};

use tablekit::patterns::migrate::{MigrateOptions, Migration};
use tablekit::patterns::progress::Progress;
use tablekit::{DynamicEntity, EdmType, Query};

use crate::cells::{convert, parse_type_name};
use crate::cli::MigrateArgs;
use crate::common::{check_filter, require_table};
use crate::connect::client;
use crate::exit::{Failure, Outcome};
use crate::progress::bar;

/// Values `--retype` could not convert: how many, and the first, described.
#[derive(Default)]
struct Unconverted {
    count: u64,
    first: Option<String>,
}

/// Runs `migrate`.
pub(crate) async fn run(args: MigrateArgs) -> Outcome {
    let unconverted = Arc::new(Mutex::new(Unconverted::default()));
    let migration = migration(&args, &unconverted)?;
    migration
        .validate()
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    let mut query = Query::<DynamicEntity>::new();
    if let Some(filter) = &args.filter {
        check_filter(filter)?;
        query = query.filter_raw(filter.clone());
    }
    let client = client(&args.connection)?;
    require_table(&client, &args.table).await?;
    let table = client.table_named::<DynamicEntity>(&args.table);
    let progress = bar("entities", None);
    let sink = {
        let progress = progress.clone();
        move |p: &Progress| progress.set_position(p.items())
    };
    let options = MigrateOptions::new().dry_run(args.dry_run).progress(sink);
    let outcome = migration.run(&table, query, options).await?;
    progress.finish_and_clear();
    let prefix = if args.dry_run {
        "dry run, nothing written: "
    } else {
        ""
    };
    println!("{prefix}{}", outcome.report);
    for failure in &outcome.report.failures {
        println!("failed: {failure}");
    }
    let unconverted = unconverted.lock().map(|u| (u.count, u.first.clone()));
    if let Ok((count, Some(first))) = &unconverted {
        println!("not retyped: {count} values left as they were, such as {first}");
    }
    if let Some(error) = outcome.error {
        let resume = outcome
            .resume_from
            .map(|t| {
                format!(
                    " (stopped at PartitionKey continuation `{}`)",
                    t.next_partition_key()
                )
            })
            .unwrap_or_default();
        return Err(Failure::from(error).context(format!("the walk stopped{resume}")));
    }
    if outcome.report.failed > 0 {
        return Err(Failure::failed(format!(
            "{} entities could not be migrated",
            outcome.report.failed
        )));
    }
    if matches!(unconverted, Ok((n, _)) if n > 0) {
        return Err(Failure::failed("some values could not be retyped"));
    }
    Ok(())
}

/// The migration the options describe.
fn migration(args: &MigrateArgs, unconverted: &Arc<Mutex<Unconverted>>) -> Outcome<Migration> {
    if args.rename.is_empty() && args.remove.is_empty() && args.retype.is_empty() {
        return Err(Failure::bad_input(
            "nothing to do: give `--rename OLD=NEW`, `--remove NAME` or `--retype NAME:TYPE`",
        ));
    }
    let mut migration = Migration::new();
    for pair in &args.rename {
        let Some((from, to)) = pair
            .split_once('=')
            .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        else {
            return Err(Failure::bad_input(format!(
                "`--rename {pair}`: expected OLD=NEW"
            )));
        };
        migration = migration.rename(from, to);
    }
    if !args.remove.is_empty() {
        migration = migration.remove(args.remove.iter().cloned());
    }
    for retype in &args.retype {
        let parsed = retype
            .rsplit_once(':')
            .and_then(|(name, edm)| Some((name.to_owned(), parse_type_name(edm)?)));
        let Some((name, edm)) = parsed else {
            return Err(Failure::bad_input(format!(
                "`--retype {retype}`: expected NAME:TYPE, such as `Score:Int64`"
            )));
        };
        migration = migration.map(retyper(name, edm, Arc::clone(unconverted)));
    }
    Ok(migration)
}

/// Converts `name` to `edm` where the value says the same in it; other values are kept and
/// counted, never changed into something else.
fn retyper(
    name: String,
    edm: EdmType,
    unconverted: Arc<Mutex<Unconverted>>,
) -> impl Fn(&mut DynamicEntity) + Send + Sync + 'static {
    move |entity: &mut DynamicEntity| {
        let Some(value) = entity.value(&name) else {
            return;
        };
        match convert(value, edm) {
            Ok(converted) => entity.set(name.clone(), converted),
            Err(why) => {
                if let Ok(mut u) = unconverted.lock() {
                    u.count += 1;
                    u.first.get_or_insert_with(|| {
                        format!(
                            "({:?}, {:?}): {why}",
                            entity.partition_key(),
                            entity.row_key()
                        )
                    });
                }
            }
        }
    }
}
