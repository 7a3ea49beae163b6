#![doc = include_str!("../README.md")]

mod azurite;

// The user guide's code blocks run as this crate's doc tests: the guide cannot drift from the API.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../guide/getting-started.md")]
    mod getting_started {}
    #[doc = include_str!("../../guide/modelling.md")]
    mod modelling {}
    #[doc = include_str!("../../guide/querying.md")]
    mod querying {}
    #[doc = include_str!("../../guide/writing.md")]
    mod writing {}
    #[doc = include_str!("../../guide/connecting.md")]
    mod connecting {}
    #[doc = include_str!("../../guide/testing.md")]
    mod testing {}
    #[doc = include_str!("../../guide/operating.md")]
    mod operating {}
    #[doc = include_str!("../../guide/migrating.md")]
    mod migrating {}
    #[doc = include_str!("../../guide/troubleshooting.md")]
    mod troubleshooting {}
}

pub use azurite::{
    azurite_client, azurite_connection_string, AZURITE_CONNECTION_STRING_VAR, AZURITE_VERSION,
};
pub use tablekit_emulator::{
    filter, Emulator, EmulatorBuilder, Error, Fault, FaultProxy, Faults, Operation, QueryCost,
    QueryCosts, RequestCounts, Result, RetryAfter, TestTable, Throttle, ThrottledCounts,
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEV_ACCOUNT, DEV_KEY,
};
