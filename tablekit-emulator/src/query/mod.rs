//! Reading a table: the `$filter` language ([`filter`]), one page of a query ([`scan`]), and
//! what reads cost ([`cost`]).

pub(crate) mod cost;
pub mod filter;
pub(crate) mod scan;
