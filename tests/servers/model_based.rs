//! A model-based test of the storage plan, on every server: random sequences of operations
//! (inserts through the family and through a variant's own table, upserts, merges, replaces of
//! what was read, deletes, transactions, a select then a merge, index repair) over a family
//! whose variants keep unique and non-unique indexes inside and across partitions, spread
//! values, flattened structs and records, and a legacy partition of rows without a kind
//! property read by a family told by RowKey prefix, each checked after every step against a
//! reference model and the invariants: every entity reads back as the reference holds it,
//! typed queries return exactly the entities, parallel scans read what one query reads, every
//! entity has exactly its index rows and its continuation rows, no helper row is left without
//! its entity, and the family's drift check finds nothing. Then rounds of writers racing on
//! the same entities, checked against the invariants. Every case runs on the emulator, on
//! Azurite and through the emulator's in-process transport.
//!
//! The operations run against live servers, so the generator and the shrinker are this
//! file's own rather than proptest's: a failing sequence is replayed on fresh tables with one
//! operation left out at a time until no operation can go, and that sequence is printed.
//! A fixed seed and a bounded count run in `cargo test`; `TABLEKIT_MODEL_CASES` (sequences
//! per server) and `TABLEKIT_MODEL_STEPS` (operations per sequence) make a long soak, and
//! `TABLEKIT_MODEL_SEED` replays another seed.

// Fixtures mirror user code; documenting them adds nothing.
#![allow(missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use futures::future::join_all;
use futures::TryStreamExt;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use tablekit::client::{Table, TableServiceClient};
use tablekit::index::TARGET_PROPERTY;
use tablekit::insight::FamilyCheck;
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::patterns::index::repair;
use tablekit::prelude::*;
use tablekit::query_plan::QueryPlan;
use tablekit::{spread, InvalidInput, Query};

use crate::composition::{Post, PostEntity};
use crate::spread::bytes;
use crate::support::servers::unique_name;

/// A member's address, stored flattened (`Address_City`, `Address_Zip`).
#[derive(Clone, Debug, Default, PartialEq, TableFields)]
pub struct Address {
    pub city: String,
    pub zip: String,
}

/// A member: a unique email and a city index, both in its partition.
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
    #[tablekit(flatten)]
    pub address: Address,
}

/// A contact, found by a phone index kept in a partition of its own.
#[derive(TableEntity)]
#[tablekit(kind = "Contact")]
pub struct Contact {
    #[tablekit(partition_key)]
    pub club: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(index(partition = "Phones"))]
    pub phone: String,
}

/// A scan whose image spreads over up to 4 continuation rows.
#[derive(TableEntity)]
#[tablekit(kind = "Scan")]
pub struct Scan {
    #[tablekit(partition_key)]
    pub club: String,
    #[tablekit(row_key)]
    pub id: String,
    pub title: String,
    #[tablekit(split(rows = 4))]
    pub image: Vec<u8>,
}

/// A move of a game, a versioned binary record.
#[derive(Clone, Debug, PartialEq, Record)]
#[record(version = 1)]
pub struct Move {
    pub from: u8,
    #[record(since = 1)]
    pub to: u8,
}

/// A note with the moves of a game, stored as records over up to 2 properties.
#[derive(TableEntity)]
#[tablekit(kind = "Note")]
pub struct Note {
    #[tablekit(partition_key)]
    pub club: String,
    #[tablekit(row_key)]
    pub id: String,
    pub title: String,
    #[tablekit(records(max_properties = 2))]
    pub moves: Vec<Move>,
}

#[derive(TableEntity)]
pub enum Club {
    Member(Member),
    Contact(Contact),
    Scan(Scan),
    Note(Note),
}

const PARTITION: &str = "chess";
/// The partition of the legacy rows without a kind property.
const FORUM: &str = "forum";
const KEYS: u8 = 5;

/// What the reference holds for one entity; small numbers stand for values so collisions
/// (a taken email, a shared city) are frequent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    Member { email: u8, city: u8, zip: u8 },
    Contact { phone: u8 },
    Scan { len: usize, salt: u8 },
    Note { title: u8 },
}

impl Held {
    fn random(rng: &mut StdRng) -> Held {
        match rng.random_range(0..4) {
            0 => Held::Member {
                email: rng.random_range(0..4),
                city: rng.random_range(0..3),
                zip: rng.random_range(0..3),
            },
            1 => Held::Contact {
                phone: rng.random_range(0..3),
            },
            // None, one or two continuation rows.
            2 => Held::Scan {
                len: [10, 70_000, 800_000][rng.random_range(0..3)],
                salt: rng.random_range(0..255),
            },
            _ => Held::Note {
                title: rng.random_range(0..9),
            },
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Held::Member { .. } => "Member",
            Held::Contact { .. } => "Contact",
            Held::Scan { .. } => "Scan",
            Held::Note { .. } => "Note",
        }
    }

