//! Reading a table: the `$filter` language ([`filter`]) and one page of a query ([`scan`]).

pub mod filter;
pub(crate) mod scan;
