//! `get`, `put` and `delete`: one entity.

use std::io::Read;

use tablekit::client::TableServiceClient;
use tablekit::codec::decode_entity;
use tablekit::{DynamicEntity, ETag};

use crate::cli::{DeleteArgs, GetArgs, PutArgs, PutMode};
use crate::common::{input, require_table};
use crate::connect::client;
use crate::exit::{Failure, Kind, Outcome};
use crate::jsonl::JsonlWriter;

/// `get`: the entity as one line of typed JSON on stdout (as `put` reads it back), and its
/// ETag on stderr, for `delete --etag`.
pub(crate) async fn get(args: GetArgs) -> Outcome {
    let client = client(&args.connection)?;
    let table = client.table_named::<DynamicEntity>(&args.table);
    match table.get(&args.partition_key, &args.row_key).await {
        Ok(Some(entity)) => {
            let mut out = JsonlWriter::new(std::io::stdout().lock());
            out.write(&entity)?;
            out.finish()?;
            if let Some(etag) = entity.etag() {
                eprintln!("etag: {}", etag.as_str());
            }
            Ok(())
        }
        Ok(None) => Err(missing(&client, &args.table, &args.partition_key, &args.row_key).await),
        Err(e) if e.is_not_found() => Err(Failure::new(
            Kind::NotFound,
            format!("table `{}` does not exist", args.table),
        )),
        Err(e) => Err(e.into()),
    }
}

/// `put`: one entity of typed JSON from a file or stdin.
pub(crate) async fn put(args: PutArgs) -> Outcome {
    let mut text = Vec::new();
    input(args.file.as_deref())?
        .read_to_end(&mut text)
        .map_err(|e| Failure::bad_input(format!("cannot read the entity: {e}")))?;
    let mut entity = decode_entity(text.trim_ascii())
        .map_err(|e| Failure::bad_input(format!("not a typed entity: {e}")))?;
    entity.set_etag(None);
    entity.set_timestamp(None);
    let client = client(&args.connection)?;
    let table = client.table_named::<DynamicEntity>(&args.table);
    let written = match args.mode {
        PutMode::Insert => table.insert(&mut entity).await,
        PutMode::Upsert => table.upsert_replace(&mut entity).await,
        PutMode::Merge => table.upsert_merge(&mut entity).await,
        PutMode::Replace => table.replace(&mut entity).await,
    };
    match written {
        Ok(()) => {
            if let Some(etag) = entity.etag() {
                eprintln!("etag: {}", etag.as_str());
            }
            Ok(())
        }
        Err(e) if e.is_not_found() => {
            require_table(&client, &args.table).await?;
            Err(e.into())
        }
        Err(e) if e.is_conflict() => Err(Failure::new(
            Kind::Conflict,
            format!(
                "({:?}, {:?}) exists already in `{}`",
                entity.partition_key(),
                entity.row_key(),
                args.table
            ),
        )),
        Err(e) => Err(e.into()),
    }
}

/// `delete`: one entity, unconditionally or only if its ETag still matches.
pub(crate) async fn delete(args: DeleteArgs) -> Outcome {
    let client = client(&args.connection)?;
    let table = client.table_named::<DynamicEntity>(&args.table);
    let mut entity = DynamicEntity::new(&args.partition_key, &args.row_key);
    let etag = match &args.etag {
        Some(text) => ETag::new(text.as_str()),
        None => ETag::any(),
    };
    entity.set_etag(Some(etag));
    match table.delete(&mut entity).await {
        Ok(()) => Ok(()),
        Err(e) if e.is_not_found() => {
            Err(missing(&client, &args.table, &args.partition_key, &args.row_key).await)
        }
        Err(e) if e.is_precondition_failed() => Err(Failure::new(
            Kind::Conflict,
            "the entity changed: its ETag is no longer the one given",
        )),
        Err(e) => Err(e.into()),
    }
}

/// Why an entity was not found: its table does not exist, or the table lacks the entity.
async fn missing(
    client: &TableServiceClient,
    table: &str,
    partition_key: &str,
    row_key: &str,
) -> Failure {
    if let Err(failure) = require_table(client, table).await {
        return failure;
    }
    let message = format!("no entity ({partition_key:?}, {row_key:?}) in `{table}`");
    Failure::new(Kind::NotFound, message)
}