    fn keeps_rows(self) -> bool {
        !matches!(self, Held::Note { .. })
    }

    fn email(self) -> Option<u8> {
        match self {
            Held::Member { email, .. } => Some(email),
            _ => None,
        }
    }

    fn entity(self, key: u8) -> ClubEntity {
        let id = key_name(key);
        match self {
            Held::Member { email, city, zip } => {
                let mut m = MemberEntity::new(PARTITION, &id);
                m.set_email(format!("m{email}@example.com"));
                m.set_city(format!("city{city}"));
                m.set_address(Address {
                    city: format!("city{city}"),
                    zip: format!("0{zip}"),
                })
                .unwrap();
                m.into()
            }
            Held::Contact { phone } => {
                let mut c = ContactEntity::new(PARTITION, &id);
                c.set_phone(format!("+47{phone}"));
                c.into()
            }
            Held::Scan { len, salt } => {
                let mut s = ScanEntity::new(PARTITION, &id);
                s.set_title(format!("scan {salt}"));
                s.set_image(&bytes(len, salt)).unwrap();
                s.into()
            }
            Held::Note { title } => {
                let mut n = NoteEntity::new(PARTITION, &id);
                n.set_title(format!("note {title}"));
                n.set_moves(&moves(title)).unwrap();
                n.into()
            }
        }
    }

    /// What `read` holds, as the reference would.
    fn of(read: &ClubEntity) -> Result<Held, String> {
        let number = |text: String, prefix: &str, suffix: &str| -> Result<u8, String> {
            text.strip_prefix(prefix)
                .and_then(|t| t.strip_suffix(suffix))
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| format!("unexpected value {text:?}"))
        };
        match read {
            ClubEntity::Member(m) => {
                let address = m.try_address().map_err(|e| e.to_string())?;
                if address.city != m.city() {
                    return Err(format!("{}'s address lost its city: {address:?}", m.id()));
                }
                Ok(Held::Member {
                    email: number(m.email(), "m", "@example.com")?,
                    city: number(m.city(), "city", "")?,
                    zip: number(address.zip, "0", "")?,
                })
            }
            ClubEntity::Contact(c) => Ok(Held::Contact {
                phone: number(c.phone(), "+47", "")?,
            }),
            ClubEntity::Scan(s) => {
                let image = s.try_image().map_err(|e| e.to_string())?;
                let salt = number(s.title(), "scan ", "")?;
                if image != bytes(image.len(), salt) {
                    return Err(format!("scan {} reads a wrong image", s.id()));
                }
                Ok(Held::Scan {
                    len: image.len(),
                    salt,
                })
            }
            ClubEntity::Note(n) => {
                let title = number(n.title(), "note ", "")?;
                if n.try_moves().map_err(|e| e.to_string())? != moves(title) {
                    return Err(format!("note {} reads other moves", n.id()));
                }
                Ok(Held::Note { title })
            }
        }
    }
}

/// The moves a note titled `title` holds.
fn moves(title: u8) -> Vec<Move> {
    (0..title)
        .map(|i| Move {
            from: i,
            to: i + title,
        })
        .collect()
}

fn key_name(key: u8) -> String {
    format!("k{key}")
}

/// One step of a sequence.
#[derive(Clone, Debug)]
enum Op {
    /// An insert, through the family or through the variant's own table.
    Insert {
        key: u8,
        held: Held,
        variant: bool,
    },
    UpsertReplace {
        key: u8,
        held: Held,
    },
    UpsertMerge {
        key: u8,
        held: Held,
    },
    /// A read through the family, then a replace of what was read with new values.
    ReadReplace {
        key: u8,
        held: Held,
    },
    /// A delete by keys, whatever is stored.
    Delete {
        key: u8,
    },
    /// One transaction of inserts through the family.
    Batch {
        inserts: Vec<(u8, Held)>,
    },
    /// A query selecting the members' zip only, then a merge of a new zip into one of them
    /// (the `pick`th, counting round).
    SelectMerge {
        pick: u8,
        zip: u8,
    },
    /// Index repair over the members: it finds nothing to fix.
    Repair,
    /// A row of a legacy forum partition, written untyped without a kind property: a question
    /// (`Q_n`) or a reply (`R_n`), read by a family told by RowKey prefix; or its delete.
    Legacy {
        n: u8,
        reply: bool,
        remove: bool,
    },
    /// Legacy rows' writes and deletes (as `Legacy`) in one bulk write, repeats included:
    /// applied in order, each once, at the pace the server takes.
    LegacyBulk {
        rows: Vec<(u8, bool, bool)>,
    },
}

