//! Features that compose, on every server: an entity family whose variants keep index rows
//! and spread values reads and writes each variant exactly as the variant's own table does
//! (one storage plan per model), and rows kept beside entities are never read as entities,
//! whatever the select, family or page size.

// Fixtures mirror user code; documenting them adds nothing.
#![allow(missing_docs)]

use futures::TryStreamExt;
use tablekit::client::{Table, TableServiceClient};
use tablekit::patterns::backup::{backup_table, copy_table, restore, RestoreOptions};
use tablekit::patterns::progress::NoProgress;
use tablekit::prelude::*;
use tablekit::Query;

use crate::spread::{bytes, stored_keys};
use crate::support::servers::unique_name;

/// A club member, found by a unique email and by city.
#[derive(TableEntity)]
#[tablekit(kind = "Member")]
pub struct Member {
    #[tablekit(partition_key)]
    pub club: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(index(unique))]
    pub email: String,
    #[tablekit(index)]
    pub city: String,
}

/// A scanned document whose image spreads over up to 6 continuation rows.
#[derive(TableEntity)]
#[tablekit(kind = "Scan")]
pub struct Scan {
    #[tablekit(partition_key)]
    pub club: String,
    #[tablekit(row_key)]
    pub id: String,
    pub title: String,
    #[tablekit(split(rows = 6))]
    pub image: Vec<u8>,
}

/// A plain note.
#[derive(TableEntity)]
#[tablekit(kind = "Note")]
pub struct Note {
    #[tablekit(partition_key)]
    pub club: String,
    #[tablekit(row_key)]
    pub id: String,
    pub title: String,
}

/// Everything a club's partition holds.
#[derive(TableEntity)]
pub enum Club {
    Member(Member),
    Scan(Scan),
    Note(Note),
}

/// The same table read by a family that lists members only and keeps the rest as they are.
#[derive(TableEntity)]
pub enum OpenClub {
    Member(Member),
    #[tablekit(other)]
    Other(DynamicEntity),
}

async fn club_table(client: &TableServiceClient) -> Table<Club> {
    let table = client.table_named::<Club>(&unique_name("Club"));
    table.create().await.unwrap();
    table
}

fn member(id: &str, email: &str, city: &str) -> ClubEntity {
    let mut m = MemberEntity::new("chess", id);
    m.set_email(email);
    m.set_city(city);
    m.into()
}

fn scan(id: &str, len: usize, salt: u8) -> ClubEntity {
    let mut s = ScanEntity::new("chess", id);
    s.set_title(format!("scan {id}"));
    s.set_image(&bytes(len, salt)).unwrap();
    s.into()
}

fn note(id: &str) -> ClubEntity {
    let mut n = NoteEntity::new("chess", id);
    n.set_title(format!("note {id}"));
    n.into()
}

fn emails(found: Option<MemberEntity>) -> Option<String> {
    found.map(|m| m.id())
}

async fn a_family_keeps_each_indexed_variants_index_rows(client: &TableServiceClient) {
    let club = club_table(client).await;
    let members = client.table_named::<Member>(club.name());
    club.insert(&mut member("m-1", "kim@example.com", "Oslo"))
        .await
        .unwrap();
    let found = Member::by_email(&members, "chess", "kim@example.com").await;
    assert_eq!(emails(found.unwrap()).as_deref(), Some("m-1"));
    assert_eq!(
        Member::by_city(&members, "chess", "Oslo")
            .await
            .unwrap()
            .len(),
        1
    );

    // A second owner of the unique value is refused, nothing applied.
    let err = club
        .insert(&mut member("m-2", "kim@example.com", "Rome"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::UniqueViolation(_)), "{err}");
    assert!(club.get("chess", "m-2").await.unwrap().is_none());

    // A replace through the family moves the index rows; the old ones go.
    let mut read = club.get("chess", "m-1").await.unwrap().expect("stored");
    let kim = read.as_member_mut().expect("a member");
    kim.set_email("kim@example.org");
    kim.set_city("Rome");
    club.replace(&mut read).await.unwrap();
    assert!(Member::by_email(&members, "chess", "kim@example.com")
        .await
        .unwrap()
        .is_none());
    let found = Member::by_email(&members, "chess", "kim@example.org").await;
    assert_eq!(emails(found.unwrap()).as_deref(), Some("m-1"));
    assert!(Member::by_city(&members, "chess", "Oslo")
        .await
        .unwrap()
        .is_empty());
    assert_eq!(stored_keys(&club, "chess").await.len(), 3);

    // A merge through the family keeps them in step too, and a delete leaves nothing.
    let mut change: ClubEntity = MemberEntity::new("chess", "m-1").into();
    change.as_member_mut().unwrap().set_city("Lima");
    club.upsert_merge(&mut change).await.unwrap();
    assert_eq!(
        Member::by_city(&members, "chess", "Lima")
            .await
            .unwrap()
            .len(),
        1
    );
    club.delete_by_key("chess", "m-1", &ETag::any())
        .await
        .unwrap();
    assert!(stored_keys(&club, "chess").await.is_empty());
}

