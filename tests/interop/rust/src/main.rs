//! The interop scenario with Microsoft's `azure_data_tables` crate.
//!
//! Usage: `tablekit-interop-rust CONNECTION_STRING`. Prints one line per step; on a failed
//! step, prints it and exits 1 naming the step. The crate writes entities as plain JSON, so
//! typed properties carry their `@odata.type` annotations by hand, as on the wire.

use std::error::Error;

use azure_data_tables::clients::TableServiceClientBuilder;
use azure_data_tables::prelude::*;
use azure_storage::{CloudLocation, ConnectionString, StorageCredentials};
use futures::StreamExt;
use serde_json::{json, Map, Value};

type Outcome = Result<(), Box<dyn Error + Send + Sync>>;

const ROWS: usize = 1200;
const BATCH: usize = 100;
const PAGE: u32 = 500;

/// Runs one step: prints `ok: TITLE`, or `FAILED: TITLE: why` and exits 1.
macro_rules! step {
    ($title:expr, $body:expr) => {{
        let outcome: Outcome = $body.await;
        match outcome {
            Ok(()) => println!("ok: {}", $title),
            Err(error) => {
                println!("FAILED: {}: {error}", $title);
                std::process::exit(1);
            }
        }
    }};
}

fn check(condition: bool, message: impl Into<String>) -> Outcome {
    if condition {
        Ok(())
    } else {
        Err(message.into().into())
    }
}

/// The HTTP status of a failed call.
fn status<T>(result: azure_core::Result<T>) -> Result<u16, Box<dyn Error + Send + Sync>> {
    match result {
        Ok(_) => Err("the call succeeded but should have failed".into()),
        Err(error) => match error.as_http_error() {
            Some(http) => Ok(http.status() as u16),
            None => Err(error.into()),
        },
    }
}

fn every_type_entity() -> Value {
    json!({
        "PartitionKey": "types",
        "RowKey": "all",
        "Text": "caf\u{e9} \u{2603} 'quoted'",
        "Int32": 2147483647,
        "Int64": "9007199254740993",
        "Int64@odata.type": "Edm.Int64",
        "Double": 0.1,
        "WholeDouble": 2.0,
        "WholeDouble@odata.type": "Edm.Double",
        "Bool": true,
        "When": "2024-02-29T23:59:58.1234567Z",
        "When@odata.type": "Edm.DateTime",
        "Id": "c9da6455-213d-42c9-9a79-3e9149a57833",
        "Id@odata.type": "Edm.Guid",
        "Bytes": "AAH+/w==",
        "Bytes@odata.type": "Edm.Binary",
    })
}

/// The entity read back holds every value with its type: JSON types for String, Int32,
/// Double and Boolean, annotations for the rest. A whole Double may come back as `2`: the
/// crate leaves reading it as a Double to the caller.
fn same_types(got: &Map<String, Value>) -> Outcome {
    let want = every_type_entity();
    for name in [
        "Text", "Int32", "Int64", "Double", "Bool", "When", "Id", "Bytes",
    ] {
        check(
            got.get(name) == want.get(name),
            format!("{name}: {:?}", got.get(name)),
        )?;
    }
    let whole = got.get("WholeDouble").and_then(Value::as_f64);
    check(
        whole == Some(2.0),
        format!("WholeDouble: {:?}", got.get("WholeDouble")),
    )?;
    for (name, edm) in [
        ("Int64", "Edm.Int64"),
        ("When", "Edm.DateTime"),
        ("Id", "Edm.Guid"),
        ("Bytes", "Edm.Binary"),
    ] {
        let annotation = got.get(&format!("{name}@odata.type"));
        check(
            annotation == Some(&json!(edm)),
            format!("{name} type: {annotation:?}"),
        )?;
    }
    Ok(())
}

fn service_client(connection_string: &str) -> azure_core::Result<TableServiceClient> {
    let parsed = ConnectionString::new(connection_string)?;
    let account = parsed.account_name.unwrap_or("devstoreaccount1").to_owned();
    let key = parsed.account_key.unwrap_or_default().to_owned();
    let uri = parsed.table_endpoint.unwrap_or_default().to_owned();
    let credentials = StorageCredentials::access_key(account.clone(), key);
    let location = CloudLocation::Custom { account, uri };
    Ok(TableServiceClientBuilder::with_location(location, credentials).build())
}

