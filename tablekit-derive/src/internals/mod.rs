//! What the three derives share: the error context ([`ctxt`]), the attribute names
//! ([`symbol`]) and the parsing of their values ([`attr`]), the inspection of field types
//! ([`ty`]), the path generated code names everything by ([`hygiene`]), the names of hidden per-field items
//! ([`names`]) and what is generated
//! after a designed error ([`fallback`]).

pub(crate) mod attr;
pub(crate) mod ctxt;
pub(crate) mod fallback;
pub(crate) mod hygiene;
pub(crate) mod names;
pub(crate) mod symbol;
pub(crate) mod ty;
