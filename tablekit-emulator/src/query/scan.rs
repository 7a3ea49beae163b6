//! One page of a query: seek to the first key the filter's key range and the continuation
//! allow, walk the table in key order until the range ends or the page is full, and keep
//! the entities the whole filter (and a SAS's key range) accepts.
//!
//! A narrow `RowKey` range in a large partition reads only its own entities, and a
//! continuation starts exactly at `NextPartitionKey`/`NextRowKey`, so paging through a
//! table is linear, not quadratic.

use std::sync::Arc;

use crate::query::filter::{KeyRange, ParsedFilter};
use crate::storage::prefetch::prefetch_bytes;
use crate::storage::store::{EntityKey, Key, Table};
use crate::storage::stored::Stored;

/// One page: its entities (shared), the key the next page starts at, and what it cost.
pub(crate) struct Page {
    pub(crate) entities: Vec<Arc<Stored>>,
    pub(crate) next: Option<EntityKey>,
    /// Stored entities read to find them: those in the key range up to the page's end,
    /// whether or not the filter kept them.
    pub(crate) examined: u64,
}

/// Reads up to `top` matching entities from `start` (a continuation) on; `allowed` filters
/// keys (a SAS's range).
pub(crate) fn page(
    table: &Table,
    filter: Option<&ParsedFilter>,
    start: Option<EntityKey>,
    top: usize,
    allowed: impl Fn(&str, &str) -> bool,
) -> Page {
    let range = filter.map(ParsedFilter::key_range).unwrap_or_default();
    let mut first = first_key(&range);
    if let Some(start) = start {
        first = first.max(start);
    }
    let mut page = Vec::new();
    let mut examined = 0;
    let entries = table.entities.range(first..);
    // Without a filter every entity read is returned, and the page's writing waits for
    // memory no more than reading ahead would.
    let mut ahead = filter.map(|filter| Ahead::new(entries.clone(), filter));
    for (key, entity) in entries {
        if let Some(ahead) = &mut ahead {
            ahead.step();
        }
        if is_past(&range, key) {
            break;
        }
        examined += 1;
        if !allowed(&key.0 .0, &key.1 .0) || filter.is_some_and(|f| !f.matches(&**entity)) {
            continue;
        }
        if page.len() == top {
            return Page {
                entities: page,
                next: Some(key.clone()),
                examined,
            };
        }
        page.push(entity.clone());
    }
    Page {
        entities: page,
        next: None,
        examined,
    }
}

/// How far ahead of a filtered scan its stored entities are asked for, then (once those
/// have arrived) their indexes, then the properties the filter reads. Each load needs the
/// one before it; far enough apart that the loads of several entities overlap, near enough
/// that they are still in cache when the scan reaches them.
const ENTITIES_AHEAD: usize = 12;
const INDEXES_AHEAD: usize = 8;
const PROPERTIES_AHEAD: usize = 4;

/// Walks a filtered scan's entries ahead of it, prefetching what the scan will read: most
/// of a large table is not in cache, and a scan that waits for each entity, then for its
/// index, then for its properties spends most of its time waiting.
struct Ahead<'a, I> {
    entities: I,
    indexes: I,
    properties: I,
    filter: &'a ParsedFilter,
}

impl<'a, I> Ahead<'a, I>
where
    I: Iterator<Item = (&'a EntityKey, &'a Arc<Stored>)> + Clone,
{
    fn new(entries: I, filter: &'a ParsedFilter) -> Self {
        let mut ahead = Ahead {
            entities: entries.clone(),
            indexes: entries.clone(),
            properties: entries,
            filter,
        };
        for _ in 0..ENTITIES_AHEAD {
            ahead.step_entities();
        }
        for _ in 0..INDEXES_AHEAD {
            ahead.step_indexes();
        }
        for _ in 0..PROPERTIES_AHEAD {
            ahead.step_properties();
        }
        ahead
    }

    /// Moves every distance on by one entry.
    fn step(&mut self) {
        self.step_entities();
        self.step_indexes();
        self.step_properties();
    }

    /// The stored entity, with the reference counts before it that a page's clone writes.
    fn step_entities(&mut self) {
        if let Some((_, entity)) = self.entities.next() {
            let counts = 2 * std::mem::size_of::<usize>();
            let start = Arc::as_ptr(entity).cast::<u8>().wrapping_sub(counts);
            prefetch_bytes(start, counts + std::mem::size_of::<Stored>());
        }
    }

    fn step_indexes(&mut self) {
        if let Some((_, entity)) = self.indexes.next() {
            entity.prefetch_index();
        }
    }

    fn step_properties(&mut self) {
        if let Some((_, entity)) = self.properties.next() {
            self.filter.prefetch(&**entity);
        }
    }
}

/// The smallest key in the range. The RowKey bounds count only when the PartitionKey is a
/// single value: otherwise every partition has rows below them.
fn first_key(range: &KeyRange) -> EntityKey {
    let partition = range.partition.first_key();
    let row = match range.partition.single() {
        Some(_) => range.row.first_key(),
        None => String::new(),
    };
    (Key(partition.into()), Key(row.into()))
}

