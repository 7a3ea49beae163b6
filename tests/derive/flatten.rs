//! `#[tablekit(flatten)]`: a `#[derive(TableFields)]` struct stored as one property per nested
//! field (`Address_City`, `Address_Geo_Lat`), read back exactly, queried through its typed
//! columns, and absent as a whole for an `Option`, on the emulator and on Azurite.

#![allow(missing_docs)]

use tablekit::client::{Table, TableServiceClient};
use tablekit::prelude::*;

use crate::support::servers::fresh_table;

#[derive(Debug, Clone, PartialEq, Default, TableFields)]
pub struct Geo {
    #[tablekit(default = 1.5)]
    pub lat: f64,
    pub lon: f64,
}

#[derive(Debug, Clone, PartialEq, Default, TableFields)]
pub struct Address {
    pub street: String,
    #[tablekit(rename = "Town")]
    pub city: String,
    #[tablekit(default = 7)]
    pub floor: i32,
    #[tablekit(json)]
    pub notes: Vec<String>,
    #[tablekit(flatten)]
    pub geo: Geo,
}

#[derive(TableEntity)]
pub struct Customer {
    #[tablekit(partition_key)]
    pub id: String,
    pub name: String,
    #[tablekit(flatten)]
    pub address: Address,
    #[tablekit(flatten(prefix = "Ship"))]
    pub shipping: Option<Address>,
}

fn oslo() -> Address {
    Address {
        street: "Karl Johans gate 1".into(),
        city: "Oslo".into(),
        floor: 3,
        notes: vec!["ring twice".into()],
        geo: Geo {
            lat: 59.91,
            lon: 10.75,
        },
    }
}

fn bergen() -> Address {
    Address {
        street: "Bryggen 2".into(),
        city: "Bergen".into(),
        floor: 0,
        notes: Vec::new(),
        geo: Geo {
            lat: 60.39,
            lon: 5.32,
        },
    }
}

fn customer(id: &str, address: Address, shipping: Option<Address>) -> Customer {
    Customer {
        id: id.into(),
        name: format!("customer {id}"),
        address,
        shipping,
    }
}

async fn customers(client: &TableServiceClient) -> (Table, Table<Customer>) {
    let dynamic = fresh_table(client, "flatten").await;
    let typed = client.table_named::<Customer>(dynamic.name());
    (dynamic, typed)
}

#[test]
fn nested_columns_are_named_after_their_prefixes() {
    assert_eq!(Customer::ADDRESS.city().name(), "Address_Town");
    assert_eq!(Customer::ADDRESS.geo().lat().name(), "Address_Geo_Lat");
    assert_eq!(Customer::SHIPPING.geo().lon().name(), "Ship_Geo_Lon");
    let q = Query::<Customer>::new()
        .filter(Customer::ADDRESS.geo().lat().gt(60.0))
        .select((Customer::NAME, Customer::SHIPPING.geo()));
    assert_eq!(q.filter_string(), Some("Address_Geo_Lat gt 60.0"));
    assert_eq!(
        q.select_list().unwrap(),
        ["Name", "Ship_Geo_Lat", "Ship_Geo_Lon"]
    );
}

#[derive(Debug, Clone, PartialEq, Default, TableFields)]
pub struct Long {
    #[tablekit(rename = "AVeryLongPropertyNameThatTakesMoreThanSixtyFourBytesOnItsOwnForSure")]
    pub value: i32,
}

#[derive(TableEntity)]
pub struct HasLong {
    #[tablekit(partition_key)]
    pub id: String,
    #[tablekit(flatten(prefix = "Ünïcødé"))]
    pub long: Long,
}

#[test]
fn long_and_non_ascii_names_are_joined_whole() {
    let name = "Ünïcødé_AVeryLongPropertyNameThatTakesMoreThanSixtyFourBytesOnItsOwnForSure";
    assert_eq!(HasLong::LONG.value().name(), name);
    let mut e = HasLongEntity::new("x");
    e.set_long(Long { value: 5 }).unwrap();
    assert_eq!(e.as_dynamic().get::<i32>(name), Some(5));
    assert_eq!(e.long(), Long { value: 5 });
}

