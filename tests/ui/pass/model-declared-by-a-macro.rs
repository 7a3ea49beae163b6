// A model written by a `macro_rules!` macro: its field types arrive as `$ty:ty`, wrapped in
// invisible groups, and must read as the types inside them.
use tablekit::prelude::*;

macro_rules! model {
    ($name:ident { $($(#[$attr:meta])* $field:ident: $ty:ty,)* }) => {
        #[derive(Debug, Clone, PartialEq, TableEntity)]
        #[tablekit(table = "Gamers")]
        pub struct $name {
            $($(#[$attr])* pub $field: $ty,)*
        }
    };
}

model!(Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(row_key(format = "yyyyMM"))]
    month: DateTime<Utc>,
    score: Option<i32>,
    badge: Vec<u8>,
    #[tablekit(records(max_properties = 2))]
    levels: Vec<Level>,
});

#[derive(Debug, Clone, PartialEq, Record)]
pub struct Level {
    pub number: i32,
}

fn main() {
    let mut gamer = GamerEntity::new("dragon", DateTime::UNIX_EPOCH);
    assert_eq!(gamer.row_key(), "197001");
    // `String` fields keep their `&str` accessors and `impl Into<String>` setters.
    gamer.set_tag("wyvern");
    assert_eq!(gamer.tag_str(), Some("wyvern"));
    assert_eq!(gamer.partition_key(), "wyvern");
    gamer.set_score(Some(7));
    gamer.set_badge(vec![1, 2]);
    gamer.set_levels(&[Level { number: 3 }]).unwrap();
    let model = gamer.to_model();
    assert_eq!((model.score, model.badge, model.levels.len()), (Some(7), vec![1, 2], 1));
    // A time range function, as for any key ending in a time that sorts.
    let filter = Gamer::row_key_between(DateTime::UNIX_EPOCH..);
    assert_eq!(filter.to_string(), "RowKey ge '197001' and RowKey lt '999913'");
    assert_eq!(Gamer::SCORE.gt(5).to_string(), "Score gt 5");
}
