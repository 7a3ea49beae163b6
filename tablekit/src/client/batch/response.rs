//! Sending a transaction and reading its answer: the outcome of each operation, the failing
//! operation of a refused transaction, and the re-reads that settle a lost answer.

use http::Method;

use super::{Batch, OperationKind};
use crate::client::applied;
use crate::client::error::{Error, Result};
use crate::client::multipart::{self, PartResponse};
use crate::client::service_error::ServiceError;
use crate::client::transport::ServiceRequest;
use crate::model::index::UniqueViolation;
use crate::model::table_model::{TableEntity, TableModel};
use crate::protocol::limits::InvalidInput;
use crate::values::etag::ETag;

impl<M: TableModel> Batch<M> {
    /// Sends the transaction. On success every operation was applied and the outcome holds
    /// their new ETags; on failure the error is [`Error::Batch`] with the failing operation's
    /// index and the service's error ([`Error::UniqueViolation`] when it is the insert of a
    /// unique index's row, which another entity's value holds), or a transport error or
    /// timeout.
    ///
    /// A transaction is atomic, so the service applies it once or not at all; but an attempt
    /// whose answer was lost (connection dropped, timeout, 500/502/504) may have been the
    /// one, and the client's retry then fails on the rows it wrote (409 on an insert, 412 on
    /// a conditional write, 404 on a delete). The client then re-reads every row the
    /// transaction touched, a few at a time: if each is in the state its operation leaves,
    /// the transaction was applied and `submit` succeeds with the ETags read back
    /// ([`BatchOutcome::verified`]). Otherwise, and on any error that ends a transaction after
    /// such an attempt, [`Error::may_have_been_applied`] is true; when it is false, nothing
    /// was applied.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::{DynamicEntity, Error};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Orders");
    /// # table.create().await?;
    /// let mut batch = table.batch();
    /// batch.insert(&DynamicEntity::new("order-17", "line-1"))?;
    /// batch.insert(&DynamicEntity::new("order-17", "line-2"))?;
    /// let outcome = batch.submit().await?; // both applied
    /// assert_eq!(outcome.results().len(), 2);
    ///
    /// // line-2 exists now: the whole transaction fails, so line-3 is not inserted either
    /// let mut batch = table.batch();
    /// batch.insert(&DynamicEntity::new("order-17", "line-3"))?;
    /// batch.insert(&DynamicEntity::new("order-17", "line-2"))?;
    /// let err = batch.submit().await.unwrap_err();
    /// assert!(matches!(err, Error::Batch { index: Some(1), .. }));
    /// assert!(err.is_conflict());
    /// assert!(!err.may_have_been_applied()); // answered at once: nothing was applied
    /// assert!(table.get("order-17", "line-3").await?.is_none());
    /// # Ok(()) }
    /// ```
    pub async fn submit(self) -> Result<BatchOutcome> {
        self.submit_after(false).await
    }

    /// [`submit`](Self::submit), for a transaction whose earlier attempt, sent by the caller,
    /// may have been applied (`uncertain`): a failure that may be that attempt's echo is then
    /// verified by re-reading, and any other failure says that it may have been applied.
    pub(crate) async fn submit_after(self, uncertain: bool) -> Result<BatchOutcome> {
        let result = self.send(uncertain).await;
        match result {
            Err(error) if uncertain => Err(error.after_possibly_applied()),
            result => result,
        }
    }