async fn a_family_spreads_each_spread_variants_values(client: &TableServiceClient) {
    let club = club_table(client).await;
    let scans = client.table_named::<Scan>(club.name());
    // 2 MB: more than one row holds, as `Table<Scan>` accepts.
    let big = 2 * 1024 * 1024;
    club.insert(&mut scan("s-1", big, 1)).await.unwrap();
    let read = club.get("chess", "s-1").await.unwrap().expect("stored");
    assert_eq!(read.as_scan().expect("a scan").image(), bytes(big, 1));
    let read = scans.get("chess", "s-1").await.unwrap().expect("stored");
    assert_eq!(read.try_image().unwrap(), bytes(big, 1));

    // Written by the variant's table, read whole by the family's get and query.
    let mut smaller = ScanEntity::new("chess", "s-2");
    smaller.set_image(&bytes(big / 2, 2)).unwrap();
    scans.insert(&mut smaller).await.unwrap();
    let read = club.get("chess", "s-2").await.unwrap().expect("stored");
    assert_eq!(
        read.as_scan().unwrap().try_image().unwrap(),
        bytes(big / 2, 2)
    );
    let all: Vec<ClubEntity> = club.query_all().collect_all().await.unwrap();
    assert_eq!(all.len(), 2);
    for entity in &all {
        let image = entity.as_scan().expect("a scan").try_image().unwrap();
        assert!(image == bytes(big, 1) || image == bytes(big / 2, 2));
    }

    // A smaller value written through the family drops the rows it no longer uses.
    let mut read = club.get("chess", "s-1").await.unwrap().unwrap();
    read.as_scan_mut()
        .unwrap()
        .set_image(&bytes(10, 3))
        .unwrap();
    club.replace(&mut read).await.unwrap();
    let read = scans.get("chess", "s-1").await.unwrap().unwrap();
    assert_eq!(read.image(), bytes(10, 3));
    club.delete_by_key("chess", "s-1", &ETag::any())
        .await
        .unwrap();
    club.delete_by_key("chess", "s-2", &ETag::any())
        .await
        .unwrap();
    assert!(stored_keys(&club, "chess").await.is_empty());
}

async fn a_family_batch_writes_index_rows_and_continuation_rows(client: &TableServiceClient) {
    let club = club_table(client).await;
    let members = client.table_named::<Member>(club.name());
    let scans = client.table_named::<Scan>(club.name());
    let mut batch = club.batch();
    batch
        .insert(&member("m-1", "kim@example.com", "Oslo"))
        .unwrap();
    batch.insert(&note("n-1")).unwrap();
    let big = 1_500_000; // more than one row holds
    batch.insert(&scan("s-1", big, 1)).unwrap();
    assert!(
        batch.len() > 5,
        "the scan's continuation rows join the transaction"
    );
    batch.submit().await.unwrap();
    let found = Member::by_email(&members, "chess", "kim@example.com").await;
    assert_eq!(emails(found.unwrap()).as_deref(), Some("m-1"));
    let read = scans.get("chess", "s-1").await.unwrap().expect("stored");
    assert_eq!(read.try_image().unwrap(), bytes(big, 1));

    // a delete of the scan read whole takes its rows with it; a change is refused
    let read = club.get("chess", "s-1").await.unwrap().expect("stored");
    let mut batch = club.batch();
    assert!(batch.replace(&read).unwrap_err().is_invalid_input());
    batch.delete(&read).unwrap();
    batch.submit().await.unwrap();
    assert_eq!(stored_keys(&club, "chess").await.len(), 4);
}

