//! The async client for the Table REST protocol (Azure Storage, Cosmos DB Table API,
//! Azurite, the tablekit emulator).
//!
//! The data layer (values, entities, codec, filters) knows nothing about HTTP; this module
//! puts it on the wire: [`TableServiceClient`] holds one connection pool, a credential and the
//! retry policy; [`Table<M>`] reads and writes typed entities; [`EntityQuery`] streams pages;
//! [`Batch`] builds entity group transactions. Everything the service would refuse is refused
//! here first, with a typed error, before anything is sent. The crate's
//! [`Error`](crate::Error) is this layer's: the errors of the layers below convert into it.
//!
//! Requests travel over one pool of keep-alive connections (rustls for https, HTTP/2 where the
//! server offers it). An endpoint covered by the environment's proxy variables (`HTTPS_PROXY`,
//! `HTTP_PROXY`, `ALL_PROXY`, less `NO_PROXY`) is reached through that proxy, as with any
//! HTTP client; the variables are read when the client is built.
//!
//! Inside, imports point down too: the transport (credentials, endpoint, retries, errors) at
//! the bottom, then the service client, then the [`Table`] handle, then the operations built
//! on the handle (single-entity writes, queries, transactions and the re-reads that settle a
//! write whose answer was lost), each taking the handle rather than being called by it.
//!
//! ```
//! use futures::TryStreamExt;
//! use tablekit::client::TableServiceClient;
//! use tablekit::{DynamicEntity, Query};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let emulator = tablekit_testing::Emulator::start().await?;
//! # let connection_string = emulator.connection_string();
//! let client = TableServiceClient::from_connection_string(&connection_string)?;
//! let table = client.table_named::<DynamicEntity>("Gamers");
//! table.create_if_not_exists().await?;
//! for (name, score) in [("dragon", 10), ("newcomer", 2)] {
//!     let mut gamer = DynamicEntity::new(name, "");
//!     gamer.set("Score", score);
//!     table.upsert_replace(&mut gamer).await?;
//! }
//! let mut found = Vec::new();
//! let mut pages = table.query(Query::new().filter_raw("Score ge 10")).pages();
//! while let Some(page) = pages.try_next().await? {
//!     println!("{} gamers", page.len());
//!     found.extend(page.into_iter().map(|g| g.partition_key().to_owned()));
//! }
//! assert_eq!(found, ["dragon"]);
//!
//! // a key the service would refuse: a typed error, and nothing is sent
//! let err = table
//!     .upsert_replace(&mut DynamicEntity::new("dragon/2", ""))
//!     .await
//!     .unwrap_err();
//! assert!(err.is_invalid_input());
//! # let upserts = emulator.requests().count(tablekit_testing::Operation::InsertOrReplace);
//! # assert_eq!(upserts, 2);
//! # Ok(()) }
//! ```

mod access_policy;
pub(crate) mod applied;
mod batch;
mod body_pool;
mod connection_string;
mod contention;
mod continuation;
mod credential;
mod endpoint;
pub(crate) mod error;
mod http_client;
mod in_process;
mod indexed;
mod kept_rows;
mod location;
pub(crate) mod multipart;
mod pages;
mod parallel_scan;
mod read;
mod read_cost;
mod retry;
mod service;
mod service_error;
mod service_properties;
mod spread;
mod table;
mod telemetry;
mod token;
#[cfg(feature = "azure_core")]
mod token_credential;
mod transport;
mod writable;
mod write;

pub use crate::protocol::limits::Flavor;
pub use access_policy::{
    access_policies_from_xml, access_policies_to_xml, AccessPolicy, SignedIdentifier,
    MAX_ACCESS_POLICIES,
};
pub use batch::{Batch, BatchOutcome, OperationKind, OperationResult};
pub use connection_string::{ConnectionString, DEVELOPMENT_ACCOUNT, DEVELOPMENT_KEY};
pub use contention::Contended;
pub use continuation::ContinuationToken;
pub use credential::Credential;
pub use endpoint::Endpoint;
pub use in_process::{InProcessError, InProcessFuture, InProcessService};
pub use location::{secondary_endpoint, LocationMode};
pub use pages::{Chunker, EntityQuery, Page};
pub use parallel_scan::{ParallelScan, RangePage, RangeState, ScanCheckpoint};
pub use read_cost::{ReadCost, EXAMINED_HEADER, RETURNED_HEADER};
pub use retry::{is_retryable_status, RetryPolicy};
pub use service::{ClientBuilder, TableServiceClient, DEFAULT_TIMEOUT};
pub use service_error::ServiceError;
pub use service_properties::{
    CorsRule, GeoReplication, GeoReplicationStatus, Logging, Metrics, RetentionPolicy,
    ServiceProperties, ServiceStatistics, CORS_METHODS, MAX_CORS_HEADERS, MAX_CORS_NAME_CHARS,
    MAX_CORS_PREFIXED_HEADERS, MAX_CORS_RULES, MAX_RETENTION_DAYS,
};
pub use table::Table;
pub use token::{TokenError, TokenFuture, TokenProvider};