#[tokio::main]
async fn main() {
    let connection_string = std::env::args().nth(1).expect("usage: CONNECTION_STRING");
    let service = service_client(&connection_string).expect("a valid connection string");
    let name = format!("interopRs{}", std::process::id());
    let table = service.table_client(&name);
    let rows = table.partition_key_client("rows");

    step!("create table", async {
        table.create().await?;
        check(
            status(table.create().await)? == 409,
            "a second create must be 409",
        )
    });

    step!("list tables with a prefix filter", async {
        let mut pages = service
            .list()
            .filter("TableName ge 'interopRs' and TableName lt 'interopRt'")
            .into_stream();
        let mut found = Vec::new();
        while let Some(page) = pages.next().await {
            found.extend(page?.tables.into_iter().map(|t| t.name));
        }
        check(found.contains(&name), format!("{name} not in {found:?}"))?;
        check(
            found.iter().all(|t| t.starts_with("interopRs")),
            format!("filter ignored: {found:?}"),
        )
    });

    step!("insert an entity with every EDM type", async {
        let answer = table.insert::<_, Value>(every_type_entity())?.await?;
        check(!answer.etag.as_ref().is_empty(), "no etag")
    });

    step!("get it back with the same types and values", async {
        let got = table
            .partition_key_client("types")
            .entity_client("all")
            .get::<Map<String, Value>>()
            .await?;
        same_types(&got.entity)
    });

    step!(format!("insert {ROWS} rows in batches of {BATCH}"), async {
        for start in (0..ROWS).step_by(BATCH) {
            let mut batch = rows.transaction();
            for n in start..start + BATCH {
                let row = json!({
                    "PartitionKey": "rows", "RowKey": format!("{n:05}"),
                    "N": n, "Pad": "x".repeat(10),
                });
                batch = batch.insert(row)?;
            }
            let answer = batch.await?;
            let statuses: Vec<u16> = answer
                .operation_responses
                .iter()
                .map(|r| r.status_code as u16)
                .collect();
            check(
                statuses == vec![201; BATCH],
                format!("batch at {start}: {statuses:?}"),
            )?;
        }
        Ok(())
    });

    step!(
        "query with filter, select and top across continuation pages",
        async {
            let mut pages = table
                .query()
                .filter("PartitionKey eq 'rows' and N ge 100")
                .select("N")
                .top(PAGE)
                .into_stream::<Map<String, Value>>();
            let (mut sizes, mut numbers) = (Vec::new(), Vec::new());
            while let Some(page) = pages.next().await {
                let page = page?;
                sizes.push(page.entities.len());
                for row in page.entities {
                    let names: Vec<&String> =
                        row.keys().filter(|k| !k.starts_with("odata.")).collect();
                    check(names == ["N"], format!("select ignored: {names:?}"))?;
                    numbers.push(row["N"].as_u64().unwrap_or(u64::MAX) as usize);
                }
            }
            let page = PAGE as usize;
            check(
                sizes == [page, page, ROWS - 100 - 2 * page],
                format!("page sizes {sizes:?}"),
            )?;
            check(
                numbers == (100..ROWS).collect::<Vec<_>>(),
                "rows missing, repeated or out of order",
            )
        }
    );

    step!(
        "replace with the ETag, then a stale ETag fails with 412",
        async {
            let entity = rows.entity_client("00001");
            let old = entity.get::<Value>().await?.etag;
            let replaced = json!({"PartitionKey": "rows", "RowKey": "00001", "N": -1});
            let answer = entity.update(&replaced, old.clone().into())?.await?;
            check(answer.etag != old, "the ETag did not change")?;
            let got = entity.get::<Map<String, Value>>().await?.entity;
            check(
                got["N"] == json!(-1) && !got.contains_key("Pad"),
                format!("replace kept old properties: {got:?}"),
            )?;
            let stale = json!({"PartitionKey": "rows", "RowKey": "00001", "N": -2});
            let answered = status(entity.update(&stale, old.into())?.await)?;
            check(
                answered == 412,
                format!("stale replace answered {answered}"),
            )
        }
    );

    step!(
        "merge with the ETag, then a stale ETag fails with 412",
        async {
            let entity = rows.entity_client("00002");
            let old = entity.get::<Value>().await?.etag;
            let merged = json!({"PartitionKey": "rows", "RowKey": "00002", "Extra": "merged"});
            entity.merge(&merged, old.clone().into())?.await?;
            let got = entity.get::<Map<String, Value>>().await?.entity;
            check(
                got["N"] == json!(2) && got["Extra"] == json!("merged"),
                format!("merge lost properties: {got:?}"),
            )?;
            let stale = json!({"PartitionKey": "rows", "RowKey": "00002", "Extra": "again"});
            let answered = status(entity.merge(&stale, old.into())?.await)?;
            check(answered == 412, format!("stale merge answered {answered}"))
        }
    );

    step!("upsert: insert, merge and replace", async {
        let entity = table.partition_key_client("up").entity_client("1");
        entity
            .insert_or_merge(json!({"PartitionKey": "up", "RowKey": "1", "A": 1}))?
            .await?;
        entity
            .insert_or_merge(json!({"PartitionKey": "up", "RowKey": "1", "B": 2}))?
            .await?;
        let got = entity.get::<Map<String, Value>>().await?.entity;
        check(
            got["A"] == json!(1) && got["B"] == json!(2),
            format!("upsert merge: {got:?}"),
        )?;
        entity
            .insert_or_replace(json!({"PartitionKey": "up", "RowKey": "1", "C": 3}))?
            .await?;
        let got = entity.get::<Map<String, Value>>().await?.entity;
        check(
            !got.contains_key("A") && got["C"] == json!(3),
            format!("upsert replace: {got:?}"),
        )
    });

    step!("a transaction of mixed operations succeeds", async {
        let answer = rows
            .transaction()
            .insert(json!({"PartitionKey": "rows", "RowKey": "new", "N": 1}))?
            .merge(
                "00003",
                json!({"PartitionKey": "rows", "RowKey": "00003", "M": 3}),
                None,
            )?
            .insert_or_replace(
                "00004",
                json!({"PartitionKey": "rows", "RowKey": "00004", "N": 40}),
            )?
            .delete("00005", None)?
            .await?;
        let statuses: Vec<u16> = answer
            .operation_responses
            .iter()
            .map(|r| r.status_code as u16)
            .collect();
        check(
            statuses == [201, 204, 204, 204],
            format!("answered {statuses:?}"),
        )?;
        let n = |row: &'static str, name: &'static str| {
            let entity = rows.entity_client(row);
            async move {
                let got = entity.get::<Map<String, Value>>().await?.entity;
                Ok::<_, azure_core::Error>(got.get(name).cloned())
            }
        };
        check(n("new", "N").await? == Some(json!(1)), "create not applied")?;
        check(
            n("00003", "M").await? == Some(json!(3)),
            "merge not applied",
        )?;
        check(
            n("00004", "N").await? == Some(json!(40)),
            "upsert not applied",
        )?;
        let deleted = status(rows.entity_client("00005").get::<Value>().await)?;
        check(deleted == 404, "delete not applied")
    });

    step!("a failing transaction applies nothing", async {
        let answer = rows
            .transaction()
            .insert(json!({"PartitionKey": "rows", "RowKey": "never", "N": 1}))?
            .insert(json!({"PartitionKey": "rows", "RowKey": "00006", "N": 6}))?
            .await?;
        let statuses: Vec<u16> = answer
            .operation_responses
            .iter()
            .map(|r| r.status_code as u16)
            .collect();
        check(statuses == [409], format!("answered {statuses:?}"))?;
        let never = status(rows.entity_client("never").get::<Value>().await)?;
        check(never == 404, "partly applied")
    });

    step!("delete an entity", async {
        let entity = table.partition_key_client("types").entity_client("all");
        entity.delete().await?;
        check(status(entity.get::<Value>().await)? == 404, "still there")
    });

    step!("delete the table", async {
        table.delete().await?;
        let mut pages = service.list().into_stream();
        let mut names = Vec::new();
        while let Some(page) = pages.next().await {
            names.extend(page?.tables.into_iter().map(|t| t.name));
        }
        check(!names.contains(&name), format!("{name} still listed"))?;
        let gone = status(rows.entity_client("00001").get::<Value>().await)?;
        check(gone == 404, "the deleted table still answers")
    });

    println!("rust scenario passed");
}
