//! The bytes of one commit group: the changes of the requests it makes durable, in order.
//! The [write-ahead log](crate::storage::write_ahead_log) keeps them, and the
//! [database](crate::storage::database) applies them by reading them back, so the log and the
//! file are written from the same bytes, and a replay after a crash takes the same path.
//!
//! Layout (integers little-endian): the number of records (u32), then each record: a tag
//! byte, then its fields; a text is its length (u32) and its UTF-8 bytes.
//!
//! | tag | record        | fields                                                     |
//! |-----|---------------|------------------------------------------------------------|
//! | 1   | create table  | account, table                                             |
//! | 2   | delete table  | account, table                                             |
//! | 3   | put           | account, table, PartitionKey, RowKey, Timestamp (i64 ticks), [entity JSON](crate::storage::stored::Stored::object) |
//! | 4   | delete        | account, table, PartitionKey, RowKey                       |
//! | 5   | set policies  | account, table, the `SignedIdentifiers` XML (empty: none)  |
//!
//! Reading never trusts the bytes: a length past the end, a text that is not UTF-8 or an
//! unknown tag is an error, never a panic (the log's checksums make one unlikely).

use tablekit::client::access_policies_to_xml;
use tablekit::value;

use crate::storage::change::QueuedWrite;

/// One change, read from a group's bytes (borrowing them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Record<'a> {
    CreateTable {
        account: &'a str,
        table: &'a str,
    },
    DeleteTable {
        account: &'a str,
        table: &'a str,
    },
    Put {
        account: &'a str,
        table: &'a str,
        partition_key: &'a str,
        row_key: &'a str,
        ticks: i64,
        json: &'a [u8],
    },
    Delete {
        account: &'a str,
        table: &'a str,
        partition_key: &'a str,
        row_key: &'a str,
    },
    SetPolicies {
        account: &'a str,
        table: &'a str,
        /// The policies as the service's XML; empty when there are none.
        xml: &'a str,
    },
}

impl<'a> Record<'a> {
    /// The account and the table (as named in the request) that the change is to.
    pub(crate) fn table(&self) -> (&'a str, &'a str) {
        match *self {
            Record::CreateTable { account, table }
            | Record::DeleteTable { account, table }
            | Record::Put { account, table, .. }
            | Record::Delete { account, table, .. }
            | Record::SetPolicies { account, table, .. } => (account, table),
        }
    }
}

const CREATE_TABLE: u8 = 1;
const DELETE_TABLE: u8 = 2;
const PUT: u8 = 3;
const DELETE: u8 = 4;
const SET_POLICIES: u8 = 5;

/// The bytes of a group of changes.
pub(crate) fn encode(writes: &[QueuedWrite]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + writes.len() * 256);
    push_len(&mut out, writes.len());
    for write in writes {
        match write {
            QueuedWrite::CreateTable { account, table } => {
                out.push(CREATE_TABLE);
                push_texts(&mut out, &[account, table]);
            }
            QueuedWrite::DeleteTable { account, table } => {
                out.push(DELETE_TABLE);
                push_texts(&mut out, &[account, table]);
            }
            QueuedWrite::Put {
                account,
                table,
                entity,
            } => {
                out.push(PUT);
                let (pk, rk) = (entity.partition_key(), entity.row_key());
                push_texts(&mut out, &[account, table, &pk, &rk]);
                out.extend_from_slice(&value::to_ticks(&entity.timestamp()).to_le_bytes());
                push_bytes(&mut out, &entity.object());
            }
            QueuedWrite::Delete {
                account,
                table,
                partition_key,
                row_key,
            } => {
                out.push(DELETE);
                push_texts(&mut out, &[account, table, partition_key, row_key]);
            }
            QueuedWrite::SetPolicies {
                account,
                table,
                policies,
            } => {
                out.push(SET_POLICIES);
                let xml = match policies.is_empty() {
                    true => String::new(),
                    false => access_policies_to_xml(policies),
                };
                push_texts(&mut out, &[account, table, &xml]);
            }
        }
    }
    out
}

fn push_len(out: &mut Vec<u8>, len: usize) {
    // Every length here is bounded by a request body (a few MiB), far below u32::MAX.
    out.extend_from_slice(&(len as u32).to_le_bytes());
}

fn push_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    push_len(out, bytes.len());
    out.extend_from_slice(bytes);
}

fn push_texts(out: &mut Vec<u8>, texts: &[&str]) {
    for text in texts {
        push_bytes(out, text.as_bytes());
    }
}