impl Op {
    fn random(rng: &mut StdRng) -> Op {
        let key = rng.random_range(0..KEYS);
        let held = Held::random(rng);
        match rng.random_range(0..19) {
            0..=3 => Op::Insert {
                key,
                held,
                variant: rng.random_bool(0.3),
            },
            4 | 5 => Op::UpsertReplace { key, held },
            6 | 7 => Op::UpsertMerge { key, held },
            8 | 9 => Op::ReadReplace { key, held },
            10 | 11 => Op::Delete { key },
            12 | 13 => {
                let mut keys: Vec<u8> = (0..KEYS).collect();
                let n = rng.random_range(1..=3);
                let inserts = (0..n)
                    .map(|_| {
                        let key = keys.remove(rng.random_range(0..keys.len()));
                        // Mostly what a transaction holds, sometimes what it refuses.
                        let held = match (rng.random_bool(0.8), Held::random(rng)) {
                            (true, Held::Contact { .. }) => Held::Note { title: 2 },
                            (_, held) => held,
                        };
                        (key, held)
                    })
                    .collect();
                Op::Batch { inserts }
            }
            14 | 15 => Op::SelectMerge {
                pick: key,
                zip: rng.random_range(0..3),
            },
            16 => Op::Repair,
            _ if rng.random_bool(0.4) => Op::LegacyBulk {
                rows: (0..rng.random_range(2..=8))
                    .map(|_| {
                        let n = rng.random_range(0..3);
                        (n, rng.random_bool(0.5), rng.random_bool(0.3))
                    })
                    .collect(),
            },
            _ => Op::Legacy {
                n: rng.random_range(0..3),
                reply: rng.random_bool(0.5),
                remove: rng.random_bool(0.3),
            },
        }
    }
}

/// The reference: what each key holds.
type Reference = BTreeMap<u8, Held>;

/// What a write must answer, given the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    Ok,
    Conflict,
    Unique,
    KindChange,
    NotFound,
}

fn email_taken(reference: &Reference, key: u8, held: Held) -> bool {
    let Some(email) = held.email() else {
        return false;
    };
    reference
        .iter()
        .any(|(k, h)| *k != key && h.email() == Some(email))
}

fn expect_upsert(reference: &Reference, key: u8, held: Held) -> Expect {
    match reference.get(&key) {
        Some(stored)
            if stored.kind() != held.kind() && (stored.keeps_rows() || held.keeps_rows()) =>
        {
            Expect::KindChange
        }
        _ if email_taken(reference, key, held) => Expect::Unique,
        _ => Expect::Ok,
    }
}

fn classify(result: &tablekit::Result<()>) -> Result<Expect, String> {
    match result {
        Ok(()) => Ok(Expect::Ok),
        Err(Error::UniqueViolation(_)) => Ok(Expect::Unique),
        Err(e) if e.is_conflict() => Ok(Expect::Conflict),
        Err(e) if e.is_not_found() => Ok(Expect::NotFound),
        Err(e) if e.is_invalid_input() && e.to_string().contains("delete it first") => {
            Ok(Expect::KindChange)
        }
        Err(e) => Err(format!("unexpected error: {e}")),
    }
}

/// The tables one sequence runs on.
struct Tables {
    club: Table<Club>,
    members: Table<Member>,
    contacts: Table<Contact>,
    scans: Table<Scan>,
    notes: Table<Note>,
    raw: Table,
    /// The legacy forum partition as its prefix family reads it.
    forum: Table<Post>,
    /// The RowKeys the forum partition holds: the reference of the `Legacy` operations.
    forum_rows: std::sync::Mutex<BTreeSet<String>>,
}

impl Tables {
    async fn new(client: &TableServiceClient) -> Tables {
        let name = unique_name("Plan");
        // Every typed read of the family stays within a partition, or says it scans.
        let club = client.table_named::<Club>(&name).refuse_table_scans();
        club.create().await.unwrap();
        Tables {
            members: client.table_named(&name),
            contacts: client.table_named(&name),
            scans: client.table_named(&name),
            notes: client.table_named(&name),
            raw: client.table_named(&name),
            forum: client.table_named(&name),
            forum_rows: Default::default(),
            club,
        }
    }

    async fn insert_variant(&self, mut entity: ClubEntity) -> tablekit::Result<()> {
        match &mut entity {
            ClubEntity::Member(m) => self.members.insert(m).await,
            ClubEntity::Contact(c) => self.contacts.insert(c).await,
            ClubEntity::Scan(s) => self.scans.insert(s).await,
            ClubEntity::Note(n) => self.notes.insert(n).await,
        }
    }

    async fn drop_table(&self) {
        let _ = self.raw.delete_table().await;
    }
}

