//! The tables in memory ([`store`]) and their durable copy: a redb file ([`database`]) and
//! its write-ahead log ([`write_ahead_log`]), written by the [`committer`] in groups that
//! concurrent writes share ([`group_commit`]) and checkpointed in the background
//! ([`checkpointer`]); the journal of earlier versions ([`journal`])
//! read once to migrate it, and the entity form kept in memory ([`stored`]), which a plain
//! write's body is drafted into without decoding it ([`draft`]).

pub(crate) mod change;
pub(crate) mod checkpointer;
pub(crate) mod committer;
pub(crate) mod database;
pub(crate) mod dir_sync;
pub(crate) mod direct_file;
pub(crate) mod draft;
pub(crate) mod group_commit;
pub(crate) mod journal;
pub(crate) mod log_record;
pub(crate) mod prefetch;
pub(crate) mod quiet_panic;
pub(crate) mod store;
pub(crate) mod stored;
pub(crate) mod write_ahead_log;
