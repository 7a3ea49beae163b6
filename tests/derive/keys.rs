//! Keys composed from fields (the `microblog` example's `Blog`, the derive README's
//! `ExpenseItem`): orders, formats, constant parts, `key_only` fields read back from the key,
//! and generated prefix bounds.

// Test fixtures mirror the user code of the READMEs and examples; documenting them adds
// nothing.
#![allow(missing_docs)]

use chrono::{TimeZone, Utc};
use tablekit::codec::{decode_entity, encode_entity};
use tablekit::prelude::*;

use crate::support::models::{Blog, BlogEntity, ExpenseItem, ExpenseItemEntity};

#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(key_separator = "-", row_key(constant = "seq", order = 0))]
pub struct Numbered {
    #[tablekit(partition_key, key_only)]
    pub bucket: String,
    #[tablekit(row_key(order = 1, pad = 10), key_only)]
    pub n: u32,
    #[tablekit(row_key(order = 2, inverted))]
    pub rank: u32,
}

#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(rename_all = "camelCase")]
pub struct Log {
    #[tablekit(partition_key(format = "yyyyMMdd"))]
    #[tablekit(row_key(ticks), key_only)]
    pub at: DateTime<Utc>,
    pub message_text: String,
}

fn october_2008() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2008, 10, 5, 12, 30, 0).unwrap()
}

#[test]
fn blog_keys_follow_the_whitepaper() {
    let b = BlogEntity::new("rust", october_2008());
    assert_eq!(b.partition_key(), "rust_7991_03");
    assert_eq!(b.row_key(), tablekit::keys::inverted_ticks(&october_2008()));
    assert_eq!(b.row_key().len(), 19);
    assert_eq!(b.posted(), october_2008(), "stored as a property too");
    assert_eq!(b.channel(), "rust");
}

#[test]
fn newer_posts_sort_first() {
    let older = BlogEntity::new("rust", october_2008());
    let newer = BlogEntity::new("rust", october_2008() + chrono::Duration::milliseconds(1));
    assert!(newer.row_key() < older.row_key());
    let next_month = BlogEntity::new("rust", Utc.with_ymd_and_hms(2008, 11, 1, 0, 0, 0).unwrap());
    assert!(next_month.partition_key() < older.partition_key());
}

#[test]
fn setting_a_field_in_both_keys_updates_both() {
    let mut b = BlogEntity::new("rust", october_2008());
    let later = Utc.with_ymd_and_hms(2009, 1, 1, 0, 0, 0).unwrap();
    b.set_posted(later);
    assert_eq!(b.partition_key(), "rust_7990_12");
    assert_eq!(b.row_key(), tablekit::keys::inverted_ticks(&later));
    b.set_channel("go");
    assert_eq!(b.partition_key(), "go_7990_12");
}

#[test]
fn blog_round_trips_through_the_codec() {
    let model = Blog {
        channel: "rust".into(),
        posted: october_2008(),
        text: "it's 'quoted'".into(),
        rating: -3,
    };
    let e = BlogEntity::from_model(model.clone()).unwrap();
    let read = BlogEntity::wrap(decode_entity(&encode_entity(e.as_dynamic())).unwrap());
    assert_eq!(read.to_model(), model);
    assert_eq!(read.partition_key(), e.partition_key());
}

#[test]
fn blog_prefix_bound_covers_one_channel() {
    let f = Blog::partition_key_prefix("rust");
    assert_eq!(
        f.to_string(),
        "PartitionKey ge 'rust_' and PartitionKey lt 'rust`'"
    );
}

#[test]
fn expense_item_row_key_joins_ids_and_prefix_selects_one_expense() {
    let user = "jeff";
    let expense = Uuid::from_u128(1);
    let item = Uuid::from_u128(2);
    let e = ExpenseItemEntity::new(user, expense, item);
    assert_eq!(e.partition_key(), "jeff");
    assert_eq!(e.row_key(), format!("{expense}_{item}"));
    let q = Query::<ExpenseItem>::new().filter(
        ExpenseItem::PARTITION_KEY
            .eq(user)
            .and(ExpenseItem::row_key_prefix(&expense)),
    );
    assert_eq!(
        q.filter_string(),
        Some(
            "PartitionKey eq 'jeff' and RowKey ge '00000000-0000-0000-0000-000000000001_' \
             and RowKey lt '00000000-0000-0000-0000-000000000001`'"
        )
    );
    let (lo, hi) = tablekit::keys::prefix_range(&format!("{expense}_"));
    assert!(lo.as_str() <= e.row_key() && Some(e.row_key()) < hi.as_deref());
}

