//! An entity's JSON object in the three OData metadata levels, byte for byte like the
//! service (see the protocol captures), alone or in a query page.
//!
//! `nometadata` sends bare values; `minimalmetadata` adds `odata.metadata`, `odata.etag` and an
//! `@odata.type` for every value JSON cannot type by itself (Int64, DateTime, Guid, Binary and
//! the non-finite Doubles); `fullmetadata` adds `odata.type`, `odata.id`, `odata.editLink` and
//! the Timestamp's annotation.

use tablekit::codec::{self as wire, DateTimeText, Fraction};
use tablekit::{DynamicEntity, Value};

use crate::format::datetime;
use crate::format::metadata::Metadata;
use crate::format::minimal_json::{annotation, etag_member};
use crate::format::response::{entity_path, member, string_member};
use crate::storage::stored::Stored;

/// Writes entities of one table at one metadata level.
pub(crate) struct EntityWriter<'a> {
    /// `http://host/account`.
    pub(crate) base: &'a str,
    pub(crate) account: &'a str,
    pub(crate) table: &'a str,
    pub(crate) level: Metadata,
    /// `$select`: only these names, missing ones as `null`.
    pub(crate) select: Option<&'a [String]>,
}

impl EntityWriter<'_> {
    /// A point query's or an insert's body.
    pub(crate) fn single(&self, entity: &Stored) -> Vec<u8> {
        let mut out = Vec::with_capacity(256);
        out.push(b'{');
        if self.level != Metadata::None {
            self.metadata_url(&mut out, "/@Element");
            out.push(b',');
        }
        self.members(&mut out, entity, false);
        out.push(b'}');
        out
    }

    /// A query page's body.
    pub(crate) fn page<'e, I>(&self, entities: I) -> Vec<u8>
    where
        I: IntoIterator<Item = &'e Stored>,
        I::IntoIter: Clone,
    {
        let entities = entities.into_iter();
        // Sized from the stored texts, so a page of 1000 entities is not copied as it grows.
        let per_entity = |e: &Stored| e.minimal_members().len() + 3;
        let extra = if self.level == Metadata::Full { 256 } else { 0 };
        let size: usize = entities.clone().map(|e| per_entity(e) + extra).sum();
        let mut out = Vec::with_capacity(128 + size);
        out.push(b'{');
        if self.level != Metadata::None {
            self.metadata_url(&mut out, "");
            out.push(b',');
        }
        out.extend_from_slice(b"\"value\":[");
        for (i, entity) in entities.enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'{');
            self.members(&mut out, entity, true);
            out.push(b'}');
        }
        out.extend_from_slice(b"]}");
        out
    }

    /// `"odata.metadata":"{base}/$metadata#{table}{suffix}"`.
    fn metadata_url(&self, out: &mut Vec<u8>, suffix: &str) {
        out.extend_from_slice(b"\"odata.metadata\":\"");
        wire::write_json_str_body(out, self.base);
        out.extend_from_slice(b"/$metadata#");
        wire::write_json_str_body(out, self.table);
        wire::write_json_str_body(out, suffix);
        out.push(b'"');
    }

    /// The members of an entity's object: its stored text when the answer is the common
    /// minimal metadata without `$select`, else written now.
    fn members(&self, out: &mut Vec<u8>, entity: &Stored, in_page: bool) {
        if self.level == Metadata::Minimal && self.select.is_none() {
            out.extend_from_slice(entity.minimal_members());
        } else {
            self.write_members(out, &entity.entity(), in_page);
        }
    }

    fn write_members(&self, out: &mut Vec<u8>, entity: &DynamicEntity, in_page: bool) {
        let timestamp = DateTimeText::new(&entity.timestamp().unwrap_or_default());
        match self.level {
            Metadata::None => {}
            Metadata::Minimal => etag_member(out, &timestamp),
            Metadata::Full => {
                let path = entity_path(self.table, entity);
                if in_page {
                    etag_member(out, &timestamp);
                }
                member(
                    out,
                    "odata.type",
                    &format!("{}.{}", self.account, self.table),
                );
                member(out, "odata.id", &format!("{}/{path}", self.base));
                if !in_page {
                    etag_member(out, &timestamp);
                }
                member(out, "odata.editLink", &path);
            }
        }
        let mut first = true;
        let mut sep = |out: &mut Vec<u8>| {
            if !first {
                out.push(b',');
            }
            first = false;
        };
        match self.select {
            None => {
                sep(out);
                string_member(out, "PartitionKey", entity.partition_key());
                sep(out);
                string_member(out, "RowKey", entity.row_key());
                for (name, value) in entity.properties() {
                    sep(out);
                    self.property(out, name, value);
                }
                sep(out);
                self.timestamp(out, &timestamp);
            }
            Some(names) => {
                for name in names {
                    sep(out);
                    match name.as_str() {
                        "PartitionKey" => string_member(out, name, entity.partition_key()),
                        "RowKey" => string_member(out, name, entity.row_key()),
                        "Timestamp" => self.timestamp(out, &timestamp),
                        _ => match entity.value(name) {
                            Some(value) => self.property(out, name, value),
                            None => {
                                wire::write_json_str(out, name);
                                out.extend_from_slice(b":null");
                            }
                        },
                    }
                }
            }
        }
        // An empty `$select` still needs valid JSON after the metadata members.
        if first && self.level != Metadata::None {
            out.pop();
        }
    }

    fn timestamp(&self, out: &mut Vec<u8>, timestamp: &DateTimeText) {
        if self.level == Metadata::Full {
            member(out, "Timestamp@odata.type", "Edm.DateTime");
        }
        out.extend_from_slice(b"\"Timestamp\":\"");
        datetime::write_seven(out, timestamp, b":");
        out.push(b'"');
    }

    fn property(&self, out: &mut Vec<u8>, name: &str, value: &Value) {
        if self.level != Metadata::None {
            if let Some(edm) = annotation(value) {
                // `"Name@odata.type":"Edm.X",`
                out.push(b'"');
                wire::write_json_str_body(out, name);
                out.extend_from_slice(b"@odata.type\":\"");
                out.extend_from_slice(edm.as_bytes());
                out.extend_from_slice(b"\",");
            }
        }
        wire::write_json_str(out, name);
        out.push(b':');
        wire::write_value(out, value, Fraction::Trimmed);
    }
}

