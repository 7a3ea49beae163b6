//! `migrate`: renames, removes or retypes properties across a table, with the library's
//! migration (each changed entity replaced with `If-Match` on the version read, conflicts
//! retried), or only reports what would change with `--dry-run`.
//!
//! A dry pass always goes first and writes nothing: a rename onto a property some entity
//! already has, or a retype some value cannot take, is refused before the first write (unless
//! `--keep-unconverted` accepts the values left as they are, counted first).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tablekit::client::Table;
use tablekit::patterns::migrate::{MigrateError, MigrateOptions, Migration, MigrationOutcome};
use tablekit::patterns::progress::Progress;
use tablekit::{DynamicEntity, EdmType, Query};

use crate::cells::{convert, parse_type_name};
use crate::cli::MigrateArgs;
use crate::common::{check_filter, require_table};
use crate::connect::client;
use crate::exit::{Failure, Kind, Outcome};
use crate::interrupt::Interrupt;
use crate::progress::bar;

/// The names a migration cannot touch: the keys (a Replace cannot move an entity) and the
/// service's own `Timestamp`.
const SYSTEM_NAMES: [&str; 3] = ["PartitionKey", "RowKey", "Timestamp"];

/// Failures printed in full; the rest are counted.
const SHOWN_FAILURES: usize = 10;

/// What the options ask for, checked.
struct Plan {
    renames: Vec<(String, String)>,
    removes: Vec<String>,
    retypes: Vec<(String, EdmType)>,
}

/// What a pass saw of each retyped property: values converted, and values that cannot be
/// (with the first described).
#[derive(Default)]
struct Census(Mutex<BTreeMap<String, Tally>>);

#[derive(Default)]
struct Tally {
    converted: u64,
    unconverted: u64,
    first: Option<String>,
}

/// Runs `migrate`.
pub(crate) async fn run(args: MigrateArgs, interrupt: Interrupt) -> Outcome {
    let plan = Plan::of(&args)?;
    plan.migration(&Arc::default())
        .validate()
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    let mut query = Query::<DynamicEntity>::new().allow_table_scan();
    if let Some(filter) = &args.filter {
        check_filter(filter)?;
        query = query.filter_raw(filter.clone());
    }
    let client = client(&args.connection)?;
    require_table(&client, &args.table).await?;
    let table = client.table_named::<DynamicEntity>(&args.table);

    let census = Arc::new(Census::default());
    let dry = pass(&plan, &census, &table, query.clone(), true, &interrupt)
        .await
        .map_err(|e| nothing_written(e, "while checking the table"))?;
    if args.dry_run {
        println!("dry run, nothing written: {}", dry.report);
        print_failures(&dry.report.failures, dry.report.failed);
        census.print(|name, tally| {
            format!(
                "would not retype: {} of {} `{name}` values, such as {}",
                tally.unconverted,
                tally.converted + tally.unconverted,
                tally.first.as_deref().unwrap_or_default()
            )
        });
        return walk_error(dry);
    }
    refuse_conflicts(&dry)?;
    census.refuse_unconverted(args.keep_unconverted)?;
    walk_error(dry)?;

    let done = pass(&plan, &Arc::default(), &table, query, false, &interrupt).await?;
    println!("{}", done.report);
    print_failures(&done.report.failures, done.report.failed);
    walk_error_of(&done)?;
    if done.report.failed > 0 {
        return Err(Failure::failed(format!(
            "{} entities could not be migrated (the table changed since the check?): run the \
             same command again to finish",
            done.report.failed
        )));
    }
    Ok(())
}

/// One walk over the table: `dry` writes nothing. Ctrl-C stops it with what was done and how
/// to finish.
async fn pass(
    plan: &Plan,
    census: &Arc<Census>,
    table: &Table<DynamicEntity>,
    query: Query<DynamicEntity>,
    dry: bool,
    interrupt: &Interrupt,
) -> Outcome<MigrationOutcome> {
    let progress = bar(if dry { "entities checked" } else { "entities" }, None);
    let scanned = Arc::new(AtomicU64::new(0));
    let sink = {
        let (progress, scanned) = (progress.clone(), Arc::clone(&scanned));
        move |p: &Progress| {
            progress.set_position(p.items());
            scanned.store(p.items(), Ordering::Relaxed);
        }
    };
    let options = MigrateOptions::new().dry_run(dry).progress(sink);
    let migration = plan.migration(census);
    let outcome = tokio::select! {
        outcome = migration.run(table, query, options) => outcome?,
        () = interrupt.wait() => {
            progress.finish_and_clear();
            let scanned = scanned.load(Ordering::Relaxed);
            let message = if dry {
                format!("interrupted while checking the table ({scanned} entities read): nothing written")
            } else {
                format!(
                    "interrupted after {scanned} entities: the table is partly migrated; run the \
                     same command again to finish (entities already migrated are left as they are)"
                )
            };
            return Err(Failure::new(Kind::Interrupted, message));
        }
    };
    progress.finish_and_clear();
    Ok(outcome)
}

/// Refuses a rename onto a property that some entity has already, before any write.
fn refuse_conflicts(dry: &MigrationOutcome) -> Outcome {
    if dry.report.failed == 0 {
        return Ok(());
    }
    let first = dry.report.failures.first().map(ToString::to_string);
    let why = match dry.report.failures.first() {
        Some(MigrateError::RenameConflict { to, .. }) => format!(
            "; rename or remove `{to}` first (`--remove {to}` loses its values), or choose \
             another name"
        ),
        _ => String::new(),
    };
    Err(Failure::bad_input(format!(
        "{} of {} entities cannot be migrated, such as {}{why}: nothing written",
        dry.report.failed,
        dry.report.scanned,
        first.unwrap_or_default()
    )))
}

