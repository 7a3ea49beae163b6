//! The tables in memory ([`store`]) and their durable copy: one redb file ([`database`]) that
//! concurrent writes share commits of ([`group_commit`]), the journal of earlier versions
//! ([`journal`]) read once to migrate it, and the entity form kept in memory ([`stored`]).

pub(crate) mod database;
pub(crate) mod dir_sync;
pub(crate) mod group_commit;
pub(crate) mod journal;
pub(crate) mod prefetch;
pub(crate) mod quiet_panic;
pub(crate) mod store;
pub(crate) mod stored;