/// The changes in a group's bytes, in order; what is wrong with them when they do not read.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Record<'_>>, String> {
    let mut reader = Reader { bytes, at: 0 };
    let count = reader.len()?;
    // Each record takes at least nine bytes: a bound before reserving room for them.
    if count > bytes.len() / 9 {
        return Err(format!(
            "it claims {count} records in {} bytes",
            bytes.len()
        ));
    }
    let mut records = Vec::with_capacity(count);
    for _ in 0..count {
        records.push(reader.record()?);
    }
    if reader.at != bytes.len() {
        return Err(format!(
            "{} bytes follow its last record",
            bytes.len() - reader.at
        ));
    }
    Ok(records)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| format!("a field at byte {} runs past the end", self.at))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn len(&mut self) -> Result<usize, String> {
        Ok(u32::from_le_bytes(self.array()?) as usize)
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let len = self.len()?;
        self.take(len)
    }

    fn text(&mut self) -> Result<&'a str, String> {
        let at = self.at;
        std::str::from_utf8(self.bytes()?)
            .map_err(|_| format!("the text at byte {at} is not UTF-8"))
    }

    fn record(&mut self) -> Result<Record<'a>, String> {
        let at = self.at;
        let [tag] = self.array()?;
        let (account, table) = (self.text()?, self.text()?);
        Ok(match tag {
            CREATE_TABLE => Record::CreateTable { account, table },
            DELETE_TABLE => Record::DeleteTable { account, table },
            PUT => Record::Put {
                account,
                table,
                partition_key: self.text()?,
                row_key: self.text()?,
                ticks: i64::from_le_bytes(self.array()?),
                json: self.bytes()?,
            },
            DELETE => Record::Delete {
                account,
                table,
                partition_key: self.text()?,
                row_key: self.text()?,
            },
            SET_POLICIES => Record::SetPolicies {
                account,
                table,
                xml: self.text()?,
            },
            tag => return Err(format!("the record at byte {at} has unknown tag {tag}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tablekit::client::{AccessPolicy, SignedIdentifier};
    use tablekit::codec;
    use tablekit::DynamicEntity;

    use crate::storage::stored::Stored;

    fn group() -> Vec<QueuedWrite> {
        let mut e = DynamicEntity::new("p ü", "r\"1");
        e.set("N", 7);
        e.set_timestamp(value::from_ticks(638_000_000_000_000_001));
        let (account, table) = (|| "acct".to_owned(), || "Orders".to_owned());
        vec![
            QueuedWrite::CreateTable {
                account: account(),
                table: table(),
            },
            QueuedWrite::Put {
                account: account(),
                table: table(),
                entity: Arc::new(Stored::new(e)),
            },
            QueuedWrite::Delete {
                account: account(),
                table: table(),
                partition_key: "p".into(),
                row_key: "gone".into(),
            },
            QueuedWrite::SetPolicies {
                account: account(),
                table: table(),
                policies: vec![SignedIdentifier::new("readers", AccessPolicy::new())],
            },
            QueuedWrite::SetPolicies {
                account: account(),
                table: table(),
                policies: Vec::new(),
            },
            QueuedWrite::DeleteTable {
                account: account(),
                table: table(),
            },
        ]
    }

    #[test]
    fn a_group_reads_back_as_written() {
        let bytes = encode(&group());
        let records = decode(&bytes).unwrap();
        assert_eq!(records.len(), 6);
        let Record::Put {
            partition_key,
            row_key,
            ticks,
            json,
            ..
        } = &records[1]
        else {
            panic!("{records:?}")
        };
        assert_eq!((*partition_key, *row_key), ("p ü", "r\"1"));
        assert_eq!(*ticks, 638_000_000_000_000_001);
        let entity = codec::decode_entity(json).unwrap();
        assert_eq!(entity.get::<i32>("N"), Some(7));
        assert!(matches!(records[3], Record::SetPolicies { xml, .. } if xml.contains("readers")));
        assert!(matches!(records[4], Record::SetPolicies { xml: "", .. }));
        assert_eq!(
            records[5],
            Record::DeleteTable {
                account: "acct",
                table: "Orders"
            }
        );
    }

    #[test]
    fn every_cut_and_every_changed_byte_is_an_error_or_a_group_never_a_panic() {
        let bytes = encode(&group());
        for end in 0..bytes.len() {
            assert!(decode(&bytes[..end]).is_err(), "cut at {end}");
        }
        for at in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut changed = bytes.clone();
                changed[at] ^= flip;
                let _ = decode(&changed);
            }
        }
        assert!(decode(&[0xff, 0xff, 0xff, 0xff]).is_err());
    }
}
