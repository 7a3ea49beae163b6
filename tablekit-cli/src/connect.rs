//! The client a command works through, from `--connection-string` or `--account` with a key,
//! a SAS or a Microsoft Entra ID access token read from a variable or a file; without those
//! options, from `TABLEKIT_CONNECTION_STRING`, then the variables `az storage` reads
//! (`AZURE_STORAGE_CONNECTION_STRING`, `AZURE_STORAGE_ACCOUNT` with `AZURE_STORAGE_KEY` or
//! `AZURE_STORAGE_SAS_TOKEN`). Options always win over the environment.
//!
//! Entra ID takes a token obtained beforehand (`az account get-access-token --resource
//! https://storage.azure.com`) rather than a credential crate: `azure_identity` would bring a
//! second HTTP and TLS stack into the binary for what one command line of the Azure CLI does.
//!
//! Secrets are read, never echoed: an error names the variable or the file, not its content.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use tablekit::client::{
    ClientBuilder, Credential, RetryPolicy, TableServiceClient, TokenFuture, TokenProvider,
};

use crate::cli::{Connection, Environment, Global, Side, TO_CONNECTION_STRING_VAR};
use crate::exit::{Failure, Outcome};

/// The connection string variable tablekit reads first.
const CONNECTION_STRING_VAR: &str = "TABLEKIT_CONNECTION_STRING";
/// The variables `az storage` reads, after tablekit's own.
const AZURE_CONNECTION_STRING_VAR: &str = "AZURE_STORAGE_CONNECTION_STRING";
const AZURE_ACCOUNT_VAR: &str = "AZURE_STORAGE_ACCOUNT";
const AZURE_KEY_VAR: &str = "AZURE_STORAGE_KEY";
const AZURE_SAS_VAR: &str = "AZURE_STORAGE_SAS_TOKEN";

/// The options every command shares, set once before the command runs.
static GLOBAL: OnceLock<Global> = OnceLock::new();

/// Keeps `--timeout`, `--retries` and `--allow-http` for every client built after.
pub(crate) fn configure(global: Global) {
    let _ = GLOBAL.set(global);
}

/// Where the connection comes from, options first, then the environment.
enum Source {
    ConnectionString(String),
    Account(String),
}

/// The client `connection` describes.
pub(crate) fn client<S: Side>(connection: &Connection<S>) -> Outcome<TableServiceClient> {
    let mut builder = TableServiceClient::builder();
    match source(connection)? {
        Source::ConnectionString(text) => {
            builder = builder.connection_string(&text);
            if let Some(url) = &connection.endpoint {
                builder = builder.endpoint(url);
            }
        }
        Source::Account(account) => {
            let endpoint = match &connection.endpoint {
                Some(url) => url.clone(),
                None => format!("https://{account}.table.core.windows.net"),
            };
            builder = builder
                .endpoint(&endpoint)
                .account(&account)
                .credential(credential(connection)?);
        }
    }
    // A bad connection string is bad input; the client's message never quotes the key.
    with_global(builder)
        .build()
        .map_err(|e| Failure::bad_input(in_cli_terms(&e.to_string())).context("cannot connect"))
}

/// The library's advice, as the command line's option.
fn in_cli_terms(message: &str) -> String {
    message.replace(
        "opt in with `allow_insecure_http(true)`",
        "give `--allow-http` to send it in clear text all the same",
    )
}

/// The options of the command line, then the variables: options always win.
fn source<S: Side>(connection: &Connection<S>) -> Outcome<Source> {
    match (&connection.connection_string, &connection.account) {
        (Some(_), Some(_)) => Err(Failure::bad_input(
            "give either a connection string or `--account`, not both",
        )),
        (Some(text), None) => {
            warn_if_secret(text, S::ENVIRONMENT);
            Ok(Source::ConnectionString(text.clone()))
        }
        (None, Some(account)) => Ok(Source::Account(account.clone())),
        (None, None) => from_environment(S::ENVIRONMENT),
    }
}

/// A secret on the command line is visible to every user of the machine (`ps`): said once.
fn warn_if_secret(text: &str, environment: Environment) {
    let secret = ["accountkey=", "sharedaccesssignature="]
        .iter()
        .any(|k| text.to_ascii_lowercase().contains(k));
    if secret {
        let (option, var) = match environment {
            Environment::Source => ("--connection-string", CONNECTION_STRING_VAR),
            Environment::Destination => ("--to-connection-string", TO_CONNECTION_STRING_VAR),
        };
        eprintln!(
            "tablekit: warning: `{option}` puts the key in the command line, which other users \
             can read (`ps`); set `{var}` instead"
        );
    }
}

