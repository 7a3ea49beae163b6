//! [`Batch`]: an entity group transaction (up to 100 operations on one partition, applied
//! all or nothing).
//!
//! Every rule is checked as operations are added, so a batch that would be refused never
//! exists: one PartitionKey, each RowKey once, at most 100 operations, a body of at most
//! 4 MiB. Operations are encoded when added, so [`Batch::encoded_len`] is the exact size of the
//! body that will be sent: a bulk writer packs batches by measured size by adding until
//! [`InvalidInput::BatchTooLarge`] or [`InvalidInput::TooManyOperations`] (the refused
//! operation is not added), then submitting and starting the next batch.

use std::collections::HashMap;
use std::fmt;

use reqwest::Method;

use super::multipart::{self, PartRequest, PartResponse};
use super::service_error::ServiceError;
use super::table::{required_etag, Table};
use super::transport::Call;
use crate::codec;
use crate::entity::DynamicEntity;
use crate::error::{Error, Result};
use crate::etag::ETag;
use crate::limits::{self, InvalidInput, KeyKind, MAX_BATCH_BYTES, MAX_BATCH_OPERATIONS};
use crate::model::{TableEntity, TableModel};

/// What one operation of a transaction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OperationKind {
    /// Insert a new entity.
    Insert,
    /// Insert, or merge into the stored entity.
    UpsertMerge,
    /// Insert, or replace the stored entity.
    UpsertReplace,
    /// Merge into the stored entity if its ETag matches.
    Merge,
    /// Replace the stored entity if its ETag matches.
    Replace,
    /// Delete the stored entity if its ETag matches.
    Delete,
}

struct Operation {
    kind: OperationKind,
    part: Vec<u8>,
}

/// An entity group transaction on one table, built operation by operation.
///
/// ```no_run
/// use tablekit::client::TableServiceClient;
/// use tablekit::DynamicEntity;
/// # async fn run() -> tablekit::Result<()> {
/// let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
/// let table = client.table_named::<DynamicEntity>("Orders");
/// let mut batch = table.batch();
/// for line in 0..3 {
///     let mut e = DynamicEntity::new("order-17", format!("line-{line}"));
///     e.set("Qty", line + 1);
///     batch.insert(&e)?;
/// }
/// assert!(batch.encoded_len() < 4 * 1024 * 1024);
/// let outcome = batch.submit().await?;     // all applied, or none
/// assert_eq!(outcome.etags().len(), 3);
/// # Ok(()) }
/// ```
pub struct Batch<M: TableModel> {
    table: Table<M>,
    batch_boundary: String,
    changeset_boundary: String,
    partition_key: Option<String>,
    operations: Vec<Operation>,
    /// Each operation's RowKey and index: a repeat is found without comparing every pair.
    rows: HashMap<String, usize>,
    parts_len: usize,
    /// The lengths of [`head`](Self::head) and [`tail`](Self::tail), fixed by the boundaries.
    frame_len: usize,
    /// The URL every insert posts to, made by the first insert.
    insert_url: Option<String>,
}

impl<M: TableModel> fmt::Debug for Batch<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("table", &self.table.name())
            .field("partition_key", &self.partition_key)
            .field(
                "operations",
                &self.operations.iter().map(|o| o.kind).collect::<Vec<_>>(),
            )
            .field("encoded_len", &self.encoded_len())
            .finish()
    }
}

impl<M: TableModel> Batch<M> {
    pub(crate) fn new(table: Table<M>) -> Self {
        let id = uuid::Uuid::new_v4();
        let mut batch = Batch {
            table,
            batch_boundary: format!("batch_{id}"),
            changeset_boundary: format!("changeset_{id}"),
            partition_key: None,
            operations: Vec::new(),
            rows: HashMap::new(),
            parts_len: 0,
            frame_len: 0,
            insert_url: None,
        };
        batch.frame_len = batch.head().len() + batch.tail().len();
        batch
    }

    /// Adds an insert.
    pub fn insert(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_write(OperationKind::Insert, entity.as_dynamic())
    }

    /// Adds an insert-or-merge.
    pub fn upsert_merge(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_write(OperationKind::UpsertMerge, entity.as_dynamic())
    }

    /// Adds an insert-or-replace.
    pub fn upsert_replace(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_write(OperationKind::UpsertReplace, entity.as_dynamic())
    }

    /// Adds a merge conditional on the entity's ETag ([`ETag::any`] for unconditional).
    pub fn merge(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_write(OperationKind::Merge, entity.as_dynamic())
    }

    /// Adds a replace conditional on the entity's ETag ([`ETag::any`] for unconditional).
    pub fn replace(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_write(OperationKind::Replace, entity.as_dynamic())
    }

