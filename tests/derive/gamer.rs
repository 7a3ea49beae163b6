//! The READMEs' `Gamer`: a typed wrapper over a dynamic entity, defaults, renames, an enum
//! stored through `TableValue`, typed columns, and a JSON codec round trip.

// Test fixtures mirror the user code of the READMEs and examples; documenting them adds
// nothing.
#![allow(missing_docs)]

use tablekit::codec::{decode_entity, encode_entity};
use tablekit::prelude::*;
use tablekit::{Value, ValueError};

use crate::support::models::{Gamer, GamerEntity, Level, Mood};

#[test]
fn new_computes_keys_and_stores_key_fields_and_defaults() {
    let g = GamerEntity::new("Dragon");
    assert_eq!(g.partition_key(), "dragon");
    assert_eq!(g.row_key(), "");
    assert_eq!(g.tag(), "Dragon");
    assert_eq!(
        g.as_dynamic().get::<String>("GamerTag").as_deref(),
        Some("Dragon")
    );
    assert_eq!(g.as_dynamic().value("Score"), Some(&Value::Int32(0)));
    assert_eq!(g.as_dynamic().value("Lives"), Some(&Value::Int64(3)));
    assert!(!g.as_dynamic().contains("Nickname"), "None stores nothing");
    assert!(
        !g.as_dynamic().contains("Cache"),
        "skipped fields are not stored"
    );
    assert_eq!(<Gamer as tablekit::NamedTable>::TABLE_NAME, "Gamers");
}

#[test]
fn missing_properties_read_as_defaults() {
    let g = GamerEntity::wrap(DynamicEntity::new("dragon", ""));
    assert_eq!(g.score(), 0);
    assert_eq!(g.lives(), 3);
    assert_eq!(g.level(), Level::Dungeon);
    assert_eq!(g.nickname(), None);
    assert!(g.try_score().is_ok());
}

#[test]
fn unreadable_values_read_as_defaults_and_try_says_why() {
    let mut d = DynamicEntity::new("dragon", "");
    d.set("Score", "not a number");
    d.set("Level", 7);
    d.set("Mood", "Sleepy");
    let g = GamerEntity::wrap(d);
    assert_eq!(g.score(), 0);
    let err = g.try_score().unwrap_err().to_string();
    assert!(err.contains("Score"), "{err}");
    assert_eq!(g.level(), Level::Dungeon);
    assert!(g
        .try_level()
        .unwrap_err()
        .to_string()
        .contains("7 is not a `Level` discriminant"));
    assert_eq!(g.mood(), Mood::Calm);
    assert!(g.try_mood().is_err());
}

#[test]
fn enums_store_as_int32_or_as_their_name() {
    let mut g = GamerEntity::new("a");
    g.set_level(Level::Forest);
    g.set_mood(Mood::Angry);
    assert_eq!(g.as_dynamic().value("Level"), Some(&Value::Int32(2)));
    assert_eq!(
        g.as_dynamic().value("Mood"),
        Some(&Value::String("Angry!".into()))
    );
    assert_eq!(g.level(), Level::Forest);
    assert_eq!(g.mood(), Mood::Angry);
    assert_eq!(
        <Level as tablekit::FromValue>::from_value(&Value::Int32(9)),
        Err(ValueError::Invalid(
            "9 is not a `Level` discriminant".into()
        ))
    );
}

#[test]
fn unknown_properties_survive_read_modify_write() {
    let mut d = DynamicEntity::new("dragon", "");
    d.set("GamerTag", "Dragon");
    d.set("Score", 10);
    d.set("AddedByNewerVersion", 1.5);
    let mut g = GamerEntity::wrap(d);
    g.set_score(g.score() + 10);
    let back = g.into_dynamic();
    assert_eq!(back.get::<i32>("Score"), Some(20));
    assert_eq!(back.get::<f64>("AddedByNewerVersion"), Some(1.5));
}

#[test]
fn rename_from_reads_the_old_name_and_writes_the_new_one() {
    let mut d = DynamicEntity::new("dragon", "");
    d.set("Nick", "Drako");
    let mut g = GamerEntity::wrap(d);
    assert_eq!(g.nickname().as_deref(), Some("Drako"));
    g.set_nickname(Some("Draco".into()));
    assert!(!g.as_dynamic().contains("Nick"));
    assert_eq!(
        g.as_dynamic().get::<String>("Nickname").as_deref(),
        Some("Draco")
    );
}

#[test]
fn setting_a_key_field_recomputes_the_key() {
    let mut g = GamerEntity::new("Dragon");
    g.set_tag("WYVERN");
    assert_eq!(g.partition_key(), "wyvern");
    assert_eq!(g.tag(), "WYVERN");
    assert_eq!(Gamer::partition_key_of("ABC"), "abc");
}

#[test]
fn model_and_wrapper_convert_both_ways() {
    let model = Gamer {
        tag: "Dragon".into(),
        score: 42,
        level: Level::Castle,
        mood: Mood::Angry,
        nickname: Some("D".into()),
        active: true,
        lives: 1,
        cache: vec!["not stored".into()],
        ..Gamer::default()
    };
    let entity = GamerEntity::try_from(model.clone()).unwrap();
    assert_eq!(entity.partition_key(), "dragon");
    let back: Gamer = entity.clone().into();
    assert_eq!(
        back,
        Gamer {
            cache: Vec::new(),
            ..model
        }
    );
    assert_eq!(entity.try_to_model().unwrap(), back);
}

