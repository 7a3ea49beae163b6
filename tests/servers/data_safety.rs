//! The typed API never loses or misreports data: an order-tracking service (customers and their
//! orders in one partition, line items as versioned records) built the way the README shows,
//! with the ways a typed layer can go wrong each tried once, on every server.

use futures::TryStreamExt;
use tablekit::client::{Table, TableServiceClient};
use tablekit::prelude::*;
use tablekit::{InvalidInput, PropertyError, ValueError, WrongKind};
use uuid::Uuid;

/// One line of an order, as version 1 of the code knows it.
#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 1)]
pub struct LineItem {
    pub sku: String,
    pub quantity: u32,
}

/// A customer: one row per partition.
#[derive(TableEntity)]
#[tablekit(kind = "Customer", row_key(constant = "profile"))]
pub struct Customer {
    #[tablekit(partition_key)]
    pub customer: String,
    pub name: String,
}

/// An order, in its customer's partition.
#[derive(TableEntity)]
#[tablekit(kind = "Order")]
pub struct Order {
    #[tablekit(partition_key)]
    pub customer: String,
    #[tablekit(row_key)]
    pub id: String,
    pub status: String,
    #[tablekit(rename_from = "Total")]
    pub total_cents: i64,
    #[tablekit(records(max_properties = 4))]
    pub items: Vec<LineItem>,
}

/// The same service after a deploy: line items gained a field (record version 2).
pub mod v2 {
    use tablekit::prelude::*;

    /// A line item with a gift flag.
    #[derive(Debug, Clone, PartialEq, Record)]
    #[record(version = 2)]
    pub struct LineItem {
        pub sku: String,
        pub quantity: u32,
        #[record(since = 2)]
        pub gift: bool,
    }

    /// The order as the new code maps it.
    #[derive(TableEntity)]
    #[tablekit(kind = "Order")]
    pub struct Order {
        #[tablekit(partition_key)]
        pub customer: String,
        #[tablekit(row_key)]
        pub id: String,
        pub status: String,
        pub total_cents: i64,
        #[tablekit(records(max_properties = 4))]
        pub items: Vec<LineItem>,
    }
}

/// A fresh table for one case.
async fn shop<M: TableModel>(client: &TableServiceClient) -> Table<M> {
    let id = Uuid::new_v4().simple().to_string();
    let table = client.table_named::<M>(&format!("Shop{}", &id[..12]));
    table.create().await.expect("create the case's table");
    table
}

fn item(sku: &str, quantity: u32) -> LineItem {
    LineItem {
        sku: sku.to_owned(),
        quantity,
    }
}

/// Alice's order `o-1`: two items, 1250 cents, placed.
async fn place_order(orders: &Table<Order>) -> OrderEntity {
    let mut order = OrderEntity::new("alice", "o-1");
    order.set_status("placed");
    order.set_total_cents(1250);
    order
        .set_items(&[item("tea", 2), item("cup", 1)])
        .expect("fits");
    orders.insert(&mut order).await.expect("insert the order");
    order
}

/// Every row of the table, as stored.
async fn rows(client: &TableServiceClient, name: &str) -> Vec<DynamicEntity> {
    let table = client.table_named::<DynamicEntity>(name);
    table.query_all().collect_all().await.expect("scan")
}

pub async fn a_projection_keeps_its_keys_and_merges_only_what_it_holds(
    client: &TableServiceClient,
) {
    let orders = shop::<Order>(client).await;
    place_order(&orders).await;
    let q = Query::<Order>::new().select((Order::STATUS, Order::TOTAL_CENTS));
    let mut read = orders.query(q).collect_all().await.unwrap();
    assert_eq!(read.len(), 1);
    let mut order = read.remove(0);
    // Keys always come back with a projection, so the entity can be written back.
    assert_eq!((order.partition_key(), order.row_key()), ("alice", "o-1"));
    assert!(order.is_partial());
    assert_eq!(order.status(), "placed");

    order.set_status("shipped");
    orders.upsert_merge(&mut order).await.unwrap();

    let stored = rows(client, orders.name()).await;
    assert_eq!(stored.len(), 1, "a stray entity was written: {stored:?}");
    let stored = OrderEntity::wrap(stored.into_iter().next().unwrap());
    assert_eq!(stored.status(), "shipped");
    assert_eq!(stored.total_cents(), 1250);
    assert_eq!(
        stored.try_items().unwrap(),
        [item("tea", 2), item("cup", 1)]
    );
    orders.delete_table().await.unwrap();
}