/// The members of an entity's JSON object in minimal metadata, without `$select`: the
/// same in a page and alone, and independent of the table and host. Written by the general
/// writer: the reference that [`minimal_members_with`]'s output is checked against.
#[cfg(test)]
pub(crate) fn minimal_members(entity: &DynamicEntity) -> Vec<u8> {
    let writer = EntityWriter {
        base: "",
        account: "",
        table: "",
        level: Metadata::Minimal,
        select: None,
    };
    let mut out = Vec::with_capacity(crate::format::minimal_json::members_capacity(entity));
    writer.write_members(&mut out, entity, true);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured_entity() -> Stored {
        // captures/raw_metadata_levels.txt, entity p/r1, properties in the captured order.
        let mut e = DynamicEntity::new("p", "r1");
        e.set("I32", 42);
        e.set("I64", 1_234_567_890_123i64);
        e.set("D", 1.5);
        e.set("DWhole", 3.0);
        e.set("S", "x");
        e.set("B", true);
        e.set("G", uuid::Uuid::from_u128(1));
        e.set(
            "T",
            tablekit::codec::parse_datetime("2020-01-01T00:00:00Z").unwrap(),
        );
        e.set("Bin", vec![1u8, 2, 3]);
        e.set_timestamp(tablekit::codec::parse_datetime(
            "2026-11-22T11:42:25.2261896Z",
        ));
        Stored::new(e)
    }

    fn writer(level: Metadata) -> EntityWriter<'static> {
        EntityWriter {
            base: "http://127.0.0.1:10003/devstoreaccount1",
            account: "devstoreaccount1",
            table: "rawtest",
            level,
            select: None,
        }
    }

    #[test]
    fn the_three_levels_match_the_captures_byte_for_byte() {
        let e = captured_entity();
        assert_eq!(
            String::from_utf8(writer(Metadata::None).single(&e)).unwrap(),
            r#"{"PartitionKey":"p","RowKey":"r1","I32":42,"I64":"1234567890123","D":1.5,"DWhole":3.0,"S":"x","B":true,"G":"00000000-0000-0000-0000-000000000001","T":"2020-01-01T00:00:00Z","Bin":"AQID","Timestamp":"2026-11-22T11:42:25.2261896Z"}"#
        );
        assert_eq!(
            String::from_utf8(writer(Metadata::Minimal).single(&e)).unwrap(),
            r#"{"odata.metadata":"http://127.0.0.1:10003/devstoreaccount1/$metadata#rawtest/@Element","odata.etag":"W/\"datetime'2026-11-22T11%3A42%3A25.2261896Z'\"","PartitionKey":"p","RowKey":"r1","I32":42,"I64@odata.type":"Edm.Int64","I64":"1234567890123","D":1.5,"DWhole":3.0,"S":"x","B":true,"G@odata.type":"Edm.Guid","G":"00000000-0000-0000-0000-000000000001","T@odata.type":"Edm.DateTime","T":"2020-01-01T00:00:00Z","Bin@odata.type":"Edm.Binary","Bin":"AQID","Timestamp":"2026-11-22T11:42:25.2261896Z"}"#
        );
        assert_eq!(
            String::from_utf8(writer(Metadata::Full).single(&e)).unwrap(),
            r#"{"odata.metadata":"http://127.0.0.1:10003/devstoreaccount1/$metadata#rawtest/@Element","odata.type":"devstoreaccount1.rawtest","odata.id":"http://127.0.0.1:10003/devstoreaccount1/rawtest(PartitionKey='p',RowKey='r1')","odata.etag":"W/\"datetime'2026-11-22T11%3A42%3A25.2261896Z'\"","odata.editLink":"rawtest(PartitionKey='p',RowKey='r1')","PartitionKey":"p","RowKey":"r1","I32":42,"I64@odata.type":"Edm.Int64","I64":"1234567890123","D":1.5,"DWhole":3.0,"S":"x","B":true,"G@odata.type":"Edm.Guid","G":"00000000-0000-0000-0000-000000000001","T@odata.type":"Edm.DateTime","T":"2020-01-01T00:00:00Z","Bin@odata.type":"Edm.Binary","Bin":"AQID","Timestamp@odata.type":"Edm.DateTime","Timestamp":"2026-11-22T11:42:25.2261896Z"}"#
        );
    }

    #[test]
    fn minimal_pages_hold_the_same_members_as_single_answers() {
        let e = captured_entity();
        let single = String::from_utf8(writer(Metadata::Minimal).single(&e)).unwrap();
        let page = String::from_utf8(writer(Metadata::Minimal).page([&e, &e])).unwrap();
        let members = single.split_once(",").unwrap().1;
        assert_eq!(
            page,
            format!(
                r#"{{"odata.metadata":"http://127.0.0.1:10003/devstoreaccount1/$metadata#rawtest","value":[{{{members},{{{members}]}}"#
            )
        );
    }

    #[test]
    fn full_metadata_pages_put_the_etag_first_like_the_captures() {
        let e = captured_entity();
        let page = String::from_utf8(writer(Metadata::Full).page([&e])).unwrap();
        assert!(page.starts_with(r#"{"odata.metadata":"http://127.0.0.1:10003/devstoreaccount1/$metadata#rawtest","value":[{"odata.etag":"W/\"datetime'2026-11-22T11%3A42%3A25.2261896Z'\"","odata.type":"devstoreaccount1.rawtest","odata.id""#), "{page}");
    }

    #[test]
    fn only_non_finite_doubles_are_annotated() {
        let mut e = DynamicEntity::new("types", "nan1");
        e.set("X", f64::NAN);
        e.set("Y", f64::NEG_INFINITY);
        e.set("Z", 2.0);
        e.set_timestamp(tablekit::codec::parse_datetime(
            "2026-11-22T11:42:25.2572205Z",
        ));
        let body = String::from_utf8(writer(Metadata::Minimal).single(&Stored::new(e))).unwrap();
        assert!(body.contains(r#""X@odata.type":"Edm.Double","X":"NaN","Y@odata.type":"Edm.Double","Y":"-Infinity","Z":2.0,"#), "{body}");
    }

    #[test]
    fn select_answers_missing_properties_with_null() {
        let e = captured_entity();
        let names = vec!["I32".to_owned(), "Nope".to_owned()];
        let w = EntityWriter {
            select: Some(&names),
            ..writer(Metadata::None)
        };
        assert_eq!(
            String::from_utf8(w.page([&e])).unwrap(),
            r#"{"value":[{"I32":42,"Nope":null}]}"#
        );
        // The stored minimal text is the whole entity: a selection never uses it.
        let w = EntityWriter {
            select: Some(&names),
            ..writer(Metadata::Minimal)
        };
        assert!(String::from_utf8(w.page([&e]))
            .unwrap()
            .ends_with(r#""value":[{"odata.etag":"W/\"datetime'2026-11-22T11%3A42%3A25.2261896Z'\"","I32":42,"Nope":null}]}"#));
    }
}
