//! Parameterised filters and generated time ranges against Azurite over real HTTP.
//!
//! Azurite is `tablekit_testing`'s: started on first use (installed with npm into a cache
//! directory the first time) unless `TABLEKIT_AZURITE_CONNECTION_STRING` names a running one;
//! without Node.js these tests fail with a message saying so (they never skip silently).

mod filter_cases;

filter_suite!(tablekit_testing::azurite_client());
