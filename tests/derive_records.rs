//! Fields stored across several properties or as text: `records(max_properties = N)`,
//! `split(max_properties = N)` and `json`.
//!
//! The records and split tests run the records engineer's `tablekit::record` and
//! `tablekit::split`; until those land they are ignored (the contract functions are
//! placeholders), but this file already checks that the generated code fits the contract.

// Test fixtures mirror the user code in DESIGN.md; documenting them adds nothing.
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use tablekit::prelude::*;
use tablekit::record::{RecordError, RecordReader, RecordWriter};

/// A record with nothing to store: enough to exercise the contract's signatures.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Marker;

impl Record for Marker {
    const VERSION: u16 = 1;
    fn write(&self, _writer: &mut RecordWriter) {}
    fn read(_reader: &mut RecordReader<'_>, _version: u16) -> Result<Self, RecordError> {
        Ok(Marker)
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Settings {
    pub theme: String,
    pub volume: u8,
}

#[derive(Debug, Clone, PartialEq, TableEntity)]
pub struct Profile {
    #[tablekit(partition_key)]
    pub user: String,
    #[tablekit(records(max_properties = 4))]
    pub markers: Vec<Marker>,
    #[tablekit(split(max_properties = 2))]
    pub avatar: Vec<u8>,
    #[tablekit(json)]
    pub settings: Settings,
    #[tablekit(json)]
    pub tags: Vec<String>,
}

#[test]
fn json_fields_round_trip_as_one_string_property() {
    let mut p = ProfileEntity::new("ann");
    let settings = Settings {
        theme: "dark".into(),
        volume: 7,
    };
    p.set_settings(&settings).unwrap();
    p.set_tags(&vec!["a".into(), "it's".into()]).unwrap();
    assert_eq!(
        p.as_dynamic().get::<String>("Settings").as_deref(),
        Some(r#"{"theme":"dark","volume":7}"#)
    );
    assert_eq!(p.settings(), settings);
    assert_eq!(p.tags(), vec!["a".to_owned(), "it's".to_owned()]);
}

#[test]
fn missing_or_broken_json_reads_the_default_and_try_says_why() {
    let mut d = DynamicEntity::new("ann", "");
    assert_eq!(
        ProfileEntity::wrap(d.clone()).settings(),
        Settings::default()
    );
    d.set("Settings", "{not json");
    let p = ProfileEntity::wrap(d);
    assert_eq!(p.settings(), Settings::default());
    let err = p.try_settings().unwrap_err().to_string();
    assert!(
        err.contains("Settings") && err.contains("invalid JSON"),
        "{err}"
    );
}

#[test]
fn json_too_long_for_a_property_is_a_typed_error_not_a_cut() {
    let mut p = ProfileEntity::new("ann");
    let err = p.set_tags(&vec!["x".repeat(40_000)]).unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
    assert!(!p.as_dynamic().contains("Tags"), "nothing half-written");
}

#[test]
#[ignore = "needs tablekit::split (records work, in progress in main)"]
fn split_bytes_round_trip_and_too_large_is_an_error() {
    let mut p = ProfileEntity::new("ann");
    let avatar: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
    p.set_avatar(&avatar).unwrap();
    assert_eq!(p.avatar(), avatar);
    let too_big = vec![1u8; 3 * 64 * 1024];
    assert!(p.set_avatar(&too_big).is_err());
    assert_eq!(p.avatar(), avatar, "a refused write leaves the old value");
}

#[test]
#[ignore = "needs tablekit::record and tablekit::split (records work, in progress in main)"]
fn records_round_trip_and_select_names_every_part() {
    let mut p = ProfileEntity::new("ann");
    p.set_markers(&[Marker, Marker]).unwrap();
    assert!(p.try_markers().is_ok());
    let q = Query::<Profile>::new().select((Profile::MARKERS, Profile::AVATAR));
    let names = q.select_list().unwrap_or_default().to_vec();
    assert!(names.len() >= 2, "{names:?}");
    assert!(names.iter().any(|n| n == "Markers"));
    let model = ProfileEntity::new("bob").to_model();
    assert!(model.markers.is_empty());
}
