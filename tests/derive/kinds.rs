//! Models that share a table: `#[tablekit(kind = "...")]` stores, filters and checks a
//! discriminating property (the round trips on a server are in `tests/data_safety`).

#![allow(missing_docs)]

use tablekit::prelude::*;
use tablekit::{Discriminator, TableModel};

#[derive(TableEntity)]
#[tablekit(table = "Shop", kind = "Customer", row_key(constant = "profile"))]
pub struct Customer {
    #[tablekit(partition_key)]
    pub customer: String,
    pub name: String,
}

#[derive(TableEntity)]
#[tablekit(table = "Notes", kind = "note", kind_property = "Type")]
pub struct Note {
    #[tablekit(partition_key)]
    pub owner: String,
    #[tablekit(row_key)]
    pub id: u32,
    pub text: String,
}

#[test]
fn the_kind_is_declared_on_the_model() {
    assert_eq!(
        <Customer as TableModel>::DISCRIMINATOR,
        Some(Discriminator {
            property: "Kind",
            value: "Customer"
        })
    );
    assert_eq!(
        <Note as TableModel>::DISCRIMINATOR,
        Some(Discriminator {
            property: "Type",
            value: "note"
        })
    );
}

#[test]
fn new_and_from_model_store_the_kind() {
    let alice = CustomerEntity::new("alice");
    assert_eq!(
        alice.as_dynamic().get::<String>("Kind").as_deref(),
        Some("Customer")
    );
    let note = NoteEntity::from_model(Note {
        owner: "bob".into(),
        id: 7,
        text: "hi".into(),
    })
    .unwrap();
    assert_eq!(
        note.as_dynamic().get::<String>("Type").as_deref(),
        Some("note")
    );
    assert!(!note.as_dynamic().contains("Kind"));
}