pub async fn a_projection_refuses_replaces_and_says_what_it_did_not_fetch(
    client: &TableServiceClient,
) {
    let orders = shop::<Order>(client).await;
    place_order(&orders).await;
    let q = Query::<Order>::new().select(Order::STATUS);
    let mut order = orders.query(q).collect_all().await.unwrap().remove(0);
    // An unselected field is not "no items": its `try_` getter says it was not fetched.
    let err = order.try_items().unwrap_err();
    assert!(
        matches!(
            err,
            Error::Property(PropertyError {
                source: ValueError::NotSelected,
                ..
            })
        ),
        "{err}"
    );
    assert!(order.try_total_cents().is_err());

    order.set_status("cancelled");
    for err in [
        orders.replace(&mut order).await.unwrap_err(),
        orders.upsert_replace(&mut order).await.unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                Error::InvalidInput(InvalidInput::PartialReplace { .. })
            ),
            "{err}"
        );
    }
    let mut batch = orders.batch();
    let err = batch.replace(&order).unwrap_err();
    assert!(err.is_invalid_input(), "{err}");

    let stored = orders.get("alice", "o-1").await.unwrap().expect("stored");
    assert_eq!(stored.status(), "placed");
    assert_eq!(stored.try_items().unwrap().len(), 2);
    assert!(!stored.is_partial());
    // A merge of the same projection sends what it holds: the rest is kept.
    orders.merge(&mut order).await.unwrap();
    let stored = orders.get("alice", "o-1").await.unwrap().expect("stored");
    assert_eq!(stored.status(), "cancelled");
    assert_eq!(stored.total_cents(), 1250);
    assert_eq!(stored.try_items().unwrap().len(), 2);
    orders.delete_table().await.unwrap();
}

pub async fn a_projection_of_a_renamed_field_fetches_its_old_name(client: &TableServiceClient) {
    let orders = shop::<Order>(client).await;
    // Written before `Total` became `TotalCents`.
    let mut old = DynamicEntity::new("alice", "o-0");
    old.set("Kind", "Order");
    old.set("Status", "delivered");
    old.set("Total", 990i64);
    client
        .table_named::<DynamicEntity>(orders.name())
        .insert(&mut old)
        .await
        .unwrap();
    let q = Query::<Order>::new().select(Order::TOTAL_CENTS);
    let order = orders.query(q).collect_all().await.unwrap().remove(0);
    assert_eq!(order.try_total_cents().unwrap(), 990);
    orders.delete_table().await.unwrap();
}

pub async fn older_code_cannot_wipe_records_written_by_newer_code(client: &TableServiceClient) {
    let new_orders = shop::<v2::Order>(client).await;
    let mut written = v2::OrderEntity::new("alice", "o-1");
    let gift = v2::LineItem {
        sku: "tea".to_owned(),
        quantity: 2,
        gift: true,
    };
    written.set_items(std::slice::from_ref(&gift)).unwrap();
    new_orders.insert(&mut written).await.unwrap();

    // The rolling deploy: old code reads the order, adds an item, writes it back.
    let orders = client.table_named::<Order>(new_orders.name());
    let mut order = orders.get("alice", "o-1").await.unwrap().expect("stored");
    assert!(order.items().is_empty(), "the plain getter's default");
    assert!(order.try_items().is_err(), "the try_ getter says why");
    let mut items = order.items();
    items.push(item("cup", 1));
    order.set_items(&items).unwrap();
    let err = orders.merge(&mut order).await.unwrap_err();
    assert!(
        matches!(&err, Error::InvalidInput(InvalidInput::UnreadableOverwrite { property, .. }) if property == "Items"),
        "{err}"
    );
    let stored = new_orders
        .get("alice", "o-1")
        .await
        .unwrap()
        .expect("stored");
    assert_eq!(
        stored.try_items().unwrap(),
        std::slice::from_ref(&gift),
        "the newer items survive"
    );

    // Code that means to discard what it cannot read says so.
    order.allow_overwrite(Order::ITEMS);
    orders.merge(&mut order).await.unwrap();
    let stored = orders.get("alice", "o-1").await.unwrap().expect("stored");
    assert_eq!(stored.try_items().unwrap(), [item("cup", 1)]);
    new_orders.delete_table().await.unwrap();
}