/// Runs `op`, checks its answer against the reference and updates it.
/// What an applied write leaves at a key: a value, or nothing.
type Change = Option<(u8, Option<Held>)>;

/// Whether the operation was applied (`false`: skipped, or refused as the reference expects).
async fn apply(t: &Tables, reference: &mut Reference, op: &Op) -> Result<bool, String> {
    let (expected, result, change): (Expect, tablekit::Result<()>, Change) = match *op {
        Op::Insert { key, held, variant } => {
            let expected = if reference.contains_key(&key) {
                Expect::Conflict
            } else if email_taken(reference, key, held) {
                Expect::Unique
            } else {
                Expect::Ok
            };
            let result = match variant {
                true => t.insert_variant(held.entity(key)).await,
                false => t.club.insert(&mut held.entity(key)).await,
            };
            (expected, result, Some((key, Some(held))))
        }
        Op::UpsertReplace { key, held } => {
            let result = t.club.upsert_replace(&mut held.entity(key)).await;
            (
                expect_upsert(reference, key, held),
                result,
                Some((key, Some(held))),
            )
        }
        Op::UpsertMerge { key, held } => {
            // Every property of the kind is sent, so the merge holds exactly `held`
            // (a scan's smaller image drops the rows it no longer uses).
            let result = t.club.upsert_merge(&mut held.entity(key)).await;
            (
                expect_upsert(reference, key, held),
                result,
                Some((key, Some(held))),
            )
        }
        Op::ReadReplace { key, held } => {
            let read = t.club.get(PARTITION, &key_name(key)).await;
            let mut read = match read {
                Ok(Some(read)) => read,
                Ok(None) if !reference.contains_key(&key) => return Ok(false),
                other => return Err(format!("read of {key}: {other:?}")),
            };
            let mut fresh = held.entity(key);
            if Held::of(&read)?.kind() != held.kind() {
                return Ok(false);
            }
            fresh
                .as_dynamic_mut()
                .set_etag(read.as_dynamic().etag().cloned());
            std::mem::swap(&mut read, &mut fresh);
            let result = t.club.replace(&mut read).await;
            let expected = match email_taken(reference, key, held) {
                true => Expect::Unique,
                false => Expect::Ok,
            };
            (expected, result, Some((key, Some(held))))
        }
        Op::Delete { key } => {
            let result = t
                .club
                .delete_by_key(PARTITION, &key_name(key), &ETag::any())
                .await;
            let expected = match reference.contains_key(&key) {
                true => Expect::Ok,
                false => Expect::NotFound,
            };
            (expected, result, Some((key, None)))
        }
        Op::Batch { ref inserts } => return apply_batch(t, reference, inserts).await,
        Op::SelectMerge { pick, zip } => return select_merge(t, reference, pick, zip).await,
        Op::Repair => {
            let report = repair(&t.members).await.map_err(|e| e.to_string())?;
            if !report.is_clean() {
                return Err(format!("repair found something to fix: {report:?}"));
            }
            return Ok(true);
        }
        Op::Legacy { n, reply, remove } => return legacy(t, n, reply, remove).await,
        Op::LegacyBulk { ref rows } => return legacy_bulk(t, rows).await,
    };
    let answered = classify(&result)?;
    if answered != expected {
        return Err(format!(
            "answered {answered:?} ({result:?}), the reference expects {expected:?}"
        ));
    }
    if let (Expect::Ok, Some((key, held))) = (answered, change) {
        match held {
            Some(held) => reference.insert(key, held),
            None => reference.remove(&key),
        };
    }
    Ok(answered == Expect::Ok)
}

async fn apply_batch(
    t: &Tables,
    reference: &mut Reference,
    inserts: &[(u8, Held)],
) -> Result<bool, String> {
    let mut batch = t.club.batch();
    let mut added_emails = BTreeSet::new();
    for (key, held) in inserts {
        let added = batch.insert(&held.entity(*key));
        // A second new owner of one unique value in a transaction is refused when added.
        let twice = held.email().is_some_and(|e| !added_emails.insert(e));
        if twice {
            return match added {
                Err(Error::UniqueViolation(_)) => Ok(false),
                other => Err(format!(
                    "a transaction took {held:?} at {key} twice: {other:?}"
                )),
            };
        }
        // A transaction cannot reach an index kept in another partition: such a write is
        // refused when added, before anything is sent. A spread value's rows join it.
        let refused = matches!(held, Held::Contact { .. });
        match (added, refused) {
            (Ok(()), false) => {}
            (Err(e), true) if e.is_invalid_input() => return Ok(false),
            (added, _) => return Err(format!("adding {held:?} at {key}: {added:?}")),
        }
    }
    let result = batch.submit().await.map(drop);
    let occupied = inserts.iter().any(|(k, _)| reference.contains_key(k));
    let mut emails = BTreeSet::new();
    let duplicate = inserts
        .iter()
        .filter_map(|(_, h)| h.email())
        .any(|e| !emails.insert(e));
    let taken = inserts.iter().any(|(k, h)| email_taken(reference, *k, *h));
    let answered = classify(&result)?;
    let fine = match answered {
        Expect::Ok => !occupied && !duplicate && !taken,
        Expect::Conflict => occupied,
        Expect::Unique => duplicate || taken,
        _ => false,
    };
    if !fine {
        return Err(format!(
            "the transaction answered {answered:?} ({result:?}): occupied {occupied}, duplicate email {duplicate}, taken email {taken}"
        ));
    }
    if answered == Expect::Ok {
        reference.extend(inserts.iter().copied());
    }
    Ok(answered == Expect::Ok)
}