async fn rows_kept_beside_entities_are_never_entities_whatever_the_select(
    client: &TableServiceClient,
) {
    let club = club_table(client).await;
    for (i, city) in ["Oslo", "Rome"].into_iter().enumerate() {
        let email = format!("m{i}@example.com");
        club.insert(&mut member(&format!("m-{i}"), &email, city))
            .await
            .unwrap();
    }
    club.insert(&mut scan("s-1", 1_500_000, 1)).await.unwrap();
    club.insert(&mut note("n-1")).await.unwrap();
    club.insert(&mut note("n-2")).await.unwrap();
    assert!(stored_keys(&club, "chess").await.len() > 5);

    for top in [1, 2, 1000] {
        let query = Query::<Club>::new()
            .select_names(["Title"])
            .top(top)
            .unwrap();
        let read: Vec<ClubEntity> = club.query(query).entities().try_collect().await.unwrap();
        assert_eq!(read.len(), 5, "page size {top}");
        let open = client.table_named::<OpenClub>(club.name());
        let query = Query::<OpenClub>::new()
            .select_names(["Email"])
            .top(top)
            .unwrap();
        let read: Vec<OpenClubEntity> = open.query(query).entities().try_collect().await.unwrap();
        assert_eq!(read.len(), 5, "open family, page size {top}");
        let members = client.table_named::<Member>(club.name());
        let query = Query::<Member>::new()
            .select(Member::EMAIL)
            .top(top)
            .unwrap();
        let read = members.query(query).collect_all().await.unwrap();
        assert_eq!(read.len(), 2, "model, page size {top}");
        let names: Vec<&str> = read[0].as_dynamic().selection().unwrap().collect();
        assert!(!names.contains(&"TablekitRow"), "{names:?}");
    }
}

/// Every entity of `table` as the family reads it, in key order, with its row keys.
async fn read_back(table: &Table<Club>) -> Vec<(String, DynamicEntity)> {
    let all: Vec<ClubEntity> = table.query_all().collect_all().await.unwrap();
    all.into_iter()
        .map(|e| {
            let mut dynamic = e.into_dynamic();
            dynamic.set_etag(None);
            dynamic.set_timestamp(None);
            (dynamic.row_key().to_owned(), dynamic)
        })
        .collect()
}

async fn a_typed_backup_and_copy_keep_every_row_of_the_plan(client: &TableServiceClient) {
    let club = club_table(client).await;
    club.insert(&mut member("m-1", "kim@example.com", "Oslo"))
        .await
        .unwrap();
    club.insert(&mut scan("s-1", 1_500_000, 4)).await.unwrap();
    club.insert(&mut note("n-1")).await.unwrap();

    let copy = client.table_named::<DynamicEntity>(&unique_name("ClubCopy"));
    copy.create().await.unwrap();
    let report = copy_table(&club, Query::new(), &copy, RestoreOptions::new())
        .await
        .unwrap();
    assert!(report.is_complete(), "{report:?}");

    let mut file = Vec::new();
    backup_table(&club, Query::new(), &mut file, NoProgress)
        .await
        .unwrap();
    let restored = client.table_named::<DynamicEntity>(&unique_name("ClubBack"));
    restored.create().await.unwrap();
    let report = restore(&file[..], &restored, RestoreOptions::new())
        .await
        .unwrap();
    assert!(report.writes.is_complete(), "{report:?}");

    let original = stored_keys(&club, "chess").await;
    for target in [copy.name(), restored.name()] {
        let typed = client.table_named::<Club>(target);
        assert_eq!(stored_keys(&typed, "chess").await, original, "{target}");
        assert_eq!(read_back(&typed).await, read_back(&club).await, "{target}");
        let members = client.table_named::<Member>(target);
        let found = Member::by_email(&members, "chess", "kim@example.com").await;
        assert_eq!(emails(found.unwrap()).as_deref(), Some("m-1"), "{target}");
    }
}

