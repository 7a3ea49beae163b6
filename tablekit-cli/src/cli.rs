//! The command line: every command and option, as clap reads them.

use std::marker::PhantomData;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;
use tablekit_emulator::command::EmulatorArgs;

/// Lists, queries, exports, imports, backs up, copies and migrates Azure Table Storage tables
/// (and Azurite's, and the tablekit emulator's).
#[derive(Debug, Parser)]
#[command(name = "tablekit", version)]
pub(crate) struct Cli {
    /// The command to run
    #[command(subcommand)]
    pub(crate) command: Command,
    #[command(flatten)]
    pub(crate) global: Global,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Lists, creates or deletes tables
    #[command(subcommand)]
    Tables(TablesCommand),
    /// Prints one entity, as typed JSON
    Get(GetArgs),
    /// Writes one entity given as typed JSON (from a file or stdin)
    Put(PutArgs),
    /// Deletes one entity, if it still has `--etag` when given
    Delete(DeleteArgs),
    /// Prints the entities matching a filter, as a table, JSON, JSON lines or CSV, streaming
    Query(QueryArgs),
    /// Writes a table's entities as typed JSON lines, typed CSV or Parquet, streaming
    Export(ExportArgs),
    /// Writes the entities of typed JSON lines, typed CSV or Parquet into a table, streaming;
    /// resumable
    Import(ImportArgs),
    /// Writes a table to a checksummed backup file
    Backup(BackupArgs),
    /// Writes a backup file's entities into a table; resumable
    Restore(RestoreArgs),
    /// Copies a table to another table, on the same account or another; resumable
    Copy(Box<CopyArgs>),
    /// Renames, removes or retypes a property across a table
    Migrate(MigrateArgs),
    /// Counts a table's entities and partitions, with an approximate size per partition
    Stats(StatsArgs),
    /// Writes a model (a `#[derive(TableEntity)]` struct) inferred from a sample of a table
    #[command(subcommand)]
    Generate(crate::commands::insight::GenerateCommand),
    /// Checks a table against a model: what a read of its rows would not see or not read
    #[command(subcommand)]
    Schema(crate::commands::insight::SchemaCommand),
    /// Runs the tablekit emulator (the options of `tablekit-emulator`) until Ctrl-C
    Emulator(EmulatorArgs),
    /// Prints a shell's completion script on stdout
    Completions(CompletionsArgs),
}

/// Options every command takes: how long to wait, how often to retry, what to log, and
/// whether plain http may leave this machine.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct Global {
    /// Seconds to wait for each try of a request (default 30); a try that runs out is retried
    #[arg(long, global = true, value_name = "SECONDS")]
    pub(crate) timeout: Option<u64>,
    /// Retries of a request that failed for a passing reason: a timeout, a busy service, a
    /// dropped connection (default 3; 0 for none)
    #[arg(long, global = true, value_name = "N")]
    pub(crate) retries: Option<u32>,
    /// Logs every request on stderr (operation, host, status, time; never a secret); `-vv`
    /// logs each try too. `RUST_LOG` (such as `RUST_LOG=tablekit=debug`) sets the log instead
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
    /// Allows plain http to a host other than this machine (an emulator in another
    /// container): the key or token then crosses the network in clear text
    #[arg(long, global = true)]
    pub(crate) allow_http: bool,
}

/// How to reach an account: a connection string, or an account with a key, a SAS or a token
/// read from a variable or a file. Options given override the environment. `S` names the
/// options: a command's own account, or the destination of `copy` (`--to-...`).
#[derive(Clone)]
pub(crate) struct Connection<S = SourceAccount> {
    pub(crate) connection_string: Option<String>,
    pub(crate) account: Option<String>,
    pub(crate) endpoint: Option<String>,
    pub(crate) key_env: Option<String>,
    pub(crate) key_file: Option<PathBuf>,
    pub(crate) sas_env: Option<String>,
    pub(crate) sas_file: Option<PathBuf>,
    pub(crate) token_env: Option<String>,
    pub(crate) token_file: Option<PathBuf>,
    side: PhantomData<S>,
}

/// The destination of `copy`: the source's account unless told otherwise.
pub(crate) type Destination = Connection<DestinationAccount>;

/// The flags of one side's connection options, and the variables it falls back to.
pub(crate) trait Side {
    /// The variables the connection falls back to.
    const ENVIRONMENT: Environment;
    /// The group whose options conflict: one secret at most.
    const SECRET_GROUP: &'static str;
    /// The flag and help of each option, in the order of [`VALUE_NAMES`].
    const FLAGS: [Flag; 9];
}