async fn select_merge(
    t: &Tables,
    reference: &mut Reference,
    pick: u8,
    zip: u8,
) -> Result<bool, String> {
    let query = Query::<Member>::new().select(Member::ADDRESS.zip());
    let mut read = t
        .members
        .query(query)
        .collect_all()
        .await
        .map_err(|e| e.to_string())?;
    if read.is_empty() {
        return Ok(false);
    }
    let mut member = read.swap_remove(usize::from(pick) % read.len());
    let row_key = member.as_dynamic().row_key().to_owned();
    let key: u8 = row_key
        .get(1..)
        .and_then(|k| k.parse().ok())
        .ok_or_else(|| format!("a member read at {row_key:?}: {:?}", member.as_dynamic()))?;
    // The nested struct read with one of its fields (the others at their defaults), changed
    // and set back: the merge writes what was read and changed, never the defaults.
    let mut address = member.address();
    address.zip = format!("0{zip}");
    member.set_address(address).map_err(|e| e.to_string())?;
    t.members
        .merge(&mut member)
        .await
        .map_err(|e| e.to_string())?;
    if let Some(Held::Member { zip: held, .. }) = reference.get_mut(&key) {
        *held = zip;
    }
    Ok(true)
}

/// Writes or deletes a legacy forum row untyped, as code that knows no kinds would.
async fn legacy(t: &Tables, n: u8, reply: bool, remove: bool) -> Result<bool, String> {
    let row_key = legacy_row_key(n, reply);
    if remove {
        let held = t.forum_rows.lock().unwrap().contains(&row_key);
        let deleted = t.raw.delete_by_key(FORUM, &row_key, &ETag::any()).await;
        return match (held, deleted) {
            (true, Ok(())) => Ok(t.forum_rows.lock().unwrap().remove(&row_key)),
            (false, Err(e)) if e.is_not_found() => Ok(false),
            (_, answer) => Err(format!("delete of {row_key}: {answer:?}")),
        };
    }
    let mut row = DynamicEntity::new(FORUM, &row_key);
    row.set("Text", format!("text of {row_key}"));
    t.raw
        .upsert_replace(&mut row)
        .await
        .map_err(|e| e.to_string())?;
    t.forum_rows.lock().unwrap().insert(row_key);
    Ok(true)
}

fn legacy_row_key(n: u8, reply: bool) -> String {
    format!("{}_{n}", if reply { "R" } else { "Q" })
}

/// `Legacy` steps as one bulk write: the deletes of rows not held are left out (a bulk delete
/// of a missing row fails its transaction, which `Legacy` covers alone).
async fn legacy_bulk(t: &Tables, rows: &[(u8, bool, bool)]) -> Result<bool, String> {
    let mut held = t.forum_rows.lock().unwrap().clone();
    let mut ops = Vec::new();
    for &(n, reply, remove) in rows {
        let row_key = legacy_row_key(n, reply);
        let mut row = DynamicEntity::new(FORUM, &row_key);
        if remove {
            if held.remove(&row_key) {
                ops.push(WriteOp::delete(t.raw.name(), row));
            }
        } else {
            row.set("Text", format!("text of {row_key}"));
            held.insert(row_key);
            ops.push(WriteOp::upsert(t.raw.name(), row));
        }
    }
    let report = BulkWriter::new(t.raw.client()).write_iter(ops).await;
    if !report.is_complete() {
        return Err(format!(
            "bulk write of legacy rows: {:?}",
            report.failures().next()
        ));
    }
    *t.forum_rows.lock().unwrap() = held;
    Ok(true)
}