/// A question of a legacy forum table: its rows carry no kind property, its RowKeys `Q_`.
#[derive(TableEntity)]
#[tablekit(kind_prefix = "Q_")]
pub struct Question {
    #[tablekit(partition_key)]
    pub thread: String,
    #[tablekit(row_key)]
    pub id: String,
    pub text: String,
}

/// A reply of the same table, its RowKeys `R_`.
#[derive(TableEntity)]
#[tablekit(kind_prefix = "R_")]
pub struct Reply {
    #[tablekit(partition_key)]
    pub thread: String,
    #[tablekit(row_key)]
    pub id: String,
    pub text: String,
    #[tablekit(index)]
    pub author: String,
}

#[derive(TableEntity)]
pub enum Post {
    Question(Question),
    Reply(Reply),
}

async fn rows_without_a_kind_property_are_a_family_by_row_key_prefix(client: &TableServiceClient) {
    let raw = client.table_named::<DynamicEntity>(&unique_name("Forum"));
    raw.create().await.unwrap();
    for (row_key, text) in [
        ("Q_1", "why?"),
        ("R_1", "because"),
        ("R_2", "indeed"),
        ("S_1", "x"),
    ] {
        let mut row = DynamicEntity::new("t-1", row_key);
        row.set("Text", text);
        raw.insert(&mut row).await.unwrap();
    }
    let posts = client.table_named::<Post>(raw.name());
    let read: Vec<PostEntity> = posts.query_all().collect_all().await.unwrap();
    let kinds: Vec<(Option<&str>, String)> = read
        .iter()
        .map(|p| (p.kind(), p.as_dynamic().row_key().to_owned()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Some("Q_"), "Q_1".into()),
            (Some("R_"), "R_1".into()),
            (Some("R_"), "R_2".into())
        ]
    );
    assert_eq!(read[1].as_reply().unwrap().text(), "because");

    let replies = client.table_named::<Reply>(raw.name());
    assert_eq!(replies.query_all().count().await.unwrap(), 2);
    let err = replies.get("t-1", "Q_1").await.unwrap_err();
    assert!(matches!(err, Error::WrongKind(_)), "{err}");
    assert!(posts.get("t-1", "S_1").await.is_err(), "no listed prefix");

    // Writes: a RowKey outside the prefix is refused before sending; a reply written through
    // the family keeps its index rows, which no typed read returns.
    let mut stray: PostEntity = ReplyEntity::new("t-1", "X_3").into();
    let err = posts.insert(&mut stray).await.unwrap_err();
    assert!(matches!(err, Error::WrongKind(_)), "{err}");
    let mut reply = ReplyEntity::new("t-1", "R_3");
    reply.set_author("kim");
    let mut reply: PostEntity = reply.into();
    posts.insert(&mut reply).await.unwrap();
    assert_eq!(
        Reply::by_author(&replies, "t-1", "kim")
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(posts.query_all().count().await.unwrap(), 4);
}

// The model's composition runs on both servers and through the in-process transport.
on_servers!({
    emulator: crate::support::servers::emulator().await,
    in_process: crate::support::servers::in_process().await,
    azurite: crate::support::servers::azurite(),
}
    rows_without_a_kind_property_are_a_family_by_row_key_prefix,
    a_typed_backup_and_copy_keep_every_row_of_the_plan,
    a_family_keeps_each_indexed_variants_index_rows,
    a_family_spreads_each_spread_variants_values,
    a_family_batch_writes_index_rows_and_continuation_rows,
    rows_kept_beside_entities_are_never_entities_whatever_the_select,
);
