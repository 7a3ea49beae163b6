//! [`Table<M>`]: the typed handle application repositories are built on: which table, on
//! which client, read as which model; the table's own operations and the point read.
//!
//! Every operation validates before sending (table name, keys, property names and values,
//! entity size), so a call the service would refuse fails with [`Error::InvalidInput`] and
//! nothing is sent. The operations on entities build on this handle, each in its own module
//! above it (the writes in `write`, queries in `pages`, transactions in `batch`, the re-reads
//! that settle a lost answer in `applied`): they take the handle, and this module names none
//! of them.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use http::Method;
use percent_encoding::utf8_percent_encode;

use super::access_policy::{self, SignedIdentifier};
use super::error::{Error, Result};
use super::service::TableServiceClient;
use super::transport::{Call, KEY_IN_PATH};
use crate::model::table_model::{NamedTable, TableModel};
use crate::protocol::limits::{self, Feature, InvalidInput, KeyKind};
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

/// One table, read and written as `M::Entity` (`GamerEntity` for a derived `Gamer`, or
/// [`DynamicEntity`]). Cheap to clone: it shares the client's connection pool.
///
/// ```
/// use tablekit::client::Table;
/// use tablekit::DynamicEntity;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// let table: Table = client.table_named("Players");
/// table.create_if_not_exists().await?;
/// let mut player = DynamicEntity::new("eu", "dragon");
/// player.set("Score", 10);
/// table.insert(&mut player).await?; // records the ETag on `player`
/// let first = player.etag().cloned();
/// player.set("Score", 20);
/// table.replace(&mut player).await?; // If-Match: the recorded ETag
/// assert_ne!(player.etag(), first.as_ref()); // and records the new one
/// let read = table.get("eu", "dragon").await?.expect("inserted");
/// assert_eq!(read.get::<i32>("Score"), Some(20));
/// assert_eq!(read.etag(), player.etag());
/// # Ok(()) }
/// ```
pub struct Table<M: TableModel = DynamicEntity> {
    client: TableServiceClient,
    name: Arc<str>,
    model: PhantomData<fn() -> M>,
}

impl<M: TableModel> Clone for Table<M> {
    fn clone(&self) -> Self {
        Table {
            client: self.client.clone(),
            name: self.name.clone(),
            model: PhantomData,
        }
    }
}

impl<M: TableModel> fmt::Debug for Table<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("name", &self.name)
            .field("model", &std::any::type_name::<M>())
            .finish()
    }
}

impl<M: TableModel> Table<M> {
    pub(crate) fn new(client: TableServiceClient, name: &str) -> Self {
        Table {
            client,
            name: Arc::from(name),
            model: PhantomData,
        }
    }

    /// The table's name, as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The client this handle sends through.
    pub fn client(&self) -> &TableServiceClient {
        &self.client
    }

    /// The name, checked against the service's rule before anything is sent.
    pub(crate) fn checked_name(&self) -> Result<&str> {
        limits::validate_table_name(&self.name)?;
        Ok(&self.name)
    }

    /// Creates the table; a 409 error if it exists.
    pub async fn create(&self) -> Result<()> {
        self.client.create_table(self.checked_name()?).await
    }

    /// Creates the table unless it exists; `true` when this call created it.
    pub async fn create_if_not_exists(&self) -> Result<bool> {
        self.client
            .create_table_if_not_exists(self.checked_name()?)
            .await
    }

    /// Deletes the table and everything in it; a 404 error if it does not exist.
    pub async fn delete_table(&self) -> Result<()> {
        self.client.delete_table(self.checked_name()?).await
    }

    /// Deletes the table if it exists; `true` when this call deleted it.
    pub async fn delete_table_if_exists(&self) -> Result<bool> {
        self.client
            .delete_table_if_exists(self.checked_name()?)
            .await
    }

    /// Whether the table exists.
    pub async fn exists(&self) -> Result<bool> {
        self.client.table_exists(self.checked_name()?).await
    }

    /// The table's stored access policies (Get Table ACL).
    pub async fn access_policies(&self) -> Result<Vec<SignedIdentifier>> {
        self.client
            .limits()
            .check_supported(Feature::TableAccessPolicies)?;
        let mut call = Call::new(Method::GET, format!("/{}", self.checked_name()?));
        call.query.push(("comp", "acl".to_owned()));
        call.accept = Some("application/xml");
        let reply = self.client.transport().send(&call).await?;
        Ok(access_policy::access_policies_from_xml(&reply.body)?)
    }

