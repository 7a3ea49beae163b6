//! A crate that depends on tablekit under another name (`kit`) and re-exports it, as a crate
//! wrapping tablekit would: `::tablekit` does not exist here, so the derives reach tablekit
//! through `#[tablekit(crate = "..")]` and `#[record(crate = "..")]`. That this crate
//! compiles is the test of the override; its tests check that the generated code works.

use kit::prelude::{DateTime, Utc};

/// tablekit, re-exported under a path of this crate.
pub mod reexport {
    pub use kit as storage;
}

/// A level, stored by discriminant.
#[derive(Debug, Clone, Copy, PartialEq, Default, kit::TableValue)]
#[tablekit(crate = "::kit")]
pub enum Level {
    /// The first level.
    #[default]
    Dungeon,
    /// The second level.
    Castle,
}

/// A level a gamer completed, as a versioned record.
#[derive(Debug, Clone, PartialEq, kit::Record)]
#[record(version = 1, crate = "crate::reexport::storage")]
pub struct CompletedLevel {
    /// Which level.
    pub level: Level,
    /// How well, from version 1 on.
    #[record(since = 1)]
    pub stars: u8,
}

/// A gamer's month, named through the re-export.
#[derive(Debug, Clone, PartialEq, kit::TableEntity)]
#[tablekit(crate = "crate::reexport::storage", table = "Gamers", kind = "Month")]
pub struct Gamer {
    /// The gamer's tag.
    #[tablekit(partition_key, transform = lowercase)]
    pub tag: String,
    /// The month.
    #[tablekit(row_key(format = "yyyyMM"))]
    pub month: DateTime<Utc>,
    /// The current level.
    pub level: Level,
    /// The levels completed in the month.
    #[tablekit(records(max_properties = 2))]
    pub levels: Vec<CompletedLevel>,
    /// Friends, as JSON.
    #[tablekit(json)]
    pub friends: Vec<String>,
}

#[cfg(test)]
mod tests {
    use kit::{NamedTable, TableModel};

    use super::*;

    #[test]
    fn the_derives_work_through_a_renamed_dependency() {
        let mut gamer = GamerEntity::new("Dragon", DateTime::UNIX_EPOCH);
        gamer.set_level(Level::Castle);
        let completed = CompletedLevel {
            level: Level::Castle,
            stars: 3,
        };
        gamer.set_levels(std::slice::from_ref(&completed)).unwrap();
        gamer.set_friends(&vec!["wyvern".to_owned()]).unwrap();
        assert_eq!(
            (gamer.partition_key(), gamer.row_key()),
            ("dragon", "197001")
        );
        let model = gamer.to_model();
        assert_eq!(
            (model.level, model.levels),
            (Level::Castle, vec![completed])
        );
        assert_eq!(model.friends, ["wyvern"]);
        assert_eq!(<Gamer as NamedTable>::TABLE_NAME, "Gamers");
        assert!(<Gamer as TableModel>::DISCRIMINATOR.is_some());
        assert_eq!(Gamer::LEVEL.eq(Level::Castle).to_string(), "Level eq 1");
    }
}
