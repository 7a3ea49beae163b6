//! The emulator's command line: the options of the `tablekit-emulator` binary as a clap
//! [`Args`] struct, so another command line (the `tablekit` command's `emulator`) takes the
//! same options with the same meaning.
//!
//! ```
//! use clap::Parser;
//! use tablekit_emulator::command::EmulatorArgs;
//! # #[derive(Parser)]
//! # struct Cli {
//! #     #[command(flatten)]
//! #     emulator: EmulatorArgs,
//! # }
//! assert!(Cli::try_parse_from(["emulator", "--port", "not-a-port"]).is_err());
//! ```

use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use tablekit::limits::Flavor;

use crate::http::server::{
    Emulator, EmulatorBuilder, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
};
use crate::pipeline::throttle::Throttle;

/// The port Azure's tools and `UseDevelopmentStorage=true` expect the Table service on.
const DEFAULT_PORT: u16 = 10002;

/// The options of the `tablekit-emulator` binary (and of `tablekit emulator`), for a command
/// line of clap to flatten: where to listen, where to keep the data, which accounts to serve.
///
/// Azurite's table options are accepted with their meaning, so a script that starts
/// `azurite-table` can start the emulator instead.
///
/// ```
/// use clap::Parser;
/// use tablekit_emulator::command::EmulatorArgs;
///
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     emulator: EmulatorArgs,
/// }
/// let cli = Cli::try_parse_from(["emulator", "--port", "0", "--inMemoryPersistence"])?;
/// let _builder = cli.emulator.builder(); // an `EmulatorBuilder`, ready to `start()`
/// # Ok::<(), clap::Error>(())
/// ```
#[derive(Clone, Debug, Args)]
pub struct EmulatorArgs {
    /// The address to listen on; `0.0.0.0` serves other machines too
    #[arg(long = "tableHost", value_name = "ADDRESS", default_value = "127.0.0.1",
          value_parser = host)]
    host: IpAddr,

    /// The port to listen on; 0 picks a free one
    #[arg(long, visible_alias = "tablePort", value_name = "PORT",
          default_value_t = DEFAULT_PORT)]
    port: u16,

    /// Keeps the data in DIR (created if needed) so it survives a restart; without it the
    /// data is kept in memory only
    #[arg(long, short = 'l', visible_alias = "location", value_name = "DIR")]
    data: Option<PathBuf>,

    /// Keeps the data in memory only, lost when the process ends (the default here, unlike
    /// Azurite, which persists to the working directory unless told otherwise)
    #[arg(long = "inMemoryPersistence", conflicts_with = "data")]
    in_memory: bool,

    /// Adds an account with its base64 key (repeatable); requests to it must be signed with
    /// that key
    #[arg(long = "account", value_name = "NAME:KEY", value_parser = account_option)]
    accounts: Vec<Account>,

    /// Accounts as Azurite takes them: `name1:key1;name2:key1:key2`. The development
    /// account stays available, and requests may be signed with either of an account's keys
    #[arg(long = "accounts", env = "AZURITE_ACCOUNTS", value_name = "ACCOUNTS",
          hide_env_values = true, value_parser = azurite_accounts)]
    azurite_accounts: Option<Accounts>,

    /// Seconds a client may take to send a request's headers, and a kept-alive connection
    /// may sit idle (Azurite's keep-alive timeout: one limit for both here)
    #[arg(long = "header-timeout", visible_alias = "tableKeepAliveTimeout", value_name = "SECONDS",
          default_value_t = DEFAULT_HEADER_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout: u64,

    /// Seconds a request's body may take to arrive once its headers have (then 408)
    #[arg(long = "body-timeout", value_name = "SECONDS",
          default_value_t = DEFAULT_BODY_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout: u64,

    /// Connections served at once; a client past the limit takes the place of the connection
    /// idle longest, and waits, connected, only while every connection is answering a request
    #[arg(long = "max-connections", value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS,
          value_parser = positive)]
    max_connections: usize,

    /// The service to behave as: `storage` (Azure Table Storage) or `cosmos` (the Cosmos DB
    /// Table API's documented limits and missing operations)
    #[arg(long, value_name = "SERVICE", default_value = "storage", value_parser = flavor)]
    flavor: Flavor,

    /// Serves at most Azure's scalability targets, 2,000 entities/s per partition and 20,000
    /// per account, refusing more with 503 ServerBusy (429 and `x-ms-retry-after-ms` with
    /// `--flavor cosmos`)
    #[arg(long)]
    throttle: bool,

    /// Entities/s one partition serves (implies --throttle)
    #[arg(long = "partition-rate", value_name = "N", value_parser = positive_u32)]
    partition_rate: Option<u32>,

    /// Entities/s one account serves (implies --throttle)
    #[arg(long = "account-rate", value_name = "N", value_parser = positive_u32)]
    account_rate: Option<u32>,

    /// Accepted for Azurite's sake: no access log is written anyway
    #[arg(long, short = 's')]
    silent: bool,

    /// Appends a line per request to FILE: time, request id, method, path and query, status
    /// and duration (no headers; SAS signatures redacted)
    #[arg(long, short = 'd', value_name = "FILE")]
    debug: Option<PathBuf>,

    /// Accepted for Azurite's sake: unknown headers and query parameters are always ignored
    #[arg(long, short = 'L')]
    loose: bool,

    /// Accepted for Azurite's sake: every `x-ms-version` is accepted
    #[arg(long = "skipApiVersionCheck")]
    skip_api_version_check: bool,

    /// Accepted for Azurite's sake: this emulator sends no telemetry
    #[arg(long = "disableTelemetry")]
    disable_telemetry: bool,

    /// Accepted for Azurite's sake: the account is always the first path segment
    #[arg(long = "disableProductStyleUrl")]
    disable_product_style_url: bool,
}

