//! The concurrency checks against Azurite over real HTTP.
//!
//! Azurite is `tablekit_testing`'s: started on first use (installed with npm into a cache
//! directory the first time) unless `TABLEKIT_AZURITE_CONNECTION_STRING` names a running one;
//! without Node.js these tests fail with a message saying so (they never skip silently).

mod reliability_support;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_tasks_of_a_hundred_optimistic_increments_make_exactly_1600_on_azurite() {
    reliability_support::optimistic_increments(&tablekit_testing::azurite_client()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_bulk_writers_on_overlapping_partitions_lose_nothing_on_azurite() {
    reliability_support::overlapping_bulk_writers(&tablekit_testing::azurite_client()).await;
}