/// The forum partition read by its prefix family holds exactly the legacy rows written, each as
/// the variant its prefix names.
async fn check_forum(t: &Tables) -> Result<(), String> {
    let filter = format!("PartitionKey eq '{FORUM}'");
    let read: Vec<PostEntity> = t
        .forum
        .query(Query::new().filter_raw(filter))
        .collect_all()
        .await
        .map_err(|e| e.to_string())?;
    let mut listed = BTreeSet::new();
    for post in &read {
        let row_key = post.as_dynamic().row_key();
        let kind_fits = match post {
            PostEntity::Question(q) => {
                row_key.starts_with("Q_") && q.text() == format!("text of {row_key}")
            }
            PostEntity::Reply(r) => {
                row_key.starts_with("R_") && r.text() == format!("text of {row_key}")
            }
        };
        if !kind_fits {
            return Err(format!(
                "{row_key} read as the wrong kind or text: {post:?}"
            ));
        }
        listed.insert(row_key.to_owned());
    }
    let held = t.forum_rows.lock().unwrap().clone();
    match listed == held {
        true => Ok(()),
        false => Err(format!(
            "the forum lists {listed:?}, the reference {held:?}"
        )),
    }
}

/// The invariants of what the servers hold, and the reference's entities read back.
async fn check(t: &Tables, reference: &Reference) -> Result<(), String> {
    for key in 0..KEYS {
        let read = t
            .club
            .get(PARTITION, &key_name(key))
            .await
            .map_err(|e| format!("read of {key}: {e}"))?;
        let held = read.as_ref().map(Held::of).transpose()?;
        if held.as_ref() != reference.get(&key) {
            return Err(format!(
                "{key} reads {held:?}, the reference holds {:?}",
                reference.get(&key)
            ));
        }
    }
    // The family's kinds are an `or`, which bounds no key: the partition is what plans it,
    // and a query without it is refused before it is sent.
    let in_partition = Query::new()
        .filter(Club::PARTITION_KEY.eq(PARTITION))
        .top(2)
        .unwrap();
    let plan = in_partition.plan();
    if plan
        != (QueryPlan::Partition {
            partition_key: PARTITION.into(),
        })
    {
        return Err(format!("the partition's query plans as {plan}"));
    }
    let everything = t.club.query(Query::new()).first_page().await;
    if !matches!(
        everything.as_ref().map_err(|e| e.invalid_input()),
        Err(Some(InvalidInput::TableScan { .. }))
    ) {
        return Err(format!(
            "a scan of a refusing table answered {everything:?}"
        ));
    }
    let listed: Vec<ClubEntity> = t
        .club
        .query(in_partition)
        .collect_all()
        .await
        .map_err(|e| e.to_string())?;
    let listed: BTreeSet<String> = listed
        .iter()
        .map(|e| e.as_dynamic().row_key().to_owned())
        .collect();
    let expected: BTreeSet<String> = reference.keys().map(|k| key_name(*k)).collect();
    if listed != expected {
        return Err(format!(
            "a typed query lists {listed:?}, the reference {expected:?}"
        ));
    }
    let rows = raw_rows(t).await?;
    check_parallel(t, &expected, &rows).await?;
    check_rows(&rows, reference)?;
    check_forum(t).await
}

/// A parallel scan reads what one query reads: the family's entities of the partition,
/// typed, on a table that refuses scans (helper rows hidden, ranges across the partitions of
/// entities, index rows and legacy rows), and every stored row, raw. (Probed ranges have
/// tests of their own: probing after every step would multiply this test's requests.)
async fn check_parallel(
    t: &Tables,
    expected: &BTreeSet<String>,
    serial: &[DynamicEntity],
) -> Result<(), String> {
    let in_partition = Query::new().filter(Club::PARTITION_KEY.eq(PARTITION));
    let typed: Vec<_> = t
        .club
        .parallel_scan(in_partition)
        .split_at(["Phones", "d", "g"])
        .pages()
        .try_collect()
        .await
        .map_err(|e| format!("a parallel scan of the family: {e}"))?;
    let mut listed = BTreeSet::new();
    for entity in typed.into_iter().flat_map(|p| p.page.into_entities()) {
        if !listed.insert(entity.as_dynamic().row_key().to_owned()) {
            return Err(format!("a parallel scan read {entity:?} twice"));
        }
    }
    if &listed != expected {
        return Err(format!(
            "a parallel scan lists {listed:?}, the reference {expected:?}"
        ));
    }
    let keys = |rows: &[DynamicEntity]| -> Vec<(String, String)> {
        let mut keys: Vec<_> = rows
            .iter()
            .map(|r| (r.partition_key().to_owned(), r.row_key().to_owned()))
            .collect();
        keys.sort();
        keys
    };
    let pages: Vec<_> = t
        .raw
        .parallel_scan(Query::new())
        .split_at(["Phones", "d", "g"])
        .pages()
        .try_collect()
        .await
        .map_err(|e| format!("a parallel scan of the rows: {e}"))?;
    let parallel: Vec<DynamicEntity> = pages
        .into_iter()
        .flat_map(|p| p.page.into_entities())
        .collect();
    if keys(&parallel) != keys(serial) {
        return Err(format!(
            "a parallel scan reads rows {:?}, one query {:?}",
            keys(&parallel),
            keys(serial)
        ));
    }
    Ok(())
}