#[test]
fn round_trips_through_the_json_codec() {
    let mut g = GamerEntity::new("Dragon");
    g.set_score(1 << 20);
    g.set_level(Level::Forest);
    g.set_nickname(Some("it's".into()));
    let bytes = encode_entity(g.as_dynamic());
    let read = GamerEntity::wrap(decode_entity(&bytes).unwrap());
    assert_eq!(read.partition_key(), "dragon");
    assert_eq!(read.score(), 1 << 20);
    assert_eq!(read.level(), Level::Forest);
    assert_eq!(read.nickname().as_deref(), Some("it's"));
    assert_eq!(read.tag(), "Dragon");
}

#[test]
fn typed_columns_filter_and_select_with_stored_names() {
    let q = Query::<Gamer>::new()
        .filter(Gamer::SCORE.ge(20).and(Gamer::SCORE.le(40)))
        .select((Gamer::TAG, Gamer::SCORE));
    assert_eq!(q.filter_string(), Some("Score ge 20 and Score le 40"));
    assert_eq!(
        q.select_list(),
        Some(&["GamerTag".to_owned(), "Score".to_owned()][..])
    );
    let f = Gamer::LEVEL
        .eq(Level::Castle)
        .and(Gamer::MOOD.ne(Mood::Angry));
    assert_eq!(f.to_string(), "Level eq 1 and Mood ne 'Angry!'");
    assert_eq!(Gamer::NICKNAME.eq("x").to_string(), "Nickname eq 'x'");
    assert_eq!(
        Gamer::PARTITION_KEY.eq("dragon").to_string(),
        "PartitionKey eq 'dragon'"
    );
}

#[test]
fn a_selected_entity_reads_defaults_for_what_was_not_selected() {
    let mut d = DynamicEntity::new("dragon", "");
    d.set("Score", 30);
    let g = GamerEntity::wrap(d);
    assert_eq!(g.score(), 30);
    assert_eq!(g.tag(), "");
    assert_eq!(g.lives(), 3);
}

#[test]
fn try_new_refuses_forbidden_key_characters() {
    let err = GamerEntity::try_new("a/b").unwrap_err();
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("forbidden character '/'"), "{err}");
    assert!(GamerEntity::try_new("fine").is_ok());
}

#[test]
fn table_value_enums_are_record_fields_in_the_same_form() {
    use tablekit::record::{RecordReader, RecordWriter};
    let mut w = RecordWriter::new();
    w.write(&Level::Forest).write(&Mood::Angry);
    let mut r = RecordReader::new(w.as_bytes());
    assert_eq!(r.read::<Level>().unwrap(), Level::Forest);
    assert_eq!(r.read::<Mood>().unwrap(), Mood::Angry);
    let mut bad = RecordWriter::new();
    bad.write_i32(9).write_str("Sleepy");
    let mut r = RecordReader::new(bad.as_bytes());
    let err = r.read::<Level>().unwrap_err().to_string();
    assert!(err.contains("9 is not a `Level` discriminant"), "{err}");
    let mut r = RecordReader::new(&bad.as_bytes()[4..]);
    let err = r.read::<Mood>().unwrap_err().to_string();
    assert!(err.contains("`Sleepy` is not a `Mood` variant"), "{err}");
}

#[test]
fn string_setters_and_key_functions_take_what_users_have() {
    let mut g = GamerEntity::new("Dragon");
    g.set_tag("Wyvern"); // a `&str`
    g.set_tag(String::from("Wyvern")); // or a `String`
    g.set_tag(std::borrow::Cow::from("Wyvern")); // or anything `Into<String>`
    assert_eq!(g.partition_key(), "wyvern");
    assert_eq!(Gamer::partition_key_of("ABC"), "abc");
}

#[test]
fn string_fields_borrow_without_a_copy() {
    let mut d = DynamicEntity::new("dragon", "");
    d.set("GamerTag", "Dragon");
    d.set("Nick", "Drako"); // the old name of `nickname`
    d.set("Score", 10);
    let g = GamerEntity::wrap(d);
    let stored = g.as_dynamic().value("GamerTag").unwrap();
    let Value::String(text) = stored else {
        panic!("a string")
    };
    assert_eq!(g.tag_str(), Some("Dragon"));
    assert!(
        std::ptr::eq(g.tag_str().unwrap(), text.as_str()),
        "borrowed, not copied"
    );
    assert_eq!(g.nickname_str(), Some("Drako"));
    assert_eq!(
        GamerEntity::wrap(DynamicEntity::new("d", "")).tag_str(),
        None
    );
}

#[test]
fn a_setter_over_an_unreadable_value_is_noted_until_allowed() {
    let mut d = DynamicEntity::new("dragon", "");
    d.set("Score", "not a number");
    d.set("Lives", 2);
    let mut g = GamerEntity::wrap(d);
    g.set_lives(1); // readable: nothing to note
    assert_eq!(g.as_dynamic().unreadable_overwrites().count(), 0);
    g.set_score(g.score() + 10);
    let noted: Vec<(&str, &str)> = g.as_dynamic().unreadable_overwrites().collect();
    assert_eq!(noted.len(), 1);
    assert_eq!(noted[0].0, "Score");
    assert!(noted[0].1.contains("Edm.String"), "{}", noted[0].1);
    g.allow_overwrite(Gamer::SCORE);
    assert_eq!(g.as_dynamic().unreadable_overwrites().count(), 0);
    // Allowed before the setter runs, too.
    let mut d = DynamicEntity::new("dragon", "");
    d.set("Level", 7);
    let mut g = GamerEntity::wrap(d);
    g.allow_overwrite(Gamer::LEVEL);
    g.set_level(Level::Castle);
    assert_eq!(g.as_dynamic().unreadable_overwrites().count(), 0);
}
