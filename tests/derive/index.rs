//! Random sequences of inserts, replaces, merges, upserts and deletes through
//! `Table<Employee>` on the emulator over real HTTP: afterwards every index row is exactly the
//! one a model of the entities predicts, and the unique index refuses exactly the values the
//! model says are taken.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use tablekit::client::Table;
use tablekit::index::TARGET_PROPERTY;
use tablekit::prelude::*;
use tablekit::{ETag, Query};

use crate::support::models::{Employee, EmployeeEntity};

/// Values with the characters an index must escape.
const EMAILS: &[&str] = &["a@x", "b_c@x", "d/e@x", "100%@x"];
const NAMES: &[&str] = &["Smith", "O'Neil", "x_y", "#1"];
const IDS: &[&str] = &["e0", "e1", "e2"];

#[derive(Clone, Debug)]
enum Op {
    Insert(usize, usize, usize),
    Replace(usize, usize, usize),
    /// A merge of only the email, or only the last name, unconditional.
    Merge(usize, Option<usize>, Option<usize>),
    UpsertReplace(usize, usize, usize),
    UpsertMerge(usize, usize, usize),
    Delete(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let (id, email, name) = (0..IDS.len(), 0..EMAILS.len(), 0..NAMES.len());
    prop_oneof![
        (id.clone(), email.clone(), name.clone()).prop_map(|(i, e, n)| Op::Insert(i, e, n)),
        (id.clone(), email.clone(), name.clone()).prop_map(|(i, e, n)| Op::Replace(i, e, n)),
        (
            id.clone(),
            proptest::option::of(email.clone()),
            proptest::option::of(name.clone())
        )
            .prop_map(|(i, e, n)| Op::Merge(i, e, n)),
        (id.clone(), email.clone(), name.clone()).prop_map(|(i, e, n)| Op::UpsertReplace(i, e, n)),
        (id.clone(), email, name).prop_map(|(i, e, n)| Op::UpsertMerge(i, e, n)),
        id.prop_map(Op::Delete),
    ]
}

/// What the entities of the partition are: id -> (email, last name).
type Model = BTreeMap<&'static str, (&'static str, &'static str)>;

/// What an operation should do to the model: `Ok` with the new state, or the error expected.
#[derive(Debug, PartialEq)]
enum Expect {
    Applied,
    Missing,
    Exists,
    Unique,
}

fn employee(id: &str, email: &str, name: &str) -> EmployeeEntity {
    let mut e = EmployeeEntity::new("Sales", id);
    e.set_email(email);
    e.set_last_name(name);
    e
}

/// The escape an index applies, written out independently for the characters used here.
fn escaped(text: &str) -> String {
    text.replace('%', "%25")
        .replace('_', "%5F")
        .replace('/', "%2F")
        .replace('#', "%23")
}

fn expected_rows(model: &Model) -> BTreeSet<(String, String)> {
    let mut rows = BTreeSet::new();
    for (id, (email, name)) in model {
        rows.insert((format!("email_{}", escaped(email)), (*id).to_owned()));
        rows.insert((
            format!("last_name_{}_{id}", escaped(name)),
            (*id).to_owned(),
        ));
    }
    rows
}

fn taken_by_other(model: &Model, id: &str, email: &str) -> bool {
    model
        .iter()
        .any(|(other, (e, _))| *other != id && *e == email)
}

async fn apply(table: &Table<Employee>, model: &mut Model, op: &Op) -> (Expect, Expect) {
    let result = match *op {
        Op::Insert(i, e, n) => {
            let (id, email, name) = (IDS[i], EMAILS[e], NAMES[n]);
            let expect = if model.contains_key(id) {
                Expect::Exists
            } else if taken_by_other(model, id, email) {
                Expect::Unique
            } else {
                model.insert(id, (email, name));
                Expect::Applied
            };
            (expect, table.insert(&mut employee(id, email, name)).await)
        }
        Op::Replace(i, e, n) => {
            let (id, email, name) = (IDS[i], EMAILS[e], NAMES[n]);
            let Some(mut stored) = table.get("Sales", id).await.unwrap() else {
                assert!(!model.contains_key(id));
                return (Expect::Missing, Expect::Missing);
            };
            stored.set_email(email);
            stored.set_last_name(name);
            let expect = if taken_by_other(model, id, email) {
                Expect::Unique
            } else {
                model.insert(id, (email, name));
                Expect::Applied
            };
            (expect, table.replace(&mut stored).await)
        }
        Op::Merge(i, e, n) => {
            let id = IDS[i];
            let mut change = EmployeeEntity::new("Sales", id);
            change.as_dynamic_mut().retain(|_, _| false);
            let current = model.get(id).copied();
            let (mut email, mut name) = current.unwrap_or(("", ""));
            if let Some(e) = e {
                email = EMAILS[e];
                change.set_email(email);
            }
            if let Some(n) = n {
                name = NAMES[n];
                change.set_last_name(name);
            }
            change.as_dynamic_mut().set_etag(Some(ETag::any()));
            let expect = if current.is_none() {
                Expect::Missing
            } else if taken_by_other(model, id, email) {
                Expect::Unique
            } else {
                model.insert(id, (email, name));
                Expect::Applied
            };
            (expect, table.merge(&mut change).await)
        }
        Op::UpsertReplace(i, e, n) | Op::UpsertMerge(i, e, n) => {
            let (id, email, name) = (IDS[i], EMAILS[e], NAMES[n]);
            let expect = if taken_by_other(model, id, email) {
                Expect::Unique
            } else {
                model.insert(id, (email, name));
                Expect::Applied
            };
            let mut e = employee(id, email, name);
            let result = match op {
                Op::UpsertReplace(..) => table.upsert_replace(&mut e).await,
                _ => table.upsert_merge(&mut e).await,
            };
            (expect, result)
        }
        Op::Delete(i) => {
            let id = IDS[i];
            let expect = match model.remove(id) {
                Some(_) => Expect::Applied,
                None => Expect::Missing,
            };
            (expect, table.delete_by_key("Sales", id, &ETag::any()).await)
        }
    };
    let (expect, outcome) = result;
    let got = match outcome {
        Ok(()) => Expect::Applied,
        Err(Error::UniqueViolation(_)) => Expect::Unique,
        Err(e) if e.is_not_found() => Expect::Missing,
        Err(e) if e.is_conflict() => Expect::Exists,
        Err(e) => panic!("{op:?}: {e}"),
    };
    (expect, got)
}

async fn stored_rows(table: &Table<Employee>) -> BTreeSet<(String, String)> {
    let raw: Table = table.client().table_named(table.name());
    raw.query(Query::new())
        .collect_all()
        .await
        .unwrap()
        .into_iter()
        .filter_map(|row| {
            Some((
                row.row_key().to_owned(),
                row.get::<String>(TARGET_PROPERTY)?,
            ))
        })
        .collect()
}

async fn stored_entities(table: &Table<Employee>) -> BTreeMap<String, (String, String)> {
    table
        .query_all()
        .collect_all()
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.id(), (e.email(), e.last_name())))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn index_rows_always_match_the_entities(ops in proptest::collection::vec(op(), 1..14)) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let emulator = tablekit_testing::Emulator::start().await.unwrap();
            let table = emulator.client().table::<Employee>();
            table.create().await.unwrap();
            let mut model = Model::new();
            for op in &ops {
                let (expect, got) = apply(&table, &mut model, op).await;
                assert_eq!(got, expect, "{op:?} after {model:?}");
            }
            assert_eq!(stored_rows(&table).await, expected_rows(&model));
            let entities: BTreeMap<_, _> = model
                .iter()
                .map(|(id, (e, n))| ((*id).to_owned(), ((*e).to_owned(), (*n).to_owned())))
                .collect();
            assert_eq!(stored_entities(&table).await, entities);
        });
    }
}