#[test]
fn key_only_fields_read_back_from_the_key() {
    let e = NumberedEntity::new("b1", 42u32, 7u32);
    assert_eq!(e.partition_key(), "b1");
    assert_eq!(e.row_key(), format!("seq-0000000042-{:010}", u32::MAX - 7));
    assert!(!e.as_dynamic().contains("Bucket"), "key_only is not stored");
    assert!(!e.as_dynamic().contains("N"));
    assert_eq!(e.as_dynamic().get::<u32>("Rank"), Some(7));
    assert_eq!(e.bucket(), "b1");
    assert_eq!(e.n(), 42);
    assert_eq!(
        Numbered::row_key_prefix_2(&5).to_string(),
        "RowKey ge 'seq-0000000005-' and RowKey lt 'seq-0000000005.'"
    );
    assert_eq!(
        Numbered::row_key_prefix().to_string(),
        "RowKey ge 'seq-' and RowKey lt 'seq.'"
    );
}

#[test]
fn an_unreadable_key_part_is_an_error_from_try_and_the_default_otherwise() {
    let e = NumberedEntity::wrap(DynamicEntity::new("b", "seq-notanumber-0000000001"));
    assert_eq!(e.n(), 0);
    let err = e.try_n().unwrap_err().to_string();
    assert!(err.contains("RowKey `seq-notanumber-0000000001`"), "{err}");
    assert!(NumberedEntity::wrap(DynamicEntity::new("b", "a-b"))
        .try_n()
        .is_err());
}

#[test]
fn ticks_and_date_formats() {
    let e = LogEntity::new(october_2008());
    assert_eq!(e.partition_key(), "20081005");
    assert_eq!(e.row_key(), tablekit::keys::ticks(&october_2008()));
    assert_eq!(e.at(), october_2008());
    assert!(!e.as_dynamic().contains("at"));
    assert!(e.as_dynamic().contains("messageText"));
    assert_eq!(Log::MESSAGE_TEXT.name(), "messageText");
}

#[test]
fn try_new_reports_a_key_that_is_too_long() {
    let long = "x".repeat(600);
    let err = ExpenseItemEntity::try_new(long, Uuid::nil(), Uuid::nil()).unwrap_err();
    assert!(
        err.to_string()
            .contains("PartitionKey is 600 UTF-16 units long"),
        "{err}"
    );
}

#[test]
fn try_new_refuses_a_composite_part_holding_the_separator() {
    let err = BlogEntity::try_new("my_channel", october_2008()).unwrap_err();
    assert!(err.is_invalid_input());
    assert!(
        err.to_string().contains(
            "the `channel` part of the PartitionKey (`my_channel`) holds the key separator `_`"
        ),
        "{err}"
    );
    assert!(BlogEntity::try_new("mychannel", october_2008()).is_ok());
    // A single-part key may hold anything the service allows.
    assert!(ExpenseItemEntity::try_new("a_b", Uuid::nil(), Uuid::nil()).is_ok());
}

/// A user's key transform: a `fn(&T) -> String`.
pub fn region_code(region: &Region) -> String {
    match region {
        Region::Europe => "eu".into(),
        Region::America => "us".into(),
    }
}

/// Strips what a user might type around an email address.
pub fn normalized_email(email: &str) -> String {
    email.trim().to_lowercase()
}

#[derive(Debug, Clone, Copy, PartialEq, Default, TableValue)]
pub enum Region {
    #[default]
    Europe,
    America,
}

#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(key_separator = "_")]
pub struct Account {
    #[tablekit(partition_key(order = 0, transform = region_code))]
    pub region: Region,
    #[tablekit(partition_key(order = 1, transform = uppercase))]
    pub country: String,
    #[tablekit(row_key(transform = self::normalized_email))]
    pub email: String,
}

#[test]
fn key_transforms_uppercase_and_user_functions() {
    let account = AccountEntity::new(Region::America, "ca", "  Ann@Example.COM ");
    assert_eq!(account.partition_key(), "us_CA");
    assert_eq!(account.row_key(), "ann@example.com");
    // The fields keep the values as given; only the keys are transformed.
    assert_eq!(account.country(), "ca");
    assert_eq!(account.email(), "  Ann@Example.COM ");
    assert_eq!(account.region(), Region::America);
}
