//! Query plans: every typed query knows its shape before it is sent, a table scan is logged,
//! and a table that refuses scans refuses them before any request, on both servers. The
//! emulator's read costs show that each plan reads what it says.

use tablekit::client::{Table, TableServiceClient};
use tablekit::query_plan::QueryPlan;
use tablekit::{Column, DynamicEntity, InvalidInput, Query};
use tablekit_testing::Emulator;

use crate::support::models::Gamer;

fn keys() -> (Column<DynamicEntity, String>, Column<DynamicEntity, String>) {
    (Column::dynamic("PartitionKey"), Column::dynamic("RowKey"))
}

fn score() -> Column<DynamicEntity, i32> {
    Column::dynamic("Score")
}

#[test]
fn each_shape_is_named_from_the_typed_filter() {
    let (pk, rk) = keys();
    let plan = |q: Query<DynamicEntity>| q.plan();
    assert_eq!(
        plan(Query::new().filter(pk.eq("p").and(rk.eq("r")))),
        QueryPlan::PointRead {
            partition_key: "p".into(),
            row_key: "r".into()
        }
    );
    let in_partition = Query::new().filter(pk.eq("p").and(rk.ge("a")).and(rk.lt("m")));
    assert_eq!(
        plan(in_partition),
        QueryPlan::RowRange {
            partition_key: "p".into()
        }
    );
    // Filters added one after another are read together.
    let added = Query::new().filter(score().gt(1)).filter(pk.eq("p"));
    assert_eq!(
        plan(added),
        QueryPlan::Partition {
            partition_key: "p".into()
        }
    );
    assert_eq!(
        plan(Query::new().filter(pk.starts_with("p"))),
        QueryPlan::PartitionRange
    );
    // A key condition under `or` does not bound the query.
    let either = Query::new().filter(pk.eq("p").or(score().gt(1)));
    assert_eq!(plan(either), QueryPlan::TableScan);
    assert_eq!(plan(Query::new()), QueryPlan::TableScan);
    assert_eq!(
        plan(Query::new().filter_raw("PartitionKey eq 'p'")),
        QueryPlan::Unknown
    );
    // A typed key beside hand-written text is still seen.
    let mixed = Query::new().filter_raw("Score gt 1").filter(pk.eq("p"));
    assert!(matches!(plan(mixed), QueryPlan::Partition { .. }));
    // A model's key column is its PartitionKey; the field stored beside it (`GamerTag`) is a
    // property like any other, which the service finds only by scanning.
    let gamer = Query::<Gamer>::new().filter(Gamer::PARTITION_KEY.eq("dragon"));
    assert_eq!(
        gamer.plan(),
        QueryPlan::Partition {
            partition_key: "dragon".into()
        }
    );
    let by_property = Query::<Gamer>::new().filter(Gamer::TAG.eq("Dragon"));
    assert_eq!(by_property.plan(), QueryPlan::TableScan);
}

/// `table` with 3 partitions of 4 rows.
async fn seeded(client: &TableServiceClient) -> Table {
    let table: Table = client.table_named(&crate::support::servers::unique_name("Plans"));
    table.create().await.unwrap();
    for p in 0..3 {
        for r in 0..4 {
            let mut e = DynamicEntity::new(format!("p{p}"), format!("r{r}"));
            e.set("Score", r);
            table.upsert_merge(&mut e).await.unwrap();
        }
    }
    table
}

async fn refused_scans_never_reach_the_server(client: &TableServiceClient) {
    let table = seeded(client).await.refuse_table_scans();
    let (pk, _) = keys();
    let scan = Query::new().filter(score().gt(1));
    let err = table.query(scan.clone()).first_page().await.unwrap_err();
    assert!(
        matches!(err.invalid_input(), Some(InvalidInput::TableScan { table: t }) if t == table.name()),
        "{err}"
    );
    // Hand-written text may be a scan: refused too, until the query says it means one.
    let raw = Query::new().filter_raw("Score gt 1");
    assert!(table
        .query(raw.clone())
        .first_page()
        .await
        .unwrap_err()
        .is_invalid_input());
    assert_eq!(
        table
            .query(raw.allow_table_scan())
            .collect_all()
            .await
            .unwrap()
            .len(),
        6
    );
    assert_eq!(
        table
            .query(scan.allow_table_scan())
            .collect_all()
            .await
            .unwrap()
            .len(),
        6
    );
    // A query within a partition runs as always.
    let one = Query::new().filter(pk.eq("p1").and(score().gt(1)));
    assert_eq!(table.query(one).collect_all().await.unwrap().len(), 2);
    client.delete_table(table.name()).await.unwrap();
}

on_servers!(refused_scans_never_reach_the_server);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_plan_examines_what_it_says_and_a_scan_is_logged() {
    let traces = crate::support::traces::captured();
    let emulator = Emulator::start().await.unwrap();
    let client = emulator.client();
    let table = seeded(&client).await;
    let (pk, rk) = keys();
    let cases: [(Query<DynamicEntity>, u64); 4] = [
        (Query::new().filter(pk.eq("p1").and(rk.eq("r2"))), 1),
        (Query::new().filter(pk.eq("p1").and(rk.lt("r2"))), 2),
        (Query::new().filter(pk.eq("p1")), 4),
        (Query::new().filter(score().eq(3)), 12),
    ];
    for (query, examined) in cases {
        let plan = query.plan();
        table.query(query).first_page().await.unwrap();
        let cost = emulator.query_costs().last().cloned().unwrap();
        assert_eq!(cost.examined, examined, "{plan}");
    }
    let text = traces.text();
    assert!(text.contains("the query scans the whole table"), "{text}");
    assert!(text.contains(table.name()), "{text}");
}