/// The connection the variables give, in the order tablekit and then `az storage` read them.
fn from_environment(environment: Environment) -> Outcome<Source> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if environment == Environment::Destination {
        return var(TO_CONNECTION_STRING_VAR)
            .map(Source::ConnectionString)
            .ok_or_else(|| Failure::bad_input("no destination account"));
    }
    if let Some(text) = var(CONNECTION_STRING_VAR).or_else(|| var(AZURE_CONNECTION_STRING_VAR)) {
        return Ok(Source::ConnectionString(text));
    }
    if let Some(account) = var(AZURE_ACCOUNT_VAR) {
        return Ok(Source::Account(account));
    }
    Err(Failure::bad_input(
        "no account: give `--connection-string` or `--account` with `--key-env`, `--key-file`, \
         `--sas-env`, `--sas-file`, `--token-env` or `--token-file`; or set \
         `TABLEKIT_CONNECTION_STRING`, `AZURE_STORAGE_CONNECTION_STRING`, or \
         `AZURE_STORAGE_ACCOUNT` with `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`",
    ))
}

/// `--timeout`, `--retries` and `--allow-http` on a builder.
fn with_global(mut builder: ClientBuilder) -> ClientBuilder {
    let Some(global) = GLOBAL.get() else {
        return builder;
    };
    if let Some(seconds) = global.timeout {
        builder = builder.timeout(Duration::from_secs(seconds.max(1)));
    }
    if let Some(retries) = global.retries {
        builder =
            builder.retry_policy(RetryPolicy::default().max_attempts(retries.saturating_add(1)));
    }
    builder.allow_insecure_http(global.allow_http)
}

/// What a secret is.
#[derive(Clone, Copy)]
enum Secret {
    Key,
    Sas,
    Token,
}

/// The credential of `--key-env`, `--key-file`, `--sas-env`, `--sas-file`, `--token-env` or
/// `--token-file`.
fn credential<S>(connection: &Connection<S>) -> Outcome<Credential> {
    let sources = [
        (Secret::Key, &connection.key_env, &connection.key_file),
        (Secret::Sas, &connection.sas_env, &connection.sas_file),
        (Secret::Token, &connection.token_env, &connection.token_file),
    ];
    for (kind, var, file) in sources {
        let (secret, source) = match (var, file) {
            (Some(var), _) => (from_env(var)?, format!("variable `{var}`")),
            (None, Some(path)) => (from_file(path)?, format!("file `{}`", path.display())),
            (None, None) => continue,
        };
        let credential = match kind {
            Secret::Key => Credential::shared_key(&secret),
            Secret::Sas => Credential::sas(&secret),
            Secret::Token => Ok(Credential::bearer(FixedToken(secret))),
        };
        // The credential's own error could quote the text: name only where it came from.
        return credential.map_err(|_| {
            let what = match kind {
                Secret::Key => "a base64 account key",
                Secret::Sas => "a SAS token",
                Secret::Token => "an access token",
            };
            Failure::bad_input(format!("the {source} does not hold {what}"))
        });
    }
    // Without a secret option, the variables `az storage` reads.
    if let Ok(key) = from_env(AZURE_KEY_VAR) {
        return Credential::shared_key(&key).map_err(|_| {
            Failure::bad_input(format!(
                "the variable `{AZURE_KEY_VAR}` does not hold a base64 account key"
            ))
        });
    }
    if let Ok(sas) = from_env(AZURE_SAS_VAR) {
        return Credential::sas(&sas).map_err(|_| {
            Failure::bad_input(format!(
                "the variable `{AZURE_SAS_VAR}` does not hold a SAS token"
            ))
        });
    }
    Err(Failure::bad_input(
        "`--account` needs a secret: `--key-env`, `--key-file`, `--sas-env`, `--sas-file`, \
         `--token-env` or `--token-file` (or `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`)",
    ))
}

/// An access token obtained beforehand (by `az account get-access-token`), used as it is:
/// a command runs for less than a token lives (an hour or more).
struct FixedToken(String);

impl TokenProvider for FixedToken {
    fn token(&self) -> TokenFuture<'_> {
        let token = self.0.clone();
        Box::pin(async move { Ok(token) })
    }
}

fn from_env(var: &str) -> Outcome<String> {
    match std::env::var(var) {
        Ok(value) if !value.trim().is_empty() => Ok(value.trim().to_owned()),
        _ => Err(Failure::bad_input(format!(
            "the variable `{var}` is not set (or empty)"
        ))),
    }
}

fn from_file(path: &Path) -> Outcome<String> {
    match std::fs::read_to_string(path) {
        Ok(text) if !text.trim().is_empty() => Ok(text.trim().to_owned()),
        Ok(_) => Err(Failure::bad_input(format!(
            "the file `{}` is empty",
            path.display()
        ))),
        Err(e) => Err(Failure::bad_input(format!(
            "cannot read `{}`: {e}",
            path.display()
        ))),
    }
}