    /// Adds a delete conditional on the entity's ETag ([`ETag::any`] for unconditional).
    pub fn delete(&mut self, entity: &M::Entity) -> Result<()> {
        let dynamic = entity.as_dynamic();
        let etag = required_etag(dynamic)?;
        self.delete_by_key(dynamic.partition_key(), dynamic.row_key(), &etag)
    }

    /// Adds a delete by keys, conditional on `etag` ([`ETag::any`] for unconditional).
    pub fn delete_by_key(&mut self, partition_key: &str, row_key: &str, etag: &ETag) -> Result<()> {
        limits::validate_key(KeyKind::PartitionKey, partition_key)?;
        limits::validate_key(KeyKind::RowKey, row_key)?;
        self.add(
            OperationKind::Delete,
            partition_key,
            row_key,
            Some(etag.as_str()),
            None,
        )
    }

    /// How many operations the transaction holds.
    pub fn len(&self) -> usize {
        self.operations.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.operations.is_empty()
    }

    /// The PartitionKey all operations share (`None` while empty).
    pub fn partition_key(&self) -> Option<&str> {
        self.partition_key.as_deref()
    }

    /// The kinds of the operations, in order.
    pub fn kinds(&self) -> impl ExactSizeIterator<Item = OperationKind> + '_ {
        self.operations.iter().map(|o| o.kind)
    }

    /// The exact size in bytes of the body [`submit`](Self::submit) would send now (at most
    /// 4 MiB: an operation that would pass the limit is refused by the method adding it).
    pub fn encoded_len(&self) -> usize {
        self.frame_len + self.parts_len
    }

    /// The `multipart/mixed` body as it would be sent.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(self.encoded_len());
        body.extend_from_slice(self.head().as_bytes());
        for operation in &self.operations {
            body.extend_from_slice(&operation.part);
        }
        body.extend_from_slice(self.tail().as_bytes());
        body
    }

    /// The request's `Content-Type`, naming the boundary.
    pub fn content_type(&self) -> String {
        format!("multipart/mixed; boundary={}", self.batch_boundary)
    }

    /// Sends the transaction. On success every operation was applied and the outcome holds
    /// their new ETags; on failure none was, and the error is [`Error::Batch`] with the failing
    /// operation's index and the service's error.
    pub async fn submit(self) -> Result<BatchOutcome> {
        if self.operations.is_empty() {
            return Err(InvalidInput::EmptyBatch.into());
        }
        self.table.checked_name()?;
        let mut call = Call::new(Method::POST, "/$batch".to_owned());
        call.content_type = Some(self.content_type());
        call.body = self.encode().into();
        let reply = match self.table.client().transport().send(&call).await {
            Ok(reply) => reply,
            Err(Error::Service(e)) => return Err(self.operation_error(*e)),
            Err(e) => return Err(e),
        };
        let boundary = reply
            .header("content-type")
            .and_then(multipart::boundary)
            .ok_or_else(|| Error::decode("transaction response", "no multipart boundary"))?
            .to_owned();
        let parts = multipart::decode_response(&reply.body, &boundary)
            .ok_or_else(|| Error::decode("transaction response", "malformed multipart body"))?;
        let request_id = reply.header("x-ms-request-id").map(str::to_owned);
        self.outcome(parts, request_id)
    }

    fn outcome(
        &self,
        parts: Vec<PartResponse>,
        request_id: Option<String>,
    ) -> Result<BatchOutcome> {
        if let Some(failed) = parts.iter().find(|p| !(200..300).contains(&p.status)) {
            let error = ServiceError::from_response(
                failed.status,
                failed.header("x-ms-error-code").map(str::to_owned),
                request_id,
                &failed.body,
            );
            return Err(self.operation_error(error));
        }
        if parts.len() != self.operations.len() {
            return Err(Error::decode(
                "transaction response",
                format!(
                    "{} operations sent, {} answers received",
                    self.operations.len(),
                    parts.len()
                ),
            ));
        }
        Ok(BatchOutcome {
            results: parts
                .into_iter()
                .map(|p| OperationResult {
                    status: p.status,
                    etag: p.header("etag").map(ETag::new),
                })
                .collect(),
        })
    }

    /// The failing operation's index: the service prefixes its message with `N:`; a
    /// one-operation transaction can only fail at 0.
    fn operation_error(&self, error: ServiceError) -> Error {
        let index = failing_index(error.message())
            .filter(|i| *i < self.operations.len())
            .or((self.operations.len() == 1).then_some(0));
        Error::Batch {
            index,
            source: Box::new(error),
        }
    }

    fn add_write(&mut self, kind: OperationKind, entity: &DynamicEntity) -> Result<()> {
        let etag = match kind {
            OperationKind::Merge | OperationKind::Replace => Some(required_etag(entity)?),
            _ => None,
        };
        limits::validate_entity(entity)?;
        let body = codec::encode_entity(entity);
        self.add(
            kind,
            entity.partition_key(),
            entity.row_key(),
            etag.as_ref().map(ETag::as_str),
            Some(&body),
        )
    }

    /// Checks the transaction rules, encodes the part, and adds it; on error nothing changes.
    fn add(
        &mut self,
        kind: OperationKind,
        partition_key: &str,
        row_key: &str,
        if_match: Option<&str>,
        body: Option<&[u8]>,
    ) -> Result<()> {
        let index = self.operations.len();
        if index >= MAX_BATCH_OPERATIONS {
            return Err(InvalidInput::TooManyOperations { count: index + 1 }.into());
        }
        if let Some(expected) = &self.partition_key {
            if expected != partition_key {
                return Err(InvalidInput::MixedPartitions {
                    index,
                    expected: expected.clone(),
                    found: partition_key.to_owned(),
                }
                .into());
            }
        }
        if let Some(&first) = self.rows.get(row_key) {
            return Err(InvalidInput::DuplicateRow {
                first,
                second: index,
                row_key: row_key.to_owned(),
            }
            .into());
        }
        let part = self.encode_part(index, kind, partition_key, row_key, if_match, body)?;
        let bytes = self.encoded_len() + part.len();
        if bytes > MAX_BATCH_BYTES {
            return Err(InvalidInput::BatchTooLarge { bytes }.into());
        }
        self.parts_len += part.len();
        self.partition_key
            .get_or_insert_with(|| partition_key.to_owned());
        self.rows.insert(row_key.to_owned(), index);
        self.operations.push(Operation { kind, part });
        Ok(())
    }

    fn encode_part(
        &mut self,
        index: usize,
        kind: OperationKind,
        partition_key: &str,
        row_key: &str,
        if_match: Option<&str>,
        body: Option<&[u8]>,
    ) -> Result<Vec<u8>> {
        let url = match kind {
            OperationKind::Insert => self.insert_url()?.to_owned(),
            _ => self.url(&self.table.entity_path(partition_key, row_key)?),
        };
        let method = match kind {
            OperationKind::Insert => "POST",
            OperationKind::UpsertMerge | OperationKind::Merge => "PATCH",
            OperationKind::UpsertReplace | OperationKind::Replace => "PUT",
            OperationKind::Delete => "DELETE",
        };
        let mut part = Vec::with_capacity(256 + body.map_or(0, <[u8]>::len));
        multipart::encode_part(
            &self.changeset_boundary,
            &PartRequest {
                content_id: index,
                method,
                url: &url,
                if_match,
                prefer_no_content: kind == OperationKind::Insert,
                body,
            },
            &mut part,
        );
        Ok(part)
    }

    /// The table's URL, which inserts post to: the same for every insert of the batch.
    fn insert_url(&mut self) -> Result<&str> {
        if self.insert_url.is_none() {
            let path = format!("/{}", self.table.checked_name()?);
            self.insert_url = Some(self.url(&path));
        }
        Ok(self.insert_url.as_deref().unwrap_or_default())
    }

    fn url(&self, path: &str) -> String {
        self.table.client().endpoint().url(path).into()
    }

    fn head(&self) -> String {
        multipart::body_head(&self.batch_boundary, &self.changeset_boundary)
    }

    fn tail(&self) -> String {
        multipart::body_tail(&self.batch_boundary, &self.changeset_boundary)
    }
}