/// Every stored row, raw, read by one query.
async fn raw_rows(t: &Tables) -> Result<Vec<DynamicEntity>, String> {
    t.raw
        .query_all()
        .collect_all()
        .await
        .map_err(|e| e.to_string())
}

/// Every index and continuation row among `rows` is exactly one the reference's entities need.
fn check_rows(rows: &[DynamicEntity], reference: &Reference) -> Result<(), String> {
    let mut index_rows = BTreeSet::new();
    let mut continuation_rows = BTreeSet::new();
    for row in rows {
        let id = (row.partition_key().to_owned(), row.row_key().to_owned());
        if row.contains(TARGET_PROPERTY) {
            index_rows.insert(id);
        } else if row.contains(tablekit::plan::AUXILIARY_PROPERTY) {
            continuation_rows.insert(id);
        }
    }
    let mut needed_index = BTreeSet::new();
    let mut needed_continuation = BTreeSet::new();
    for (key, held) in reference {
        let entity = held.entity(*key);
        let dynamic = entity.as_dynamic();
        for index in tablekit::plan::plan_of::<Club>(dynamic).indexes {
            if let Some(row) = index.row_of(dynamic).map_err(|e| e.to_string())? {
                needed_index.insert((row.partition_key().to_owned(), row.row_key().to_owned()));
            }
        }
        if let Held::Scan { .. } = held {
            let parts = spread::spread(dynamic, <Scan as TableModel>::SPREAD_FIELDS)
                .map_err(|e| e.to_string())?;
            for row in parts.rows {
                needed_continuation
                    .insert((row.partition_key().to_owned(), row.row_key().to_owned()));
            }
        }
    }
    if index_rows != needed_index {
        return Err(format!(
            "index rows {index_rows:?}, needed {needed_index:?}"
        ));
    }
    if continuation_rows != needed_continuation {
        return Err(format!(
            "continuation rows {continuation_rows:?}, needed {needed_continuation:?}"
        ));
    }
    check_drift(rows)
}

/// The drift check of the family finds nothing in what every path wrote: each row of the
/// club's partition reads as its kind, with no property its model does not know, and every
/// helper row is recognised as one.
fn check_drift(rows: &[DynamicEntity]) -> Result<(), String> {
    let club: Vec<DynamicEntity> = rows
        .iter()
        .filter(|row| row.partition_key() == PARTITION)
        .cloned()
        .collect();
    let report = FamilyCheck::new(&club)
        .kind::<Member>()
        .kind::<Contact>()
        .kind::<Scan>()
        .kind::<Note>()
        .finish();
    let unknown = report
        .kinds
        .iter()
        .any(|kind| !kind.unknown_properties.is_empty());
    if report.fails_reads() || unknown {
        return Err(format!("the family's rows drifted:\n{report}"));
    }
    Ok(())
}

/// How many operations of each kind were applied.
type Tally = BTreeMap<String, usize>;

/// Runs `ops` on fresh tables: what was applied, or the index of the failing step and why.
async fn run(client: &TableServiceClient, ops: &[Op]) -> Result<Tally, (usize, String)> {
    let t = Tables::new(client).await;
    let mut reference = Reference::new();
    let mut outcome = Ok(Tally::new());
    for (i, op) in ops.iter().enumerate() {
        let step = async {
            let applied = apply(&t, &mut reference, op).await?;
            check(&t, &reference).await.map(|()| applied)
        };
        match (step.await, &mut outcome) {
            (Ok(applied), Ok(tally)) => {
                let name = format!("{op:?}");
                let name = name.split([' ', '{']).next().unwrap_or_default();
                *tally.entry(name.to_owned()).or_default() += usize::from(applied);
            }
            (Err(why), _) => {
                outcome = Err((i, why));
                break;
            }
            (Ok(_), Err(_)) => unreachable!("the run stops at its first failure"),
        }
    }
    t.drop_table().await;
    outcome
}

/// The shortest sequence found that still fails, and why.
async fn shrink(
    client: &TableServiceClient,
    mut ops: Vec<Op>,
    failed_at: usize,
    mut why: String,
) -> (Vec<Op>, String) {
    ops.truncate(failed_at + 1);
    let mut i = ops.len();
    while i > 0 {
        i -= 1;
        let mut fewer = ops.clone();
        fewer.remove(i);
        if let Err((at, reason)) = run(client, &fewer).await {
            fewer.truncate(at + 1);
            ops = fewer;
            why = reason;
            i = i.min(ops.len());
        }
    }
    (ops, why)
}