/// Whether `key` and every key after it lie outside the range.
fn is_past(range: &KeyRange, (partition, row): &EntityKey) -> bool {
    if range.partition.is_above(&partition.0) {
        return true;
    }
    match range.partition.single() {
        Some(only) => partition.0 == only && range.row.is_above(&row.0),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::store::entity_key;
    use proptest::prelude::*;
    use tablekit::DynamicEntity;

    /// Keys from a small alphabet (so ranges hit and miss), including characters whose
    /// UTF-16 order differs from their byte order.
    const KEY: &str = "[0ab\u{FF61}\u{1F600}]{0,3}";

    fn table(keys: &[(String, String)]) -> Table {
        let mut table = Table::default();
        for (n, (pk, rk)) in keys.iter().enumerate() {
            let mut e = DynamicEntity::new(pk.as_str(), rk.as_str());
            e.set("N", n as i32);
            table
                .entities
                .insert(entity_key(pk, rk), Arc::new(Stored::new(e)));
        }
        table
    }

    /// Every match, page by page through continuations.
    fn all_pages(table: &Table, filter: &ParsedFilter, top: usize) -> Vec<EntityKey> {
        let mut start = None;
        let mut seen = Vec::new();
        loop {
            let Page {
                entities: page,
                next,
                ..
            } = page(table, Some(filter), start, top, |_, _| true);
            assert!(page.len() <= top);
            seen.extend(
                page.iter()
                    .map(|e| entity_key(&e.partition_key(), &e.row_key())),
            );
            match next {
                Some(key) => start = Some(key),
                None => return seen,
            }
        }
    }

    /// What a full scan with the filter returns.
    fn scanned(table: &Table, filter: &ParsedFilter) -> Vec<EntityKey> {
        table
            .entities
            .iter()
            .filter(|(_, e)| filter.matches(&***e))
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn comparison() -> impl Strategy<Value = String> {
        (
            prop_oneof![Just("PartitionKey"), Just("RowKey")],
            prop_oneof![
                Just("eq"),
                Just("ne"),
                Just("gt"),
                Just("ge"),
                Just("lt"),
                Just("le")
            ],
            KEY,
            any::<bool>(),
        )
            .prop_map(|(name, op, value, flipped)| {
                if flipped {
                    format!("'{value}' {op} {name}")
                } else {
                    format!("{name} {op} '{value}'")
                }
            })
    }

    /// Conjunctions of key comparisons, sometimes with an `or`, a `not` or a property
    /// comparison mixed in (which the range must ignore, not misuse).
    fn filter_text() -> impl Strategy<Value = String> {
        let term = prop_oneof![
            4 => comparison(),
            1 => (comparison(), comparison()).prop_map(|(a, b)| format!("({a} or {b})")),
            1 => comparison().prop_map(|c| format!("not ({c})")),
            1 => (0i32..20).prop_map(|n| format!("N lt {n}")),
        ];
        proptest::collection::vec(term, 1..5).prop_map(|terms| terms.join(" and "))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn range_seeks_return_what_a_full_scan_returns(
            keys in proptest::collection::vec((KEY, KEY), 0..40),
            text in filter_text(),
            top in 1usize..6,
        ) {
            let table = table(&keys);
            let filter = ParsedFilter::parse(&text).unwrap();
            prop_assert_eq!(all_pages(&table, &filter, top), scanned(&table, &filter), "{}", text);
        }
    }

    #[test]
    fn a_narrow_row_range_reads_only_its_rows() {
        let keys: Vec<(String, String)> = (0..1000)
            .map(|n| ("p".to_owned(), format!("{n:04}")))
            .collect();
        let table = table(&keys);
        let filter =
            ParsedFilter::parse("PartitionKey eq 'p' and RowKey ge '0500' and RowKey lt '0503'")
                .unwrap();
        let visited = std::cell::Cell::new(0);
        let read = page(&table, Some(&filter), None, 1000, |_, _| {
            visited.set(visited.get() + 1);
            true
        });
        assert_eq!(read.entities.len(), 3);
        assert_eq!(read.next, None);
        assert_eq!(visited.get(), 3, "only the rows in the range were read");
        assert_eq!(read.examined, 3, "and only they are counted");
    }

    #[test]
    fn continuations_resume_at_their_key() {
        let keys: Vec<(String, String)> = (0..10)
            .map(|n| (format!("p{}", n % 2), format!("{n}")))
            .collect();
        let table = table(&keys);
        let Page {
            entities: first,
            next,
            ..
        } = page(&table, None, None, 3, |_, _| true);
        assert_eq!(first.len(), 3);
        let next = next.unwrap();
        let rest = page(&table, None, Some(next.clone()), 100, |_, _| true).entities;
        let first_of_rest = rest.first().unwrap();
        assert_eq!(
            entity_key(&first_of_rest.partition_key(), &first_of_rest.row_key()),
            next
        );
        assert_eq!(first.len() + rest.len(), 10);
    }
}
