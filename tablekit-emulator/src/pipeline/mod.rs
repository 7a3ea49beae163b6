//! A request on its way through the server: its head read once ([`incoming`]), the layers
//! every request passes ([`layers`], ordered by [`app`]), the resource its path names
//! ([`resource`]), the [`router`] that hands it to its handler, and the answer
//! ([`outgoing`]). What all of them share is the [`state`].

pub(crate) mod app;
pub(crate) mod counter;
pub(crate) mod faults;
pub(crate) mod incoming;
pub(crate) mod layers;
pub(crate) mod outgoing;
pub(crate) mod resource;
pub(crate) mod router;
pub(crate) mod service;
pub(crate) mod state;
pub(crate) mod throttle;
