//! Fields stored across several properties or as text: `records(max_properties = N)`,
//! `split(max_properties = N)` and `json`.
//! The `Gamer` is the READMEs' (the shared one), with `CompletedLevel` records holding a
//! `TableValue` enum.

// Test fixtures mirror the user code of the READMEs and examples; documenting them adds
// nothing.
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use tablekit::prelude::*;

use crate::support::models::{CompletedLevel, Gamer, GamerEntity, Level};

fn levels(n: usize) -> Vec<CompletedLevel> {
    let t = DateTime::from_timestamp(1_200_000_000, 100).unwrap_or_default();
    (0..n)
        .map(|i| CompletedLevel {
            level: [Level::Dungeon, Level::Castle, Level::Forest][i % 3],
            completed: t,
            stars: (i % 5) as u8,
        })
        .collect()
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
fn json_longer_than_a_property_is_split_and_too_large_is_a_typed_error() {
    let mut p = ProfileEntity::new("ann");
    let long = vec!["x".repeat(40_000)];
    p.set_tags(&long).unwrap();
    assert!(
        p.as_dynamic().len() > 1,
        "the text spans several properties"
    );
    assert_eq!(p.tags(), long);
    let err = p.set_tags(&vec!["y".repeat(17 * 64 * 1024)]).unwrap_err();
    assert!(matches!(err, Error::Split(_)), "{err}");
    assert_eq!(p.tags(), long, "a refused write leaves the old value");
}

#[test]

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
fn design_gamer_records_round_trip_through_the_codec() {
    let mut g = GamerEntity::new("Dragon");
    g.set_completed_levels(&levels(3)).unwrap();
    let bytes = tablekit::codec::encode_entity(g.as_dynamic());
    let read = GamerEntity::wrap(tablekit::codec::decode_entity(&bytes).unwrap());
    assert_eq!(read.completed_levels(), levels(3));
    assert_eq!(read.score(), 0);
    assert_eq!(read.tag(), "Dragon");
}

#[test]
fn records_missing_read_empty_and_garbage_reads_empty_with_a_reason() {
    let g = GamerEntity::wrap(DynamicEntity::new("dragon", ""));
    assert!(g.completed_levels().is_empty());
    let mut d = DynamicEntity::new("dragon", "");
    d.set("CompletedLevels", vec![0xff_u8, 0xff, 0xff]);
    let g = GamerEntity::wrap(d);
    assert!(g.completed_levels().is_empty());
    assert!(g.try_completed_levels().is_err());
}

#[test]
fn too_many_records_is_a_typed_error_and_nothing_is_cut() {
    let mut g = GamerEntity::new("Dragon");
    g.set_completed_levels(&levels(2)).unwrap();
    // Each record takes several bytes: 200,000 of them exceed 4 x 64 KiB.
    let err = g.set_completed_levels(&levels(200_000)).unwrap_err();
    assert!(
        err.is_invalid_input() || err.to_string().contains("CompletedLevels"),
        "{err}"
    );
    assert_eq!(
        g.completed_levels(),
        levels(2),
        "a refused write keeps the old value"
    );
}

#[test]
fn records_spread_over_several_properties_and_select_names_every_part() {
    let mut g = GamerEntity::new("Dragon");
    g.set_completed_levels(&levels(20_000)).unwrap();
    let parts = g
        .as_dynamic()
        .properties()
        .filter(|(name, _)| name.starts_with("CompletedLevels"))
        .count();
    assert!(parts > 1, "split across properties");
    assert_eq!(g.completed_levels().len(), 20_000);
    let q = Query::<Gamer>::new().select((Gamer::TAG, Gamer::COMPLETED_LEVELS));
    let names = q.select_list().unwrap_or_default().to_vec();
    assert_eq!(names.first().map(String::as_str), Some("GamerTag"));
    assert_eq!(names.len(), 1 + 4, "{names:?}");
    // The other fields' stored defaults are not selected.
    let unselected = ["Score", "Level", "Mood", "Active", "Lives"];
    for (name, _) in g.as_dynamic().properties() {
        assert!(
            names.iter().any(|n| n == name) || unselected.contains(&name),
            "{name} not selected"
        );
    }
}

#[test]
fn model_conversion_carries_records() {
    let model = Gamer {
        tag: "Dragon".into(),
        score: 5,
        completed_levels: levels(4),
        ..Gamer::default()
    };
    let e = GamerEntity::from_model(model).unwrap();
    let back = e.to_model();
    assert_eq!(back.completed_levels, levels(4));
    assert_eq!(back.score, 5);
}
