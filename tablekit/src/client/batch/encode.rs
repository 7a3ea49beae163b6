//! The transaction's `multipart/mixed` body: each operation is encoded as it is added, so
//! [`Batch::encoded_len`] is the exact size of what [`Batch::encode`] writes and `submit` sends.

use std::borrow::Cow;
use std::ops::Range;

use super::{Batch, OperationKind};
use crate::client::error::Result;
use crate::client::multipart::{self, PartRequest};
use crate::model::table_model::TableModel;

impl<M: TableModel> Batch<M> {
    /// The exact size in bytes of the body [`submit`](Self::submit) would send now (at most
    /// 4 MiB: an operation that would pass the limit is refused by the method adding it).
    ///
    /// ```
    /// use tablekit::client::Table;
    /// use tablekit::DynamicEntity;
    /// # let dev = "UseDevelopmentStorage=true";
    /// # let client = tablekit::client::TableServiceClient::from_connection_string(dev)?;
    /// let table: Table = client.table_named("Orders");
    /// let mut batch = table.batch();
    /// let frame = batch.encoded_len(); // the boundaries alone
    /// let mut line = DynamicEntity::new("order-17", "line-1");
    /// line.set("Note", "x".repeat(1000));
    /// batch.insert(&line)?;
    /// assert!(batch.encoded_len() > frame + 1000);
    /// assert_eq!(batch.encoded_len(), batch.encode().len()); // exact, not an estimate
    /// # Ok::<(), tablekit::Error>(())
    /// ```
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

    pub(super) fn encode_part(
        &mut self,
        index: usize,
        kind: OperationKind,
        partition_key: &str,
        row_key: &str,
        if_match: Option<&str>,
        body: Option<&[u8]>,
    ) -> Result<(Vec<u8>, Option<Range<usize>>)> {
        let url = match kind {
            OperationKind::Insert => {
                self.insert_url()?;
                Cow::Borrowed(self.insert_url.as_deref().unwrap_or_default())
            }
            _ => Cow::Owned(self.url(&self.table.entity_path(partition_key, row_key)?)),
        };
        let method = match kind {
            OperationKind::Insert => "POST",
            OperationKind::UpsertMerge | OperationKind::Merge => "PATCH",
            OperationKind::UpsertReplace | OperationKind::Replace => "PUT",
            OperationKind::Delete => "DELETE",
        };
        let request = PartRequest {
            content_id: index,
            method,
            url: &url,
            if_match,
            prefer_no_content: kind == OperationKind::Insert,
            body,
        };
        let mut part =
            Vec::with_capacity(multipart::part_len_hint(&self.changeset_boundary, &request));
        multipart::encode_part(&self.changeset_boundary, &request, &mut part);
        // The body closes the part, before its final CRLF.
        let body = body.map(|b| {
            let end = part.len().saturating_sub(2);
            end.saturating_sub(b.len())..end
        });
        Ok((part, body))
    }

    /// The table's URL, which inserts post to: the same for every insert of the batch.
    pub(super) fn insert_url(&mut self) -> Result<&str> {
        if self.insert_url.is_none() {
            let path = format!("/{}", self.table.checked_name()?);
            self.insert_url = Some(self.url(&path));
        }
        Ok(self.insert_url.as_deref().unwrap_or_default())
    }

    pub(super) fn url(&self, path: &str) -> String {
        self.table.client().endpoint().url(path).into()
    }

    pub(super) fn head(&self) -> String {
        multipart::body_head(&self.batch_boundary, &self.changeset_boundary)
    }

    pub(super) fn tail(&self) -> String {
        multipart::body_tail(&self.batch_boundary, &self.changeset_boundary)
    }
}
