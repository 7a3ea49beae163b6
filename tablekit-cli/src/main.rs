//! `tablekit`: the command line for Azure Table Storage (and Azurite, and the tablekit
//! emulator). It lists, creates and deletes tables; gets, puts and deletes entities; queries
//! with a filter; exports and imports typed JSON lines or typed CSV; backs up and restores
//! checksummed files; copies tables between accounts, resumably; migrates properties; and
//! counts what a table holds. `tablekit COMMAND --help` describes each command.
//!
//! ```text
//! $ export TABLEKIT_CONNECTION_STRING='UseDevelopmentStorage=true'
//! $ tablekit emulator &                     # or Azurite, on port 10002
//! $ tablekit tables create Gamers
//! $ echo '{"PartitionKey":"eu","RowKey":"dragon","Score":42,
//!          "Big@odata.type":"Edm.Int64","Big":"9007199254740993"}' | tablekit put Gamers
//! $ tablekit query Gamers --filter "Score ge 10" --format table
//! PartitionKey  RowKey  Timestamp                     Score  Big
//! eu            dragon  2026-01-02T03:04:05.1234567Z  42     9007199254740993L
//! (1 entities)
//! $ tablekit export Gamers -o gamers.csv    # PartitionKey,RowKey,Score:Int32,Big:Int64
//! $ tablekit backup Gamers -o gamers.tkb
//! $ tablekit copy Gamers Gamers --to-account prod --to-key-env PROD_KEY
//! ^C
//! tablekit: interrupted: 52000 entities written; the checkpoint
//! `tablekit-copy-Gamers-Gamers.checkpoint` is saved: run the same command again to go on
//! $ tablekit migrate Gamers --retype Score:Int64 --dry-run
//! dry run, nothing written: 1 scanned, 1 changed, 0 unchanged, 0 failed
//! ```
//!
//! # Connecting
//!
//! `--connection-string` or the `TABLEKIT_CONNECTION_STRING` variable
//! (`UseDevelopmentStorage=true` works), or `--account NAME` with the account key, a SAS
//! token or a Microsoft Entra ID access token read from a variable (`--key-env`, `--sas-env`,
//! `--token-env`) or a file (`--key-file`, `--sas-file`, `--token-file`), and `--endpoint URL`
//! when the service is not `https://NAME.table.core.windows.net`. For Entra ID, get the token
//! with `az account get-access-token --resource https://storage.azure.com --query accessToken
//! -o tsv`. Options override the environment; without them, the connection comes from
//! `TABLEKIT_CONNECTION_STRING`, then the variables `az storage` reads
//! (`AZURE_STORAGE_CONNECTION_STRING`, `AZURE_STORAGE_ACCOUNT` with `AZURE_STORAGE_KEY` or
//! `AZURE_STORAGE_SAS_TOKEN`). Secrets are taken on the command line only in a connection
//! string, with a warning (other users can read it), and never printed: errors name the
//! variable or file, not its content. `copy` takes the destination with the same options
//! prefixed `--to-`.
//!
//! `--timeout SECONDS` bounds each try of a request and `--retries N` the retries; the log on
//! stderr says each retry and why, `-v` logs every request (never a secret), `RUST_LOG`
//! replaces the filter. Plain http to a host other than this machine needs `--allow-http`.
//!
//! # Formats
//!
//! - Typed JSON lines: one entity a line, the Table service's own JSON with
//!   `Name@odata.type` annotations (Int64 as a string, DateTime with 7 digits, Guid, Binary
//!   in base64): an export imports back to the same entities, and exports again to the same
//!   bytes.
//! - Typed CSV: the header carries the types (`PartitionKey,RowKey,Score:Int32`); an empty
//!   cell is a missing property, so an empty string or empty Binary is written `\` (and a
//!   string starting with `\` gets one more). A bad cell is reported with its line and column.
//! - Parquet (`--format parquet` or `.parquet`), for analytics engines: a typed, nullable
//!   column per property, row groups of 10,000 rows; DateTime as nanosecond timestamps, so
//!   one outside 1677 to 2262 is refused before anything is written.
//! - Backups: the library's checksummed format (every line checked, a trailer with the count
//!   and a checksum of the whole), so a truncated or damaged file is refused, never restored
//!   silently short: `restore` checks the whole file before its first write, so a damaged
//!   backup writes nothing (`--no-verify` writes as it reads).
//!
//! # Resuming
//!
//! `copy`, `restore` and `import` (of a file) save a checkpoint file (the source's
//! continuation token, or the entities read, and the counts) after every committed page, and
//! stop cleanly between pages on Ctrl-C: running the same command again goes on from there. A
//! page is never written twice after Ctrl-C; after a crash between a page's writes and its
//! checkpoint, or a failed write beside pages in flight, those pages are written again with
//! Insert Or Replace (the default mode), which is idempotent.
//!
//! # Exit codes
//!
//! | code | meaning |
//! |------|---------|
//! | 0    | success |
//! | 1    | the operation failed (refused by the service, network failure, a write failed) |
//! | 2    | bad input: usage, a malformed filter, a bad file (line and column), a truncated or damaged backup, a missing secret |
//! | 3    | not found: the table or the entity does not exist |
//! | 4    | conflict: the entity or table exists already, or its ETag no longer matches |
//! | 130  | interrupted by Ctrl-C or `--max-pages` (a resumable command saved its checkpoint) |

mod bulk;
mod cells;
mod checkpoint;
mod cli;
mod commands;
mod common;
mod connect;
mod exit;
mod filter_hint;
mod help;
mod interrupt;
mod jsonl;
mod log;
mod progress;
mod scan;
mod typed_csv;
#[cfg(feature = "parquet")]
mod typed_parquet;

use std::process::ExitCode;

use clap::FromArgMatches;

use crate::cli::{Cli, Command};
use crate::exit::{Failure, Kind, Outcome};
use crate::interrupt::Interrupt;

fn main() -> ExitCode {
    let parsed = help::command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` are successes, usage errors exit with 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                Kind::BadInput.code()
            } else {
                0
            });
        }
    };
    log::init(cli.global.verbose);
    connect::configure(cli.global.clone());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("tablekit: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if failure.is_reported() {
                eprintln!("tablekit: {failure}");
            }
            failure.exit_code()
        }
    }
}

async fn run(command: Command) -> Outcome {
    use crate::commands::*;
    // Only the commands that stop cleanly take Ctrl-C over; the others die at once, as usual.
    let interrupt = Interrupt::install;
    match command {
        Command::Tables(command) => tables::run(command).await,
        Command::Get(args) => entity::get(args).await,
        Command::Put(args) => entity::put(args).await,
        Command::Delete(args) => entity::delete(args).await,
        Command::Query(args) => query::run(args).await,
        Command::Export(args) => transfer::export(args, interrupt()).await,
        Command::Import(args) => transfer::import(args, interrupt()).await,
        Command::Backup(args) => backup::backup(args, interrupt()).await,
        Command::Restore(args) => backup::restore(args, interrupt()).await,
        Command::Copy(args) => copy::run(*args, interrupt()).await,
        Command::Migrate(args) => migrate::run(args, interrupt()).await,
        Command::Stats(args) => stats::run(args).await,
        Command::Generate(command) => insight::generate(command).await,
        Command::Schema(command) => insight::schema(command).await,
        Command::Emulator(args) => args.serve().await.map_err(Failure::failed),
        Command::Completions(args) => {
            let mut command = help::command();
            clap_complete::generate(args.shell, &mut command, "tablekit", &mut std::io::stdout());
            Ok(())
        }
    }
}