    async fn send(self, uncertain: bool) -> Result<BatchOutcome> {
        if self.operations.is_empty() {
            return Err(InvalidInput::EmptyBatch.into());
        }
        self.table.checked_name()?;
        let mut call = ServiceRequest::new(Method::POST, "/$batch".to_owned());
        call.content_type = Some(self.content_type());
        call.body = self.encode().into();
        let reply = match self.table.client().transport().send(&call).await {
            Ok(reply) => reply,
            Err(Error::Service(mut e)) => {
                if uncertain {
                    e.mark_after_uncertain_attempt();
                }
                return self.settle(*e).await;
            }
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
        match failed_part(&parts, request_id) {
            Some(mut error) => {
                if reply.after_uncertain_attempt || uncertain {
                    error.mark_after_uncertain_attempt();
                }
                self.settle(error).await
            }
            None => self.outcome(parts),
        }
    }

    pub(super) fn outcome(&self, parts: Vec<PartResponse>) -> Result<BatchOutcome> {
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
                .zip(&self.operations)
                .map(|(p, operation)| OperationResult {
                    kind: operation.kind,
                    auxiliary: operation.auxiliary,
                    status: p.status,
                    etag: p.header("etag").map(ETag::new),
                })
                .collect(),
            verified: false,
        })
    }

    /// The transaction failed at an operation. After an attempt that may have been applied,
    /// the failure may be that attempt's echo (409 on an insert, 412 on a conditional write,
    /// 404 on a delete): if every row is as the transaction leaves it, it was applied.
    pub(super) async fn settle(&self, error: ServiceError) -> Result<BatchOutcome> {
        if applied::may_echo(&error) {
            if let Some(outcome) = self.verify().await {
                tracing::debug!(
                    outcome = "applied",
                    "transaction failed after a lost answer"
                );
                return Ok(outcome);
            }
            tracing::debug!(
                outcome = "unproven",
                "transaction failed after a lost answer"
            );
        }
        Err(self.operation_error(error))
    }

    /// Re-reads every row the transaction touched: the outcome, with the ETags read back,
    /// when each is in the state its operation leaves; `None` when any is not or cannot be
    /// read.
    pub(super) async fn verify(&self) -> Option<BatchOutcome> {
        let partition_key = self.partition_key.as_deref()?;
        let mut row_keys = vec![""; self.operations.len()];
        for (row_key, &index) in &self.rows {
            *row_keys.get_mut(index)? = row_key.as_str();
        }
        let expected = self
            .operations
            .iter()
            .zip(row_keys)
            .map(|(operation, row_key)| operation.expected(row_key))
            .collect::<Option<Vec<_>>>()?;
        let rows = applied::read_as_expected(&self.table, partition_key, &expected).await?;
        let results = rows
            .into_iter()
            .zip(&self.operations)
            .map(|(stored, operation)| OperationResult {
                kind: operation.kind,
                auxiliary: operation.auxiliary,
                // What the service answers each of these operations when it sends no entity.
                status: 204,
                etag: stored.and_then(|s| s.as_dynamic().etag().cloned()),
            })
            .collect();
        Some(BatchOutcome {
            results,
            verified: true,
        })
    }

    /// The failing operation's index: the service prefixes its message with `N:`; a
    /// one-operation transaction can only fail at 0.
    pub(super) fn operation_error(&self, error: ServiceError) -> Error {
        let index = failing_index(error.message())
            .filter(|i| *i < self.operations.len())
            .or((self.operations.len() == 1).then_some(0));
        let claim = index.and_then(|i| self.claims.iter().find(|c| c.operation == i));
        match (claim, &self.partition_key) {
            (Some(claim), Some(partition_key)) if error.status() == 409 => UniqueViolation {
                index: claim.index,
                partition_key: partition_key.clone(),
                value: claim.value.clone(),
            }
            .into(),
            _ => Error::Batch {
                index,
                source: Box::new(error),
            },
        }
    }
}

/// The service's error for the first operation that failed, if any did.
pub(super) fn failed_part(
    parts: &[PartResponse],
    request_id: Option<String>,
) -> Option<ServiceError> {
    let failed = parts.iter().find(|p| !(200..300).contains(&p.status))?;
    Some(ServiceError::from_response(
        failed.status,
        failed.header("x-ms-error-code").map(str::to_owned),
        request_id,
        &failed.body,
    ))
}

/// `2:The specified entity already exists.` -> 2.
pub(super) fn failing_index(message: &str) -> Option<usize> {
    let (digits, _) = message.split_once(':')?;
    digits.trim().parse().ok()
}

