//! The HTTP side: the [`Emulator`](server::Emulator) server and its options, the listener
//! task and its connection limit, answers to requests hyper cannot parse, the fault-injecting
//! proxy, and the in-process transport that skips the sockets.

pub(crate) mod connections;
pub(crate) mod in_process;
pub(crate) mod parse_errors;
pub(crate) mod proxy;
pub(crate) mod server;
pub(crate) mod serving;
