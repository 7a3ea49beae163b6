//! The handlers: one function per operation of the Table service, each answering an
//! authenticated request from its [`Ctx`](crate::handlers::context::Ctx). The
//! [`Router`](crate::pipeline::router::Router) picks one by method and resource.

pub(crate) mod access_policies;
pub(crate) mod batch;
pub(crate) mod context;
pub(crate) mod entities;
pub(crate) mod operations;
pub(crate) mod query_options;
pub(crate) mod service_properties;
pub(crate) mod tables;
