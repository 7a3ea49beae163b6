//! The storage-pattern cases against Azurite (the reference server).
//!
//! Azurite is started by `scripts/test.sh`, which sets `TABLEKIT_AZURITE_CONNECTION_STRING`;
//! without it these tests fail with a message saying so (they never skip silently).

mod patterns_cases;

patterns_suite!(tablekit_testing::azurite_client());
