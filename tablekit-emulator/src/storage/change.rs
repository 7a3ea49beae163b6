//! A change to make durable, as a request queues it: it owns its data, so it can wait in the
//! [group commit](crate::storage::group_commit) queue after the request's locks are gone.

use std::sync::Arc;

use tablekit::client::SignedIdentifier;

use crate::storage::stored::Stored;

/// A change queued to be made durable.
#[derive(Debug)]
pub(crate) enum QueuedWrite {
    CreateTable {
        account: String,
        table: String,
    },
    DeleteTable {
        account: String,
        table: String,
    },
    Put {
        account: String,
        table: String,
        entity: Arc<Stored>,
    },
    Delete {
        account: String,
        table: String,
        partition_key: String,
        row_key: String,
    },
    SetPolicies {
        account: String,
        table: String,
        policies: Vec<SignedIdentifier>,
    },
}
