//! What reads cost on the emulator: each query page and point read counts the stored
//! entities it examined and returned, in `Emulator::query_costs` and in the answer's own
//! headers, so a test can bound what a query costs.

use tablekit::{DynamicEntity, Filter, Query};
use tablekit_emulator::{Emulator, EXAMINED_HEADER, RETURNED_HEADER};

/// An emulator with `Gamers`: 10 partitions `p0`..`p9` of 20 rows `00`..`19`, each with a
/// `Level` of its row number modulo 5.
async fn gamers() -> Emulator {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("Gamers").unwrap();
    let rows = (0..200).map(|i| {
        let mut e = DynamicEntity::new(format!("p{}", i / 20), format!("{:02}", i % 20));
        e.set("Level", i % 5);
        e
    });
    emulator.seed("Gamers", rows).unwrap();
    emulator
}

/// The (examined, returned) of the first page of `filter`, and of the emulator's last read.
async fn first_page_cost(emulator: &Emulator, filter: &str, top: Option<u32>) -> (u64, u64) {
    let table = emulator.client().table_named::<DynamicEntity>("Gamers");
    let mut query = Query::new().filter(Filter::raw(filter));
    if let Some(top) = top {
        query = query.top(top).unwrap();
    }
    table.query(query).first_page().await.unwrap();
    let cost = emulator.query_costs().last().cloned().unwrap();
    assert_eq!(cost.table, "Gamers");
    assert!(cost.filter.as_deref().unwrap().contains(filter), "{cost:?}");
    (cost.examined, cost.returned)
}

#[tokio::test]
async fn a_query_examines_only_its_key_range() {
    let emulator = gamers().await;
    // A point read examines one entity.
    let point = first_page_cost(&emulator, "PartitionKey eq 'p3' and RowKey eq '07'", None);
    assert_eq!(point.await, (1, 1));
    // A row range within one partition: only the range.
    let range = "PartitionKey eq 'p3' and RowKey ge '05' and RowKey lt '10'";
    assert_eq!(first_page_cost(&emulator, range, None).await, (5, 5));
    // A filter inside one partition examines the partition.
    let in_partition = "PartitionKey eq 'p3' and Level eq 1";
    assert_eq!(
        first_page_cost(&emulator, in_partition, None).await,
        (20, 4)
    );
    // A filter without the PartitionKey scans the whole table.
    assert_eq!(
        first_page_cost(&emulator, "Level eq 1", None).await,
        (200, 40)
    );
    // A page of a scan examines up to the next match after a full page (where the next page
    // starts): p0's 20 rows, then p1's 00 and 01.
    assert_eq!(
        first_page_cost(&emulator, "Level eq 1", Some(4)).await,
        (22, 4)
    );
    let costs = emulator.query_costs();
    assert_eq!(costs.reads, 5);
    assert_eq!(costs.examined, 1 + 5 + 20 + 200 + 22);
    assert_eq!(costs.returned, 1 + 5 + 4 + 40 + 4);
    emulator.reset_requests();
    assert_eq!(emulator.query_costs().reads, 0);
}

#[tokio::test]
async fn point_gets_count_hits_and_misses() {
    let emulator = gamers().await;
    let table = emulator.client().table_named::<DynamicEntity>("Gamers");
    assert!(table.get("p1", "01").await.unwrap().is_some());
    assert!(table.get("p1", "99").await.unwrap().is_none());
    let costs = emulator.query_costs();
    let seen: Vec<_> = costs.recent().map(|c| (c.examined, c.returned)).collect();
    assert_eq!(seen, [(1, 1), (0, 0)]);
}

#[tokio::test]
async fn the_answer_carries_its_cost_in_headers() {
    let emulator = gamers().await;
    let sas = crate::full_sas(&emulator, "Gamers");
    let answer = reqwest::Client::new()
        .get(format!(
            "{}/Gamers()?{sas}&$filter=PartitionKey%20eq%20'p2'",
            emulator.endpoint()
        ))
        .header("Accept", "application/json;odata=nometadata")
        .header("x-ms-version", "2019-02-02")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()[EXAMINED_HEADER], "20");
    assert_eq!(answer.headers()[RETURNED_HEADER], "20");
}