fn print_failures(failures: &[MigrateError], failed: u64) {
    for failure in failures.iter().take(SHOWN_FAILURES) {
        println!("failed: {failure}");
    }
    let shown = failures.len().min(SHOWN_FAILURES) as u64;
    if failed > shown {
        println!("... and {} more failed", failed - shown);
    }
}

/// The error that stopped a walk (a page that could not be read), if any.
fn walk_error(outcome: MigrationOutcome) -> Outcome {
    walk_error_of(&outcome)
}

fn walk_error_of(outcome: &MigrationOutcome) -> Outcome {
    let Some(error) = &outcome.error else {
        return Ok(());
    };
    let resume = outcome
        .resume_from
        .as_ref()
        .map(|t| {
            format!(
                " (stopped at PartitionKey continuation `{}`)",
                t.next_partition_key()
            )
        })
        .unwrap_or_default();
    Err(Failure::new(crate::exit::kind_of(error), error.to_string())
        .context(format!("the walk stopped{resume}")))
}

fn nothing_written(failure: Failure, when: &str) -> Failure {
    if failure.kind == Kind::Interrupted {
        return failure;
    }
    failure.context(format!("nothing written: {when}"))
}

impl Plan {
    /// The renames, removes and retypes of the options; keys and `Timestamp` are refused.
    fn of(args: &MigrateArgs) -> Outcome<Plan> {
        if args.rename.is_empty() && args.remove.is_empty() && args.retype.is_empty() {
            return Err(Failure::bad_input(
                "nothing to do: give `--rename OLD=NEW`, `--remove NAME` or `--retype NAME:TYPE`",
            ));
        }
        let mut plan = Plan {
            renames: Vec::new(),
            removes: Vec::new(),
            retypes: Vec::new(),
        };
        for pair in &args.rename {
            let Some((from, to)) = pair
                .split_once('=')
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
            else {
                return Err(Failure::bad_input(format!(
                    "`--rename {pair}`: expected OLD=NEW"
                )));
            };
            not_system(from, "--rename")?;
            not_system(to, "--rename")?;
            plan.renames.push((from.to_owned(), to.to_owned()));
        }
        for name in &args.remove {
            not_system(name, "--remove")?;
            plan.removes.push(name.clone());
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
            not_system(&name, "--retype")?;
            plan.retypes.push((name, edm));
        }
        Ok(plan)
    }

    /// The migration, its retypes counting into `census`.
    fn migration(&self, census: &Arc<Census>) -> Migration {
        let mut migration = Migration::new();
        for (from, to) in &self.renames {
            migration = migration.rename(from, to);
        }
        if !self.removes.is_empty() {
            migration = migration.remove(self.removes.iter().cloned());
        }
        for (name, edm) in &self.retypes {
            migration = migration.map(retyper(name.clone(), *edm, Arc::clone(census)));
        }
        migration
    }
}

/// Refuses the keys and `Timestamp`: a migration replaces entities in place, so it cannot
/// change them (and a rename of them would otherwise do nothing, silently).
fn not_system(name: &str, option: &str) -> Outcome {
    if SYSTEM_NAMES.contains(&name) {
        return Err(Failure::bad_input(format!(
            "`{option}` cannot change `{name}`: migrate changes properties in place, and an \
             entity's keys and Timestamp are not properties it can rename, remove or retype \
             (to change keys, export, edit and import into a new table)"
        )));
    }
    Ok(())
}

impl Census {
    /// Prints one line per property with unconvertible values.
    fn print(&self, line: impl Fn(&str, &Tally) -> String) {
        if let Ok(tallies) = self.0.lock() {
            for (name, tally) in tallies.iter().filter(|(_, t)| t.unconverted > 0) {
                println!("{}", line(name, tally));
            }
        }
    }

    /// Refuses a retype some values cannot take, unless `keep` accepts them: then says the
    /// counts before anything is written.
    fn refuse_unconverted(&self, keep: bool) -> Outcome {
        let Ok(tallies) = self.0.lock() else {
            return Err(Failure::failed("the retype counts are lost"));
        };
        for (name, tally) in tallies.iter().filter(|(_, t)| t.unconverted > 0) {
            let total = tally.converted + tally.unconverted;
            let first = tally.first.as_deref().unwrap_or_default();
            if !keep {
                return Err(Failure::bad_input(format!(
                    "{} of {total} `{name}` values cannot be retyped, such as {first}: nothing \
                     written. Give `--keep-unconverted` to retype the {} that can be and leave \
                     the others as they are (`{name}` then holds two types)",
                    tally.unconverted, tally.converted
                )));
            }
            eprintln!(
                "retyping {} of {total} `{name}` values; {} stay as they are (such as {first})",
                tally.converted, tally.unconverted
            );
        }
        Ok(())
    }
}

/// Converts `name` to `edm` where the value says the same in it; other values are kept and
/// counted, never changed into something else.
fn retyper(
    name: String,
    edm: EdmType,
    census: Arc<Census>,
) -> impl Fn(&mut DynamicEntity) + Send + Sync + 'static {
    move |entity: &mut DynamicEntity| {
        let Some(value) = entity.value(&name) else {
            return;
        };
        let converted = convert(value, edm);
        if let Ok(mut tallies) = census.0.lock() {
            let tally = tallies.entry(name.clone()).or_default();
            match &converted {
                Ok(_) => tally.converted += 1,
                Err(why) => {
                    tally.unconverted += 1;
                    tally.first.get_or_insert_with(|| {
                        format!(
                            "({:?}, {:?}): {why}",
                            entity.partition_key(),
                            entity.row_key()
                        )
                    });
                }
            }
        }
        if let Ok(converted) = converted {
            entity.set(name.clone(), converted);
        }
    }
}
