//! The command line: every command and option, as clap reads them.

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

/// How to reach the account: a connection string, or an account with a key or SAS read from
/// a variable or a file. Options given override the environment.
#[derive(Args, Clone)]
pub(crate) struct Connection {
    /// A connection string, such as `UseDevelopmentStorage=true` (other users can read the
    /// command line: prefer the variables). Without connection options, read from
    /// `TABLEKIT_CONNECTION_STRING`, else `AZURE_STORAGE_CONNECTION_STRING`, else
    /// `AZURE_STORAGE_ACCOUNT` with `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`
    #[arg(long, value_name = "STRING")]
    pub(crate) connection_string: Option<String>,

    /// The storage account's name (with a key, a SAS or an Entra ID token from --key-env,
    /// --key-file, --sas-env, --sas-file, --token-env or --token-file; else from
    /// `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`)
    #[arg(long, value_name = "NAME")]
    pub(crate) account: Option<String>,

    /// The Table service URL, when not `https://NAME.table.core.windows.net`
    #[arg(long, value_name = "URL")]
    pub(crate) endpoint: Option<String>,

    /// The environment variable holding the account's base64 key
    #[arg(long, value_name = "VAR", group = "secret")]
    pub(crate) key_env: Option<String>,

    /// The file holding the account's base64 key
    #[arg(long, value_name = "PATH", group = "secret")]
    pub(crate) key_file: Option<PathBuf>,

    /// The environment variable holding a SAS token
    #[arg(long, value_name = "VAR", group = "secret")]
    pub(crate) sas_env: Option<String>,

    /// The file holding a SAS token
    #[arg(long, value_name = "PATH", group = "secret")]
    pub(crate) sas_file: Option<PathBuf>,

    /// The environment variable holding a Microsoft Entra ID access token for Azure Storage
    /// (`az account get-access-token --resource https://storage.azure.com`)
    #[arg(long, value_name = "VAR", group = "secret")]
    pub(crate) token_env: Option<String>,

    /// The file holding a Microsoft Entra ID access token for Azure Storage
    #[arg(long, value_name = "PATH", group = "secret")]
    pub(crate) token_file: Option<PathBuf>,

    /// Which variables hold the connection when no option gives it.
    #[arg(skip)]
    pub(crate) environment: Environment,
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
    pub(crate) connection: Connection,
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

/// The destination of `copy`: the source's account unless told otherwise.
#[derive(Args, Clone)]
pub(crate) struct Destination {
    /// The destination's connection string (without destination options, read from
    /// `TABLEKIT_TO_CONNECTION_STRING`; without that either, the source's account)
    #[arg(long, value_name = "STRING")]
    pub(crate) to_connection_string: Option<String>,
    /// The destination's account name
    #[arg(long, value_name = "NAME")]
    pub(crate) to_account: Option<String>,
    /// The destination's Table service URL
    #[arg(long, value_name = "URL")]
    pub(crate) to_endpoint: Option<String>,
    /// The environment variable holding the destination account's base64 key
    #[arg(long, value_name = "VAR", group = "to_secret")]
    pub(crate) to_key_env: Option<String>,
    /// The file holding the destination account's base64 key
    #[arg(long, value_name = "PATH", group = "to_secret")]
    pub(crate) to_key_file: Option<PathBuf>,
    /// The environment variable holding the destination's SAS token
    #[arg(long, value_name = "VAR", group = "to_secret")]
    pub(crate) to_sas_env: Option<String>,
    /// The file holding the destination's SAS token
    #[arg(long, value_name = "PATH", group = "to_secret")]
    pub(crate) to_sas_file: Option<PathBuf>,
    /// The environment variable holding an Entra ID access token for the destination
    #[arg(long, value_name = "VAR", group = "to_secret")]
    pub(crate) to_token_env: Option<String>,
    /// The file holding an Entra ID access token for the destination
    #[arg(long, value_name = "PATH", group = "to_secret")]
    pub(crate) to_token_file: Option<PathBuf>,
}

// A connection string holds the account key: Debug shows only whether one is given.
impl std::fmt::Debug for Connection {
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

impl std::fmt::Debug for Destination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.connection(), f)
    }
}

impl Destination {
    /// The destination as a [`Connection`]: the options given, else
    /// `TABLEKIT_TO_CONNECTION_STRING`; `None` without either (the source's account then).
    pub(crate) fn connection(&self) -> Option<Connection> {
        let given = self.to_connection_string.is_some()
            || self.to_account.is_some()
            || std::env::var_os(TO_CONNECTION_STRING_VAR).is_some();
        given.then(|| Connection {
            connection_string: self.to_connection_string.clone(),
            environment: Environment::Destination,
            account: self.to_account.clone(),
            endpoint: self.to_endpoint.clone(),
            key_env: self.to_key_env.clone(),
            key_file: self.to_key_file.clone(),
            sas_env: self.to_sas_env.clone(),
            sas_file: self.to_sas_file.clone(),
            token_env: self.to_token_env.clone(),
            token_file: self.to_token_file.clone(),
        })
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
    use clap::Parser;

    use super::Cli;

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
