//! The concurrency checks against Azurite over real HTTP.
//!
//! `scripts/test.sh` starts the pinned Azurite on 127.0.0.1 and sets
//! `TABLEKIT_AZURITE_CONNECTION_STRING`; without it these tests fail (never skip silently).

mod reliability_support;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_tasks_of_a_hundred_optimistic_increments_make_exactly_1600_on_azurite() {
    reliability_support::optimistic_increments(&tablekit_testing::azurite_client()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_bulk_writers_on_overlapping_partitions_lose_nothing_on_azurite() {
    reliability_support::overlapping_bulk_writers(&tablekit_testing::azurite_client()).await;
}
