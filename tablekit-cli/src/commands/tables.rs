//! `tables list|create|delete`.

use std::io::Write;

use futures::TryStreamExt;

use crate::cli::TablesCommand;
use crate::connect::client;
use crate::exit::{Failure, Kind, Outcome};
use crate::jsonl::write_failed;

/// Runs a `tables` command.
pub(crate) async fn run(command: TablesCommand) -> Outcome {
    match command {
        TablesCommand::List { prefix, connection } => {
            let client = client(&connection)?;
            let mut names = client.list_tables(prefix.as_deref());
            let mut out = std::io::stdout().lock();
            while let Some(name) = names.try_next().await? {
                writeln!(out, "{name}").map_err(write_failed)?;
            }
            Ok(())
        }
        TablesCommand::Create {
            table,
            if_not_exists,
            connection,
        } => {
            let client = client(&connection)?;
            if if_not_exists {
                client.create_table_if_not_exists(&table).await?;
                Ok(())
            } else {
                client.create_table(&table).await.map_err(|e| {
                    if e.is_conflict() {
                        Failure::new(Kind::Conflict, format!("table `{table}` exists already"))
                    } else {
                        e.into()
                    }
                })
            }
        }
        TablesCommand::Delete {
            table,
            if_exists,
            connection,
        } => {
            let client = client(&connection)?;
            if if_exists {
                client.delete_table_if_exists(&table).await?;
                Ok(())
            } else {
                client.delete_table(&table).await.map_err(|e| {
                    if e.is_not_found() {
                        Failure::new(Kind::NotFound, format!("table `{table}` does not exist"))
                    } else {
                        e.into()
                    }
                })
            }
        }
    }
}
