//! The command line: every command and option, as clap reads them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;
use tablekit_testing::command::EmulatorArgs;

use crate::exit::EXIT_CODES_HELP;

/// Lists, queries, exports, imports, backs up, copies and migrates Azure Table Storage tables
/// (and Azurite's, and the tablekit emulator's).
#[derive(Debug, Parser)]
#[command(name = "tablekit", version, after_long_help = EXIT_CODES_HELP)]
pub(crate) struct Cli {
    /// The command to run
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Lists, creates or deletes tables
    #[command(subcommand, after_long_help = EXIT_CODES_HELP)]
    Tables(TablesCommand),
    /// Prints one entity, as typed JSON
    #[command(after_long_help = EXIT_CODES_HELP)]
    Get(GetArgs),
    /// Writes one entity given as typed JSON (from a file or stdin)
    #[command(after_long_help = EXIT_CODES_HELP)]
    Put(PutArgs),
    /// Deletes one entity, if it still has `--etag` when given
    #[command(after_long_help = EXIT_CODES_HELP)]
    Delete(DeleteArgs),
    /// Prints the entities matching a filter, as a table, JSON, JSON lines or CSV
    #[command(after_long_help = EXIT_CODES_HELP)]
    Query(QueryArgs),
    /// Writes a table's entities as typed JSON lines or typed CSV, streaming
    #[command(after_long_help = EXIT_CODES_HELP)]
    Export(ExportArgs),
    /// Writes the entities of typed JSON lines or typed CSV into a table, streaming
    #[command(after_long_help = EXIT_CODES_HELP)]
    Import(ImportArgs),
    /// Writes a table to a checksummed backup file
    #[command(after_long_help = EXIT_CODES_HELP)]
    Backup(BackupArgs),
    /// Writes a backup file's entities into a table; resumable
    #[command(after_long_help = EXIT_CODES_HELP)]
    Restore(RestoreArgs),
    /// Copies a table to another table, on the same account or another; resumable
    #[command(after_long_help = EXIT_CODES_HELP)]
    Copy(Box<CopyArgs>),
    /// Renames, removes or retypes a property across a table
    #[command(after_long_help = EXIT_CODES_HELP)]
    Migrate(MigrateArgs),
    /// Counts a table's entities and partitions, with an approximate size per partition
    #[command(after_long_help = EXIT_CODES_HELP)]
    Stats(StatsArgs),
    /// Runs the tablekit emulator (the options of `tablekit-emulator`) until Ctrl-C
    Emulator(EmulatorArgs),
    /// Prints a shell's completion script on stdout
    Completions(CompletionsArgs),
}

/// How to reach the account: a connection string, or an account with a key or SAS read from
/// a variable or a file (never from the command line, where other users could see it).
#[derive(Args, Clone)]
pub(crate) struct Connection {
    /// A connection string, such as `UseDevelopmentStorage=true`
    #[arg(
        long,
        env = "TABLEKIT_CONNECTION_STRING",
        hide_env_values = true,
        value_name = "STRING"
    )]
    pub(crate) connection_string: Option<String>,

    /// The storage account's name (with a key, a SAS or an Entra ID token from --key-env,
    /// --key-file, --sas-env, --sas-file, --token-env or --token-file)
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
    /// otherwise) or `csv`
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
}

/// `export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The table
    pub(crate) table: String,
    /// The file to write; stdout without it
    #[arg(long, short = 'o', value_name = "PATH")]
    pub(crate) output: Option<PathBuf>,
    /// The file format (default: from the file's extension, else jsonl)
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
    /// The file format (default: from the file's extension, else jsonl)
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
    #[command(flatten)]
    pub(crate) connection: Connection,
}

/// The destination of `copy`: the source's account unless told otherwise.
#[derive(Args, Clone)]
pub(crate) struct Destination {
    /// The destination's connection string
    #[arg(
        long,
        env = "TABLEKIT_TO_CONNECTION_STRING",
        hide_env_values = true,
        value_name = "STRING"
    )]
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
    /// The destination as a [`Connection`]; `None` when no destination option is given.
    pub(crate) fn connection(&self) -> Option<Connection> {
        let given = self.to_connection_string.is_some() || self.to_account.is_some();
        given.then(|| Connection {
            connection_string: self.to_connection_string.clone(),
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