#[test]
fn new_stores_the_nested_defaults_and_no_optional_properties() {
    let entity = CustomerEntity::new("c");
    let d = entity.as_dynamic();
    assert_eq!(d.get::<i32>("Address_Floor"), Some(7));
    assert_eq!(d.get::<f64>("Address_Geo_Lat"), Some(1.5));
    assert!(!d.properties().any(|(name, _)| name.starts_with("Ship_")));
}

/// Two levels deep, with a rename, a default, JSON and an optional copy: every property
/// read back equal.
pub async fn round_trip_two_levels_deep(client: &TableServiceClient) {
    let (dynamic, typed) = customers(client).await;
    let mut entity = CustomerEntity::from_model(customer("c1", oslo(), Some(bergen()))).unwrap();
    typed.insert(&mut entity).await.unwrap();

    let stored = dynamic.get("c1", "").await.unwrap().unwrap();
    assert_eq!(
        stored.get::<String>("Address_Town").as_deref(),
        Some("Oslo")
    );
    assert_eq!(stored.get::<f64>("Address_Geo_Lat"), Some(59.91));
    assert_eq!(stored.get::<f64>("Ship_Geo_Lon"), Some(5.32));
    assert_eq!(
        stored.get::<String>("Address_Notes").as_deref(),
        Some(r#"["ring twice"]"#)
    );

    let read = typed.get("c1", "").await.unwrap().unwrap();
    let model = read.try_to_model().unwrap();
    assert_eq!(model.address, oslo());
    assert_eq!(model.shipping, Some(bergen()));
    assert_eq!(model.name, "customer c1");
    dynamic.delete_table().await.unwrap();
}

/// Properties the model does not declare, stored beside flattened ones and with their prefix,
/// survive a read, a change of the nested value and a replace.
pub async fn unknown_properties_survive_around_flattened_ones(client: &TableServiceClient) {
    let (dynamic, typed) = customers(client).await;
    let mut raw = CustomerEntity::from_model(customer("c2", oslo(), None))
        .unwrap()
        .into_dynamic();
    raw.set("Address_Zip", "0154");
    raw.set("Loyalty", 42);
    dynamic.insert(&mut raw).await.unwrap();

    let mut read = typed.get("c2", "").await.unwrap().unwrap();
    assert_eq!(read.address(), oslo());
    read.set_address(bergen()).unwrap();
    typed.replace(&mut read).await.unwrap();

    let stored = dynamic.get("c2", "").await.unwrap().unwrap();
    assert_eq!(stored.get::<String>("Address_Zip").as_deref(), Some("0154"));
    assert_eq!(stored.get::<i32>("Loyalty"), Some(42));
    assert_eq!(
        stored.get::<String>("Address_Town").as_deref(),
        Some("Bergen")
    );
    let again = typed.get("c2", "").await.unwrap().unwrap();
    assert_eq!(again.address(), bergen());
    dynamic.delete_table().await.unwrap();
}

/// A filter on a nested column finds the entity; a select of a nested struct fetches its
/// properties only.
pub async fn filter_and_select_on_nested_columns(client: &TableServiceClient) {
    let (dynamic, typed) = customers(client).await;
    for (id, address, shipping) in [
        ("a", oslo(), None),
        ("b", bergen(), Some(oslo())),
        ("c", bergen(), Some(bergen())),
    ] {
        let mut e = CustomerEntity::from_model(customer(id, address, shipping)).unwrap();
        typed.insert(&mut e).await.unwrap();
    }

    let in_oslo = Query::<Customer>::new().filter(Customer::SHIPPING.city().eq("Oslo"));
    let found = typed.query(in_oslo).collect_all().await.unwrap();
    let ids: Vec<&str> = found.iter().map(|e| e.partition_key()).collect();
    assert_eq!(ids, ["b"]);

    let north = Query::<Customer>::new()
        .filter(Customer::ADDRESS.geo().lat().gt(60.0))
        .select(Customer::ADDRESS.geo());
    let found = typed.query(north).collect_all().await.unwrap();
    assert_eq!(found.len(), 2);
    for e in &found {
        assert!(e.is_partial());
        assert_eq!(e.address().geo, bergen().geo);
        // The city was not fetched: the getter reads its default, the `try_` form says so.
        assert_eq!(e.address().city, "");
        assert!(e.try_address().is_err());
        assert!(!e.as_dynamic().contains("Name"));
    }
    dynamic.delete_table().await.unwrap();
}

/// An optional flattened struct is `None` when none of its properties is stored; `Some`
/// stores them all, and setting `None` removes them.
pub async fn optional_flattened_struct_absent_and_present(client: &TableServiceClient) {
    let (dynamic, typed) = customers(client).await;
    let mut e = CustomerEntity::from_model(customer("o", oslo(), None)).unwrap();
    typed.insert(&mut e).await.unwrap();
    let stored = dynamic.get("o", "").await.unwrap().unwrap();
    assert!(!stored
        .properties()
        .any(|(name, _)| name.starts_with("Ship_")));
    let mut read = typed.get("o", "").await.unwrap().unwrap();
    assert_eq!(read.shipping(), None);
    assert_eq!(read.try_shipping().unwrap(), None);

    read.set_shipping(Some(bergen())).unwrap();
    typed.replace(&mut read).await.unwrap();
    let mut read = typed.get("o", "").await.unwrap().unwrap();
    assert_eq!(read.shipping(), Some(bergen()));

    read.set_shipping(None).unwrap();
    typed.replace(&mut read).await.unwrap();
    let stored = dynamic.get("o", "").await.unwrap().unwrap();
    assert!(!stored
        .properties()
        .any(|(name, _)| name.starts_with("Ship_")));
    assert_eq!(typed.get("o", "").await.unwrap().unwrap().shipping(), None);
    dynamic.delete_table().await.unwrap();
}

/// Nested properties missing from a stored entity read as their fields' defaults (the
/// declared ones where given), and one present makes an optional struct `Some`.
pub async fn missing_nested_properties_read_as_defaults(client: &TableServiceClient) {
    let (dynamic, typed) = customers(client).await;
    let mut raw = DynamicEntity::new("m", "");
    raw.set("Address_Town", "Tromsø");
    raw.set("Ship_Geo_Lon", 18.96);
    dynamic.insert(&mut raw).await.unwrap();

    let read = typed.get("m", "").await.unwrap().unwrap();
    let expected = Address {
        city: "Tromsø".into(),
        floor: 7,
        geo: Geo { lat: 1.5, lon: 0.0 },
        ..Address::default()
    };
    assert_eq!(read.try_address().unwrap(), expected);
    let shipping = read.shipping().unwrap();
    assert_eq!(
        shipping.geo,
        Geo {
            lat: 1.5,
            lon: 18.96
        }
    );
    assert_eq!(shipping.floor, 7);
    dynamic.delete_table().await.unwrap();
}

/// A struct read through a select of one nested field, changed and set back, merges only what
/// was read or changed: every other nested property keeps its stored value (no default,
/// declared or not, is written over it), and a replace of the partial entity is refused.
pub async fn setting_back_a_partly_read_struct_merges_only_what_was_read_or_changed(
    client: &TableServiceClient,
) {
    let (dynamic, typed) = customers(client).await;
    let mut e = CustomerEntity::from_model(customer("s", oslo(), Some(bergen()))).unwrap();
    typed.insert(&mut e).await.unwrap();

    let q = Query::<Customer>::new().select(Customer::ADDRESS.street());
    let mut read = typed.query(q).collect_all().await.unwrap().remove(0);
    let mut address = read.address();
    assert_eq!(address.street, oslo().street);
    address.street = "Storgata 9".into();
    address.geo.lon = 11.0; // not read, but changed: written
    read.set_address(address).unwrap();
    assert!(typed
        .replace(&mut read)
        .await
        .unwrap_err()
        .is_invalid_input());
    typed.merge(&mut read).await.unwrap();

    let stored = typed.get("s", "").await.unwrap().unwrap();
    let expected = Address {
        street: "Storgata 9".into(),
        geo: Geo {
            lat: 59.91,
            lon: 11.0,
        },
        ..oslo()
    };
    let model = stored.try_to_model().unwrap();
    assert_eq!(model.address, expected);
    assert_eq!(model.shipping, Some(bergen()));
    assert_eq!(model.name, "customer s");
    dynamic.delete_table().await.unwrap();
}

on_servers!(
    setting_back_a_partly_read_struct_merges_only_what_was_read_or_changed,
    round_trip_two_levels_deep,
    unknown_properties_survive_around_flattened_ones,
    filter_and_select_on_nested_columns,
    optional_flattened_struct_absent_and_present,
    missing_nested_properties_read_as_defaults,
);
