//! A stored entity together with its JSON text.
//!
//! Reads far outnumber writes, and nearly every read asks for minimal metadata without
//! `$select` (every Azure SDK does). Stored entities never change (a write stores a new
//! one), so their members are written once, right after the write that stored them, and
//! every later point get or query page copies those bytes instead of formatting dates,
//! numbers and escapes again.

use std::ops::Deref;
use std::sync::OnceLock;
use tablekit::client::SignedIdentifier;

use tablekit::DynamicEntity;

use crate::entity_json::{self, EntityText};

/// An entity as the store holds it; reads it like a [`DynamicEntity`].
#[derive(Debug)]
pub(crate) struct Stored {
    entity: DynamicEntity,
    /// The members of its minimal-metadata JSON object, without the braces.
    minimal: OnceLock<Box<[u8]>>,
}

impl Stored {
    /// Wraps an entity whose Timestamp is set; its text is written on first use.
    pub(crate) fn new(entity: DynamicEntity) -> Self {
        Stored {
            entity,
            minimal: OnceLock::new(),
        }
    }

    /// Writes the text now, so the reads that follow only copy it. Writers call this after
    /// releasing the table's lock, where it delays no one else.
    pub(crate) fn prepare(&self) {
        self.minimal_members();
    }
}

/// A table as read from disk: its account, its name as created and its entities.
#[derive(Debug)]
pub(crate) struct TableData {
    pub(crate) account: String,
    pub(crate) name: String,
    pub(crate) entities: Vec<Stored>,
    /// Its stored access policies.
    pub(crate) policies: Vec<SignedIdentifier>,
}

impl EntityText for Stored {
    /// Written the first time it is asked for, then kept.
    fn minimal_members(&self) -> &[u8] {
        self.minimal
            .get_or_init(|| entity_json::minimal_members(&self.entity).into_boxed_slice())
    }

    fn written_len(&self) -> Option<usize> {
        self.minimal.get().map(|text| text.len())
    }
}

impl Deref for Stored {
    type Target = DynamicEntity;

    fn deref(&self) -> &DynamicEntity {
        &self.entity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_written_once_and_kept() {
        let mut e = DynamicEntity::new("p", "r");
        e.set("N", 1);
        e.set_timestamp(Some(chrono::DateTime::from_timestamp(0, 0).unwrap()));
        let stored = Stored::new(e);
        let first = stored.minimal_members().as_ptr();
        assert_eq!(
            String::from_utf8_lossy(stored.minimal_members()),
            "\"odata.etag\":\"W/\\\"datetime'1970-01-01T00%3A00%3A00.0000000Z'\\\"\",\
             \"PartitionKey\":\"p\",\"RowKey\":\"r\",\"N\":1,\
             \"Timestamp\":\"1970-01-01T00:00:00.0000000Z\""
        );
        assert_eq!(stored.minimal_members().as_ptr(), first);
    }
}