/// A connection option's long flag (also its id) and help.
pub(crate) struct Flag {
    long: &'static str,
    help: &'static str,
}

/// The value names of the options, in field order; the last six are the secrets.
const VALUE_NAMES: [&str; 9] = [
    "STRING", "NAME", "URL", "VAR", "PATH", "VAR", "PATH", "VAR", "PATH",
];
/// Where the secrets start in [`VALUE_NAMES`] and [`Side::FLAGS`].
const FIRST_SECRET: usize = 3;

/// A command's own account.
#[derive(Clone, Copy)]
pub(crate) struct SourceAccount;

impl Side for SourceAccount {
    const ENVIRONMENT: Environment = Environment::Source;
    const SECRET_GROUP: &'static str = "secret";
    const FLAGS: [Flag; 9] = [
        Flag {
            long: "connection-string",
            help: "A connection string, such as `UseDevelopmentStorage=true` (other users can \
                   read the command line: prefer the variables). Without connection options, \
                   read from `TABLEKIT_CONNECTION_STRING`, else \
                   `AZURE_STORAGE_CONNECTION_STRING`, else `AZURE_STORAGE_ACCOUNT` with \
                   `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`",
        },
        Flag {
            long: "account",
            help: "The storage account's name (with a key, a SAS or an Entra ID token from \
                   --key-env, --key-file, --sas-env, --sas-file, --token-env or --token-file; \
                   else from `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`)",
        },
        Flag {
            long: "endpoint",
            help: "The Table service URL, when not `https://NAME.table.core.windows.net`",
        },
        Flag {
            long: "key-env",
            help: "The environment variable holding the account's base64 key",
        },
        Flag {
            long: "key-file",
            help: "The file holding the account's base64 key",
        },
        Flag {
            long: "sas-env",
            help: "The environment variable holding a SAS token",
        },
        Flag {
            long: "sas-file",
            help: "The file holding a SAS token",
        },
        Flag {
            long: "token-env",
            help: "The environment variable holding a Microsoft Entra ID access token for \
                   Azure Storage (`az account get-access-token --resource \
                   https://storage.azure.com`)",
        },
        Flag {
            long: "token-file",
            help: "The file holding a Microsoft Entra ID access token for Azure Storage",
        },
    ];
}

/// The destination of `copy`.
#[derive(Clone, Copy)]
pub(crate) struct DestinationAccount;

impl Side for DestinationAccount {
    const ENVIRONMENT: Environment = Environment::Destination;
    const SECRET_GROUP: &'static str = "to_secret";
    const FLAGS: [Flag; 9] = [
        Flag {
            long: "to-connection-string",
            help: "The destination's connection string (without destination options, read \
                   from `TABLEKIT_TO_CONNECTION_STRING`; without that either, the source's \
                   account)",
        },
        Flag {
            long: "to-account",
            help: "The destination's account name",
        },
        Flag {
            long: "to-endpoint",
            help: "The destination's Table service URL",
        },
        Flag {
            long: "to-key-env",
            help: "The environment variable holding the destination account's base64 key",
        },
        Flag {
            long: "to-key-file",
            help: "The file holding the destination account's base64 key",
        },
        Flag {
            long: "to-sas-env",
            help: "The environment variable holding the destination's SAS token",
        },
        Flag {
            long: "to-sas-file",
            help: "The file holding the destination's SAS token",
        },
        Flag {
            long: "to-token-env",
            help: "The environment variable holding an Entra ID access token for the \
                   destination",
        },
        Flag {
            long: "to-token-file",
            help: "The file holding an Entra ID access token for the destination",
        },
    ];
}

