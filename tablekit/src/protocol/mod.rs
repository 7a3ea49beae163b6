//! The protocol layer: the rules both ends of the wire keep, spoken alike by the client and by
//! the emulator of `tablekit-emulator`. [`limits`](crate::limits) are the service's limits and
//! name checks, [`cosmos`](crate::cosmos) how Cosmos DB differs, [`auth`](crate::auth) the
//! Shared Key signatures and [`sas`](crate::sas) the shared access signatures. The JSON bytes
//! both ends write are the [`codec`](crate::codec)'s. Above the values and the filter (whose
//! parameter errors limits reports), below the model and the client.
//!
//! ```
//! use tablekit::limits::validate_table_name;
//! assert!(validate_table_name("Gamers").is_ok());
//! assert!(validate_table_name("1st").is_err());
//! ```

pub mod auth;
pub mod cosmos;
pub mod limits;
pub mod sas;