struct Sequence<'a>(&'a [Op]);

impl fmt::Display for Sequence<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, op) in self.0.iter().enumerate() {
            writeln!(f, "  {i}: {op:?}")?;
        }
        Ok(())
    }
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn random_sequences_keep_the_reference_and_the_invariants(client: &TableServiceClient) {
    let cases = setting("TABLEKIT_MODEL_CASES", 3);
    let steps = setting("TABLEKIT_MODEL_STEPS", 30) as usize;
    let seed = setting("TABLEKIT_MODEL_SEED", 0x5eed_0035);
    let mut applied = Tally::new();
    for case in 0..cases {
        let mut rng = StdRng::seed_from_u64(seed + case);
        let ops: Vec<Op> = (0..steps).map(|_| Op::random(&mut rng)).collect();
        match run(client, &ops).await {
            Ok(tally) => tally
                .into_iter()
                .for_each(|(op, n)| *applied.entry(op).or_default() += n),
            Err((at, why)) => {
                let (ops, why) = shrink(client, ops, at, why).await;
                panic!(
                    "seed {} failed: {why}\nshrunk sequence:\n{}",
                    seed + case,
                    Sequence(&ops)
                );
            }
        }
    }
    // Every kind of operation was applied at least once, so none is checked vacuously.
    let kinds = [
        "Insert",
        "UpsertReplace",
        "UpsertMerge",
        "ReadReplace",
        "Delete",
        "Batch",
        "SelectMerge",
        "Repair",
        "Legacy",
    ];
    for kind in kinds {
        assert!(
            applied.get(kind).is_some_and(|n| *n > 0),
            "no {kind} applied: {applied:?}"
        );
    }
}

/// Rounds of writers racing on the same two entities through the family; after each round,
/// every row kept beside an entity is one its entity needs, and every answer was a typed
/// one (an unconditional write never answers a bare 412).
async fn racing_writers_keep_the_invariants(client: &TableServiceClient) {
    let rounds = setting("TABLEKIT_MODEL_CASES", 3) * 4;
    let seed = setting("TABLEKIT_MODEL_SEED", 0x5eed_0035);
    let mut rng = StdRng::seed_from_u64(seed);
    let t = Tables::new(client).await;
    for round in 0..rounds {
        let writers: Vec<(u8, Held, u8)> = (0..4)
            .map(|_| {
                // Keys 0 and 1 hold members, 2 and 3 contacts (an index in another partition),
                // so each key's writers race on one plan.
                let key = rng.random_range(0..4);
                let held = match (key < 2, Held::random(&mut rng)) {
                    (true, member @ Held::Member { .. }) => member,
                    (true, _) => Held::Member {
                        email: 0,
                        city: 1,
                        zip: 0,
                    },
                    (false, _) => Held::Contact {
                        phone: rng.random_range(0..2),
                    },
                };
                (key, held, rng.random_range(0..3))
            })
            .collect();
        let answers = join_all(writers.iter().map(|(key, held, how)| {
            let club = &t.club;
            async move {
                let mut entity = held.entity(*key);
                match how {
                    0 => club.upsert_replace(&mut entity).await,
                    1 => club.upsert_merge(&mut entity).await,
                    _ => {
                        club.delete_by_key(PARTITION, &key_name(*key), &ETag::any())
                            .await
                    }
                }
            }
        }))
        .await;
        for answer in &answers {
            let fine = match answer {
                Ok(()) | Err(Error::UniqueViolation(_)) => true,
                Err(e) => e.is_not_found(),
            };
            assert!(fine, "round {round}: {answer:?}");
        }
        // What is stored now is the reference the rows are checked against.
        let mut reference = Reference::new();
        for key in 0..4 {
            if let Some(read) = t.club.get(PARTITION, &key_name(key)).await.unwrap() {
                reference.insert(key, Held::of(&read).unwrap());
            }
        }
        let rows = raw_rows(&t).await.unwrap();
        if let Err(why) = check_rows(&rows, &reference) {
            panic!("round {round} ({writers:?}): {why}");
        }
    }
    t.drop_table().await;
}

// The model's composition runs on both servers, through the in-process transport, on an
// emulator that throttles (so every write path also meets 503 and its retries), and on one
// that persists (every write through its write-ahead log, then a restart on its directory).
on_servers!({
    emulator: crate::support::servers::emulator().await,
    in_process: crate::support::servers::in_process().await,
    throttled: crate::support::servers::throttled().await,
    persisted: crate::support::servers::persisted().await,
    azurite: crate::support::servers::azurite(),
}
    random_sequences_keep_the_reference_and_the_invariants,
    racing_writers_keep_the_invariants,
);