    /// Replaces the table's stored access policies (Set Table ACL); an empty list removes
    /// them all. More than five, or an id empty or over 64 characters, is
    /// [`Error::InvalidInput`] before anything is sent.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::{AccessPolicy, SignedIdentifier, Table};
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let table: Table = emulator.client().table_named("Gamers");
    /// table.create().await?;
    /// let six: Vec<_> = (0..6)
    ///     .map(|i| SignedIdentifier::new(&format!("p{i}"), AccessPolicy::new()))
    ///     .collect();
    /// let err = table.set_access_policies(&six).await.unwrap_err();
    /// assert!(err.is_invalid_input()); // refused before sending
    /// table.set_access_policies(&six[..5]).await?;
    /// assert_eq!(table.access_policies().await?.len(), 5);
    /// table.set_access_policies(&[]).await?;
    /// assert!(table.access_policies().await?.is_empty());
    /// # Ok(()) }
    /// ```
    pub async fn set_access_policies(&self, identifiers: &[SignedIdentifier]) -> Result<()> {
        self.client
            .limits()
            .check_supported(Feature::TableAccessPolicies)?;
        let name = self.checked_name()?;
        access_policy::validate(identifiers)?;
        let mut call = Call::new(Method::PUT, format!("/{name}"));
        call.query.push(("comp", "acl".to_owned()));
        call.content_type = Some("application/xml".to_owned());
        call.accept = Some("application/xml");
        call.body = access_policy::access_policies_to_xml(identifiers)
            .into_bytes()
            .into();
        self.client.transport().send(&call).await?;
        Ok(())
    }

    /// `/Table(PartitionKey='..',RowKey='..')`, keys validated, quotes doubled, then
    /// percent-encoded.
    pub(crate) fn entity_path(&self, partition_key: &str, row_key: &str) -> Result<String> {
        let name = self.checked_name()?;
        let limits = self.client.limits();
        limits.validate_key(KeyKind::PartitionKey, partition_key)?;
        limits.validate_key(KeyKind::RowKey, row_key)?;
        Ok(format!(
            "/{name}(PartitionKey='{}',RowKey='{}')",
            encode_key(partition_key),
            encode_key(row_key)
        ))
    }
}

// The client's handle constructors live with the handle, so the client's own module stays
// below every table operation.
impl TableServiceClient {
    /// The typed handle of `M`'s table, named in `#[tablekit(table = "...")]`. A model without
    /// a table name does not compile here: name its table with
    /// [`table_named`](Self::table_named).
    ///
    /// ```
    /// # use tablekit::client::TableServiceClient;
    /// use tablekit::prelude::*;
    /// #[derive(TableEntity)]
    /// #[tablekit(table = "Gamers")]
    /// pub struct Gamer {
    ///     #[tablekit(partition_key)]
    ///     pub tag: String,
    /// }
    /// # let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// let gamers = client.table::<Gamer>();
    /// assert_eq!(gamers.name(), "Gamers");
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    ///
    /// ```compile_fail,E0277
    /// # use tablekit::client::TableServiceClient;
    /// # use tablekit::DynamicEntity;
    /// # let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// let table = client.table::<DynamicEntity>(); // `DynamicEntity` names no table
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn table<M: NamedTable>(&self) -> Table<M> {
        Table::new(self.clone(), M::TABLE_NAME)
    }

    /// A handle on table `name` for model `M`; with `M = DynamicEntity` (e.g.
    /// `let t: Table = client.table_named("T")`) it is the untyped handle. The name is
    /// validated by each operation, before sending.
    pub fn table_named<M: TableModel>(&self, name: &str) -> Table<M> {
        Table::new(self.clone(), name)
    }
}

/// A key inside the entity path: `'` doubled, then percent-encoded.
pub(crate) fn encode_key(key: &str) -> String {
    utf8_percent_encode(&key.replace('\'', "''"), KEY_IN_PATH).to_string()
}

impl<M: TableModel> Table<M> {
    /// The same table read and written untyped: rows a model keeps beside its entities are
    /// rows like any other there.
    pub(crate) fn untyped(&self) -> Table<DynamicEntity> {
        self.client.table_named(self.name())
    }
}

pub(crate) fn required_etag(entity: &DynamicEntity) -> Result<ETag> {
    entity.etag().cloned().ok_or_else(|| {
        Error::InvalidInput(InvalidInput::Other(format!(
            "entity ({}, {}) has no ETag: read it first, or set `ETag::any()` for an unconditional write",
            entity.partition_key(),
            entity.row_key()
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_keys_like_the_captures() {
        // captures/raw_keys.txt
        assert_eq!(encode_key("a b'c ü ☃"), "a%20b''c%20%C3%BC%20%E2%98%83");
        assert_eq!(encode_key("100%"), "100%25");
        assert_eq!(encode_key("a+b&c=d"), "a%2Bb%26c%3Dd");
    }
}
