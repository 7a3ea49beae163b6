#![doc = include_str!("../README.md")]

mod azurite;

pub use azurite::{
    azurite_client, azurite_connection_string, AZURITE_CONNECTION_STRING_VAR, AZURITE_VERSION,
};
pub use tablekit_emulator::{
    filter, Emulator, EmulatorBuilder, Error, Fault, FaultProxy, Faults, Operation, QueryCost,
    QueryCosts, RequestCounts, Result, RetryAfter, TestTable, Throttle, ThrottledCounts,
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEV_ACCOUNT, DEV_KEY,
};