/// What a successful transaction answered, per operation, in order.
///
/// ```
/// # use tablekit::client::Table;
/// # use tablekit::DynamicEntity;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// let table: Table = client.table_named("Orders");
/// # table.create().await?;
/// let mut batch = table.batch();
/// batch.upsert_replace(&DynamicEntity::new("order-17", "line-1"))?;
/// let outcome = batch.submit().await?;
/// let stored = table.get("order-17", "line-1").await?.expect("written");
/// assert_eq!(outcome.etags(), [stored.etag()]); // the version now stored
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchOutcome {
    results: Vec<OperationResult>,
    verified: bool,
}

/// One operation's answer in a successful transaction.
///
/// ```
/// # use tablekit::client::Table;
/// # use tablekit::{DynamicEntity, ETag};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// let table: Table = client.table_named("Orders");
/// # table.create().await?;
/// # table.insert(&mut DynamicEntity::new("order-17", "line-1")).await?;
/// let mut batch = table.batch();
/// batch.insert(&DynamicEntity::new("order-17", "line-2"))?;
/// batch.delete_by_key("order-17", "line-1", &ETag::any())?;
/// let outcome = batch.submit().await?;
/// let (insert, delete) = (&outcome.results()[0], &outcome.results()[1]);
/// assert!(insert.etag().is_some());
/// assert!(delete.etag().is_none()); // nothing is stored any more
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperationResult {
    kind: OperationKind,
    /// An index or continuation row's operation, which no entity given to
    /// [`BatchOutcome::record_etags`] is paired with.
    auxiliary: bool,
    status: u16,
    etag: Option<ETag>,
}

impl OperationResult {
    /// What the operation was, in the order operations were added.
    pub fn kind(&self) -> OperationKind {
        self.kind
    }

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

    /// Whether the outcome was established by reading the rows back rather than from the
    /// service's answer. That happens when an attempt's answer was lost (its connection
    /// dropped, it timed out, or the service answered 500/502/504), the client's retry failed
    /// because that attempt had been applied (409 on an insert, 412 on a conditional write,
    /// 404 on a delete), and every row the transaction touched was then found in the state
    /// its operation leaves. The ETags are those read back and each status is 204.
    ///
    /// Content cannot tell our write from another writer's identical one (see the
    /// [retry notes](crate::client::RetryPolicy#retried-writes)): where that matters, give
    /// each write something unique, such as an owner id.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, Fault, Faults, Operation};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // the first transaction is carried out, then its connection drops before the answer
    /// let lost = Faults::seeded(1)
    ///     .rate(Fault::AppliedThenDropped, 1.0)
    ///     .only(&[Operation::Batch])
    ///     .at_most(1);
    /// let emulator = Emulator::builder().faults(lost).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
    ///     .build()?;
    /// let table = client.table_named::<DynamicEntity>("Orders");
    /// table.create().await?;
    /// let mut batch = table.batch();
    /// batch.insert(&DynamicEntity::new("order-17", "line-1"))?;
    /// batch.insert(&DynamicEntity::new("order-17", "line-2"))?;
    /// // the retry meets the rows the first attempt inserted: 409, then a re-read proves them ours
    /// let outcome = batch.submit().await?;
    /// assert!(outcome.verified());
    /// let stored = table.get("order-17", "line-2").await?.expect("inserted");
    /// assert_eq!(outcome.etags()[1], stored.etag());
    ///
    /// let mut batch = table.batch(); // answered as usual
    /// batch.insert(&DynamicEntity::new("order-17", "line-3"))?;
    /// assert!(!batch.submit().await?.verified());
    /// # Ok(()) }
    /// ```
    pub fn verified(&self) -> bool {
        self.verified
    }

