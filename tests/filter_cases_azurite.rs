//! Parameterised filters and generated time ranges against Azurite over real HTTP.
//!
//! `scripts/test.sh` starts the pinned Azurite on 127.0.0.1 and sets
//! `TABLEKIT_AZURITE_CONNECTION_STRING`; without it these tests fail (never skip silently).

mod filter_cases;

filter_suite!(tablekit_testing::azurite_client());
