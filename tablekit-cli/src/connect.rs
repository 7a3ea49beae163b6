//! The client a command works through, from `--connection-string` (or its variable) or
//! `--account` with a key or SAS read from a variable or a file.
//!
//! Secrets are read, never echoed: an error names the variable or the file, not its content.

use std::path::Path;

use tablekit::client::{Credential, TableServiceClient};

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
                 give `--account` with `--key-env`, `--key-file`, `--sas-env` or `--sas-file`",
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

/// The credential of `--key-env`, `--key-file`, `--sas-env` or `--sas-file`.
fn credential(connection: &Connection) -> Outcome<Credential> {
    let (secret, is_key, source) = if let Some(var) = &connection.key_env {
        (from_env(var)?, true, format!("variable `{var}`"))
    } else if let Some(path) = &connection.key_file {
        (from_file(path)?, true, format!("file `{}`", path.display()))
    } else if let Some(var) = &connection.sas_env {
        (from_env(var)?, false, format!("variable `{var}`"))
    } else if let Some(path) = &connection.sas_file {
        (
            from_file(path)?,
            false,
            format!("file `{}`", path.display()),
        )
    } else {
        return Err(Failure::bad_input(
            "`--account` needs a secret: `--key-env`, `--key-file`, `--sas-env` or `--sas-file`",
        ));
    };
    let credential = if is_key {
        Credential::shared_key(&secret)
    } else {
        Credential::sas(&secret)
    };
    // The credential's own error could describe the text: name only where it came from.
    credential.map_err(|_| {
        let what = if is_key {
            "a base64 account key"
        } else {
            "a SAS token"
        };
        Failure::bad_input(format!("the {source} does not hold {what}"))
    })
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