    /// Records the new ETags on the entities written, given in the order they were added
    /// (skip deletes). The rows written beside them (index and continuation rows) are not
    /// paired with any.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Orders");
    /// # table.create().await?;
    /// let mut lines = vec![
    ///     DynamicEntity::new("order-17", "line-1"),
    ///     DynamicEntity::new("order-17", "line-2"),
    /// ];
    /// let mut batch = table.batch();
    /// for line in &lines {
    ///     batch.insert(line)?;
    /// }
    /// batch.submit().await?.record_etags(&mut lines);
    /// let stored = table.get("order-17", "line-2").await?.expect("inserted");
    /// assert_eq!(lines[1].etag(), stored.etag());
    /// lines[0].set("Qty", 5);
    /// table.merge(&mut lines[0]).await?; // If-Match: the ETag the transaction returned
    /// # Ok(()) }
    /// ```
    pub fn record_etags<'a, E: TableEntity + 'a>(
        &self,
        entities: impl IntoIterator<Item = &'a mut E>,
    ) {
        // Paired by kind, not by the ETag's presence: a write answered without one must
        // not hand its neighbour's ETag to the wrong entity.
        let written = self
            .results
            .iter()
            .filter(|r| r.kind != OperationKind::Delete && !r.auxiliary);
        for (entity, result) in entities.into_iter().zip(written) {
            let entity = entity.as_dynamic_mut();
            entity.set_etag(result.etag.clone());
            // What its setters replaced is stored now: a later write need not refuse it.
            entity.clear_overwrites();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::applied::Effect;
    use crate::client::Table;
    use crate::codec;
    use crate::values::entity::DynamicEntity;

    #[test]
    fn etags_go_to_the_writes_they_belong_to_even_when_one_is_missing() {
        let result = |kind, etag: Option<&str>| OperationResult {
            kind,
            auxiliary: false,
            status: 204,
            etag: etag.map(ETag::new),
        };
        let outcome = BatchOutcome {
            results: vec![
                result(OperationKind::Delete, None),
                result(OperationKind::Insert, None),
                result(OperationKind::Merge, Some("W/\"b\"")),
            ],
            verified: false,
        };
        let mut entities = [DynamicEntity::new("p", "1"), DynamicEntity::new("p", "2")];
        entities[0].set_etag(Some(ETag::new("W/\"stale\"")));
        outcome.record_etags(&mut entities);
        assert_eq!(entities[0].etag(), None);
        assert_eq!(entities[1].etag().map(ETag::as_str), Some("W/\"b\""));
    }

    #[test]
    fn each_operation_can_tell_the_state_it_leaves_from_its_encoded_part() {
        let client =
            crate::client::TableServiceClient::from_connection_string("UseDevelopmentStorage=true")
                .unwrap();
        let table: Table = client.table_named("Orders");
        let mut batch = table.batch();
        let mut line = DynamicEntity::new("order-17", "line-1");
        line.set("Qty", 3);
        line.set("Note", "a \"quoted\" note\r\n");
        batch.insert(&line).unwrap();
        let mut change = DynamicEntity::new("order-17", "line-2");
        change.set("Qty", 4);
        change.set_etag(Some(ETag::new("W/\"1\"")));
        batch.merge(&change).unwrap();
        batch
            .delete_by_key("order-17", "line-3", &ETag::any())
            .unwrap();

        let insert = &batch.operations[0];
        let body = insert.body.clone().and_then(|r| insert.part.get(r));
        assert_eq!(body, Some(&codec::encode_entity(&line)[..]));
        let expected = insert.expected("line-1").unwrap();
        assert_eq!(expected.effect, Effect::Exactly(line.clone()));
        assert_eq!(
            (expected.row_key.as_str(), expected.if_match),
            ("line-1", None)
        );
        let merge = batch.operations[1].expected("line-2").unwrap();
        change.set_etag(None);
        assert_eq!(merge.effect, Effect::Including(change));
        assert_eq!(merge.if_match.map(ETag::as_str), Some("W/\"1\""));
        let delete = batch.operations[2].expected("line-3").unwrap();
        assert_eq!(delete.effect, Effect::Absent);
        assert_eq!(delete.if_match, Some(&ETag::any()));
    }

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
