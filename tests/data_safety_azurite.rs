//! The data-safety suite against Azurite over real HTTP.
//!
//! Azurite is `tablekit_testing`'s: started on first use (installed with npm into a cache
//! directory the first time) unless `TABLEKIT_AZURITE_CONNECTION_STRING` names a running one;
//! without Node.js these tests fail with a message saying so (they never skip silently).

mod data_safety;

data_safety_suite!(tablekit_testing::azurite_client());
