//! [`ReadCost`]: what a query page cost the server, when the server says.
//!
//! The Table service does not report how many entities it read to answer a query. The
//! tablekit emulator does, in two headers of its own on every read ([`EXAMINED_HEADER`] and
//! [`RETURNED_HEADER`]), and a [`Page`](crate::client::Page) carries them as
//! [`Page::server_cost`](crate::client::Page::server_cost), so a test or the `tablekit query
//! --explain` command can show what a filter made the server read.

use http::header::HeaderMap;

use super::transport::header_str;

/// The header with the entities a read examined (the tablekit emulator's own; Azure sends
/// none).
///
/// ```
/// assert_eq!(tablekit::client::EXAMINED_HEADER, "x-tablekit-entities-examined");
/// ```
pub const EXAMINED_HEADER: &str = "x-tablekit-entities-examined";
/// The header with the entities a read returned (the tablekit emulator's own; Azure sends
/// none).
///
/// ```
/// assert_eq!(tablekit::client::RETURNED_HEADER, "x-tablekit-entities-returned");
/// ```
pub const RETURNED_HEADER: &str = "x-tablekit-entities-returned";

/// The entities a server examined and returned to answer one query page.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::client::ReadCost;
/// use tablekit::{DynamicEntity, Filter, Query};
/// let emulator = tablekit_testing::Emulator::start().await?;
/// let gamers = emulator.client().table_named::<DynamicEntity>("Gamers");
/// gamers.create().await?;
/// for i in 0..20 {
///     gamers.insert(&mut DynamicEntity::new(format!("p{}", i % 4), i.to_string())).await?;
/// }
/// // A filter on a property reads every entity for the few it returns.
/// let query = Query::new().filter(Filter::raw("RowKey eq '7'")).allow_table_scan();
/// let page = gamers.query(query).first_page().await?;
/// assert_eq!(page.server_cost(), Some(ReadCost { examined: 20, returned: 1 }));
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReadCost {
    /// Stored entities the server read to answer.
    pub examined: u64,
    /// Entities in the answer.
    pub returned: u64,
}

impl ReadCost {
    /// The cost an answer's headers report; `None` when the server sent neither header
    /// (Azure, Azurite) or sent one that is not a number.
    pub(crate) fn from_headers(headers: &HeaderMap) -> Option<ReadCost> {
        let count = |name| header_str(headers, name)?.trim().parse::<u64>().ok();
        Some(ReadCost {
            examined: count(EXAMINED_HEADER)?,
            returned: count(RETURNED_HEADER)?,
        })
    }
}

impl std::ops::AddAssign for ReadCost {
    /// Sums the costs of several pages.
    fn add_assign(&mut self, other: ReadCost) {
        self.examined = self.examined.saturating_add(other.examined);
        self.returned = self.returned.saturating_add(other.returned);
    }
}

#[cfg(test)]
mod tests {
    use http::header::{HeaderMap, HeaderValue};

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn both_headers_make_a_cost_and_anything_else_none() {
        let both = headers(&[(EXAMINED_HEADER, "120"), (RETURNED_HEADER, "3")]);
        assert_eq!(
            ReadCost::from_headers(&both),
            Some(ReadCost {
                examined: 120,
                returned: 3
            })
        );
        assert_eq!(ReadCost::from_headers(&headers(&[])), None);
        let one = headers(&[(EXAMINED_HEADER, "120")]);
        assert_eq!(ReadCost::from_headers(&one), None);
        let garbage = headers(&[(EXAMINED_HEADER, "-1"), (RETURNED_HEADER, "x")]);
        assert_eq!(ReadCost::from_headers(&garbage), None);
    }

    #[test]
    fn costs_add_up_without_overflowing() {
        let mut total = ReadCost {
            examined: u64::MAX,
            returned: 1,
        };
        total += ReadCost {
            examined: 5,
            returned: 2,
        };
        assert_eq!((total.examined, total.returned), (u64::MAX, 3));
    }
}