// Written by hand rather than derived: clap's derive cannot give one struct's options a prefix,
// and `copy` takes the same options twice, bare and as `--to-...`.
impl<S: Side> Args for Connection<S> {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for (i, (flag, value_name)) in S::FLAGS.iter().zip(VALUE_NAMES).enumerate() {
            let arg = clap::Arg::new(flag.long)
                .long(flag.long)
                .value_name(value_name)
                .help(flag.help)
                .action(clap::ArgAction::Set);
            let arg = if value_name == "PATH" {
                arg.value_parser(clap::value_parser!(PathBuf))
            } else {
                arg.value_parser(clap::value_parser!(String))
            };
            cmd = cmd.arg(if i >= FIRST_SECRET {
                arg.group(S::SECRET_GROUP)
            } else {
                arg
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl<S: Side> clap::FromArgMatches for Connection<S> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let text = |i: usize| matches.get_one::<String>(S::FLAGS[i].long).cloned();
        let path = |i: usize| matches.get_one::<PathBuf>(S::FLAGS[i].long).cloned();
        Ok(Self {
            connection_string: text(0),
            account: text(1),
            endpoint: text(2),
            key_env: text(3),
            key_file: path(4),
            sas_env: text(5),
            sas_file: path(6),
            token_env: text(7),
            token_file: path(8),
            side: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        let given = Self::from_arg_matches(matches)?;
        macro_rules! update {
            ($($field:ident),*) => {
                $(if given.$field.is_some() {
                    self.$field = given.$field;
                })*
            };
        }
        update!(
            connection_string,
            account,
            endpoint,
            key_env,
            key_file,
            sas_env,
            sas_file,
            token_env,
            token_file
        );
        Ok(())
    }
}

/// The variables a connection falls back to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Environment {
    /// `TABLEKIT_CONNECTION_STRING`, then the variables `az storage` reads.
    #[default]
    Source,
    /// `TABLEKIT_TO_CONNECTION_STRING` (the destination of `copy`).
    Destination,
}

/// `tables` commands.
#[derive(Debug, Subcommand)]
pub(crate) enum TablesCommand {
    /// Lists the tables, one name a line
    List {
        /// Only tables whose name starts with this
        #[arg(long)]
        prefix: Option<String>,
        #[command(flatten)]
        connection: Connection,
    },
    /// Creates a table
    Create {
        /// The table's name
        table: String,
        /// Succeeds when the table exists already
        #[arg(long)]
        if_not_exists: bool,
        #[command(flatten)]
        connection: Connection,
    },
    /// Deletes a table and every entity in it
    Delete {
        /// The table's name
        table: String,
        /// Succeeds when the table does not exist
        #[arg(long)]
        if_exists: bool,
        #[command(flatten)]
        connection: Connection,
    },
}

/// `get`.
#[derive(Debug, Args)]
pub(crate) struct GetArgs {
    /// The table
    pub(crate) table: String,
    /// The entity's PartitionKey
    pub(crate) partition_key: String,
    /// The entity's RowKey
    pub(crate) row_key: String,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `put`.
#[derive(Debug, Args)]
pub(crate) struct PutArgs {
    /// The table
    pub(crate) table: String,
    /// The entity as typed JSON (`"N@odata.type":"Edm.Int64","N":"5"`); `-` or nothing reads
    /// stdin
    #[arg(long, short = 'f', value_name = "PATH")]
    pub(crate) file: Option<PathBuf>,
    /// How to write it
    #[arg(long, value_enum, default_value_t = PutMode::Upsert)]
    pub(crate) mode: PutMode,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// How `put` writes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum PutMode {
    /// Fails when the entity exists
    Insert,
    /// Insert or replace
    Upsert,
    /// Insert or merge into the existing properties
    Merge,
    /// Replace an existing entity; fails when it does not exist
    Replace,
}

/// `delete`.
#[derive(Debug, Args)]
pub(crate) struct DeleteArgs {
    /// The table
    pub(crate) table: String,
    /// The entity's PartitionKey
    pub(crate) partition_key: String,
    /// The entity's RowKey
    pub(crate) row_key: String,
    /// Deletes only if the entity still has this ETag (exit code 4 otherwise)
    #[arg(long)]
    pub(crate) etag: Option<String>,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// What to read: the filter, the properties and a limit.
#[derive(Debug, Args, Clone)]
pub(crate) struct Selection {
    /// An OData filter, such as `PartitionKey eq 'eu' and Score ge 10`
    #[arg(long)]
    pub(crate) filter: Option<String>,
    /// The properties to read, separated by commas
    #[arg(long, value_delimiter = ',')]
    pub(crate) select: Vec<String>,
    /// At most this many entities
    #[arg(long, value_name = "N")]
    pub(crate) top: Option<usize>,
}

/// `query`.
#[derive(Debug, Args)]
pub(crate) struct QueryArgs {
    /// The table
    pub(crate) table: String,
    #[command(flatten)]
    pub(crate) selection: Selection,
    /// The output: an aligned `table` (the default on a terminal), `json`, `jsonl` (the default
    /// otherwise) or `csv`. Every one streams: the table sizes its columns from the first 1000
    /// rows (a row with a property not seen yet starts a new block under its own header), and
    /// CSV reads the result twice, once for the header's columns
    #[arg(long, value_enum)]
    pub(crate) format: Option<QueryFormat>,
    /// Prints how the service finds the matches instead of the entities: the plan (point
    /// read, RowKey range, whole partition, range of partitions or table scan, from the
    /// filter's key conditions), then runs the query to count its pages and entities and, on
    /// the tablekit emulator, the entities the server examined. `--format json` prints it as
    /// JSON
    #[arg(long)]
    pub(crate) explain: bool,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `query --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum QueryFormat {
    /// Aligned columns, typed values as OData literals (`5L`, `datetime'...'`)
    Table,
    /// One JSON array of typed entities
    Json,
    /// One typed entity a line
    Jsonl,
    /// Typed CSV: `Name:Type` headers
    Csv,
}

/// `export` and `import --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FileFormat {
    /// One entity a line, typed as the Table service's JSON (`Name@odata.type`)
    Jsonl,
    /// A header row of `Name:Type` columns, then one entity a row
    Csv,
    /// Parquet, for analytics engines: a typed, nullable column per property (DateTime as
    /// nanosecond timestamps, 1677 to 2262; Guid as UUID), row groups of 10,000 rows; read
    /// from a file, not stdin
    #[cfg(feature = "parquet")]
    Parquet,
}

/// `export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The table
    pub(crate) table: String,
    /// The file to write; stdout without it
    #[arg(long, short = 'o', value_name = "PATH")]
    pub(crate) output: Option<PathBuf>,
    /// The file format (default: from the file's extension, `.csv` or `.parquet`, else jsonl)
    #[arg(long, value_enum)]
    pub(crate) format: Option<FileFormat>,
    /// An OData filter
    #[arg(long)]
    pub(crate) filter: Option<String>,
    #[command(flatten)]
    pub(crate) scan: ScanArgs,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// How `export` and `copy` read the source table.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct ScanArgs {
    /// PartitionKey ranges read at once (default 1: one query, entities in key order). Above
    /// 1 the table is split into ranges, where probes of its keys say or at `--split-at`, read
    /// side by side: entities come in key order within a range, the ranges interleaved
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) parallel: usize,
    /// Reads only shard I of N (from 1), so N machines share one job without overlap; needs
    /// `--split-at`, so that every machine splits the table alike
    #[arg(long, value_name = "I/N", value_parser = crate::scan::parse_shard)]
    pub(crate) shard: Option<(usize, usize)>,
    /// Splits the table at these PartitionKeys (separated by commas) instead of probing it
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    pub(crate) split_at: Vec<String>,
}

/// `import`.
#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The table (created if missing)
    pub(crate) table: String,
    /// The file to read; stdin without it
    #[arg(long, short = 'i', value_name = "PATH")]
    pub(crate) input: Option<PathBuf>,
    /// The file format (default: from the file's extension, `.csv` or `.parquet`, else jsonl)
    #[arg(long, value_enum)]
    pub(crate) format: Option<FileFormat>,
    /// How entities are written
    #[arg(long, value_enum, default_value_t = WriteModeArg::Upsert)]
    pub(crate) mode: WriteModeArg,
    /// The checkpoint file: written as the import goes, read to resume (default: the input
    /// file's name with `.checkpoint`; none for stdin). After a failure, the chunks written
    /// beside the failed one are written again on resuming, which the default mode allows
    #[arg(long, value_name = "PATH")]
    pub(crate) checkpoint: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// How bulk commands write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WriteModeArg {
    /// Insert: an entity that exists already is an error, nothing is overwritten
    Insert,
    /// Insert or replace: the target ends with the source's version
    Upsert,
}

/// `backup`.
#[derive(Debug, Args)]
pub(crate) struct BackupArgs {
    /// The table
    pub(crate) table: String,
    /// The backup file to write
    #[arg(long, short = 'o', value_name = "PATH")]
    pub(crate) output: PathBuf,
    /// An OData filter
    #[arg(long)]
    pub(crate) filter: Option<String>,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `restore`.
#[derive(Debug, Args)]
pub(crate) struct RestoreArgs {
    /// The table (created if missing)
    pub(crate) table: String,
    /// The backup file to read
    #[arg(long, short = 'i', value_name = "PATH")]
    pub(crate) input: PathBuf,
    /// How entities are written
    #[arg(long, value_enum, default_value_t = WriteModeArg::Upsert)]
    pub(crate) mode: WriteModeArg,
    /// The checkpoint file: written as the restore goes, read to resume (default: the backup
    /// file's name with `.checkpoint`)
    #[arg(long, value_name = "PATH")]
    pub(crate) checkpoint: Option<PathBuf>,
    /// Writes while reading, without checking the whole file first: a damaged backup then
    /// writes the entities before the damage (and the restore stops there, exit code 2)
    #[arg(long)]
    pub(crate) no_verify: bool,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// The variable naming the destination of `copy`.
pub(crate) const TO_CONNECTION_STRING_VAR: &str = "TABLEKIT_TO_CONNECTION_STRING";

// A connection string holds the account key: Debug shows only whether one is given.
impl<S> std::fmt::Debug for Connection<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field(
                "connection_string",
                &self.connection_string.as_ref().map(|_| ".."),
            )
            .field("account", &self.account)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

impl Destination {
    /// The destination, when the options or `TABLEKIT_TO_CONNECTION_STRING` give one; `None`
    /// without either (the source's account then).
    pub(crate) fn given(&self) -> Option<&Self> {
        let given = self.connection_string.is_some()
            || self.account.is_some()
            || std::env::var_os(TO_CONNECTION_STRING_VAR).is_some();
        given.then_some(self)
    }
}

/// `copy`.
#[derive(Debug, Args)]
pub(crate) struct CopyArgs {
    /// The source table
    pub(crate) source: String,
    /// The destination table (created if missing)
    pub(crate) target: String,
    /// Copies only the entities matching this OData filter
    #[arg(long)]
    pub(crate) filter: Option<String>,
    /// How entities are written
    #[arg(long, value_enum, default_value_t = WriteModeArg::Upsert)]
    pub(crate) mode: WriteModeArg,
    /// The checkpoint file: written after every page, read to resume (default:
    /// `tablekit-copy-SOURCE-TARGET.checkpoint` in the working directory)
    #[arg(long, value_name = "PATH")]
    pub(crate) checkpoint: Option<PathBuf>,
    /// Stops cleanly, as after Ctrl-C, once this many pages are copied (copies in slices)
    #[arg(long, value_name = "N")]
    pub(crate) max_pages: Option<u64>,
    #[command(flatten)]
    pub(crate) scan: ScanArgs,
    #[command(flatten)]
    pub(crate) destination: Destination,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `migrate`.
#[derive(Debug, Args)]
pub(crate) struct MigrateArgs {
    /// The table
    pub(crate) table: String,
    /// Renames a property: `OLD=NEW` (repeatable)
    #[arg(long, value_name = "OLD=NEW")]
    pub(crate) rename: Vec<String>,
    /// Removes a property (repeatable)
    #[arg(long, value_name = "NAME")]
    pub(crate) remove: Vec<String>,
    /// Converts a property to another EDM type: `NAME:TYPE`, such as `Score:Int64` (repeatable)
    #[arg(long, value_name = "NAME:TYPE")]
    pub(crate) retype: Vec<String>,
    /// Only the entities matching this OData filter
    #[arg(long)]
    pub(crate) filter: Option<String>,
    /// Reports what would change and writes nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Retypes the values that convert and leaves the others as they are (the property then
    /// holds two types); without it, a retype some value cannot take is refused
    #[arg(long)]
    pub(crate) keep_unconverted: bool,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `stats`.
#[derive(Debug, Args)]
pub(crate) struct StatsArgs {
    /// The table
    pub(crate) table: String,
    /// Prints one line per partition too
    #[arg(long)]
    pub(crate) partitions: bool,
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// `completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell
    pub(crate) shell: Shell,
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::Cli;

    #[test]
    fn the_destination_takes_the_source_options_with_a_to_prefix() {
        let cli = Cli::command();
        let copy = cli.find_subcommand("copy").unwrap();
        let get = cli.find_subcommand("get").unwrap();
        let mut source = 0;
        for arg in get.get_arguments().filter(|a| !a.is_global_set()) {
            let Some(long) = arg.get_long() else { continue };
            let to = copy
                .get_arguments()
                .find(|a| a.get_long() == Some(&format!("to-{long}")))
                .unwrap_or_else(|| panic!("no --to-{long}"));
            assert_eq!(arg.get_value_names(), to.get_value_names(), "{long}");
            source += 1;
        }
        assert_eq!(source, 9);
        for secrets in [
            ["--key-env", "X", "--sas-file", "f"],
            ["--to-key-env", "X", "--to-sas-file", "f"],
        ] {
            let args = ["tablekit", "copy", "A", "B"].into_iter().chain(secrets);
            let error = Cli::try_parse_from(args).unwrap_err();
            assert_eq!(error.kind(), clap::error::ErrorKind::ArgumentConflict);
        }
    }

    #[test]
    fn debug_never_shows_a_connection_string() {
        let secret = "AccountName=a;AccountKey=c2VjcmV0LWtleQ==";
        let cli = Cli::try_parse_from([
            "tablekit",
            "copy",
            "A",
            "B",
            "--connection-string",
            secret,
            "--to-connection-string",
            secret,
        ])
        .unwrap();
        let shown = format!("{cli:?}");
        assert!(!shown.contains("c2VjcmV0LWtleQ"), "{shown}");
        assert!(shown.contains("connection_string: Some(\"..\")"), "{shown}");
    }
}
