//! The Azure Cosmos DB for Table API: where it differs from Azure Table Storage, and what
//! tablekit does about it.
//!
//! Cosmos speaks the Table REST protocol, so one client serves both. A client knows it talks to
//! Cosmos from the endpoint's host (`*.table.cosmos.azure.com`, `*.table.cosmosdb.azure.com`,
//! also inside a connection string's `TableEndpoint`), or from
//! [`ClientBuilder::flavor`](crate::client::ClientBuilder::flavor) for a custom domain. Its
//! pre-send checks then use [`Limits::COSMOS`](crate::limits::Limits::COSMOS) instead of
//! [`Limits::STORAGE`](crate::limits::Limits::STORAGE), and operations Cosmos does not offer
//! fail with [`InvalidInput::Unsupported`](crate::InvalidInput::Unsupported) before anything
//! is sent.
//!
//! # The documented differences
//!
//! From "Frequently asked questions about Azure Cosmos DB for Table" (section "Where is API
//! for Table not identical with Azure Table storage behavior?") and "Introduction to Azure
//! Cosmos DB for Table":
//!
//! | | Azure Table Storage | Cosmos DB Table API | tablekit on Cosmos |
//! |---|---|---|---|
//! | query result order | by PartitionKey, then RowKey | not sorted by key | nothing to check; code that needs an order sorts what it read |
//! | RowKey | 1 KiB (512 UTF-16 units) | 255 bytes | [`InvalidInput::RowKeyTooLong`](crate::InvalidInput::RowKeyTooLong) |
//! | transaction body | 4 MiB, 100 operations | 2 MB, 100 operations | [`InvalidInput::BatchTooLarge`](crate::InvalidInput::BatchTooLarge) at 2 MiB |
//! | table names | case-insensitive | case-sensitive | [`table_exists`](crate::client::TableServiceClient::table_exists) compares exactly |
//! | property names | `PartitionKey`, `RowKey`, `Timestamp` are system names | also `id`, `rid`, `etag`, `ResourceId` reserved | [`InvalidInput::ReservedPropertyName`](crate::InvalidInput::ReservedPropertyName) (ignoring case) |
//! | entity size | 1 MiB | 2 MB per item, but binary values grow in its encoding, so a 1 MiB binary entity may not fit | the 1 MiB check of both; no smaller binary limit is documented |
//! | `$top` / TakeCount | at most 1,000 per page | not limited to 1,000 | the 1,000 page cap stays: code stays portable, and [`Query::take`](crate::Query::take) bounds a total |
//! | CORS, analytics logging and metrics (Get/Set Table Service Properties, preflight `OPTIONS`) | offered | not offered ("CORS isn't currently supported"; analytics are handled differently) | [`properties`](crate::client::TableServiceClient::properties), [`set_properties`](crate::client::TableServiceClient::set_properties) refused |
//! | Get Table Service Stats | offered on the secondary endpoint | not offered (replication is part of every write) | [`statistics`](crate::client::TableServiceClient::statistics) refused |
//! | stored access policies (Get/Set Table ACL) | offered | not offered (SAS is supported, but set and managed differently) | [`Feature::TableAccessPolicies`](crate::limits::Feature) is not in [`Limits::COSMOS`](crate::limits::Limits::COSMOS) |
//! | payload format | JSON and AtomPub | JSON only | tablekit sends JSON only |
//! | pricing and latency | pay for what is stored and used | reserved throughput from table creation, latency SLA | not a client concern |
//!
//! The tablekit emulator's Cosmos flavor (`EmulatorBuilder::flavor` in `tablekit-emulator`)
//! applies the limits and the unsupported operations of this table, so code meant for both
//! services can be tested against both behaviours.
//!
//! ```
//! use tablekit::client::{Flavor, TableServiceClient};
//! use tablekit::{DynamicEntity, InvalidInput};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let cosmos = "TableEndpoint=https://acct.table.cosmos.azure.com:443/;\
//!               SharedAccessSignature=sv=2019-02-02&sig=c2ln";
//! let client = TableServiceClient::from_connection_string(cosmos)?;
//! assert_eq!(client.flavor(), Flavor::Cosmos);
//! let table = client.table_named::<DynamicEntity>("Gamers");
//! // A RowKey over 255 bytes: refused here, before any request
//! let mut entity = DynamicEntity::new("eu", "k".repeat(256).as_str());
//! let err = table.insert(&mut entity).await.unwrap_err();
//! assert!(matches!(err, tablekit::Error::InvalidInput(InvalidInput::RowKeyTooLong { .. })));
//! // ...and service properties do not exist there
//! let err = client.properties().await.unwrap_err();
//! assert!(matches!(err, tablekit::Error::InvalidInput(InvalidInput::Unsupported { .. })));
//! # Ok(()) }
//! ```
