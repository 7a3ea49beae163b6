//! The client a command works through, from `--connection-string` (or its variable) or
//! `--account` with a key, a SAS or a Microsoft Entra ID access token read from a variable or
//! a file.
//!
//! Entra ID takes a token obtained beforehand (`az account get-access-token --resource
//! https://storage.azure.com`) rather than a credential crate: `azure_identity` would bring a
//! second HTTP and TLS stack into the binary for what one command line of the Azure CLI does.
//!
//! Secrets are read, never echoed: an error names the variable or the file, not its content.

use std::path::Path;

use tablekit::client::{Credential, TableServiceClient, TokenFuture, TokenProvider};

use crate::cli::Connection;
use crate::exit::{Failure, Outcome};

/// The client `connection` describes.
pub(crate) fn client(connection: &Connection) -> Outcome<TableServiceClient> {
    let mut builder = TableServiceClient::builder();
    match (&connection.connection_string, &connection.account) {
        (Some(_), Some(_)) => {
            return Err(Failure::bad_input(
                "give either a connection string or `--account`, not both",
            ))
        }
        (Some(text), None) => builder = builder.connection_string(text),
        (None, Some(account)) => {
            let endpoint = match &connection.endpoint {
                Some(url) => url.clone(),
                None => format!("https://{account}.table.core.windows.net"),
            };
            builder = builder
                .endpoint(&endpoint)
                .account(account)
                .credential(credential(connection)?);
        }
        (None, None) => {
            return Err(Failure::bad_input(
                "no account: give `--connection-string`, set `TABLEKIT_CONNECTION_STRING`, or \
                 give `--account` with `--key-env`, `--key-file`, `--sas-env`, `--sas-file`, \
                 `--token-env` or `--token-file`",
            ))
        }
    }
    if connection.connection_string.is_some() {
        if let Some(url) = &connection.endpoint {
            builder = builder.endpoint(url);
        }
    }
    // A bad connection string is bad input; the client's message never quotes the key.
    builder
        .build()
        .map_err(|e| Failure::bad_input(e.to_string()).context("cannot connect"))
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
fn credential(connection: &Connection) -> Outcome<Credential> {
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
    Err(Failure::bad_input(
        "`--account` needs a secret: `--key-env`, `--key-file`, `--sas-env`, `--sas-file`, \
         `--token-env` or `--token-file`",
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