pub async fn older_code_cannot_wipe_a_value_it_cannot_read(client: &TableServiceClient) {
    let orders = shop::<Order>(client).await;
    place_order(&orders).await;
    // Other code stores the total as text.
    let raw = client.table_named::<DynamicEntity>(orders.name());
    let mut row = raw.get("alice", "o-1").await.unwrap().expect("stored");
    row.set("TotalCents", "12.50 EUR");
    raw.replace(&mut row).await.unwrap();

    let mut order = orders.get("alice", "o-1").await.unwrap().expect("stored");
    assert_eq!(order.total_cents(), 0, "the plain getter's default");
    order.set_total_cents(order.total_cents() + 100);
    order.set_status("repriced");
    let err = orders.replace(&mut order).await.unwrap_err();
    assert!(
        matches!(&err, Error::InvalidInput(InvalidInput::UnreadableOverwrite { property, .. }) if property == "TotalCents"),
        "{err}"
    );
    let stored = raw.get("alice", "o-1").await.unwrap().expect("stored");
    assert_eq!(
        stored.get::<String>("TotalCents").as_deref(),
        Some("12.50 EUR")
    );
    assert_eq!(stored.get::<String>("Status").as_deref(), Some("placed"));
    orders.delete_table().await.unwrap();
}

pub async fn a_model_reads_and_writes_only_rows_of_its_kind(client: &TableServiceClient) {
    let orders = shop::<Order>(client).await;
    let customers = client.table_named::<Customer>(orders.name());
    let mut alice = CustomerEntity::new("alice");
    alice.set_name("Alice");
    customers.insert(&mut alice).await.unwrap();
    place_order(&orders).await;

    let err = orders.get("alice", "profile").await.unwrap_err();
    assert!(
        matches!(&err, Error::WrongKind(WrongKind { expected: "Order", found: Some(found), .. }) if found == "Customer"),
        "{err}"
    );
    let partition = Query::<Order>::new().filter(Order::PARTITION_KEY.eq("alice"));
    let read: Vec<OrderEntity> = orders
        .query(partition)
        .entities()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].row_key(), "o-1");
    let selected = Query::<Order>::new().select(Order::STATUS);
    assert_eq!(orders.query(selected).count().await.unwrap(), 1);
    let everyone = customers.query_all().collect_all().await.unwrap();
    assert_eq!(everyone.len(), 1);
    assert_eq!(everyone[0].name(), "Alice");

    // A customer's row given to the orders' table is refused before it is sent.
    let mut disguised = OrderEntity::wrap(alice.into_dynamic());
    disguised.set_status("placed");
    let err = orders.upsert_merge(&mut disguised).await.unwrap_err();
    assert!(matches!(err, Error::WrongKind(_)), "{err}");
    let profile = customers
        .get("alice", "profile")
        .await
        .unwrap()
        .expect("kept");
    assert!(!profile.as_dynamic().contains("Status"));
    orders.delete_table().await.unwrap();
}

pub async fn a_continuation_token_resumes_only_its_own_query(client: &TableServiceClient) {
    let orders = shop::<Order>(client).await;
    for customer in ["alice", "bob"] {
        for n in 0..3 {
            let mut order = OrderEntity::new(customer, format!("o-{n}"));
            order.set_status("placed");
            orders.insert(&mut order).await.unwrap();
        }
    }
    let of = |customer: &str| {
        Query::<Order>::new()
            .filter(Order::PARTITION_KEY.eq(customer))
            .top(2)
            .unwrap()
    };
    let page = orders.query(of("alice")).first_page().await.unwrap();
    let token = page
        .continuation()
        .expect("a third order follows")
        .to_string();

    let err = orders
        .query(of("bob"))
        .resume_from(token.parse().unwrap())
        .first_page()
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput(InvalidInput::ForeignContinuation)),
        "{err}"
    );
    let selected = of("alice").select(Order::STATUS);
    let err = orders
        .query(selected)
        .resume_from(token.parse().unwrap())
        .first_page()
        .await
        .unwrap_err();
    assert!(err.is_invalid_input(), "{err}");

    let rest = orders
        .query(of("alice"))
        .resume_from(token.parse().unwrap())
        .first_page()
        .await
        .unwrap();
    let keys: Vec<&str> = rest.entities().iter().map(|o| o.row_key()).collect();
    assert_eq!(keys, ["o-2"]);
    orders.delete_table().await.unwrap();
}

on_servers!(
    a_projection_keeps_its_keys_and_merges_only_what_it_holds,
    a_projection_refuses_replaces_and_says_what_it_did_not_fetch,
    a_projection_of_a_renamed_field_fetches_its_old_name,
    older_code_cannot_wipe_records_written_by_newer_code,
    older_code_cannot_wipe_a_value_it_cannot_read,
    a_model_reads_and_writes_only_rows_of_its_kind,
    a_continuation_token_resumes_only_its_own_query,
);
