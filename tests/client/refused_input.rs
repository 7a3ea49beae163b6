//! tablekit's client on the emulator, where only the emulator can prove it: the request
//! counter shows that input the client refuses never reaches the server.

use tablekit::client::{Table, TableServiceClient};
use tablekit::{DynamicEntity, Error};
use tablekit_testing::{Emulator, Operation, TestTable};

/// A running emulator, a fresh table on it (dropped with the fixture), and the client's handle
/// to that table.
async fn counted_table(prefix: &str) -> (Emulator, TestTable, TableServiceClient, Table) {
    let emulator = Emulator::start().await.unwrap();
    let fixture = emulator.unique_table(prefix).unwrap();
    let client = emulator.client();
    let table: Table = client.table_named(fixture.name());
    (emulator, fixture, client, table)
}

#[tokio::test]
async fn refused_input_sends_nothing() {
    let (emulator, fixture, client, table) = counted_table("Counted").await;
    let before = emulator.requests();

    let mut slash = DynamicEntity::new("a/b", "r");
    assert!(matches!(
        table.insert(&mut slash).await,
        Err(Error::InvalidInput(_))
    ));
    let mut big = DynamicEntity::new("p", "r");
    big.set("Blob", vec![0u8; 64 * 1024 + 1]);
    assert!(matches!(
        table.upsert_replace(&mut big).await,
        Err(Error::InvalidInput(_))
    ));
    let mut many = DynamicEntity::new("p", "r");
    for i in 0..253 {
        many.set(format!("P{i}"), i);
    }
    assert!(matches!(
        table.insert(&mut many).await,
        Err(Error::InvalidInput(_))
    ));
    let bad_name: Table = client.table_named("1bad");
    assert!(bad_name.create().await.is_err());

    assert_eq!(emulator.requests(), before, "nothing was sent");
    assert!(fixture.entities().unwrap().is_empty());

    let mut fine = DynamicEntity::new("p", "r");
    fine.set("N", 1);
    table.insert(&mut fine).await.unwrap();
    assert_eq!(
        emulator.requests().count(Operation::Insert),
        before.count(Operation::Insert) + 1
    );
    assert!(
        fine.etag().is_some(),
        "the ETag the emulator sent was recorded"
    );
}

#[tokio::test]
async fn an_abandoned_read_ahead_costs_at_most_one_page() {
    use futures::TryStreamExt;
    use tablekit::Query;

    let (emulator, _fixture, _client, table) = counted_table("Ahead").await;
    for i in 0..50 {
        table
            .insert(&mut DynamicEntity::new("p", format!("{i:03}")))
            .await
            .unwrap();
    }
    let queries = || emulator.requests().count(Operation::Query);

    for (read_ahead, most) in [(false, 1), (true, 2)] {
        let before = queries();
        let query = table
            .query(Query::new().top(10).unwrap())
            .read_ahead(read_ahead);
        let mut pages = query.pages();
        let first = pages.try_next().await.unwrap().unwrap();
        assert_eq!(first.len(), 10);
        drop(pages);
        // Let a request already on its way arrive; none may follow it.
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let sent = queries() - before;
        assert!(
            (1..=most).contains(&sent),
            "read_ahead({read_ahead}): {sent} page requests for one page read"
        );
    }
}

#[tokio::test]
async fn a_query_takes_its_total_without_asking_for_more() {
    use tablekit::Query;

    let (emulator, _fixture, _client, table) = counted_table("Take").await;
    let rows = (0..250).map(|i| DynamicEntity::new("p", format!("{i:03}")));
    emulator.seed(table.name(), rows).unwrap();
    let queries = || emulator.requests().count(Operation::Query);

    for read_ahead in [false, true] {
        let before = queries();
        let q = Query::new().top(40).unwrap().take(100);
        let taken = table.query(q).read_ahead(read_ahead).count().await.unwrap();
        assert_eq!(taken, 100);
        // 40 + 40 + 20: no page past the total is asked for, read ahead or not.
        assert_eq!(queries() - before, 3, "read_ahead({read_ahead})");
    }
    let before = queries();
    assert_eq!(table.query(Query::new().take(0)).count().await.unwrap(), 0);
    assert_eq!(queries(), before, "taking nothing sends nothing");
}