/// An account name and its base64 keys; keys are secrets, never printed.
#[derive(Clone)]
struct Account {
    name: String,
    key: String,
    second_key: Option<String>,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The accounts of `AZURITE_ACCOUNTS` (a type of its own: clap reads a `Vec` as repeated).
#[derive(Clone, Debug)]
struct Accounts {
    accounts: Vec<Account>,
}

impl EmulatorArgs {
    /// The rates asked for, if any: Azure's unless a rate is given.
    fn throttle(&self) -> Option<Throttle> {
        let asked = self.throttle || self.partition_rate.is_some() || self.account_rate.is_some();
        asked.then(|| {
            let mut throttle = Throttle::azure();
            if let Some(rate) = self.partition_rate {
                throttle = throttle.with_partition_rate(rate);
            }
            if let Some(rate) = self.account_rate {
                throttle = throttle.with_account_rate(rate);
            }
            throttle
        })
    }

    /// The emulator these options describe, not yet started.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use clap::Parser;
    /// use tablekit_emulator::command::EmulatorArgs;
    /// # #[derive(Parser)]
    /// # struct Cli {
    /// #     #[command(flatten)]
    /// #     emulator: EmulatorArgs,
    /// # }
    /// let cli = Cli::try_parse_from(["emulator", "--port", "0"])?;
    /// let emulator = cli.emulator.builder().start().await?;
    /// assert!(emulator.client().list_table_names(None).await?.is_empty());
    /// # Ok(()) }
    /// ```
    pub fn builder(self) -> EmulatorBuilder {
        let options = self;
        let mut builder = Emulator::builder()
            .host(options.host)
            .port(options.port)
            .header_timeout(Duration::from_secs(options.header_timeout))
            .body_timeout(Duration::from_secs(options.body_timeout))
            .max_connections(options.max_connections)
            .flavor(options.flavor);
        if let Some(throttle) = options.throttle() {
            builder = builder.throttle(throttle);
        }
        if let Some(dir) = options.data {
            builder = builder.persist_to(dir);
        }
        if let Some(file) = options.debug {
            builder = builder.request_log(file);
        }
        let azurite = options
            .azurite_accounts
            .map(|a| a.accounts)
            .unwrap_or_default();
        for account in azurite.into_iter().chain(options.accounts) {
            builder = builder.account(&account.name, &account.key);
            if let Some(second) = &account.second_key {
                builder = builder.second_key(&account.name, second);
            }
        }
        builder
    }