/// `2:The specified entity already exists.` -> 2.
fn failing_index(message: &str) -> Option<usize> {
    let (digits, _) = message.split_once(':')?;
    digits.trim().parse().ok()
}

/// What a successful transaction answered, per operation, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchOutcome {
    results: Vec<OperationResult>,
}

/// One operation's answer in a successful transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperationResult {
    status: u16,
    etag: Option<ETag>,
}

impl OperationResult {
    /// The HTTP status (201 or 204).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The entity's new ETag (`None` for a delete).
    pub fn etag(&self) -> Option<&ETag> {
        self.etag.as_ref()
    }
}

impl BatchOutcome {
    /// The per-operation results, in the order the operations were added.
    pub fn results(&self) -> &[OperationResult] {
        &self.results
    }

    /// The new ETags, in operation order (`None` for deletes).
    pub fn etags(&self) -> Vec<Option<&ETag>> {
        self.results.iter().map(OperationResult::etag).collect()
    }

    /// Records the new ETags on the entities written, given in the order they were added
    /// (skip deletes).
    pub fn record_etags<'a, E: TableEntity + 'a>(
        &self,
        entities: impl IntoIterator<Item = &'a mut E>,
    ) {
        let written = self.results.iter().filter(|r| r.etag.is_some());
        for (entity, result) in entities.into_iter().zip(written) {
            entity.as_dynamic_mut().set_etag(result.etag.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_failing_index() {
        assert_eq!(
            failing_index("2:The specified entity already exists."),
            Some(2)
        );
        assert_eq!(failing_index("The specified entity already exists."), None);
        assert_eq!(failing_index("99999999999999999999999:x"), None);
    }
}
