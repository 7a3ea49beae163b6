//! The async client for the Table REST protocol (Azure Storage, Cosmos DB Table API,
//! Azurite, the tablekit emulator).
//!
//! The data layer (values, entities, codec, filters) knows nothing about HTTP; this module
//! puts it on the wire: [`TableServiceClient`] holds one connection pool, a credential and the
//! retry policy; [`Table<M>`] reads and writes typed entities; [`EntityQuery`] streams pages;
//! [`Batch`] builds entity group transactions. Everything the service would refuse is refused
//! here first, with a typed error, before anything is sent.
//!
//! ```no_run
//! use futures::TryStreamExt;
//! use tablekit::client::TableServiceClient;
//! use tablekit::{DynamicEntity, Query};
//! # async fn run() -> tablekit::Result<()> {
//! let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
//! let table = client.table_named::<DynamicEntity>("Gamers");
//! table.create_if_not_exists().await?;
//! let mut gamer = DynamicEntity::new("dragon", "");
//! gamer.set("Score", 10);
//! table.upsert_replace(&mut gamer).await?;
//! let mut pages = table.query(Query::new().filter_raw("Score ge 10")).pages();
//! while let Some(page) = pages.try_next().await? {
//!     println!("{} gamers", page.len());
//! }
//! # Ok(()) }
//! ```

mod batch;
mod connection_string;
mod continuation;
mod credential;
mod endpoint;
pub(crate) mod multipart;
mod pages;
mod retry;
mod service;
mod service_error;
mod table;
mod transport;

pub use batch::{Batch, BatchOutcome, OperationKind, OperationResult};
pub use connection_string::{ConnectionString, DEVELOPMENT_ACCOUNT, DEVELOPMENT_KEY};
pub use continuation::ContinuationToken;
pub use credential::{Credential, TokenError, TokenFuture, TokenProvider};
pub use endpoint::Endpoint;
pub use pages::{Chunker, EntityQuery, Page};
pub use retry::{is_retryable_status, RetryPolicy};
pub use service::{ClientBuilder, TableServiceClient, DEFAULT_TIMEOUT};
pub use service_error::ServiceError;
pub use table::Table;