    /// Serves until Ctrl-C: starts the emulator, prints its endpoint on stdout, and shuts it down
    /// cleanly on Ctrl-C. Errors are messages for the command line.
    ///
    /// ```no_run
    /// use clap::Parser;
    /// use tablekit_emulator::command::EmulatorArgs;
    /// # #[derive(Parser)]
    /// # struct Cli {
    /// #     #[command(flatten)]
    /// #     emulator: EmulatorArgs,
    /// # }
    /// # #[tokio::main]
    /// # async fn main() -> Result<(), String> {
    /// let cli = Cli::parse();
    /// cli.emulator.serve().await // returns after Ctrl-C
    /// # }
    /// ```
    pub async fn serve(self) -> Result<(), String> {
        let emulator = self.builder().start().await.map_err(|e| e.to_string())?;
        // A closed stdout (the reader went away) must not stop the server: errors ignored.
        let mut out = std::io::stdout();
        let _ = writeln!(
            out,
            "tablekit-emulator listening on {}",
            emulator.endpoint()
        );
        let _ = writeln!(
            out,
            "UseDevelopmentStorage=true works when the port is 10002"
        );
        let _ = out.flush();
        tokio::signal::ctrl_c()
            .await
            .map_err(|e| format!("cannot wait for Ctrl-C: {e}"))?;
        emulator.shutdown().await;
        Ok(())
    }
}

/// `--flavor`: `storage` or `cosmos`.
fn flavor(text: &str) -> Result<Flavor, String> {
    match text {
        "storage" => Ok(Flavor::Storage),
        "cosmos" => Ok(Flavor::Cosmos),
        other => Err(format!("expected `storage` or `cosmos`, not `{other}`")),
    }
}

/// `--tableHost`: an IP address, or `localhost` as Azurite's examples write it.
fn host(text: &str) -> Result<IpAddr, String> {
    if text.eq_ignore_ascii_case("localhost") {
        return Ok(IpAddr::V4(Ipv4Addr::LOCALHOST));
    }
    text.parse()
        .map_err(|_| format!("`{text}` is not an IP address (such as 127.0.0.1)"))
}

/// `--account NAME:KEY`.
fn account_option(text: &str) -> Result<Account, String> {
    match text.split_once(':') {
        Some((name, key)) if !name.is_empty() && !key.is_empty() => Ok(Account {
            name: name.to_owned(),
            key: key.to_owned(),
            second_key: None,
        }),
        _ => Err("expected NAME:KEY, an account name and its base64 key".to_owned()),
    }
}

/// `AZURITE_ACCOUNTS`: `name:key1[:key2]` entries separated by `;`; requests signed with
/// either key are accepted.
fn azurite_accounts(text: &str) -> Result<Accounts, String> {
    let mut parsed = Accounts {
        accounts: Vec::new(),
    };
    for entry in text.split(';').filter(|e| !e.trim().is_empty()) {
        let parts: Vec<&str> = entry.trim().split(':').collect();
        let (name, key, second) = match parts.as_slice() {
            [name, key] => (*name, *key, None),
            [name, key, second] => (*name, *key, Some(*second)),
            _ => ("", "", None),
        };
        if name.is_empty() || key.is_empty() || second.is_some_and(str::is_empty) {
            let name = parts.first().copied().unwrap_or_default();
            return Err(format!(
                "entry `{name}:...` must be NAME:KEY or NAME:KEY1:KEY2 (entries separated by `;`)"
            ));
        }
        parsed.accounts.push(Account {
            name: name.to_owned(),
            key: key.to_owned(),
            second_key: second.map(str::to_owned),
        });
    }
    if parsed.accounts.is_empty() {
        return Err("no account: expected `name1:key1;name2:key1:key2`".to_owned());
    }
    Ok(parsed)
}

/// A positive whole number.
fn positive_u32(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "`{text}` is not a positive whole number below 2^32"
        )),
    }
}

fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{text}` is not a positive whole number")),
    }
}
