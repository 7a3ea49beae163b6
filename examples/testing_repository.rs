//! Testing a repository type against the emulator: a small repository over `Table<Player>`,
//! and the tests an application would write for it.
//!
//! In an application the tests live in `#[cfg(test)] mod tests` or `tests/`, each a
//! `#[tokio::test]` that starts an emulator (milliseconds) and calls one of the functions
//! below:
//!
//! ```text
//! #[tokio::test]
//! async fn registering_twice_is_refused() {
//!     let emulator = tablekit_testing::Emulator::start().await.unwrap();
//!     tests::registering_twice_is_refused(&emulator.in_process_client()).await.unwrap();
//! }
//! ```
//!
//! Here `main` runs them all on the embedded emulator, and the workspace's test suite runs
//! them on the emulator and on Azurite. Run with `cargo run --example testing_repository`.

use std::process::ExitCode;

use tablekit::prelude::*;
use tablekit_testing::Emulator;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A player: PartitionKey = region, RowKey = tag.
#[derive(Debug, TableEntity)]
pub struct Player {
    /// The region.
    #[tablekit(partition_key)]
    pub region: String,
    /// The gamer tag.
    #[tablekit(row_key)]
    pub tag: String,
    /// The score.
    pub score: i64,
}

/// Why a registration was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum RegisterError {
    /// The tag is taken in that region.
    Taken,
    /// The tag cannot be a RowKey (a `/`, say).
    InvalidTag(String),
}

/// The application's storage of players, as the rest of the code sees it.
#[derive(Clone, Debug)]
pub struct PlayerRepository {
    players: Table<Player>,
}

impl PlayerRepository {
    /// The repository over the table `name`.
    pub fn new(client: &TableServiceClient, name: &str) -> Self {
        PlayerRepository {
            players: client.table_named(name),
        }
    }

    /// Creates the table if it does not exist yet.
    pub async fn migrate(&self) -> tablekit::Result<()> {
        self.players.create_if_not_exists().await.map(drop)
    }

    /// Registers a new player with a score of 0.
    pub async fn register(&self, region: &str, tag: &str) -> Result<(), RegisterError> {
        let mut player = PlayerEntity::new(region, tag);
        match self.players.insert(&mut player).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_conflict() => Err(RegisterError::Taken),
            Err(e) => Err(RegisterError::InvalidTag(e.to_string())),
        }
    }

    /// Adds `points` to a player's score; concurrent calls all count.
    pub async fn add_points(&self, region: &str, tag: &str, points: i64) -> tablekit::Result<i64> {
        let player = self
            .players
            .update_with_retry((region, tag), |p| p.set_score(p.score() + points))
            .await?;
        Ok(player.score())
    }

    /// The region's players, best first.
    pub async fn leaderboard(&self, region: &str) -> tablekit::Result<Vec<(String, i64)>> {
        let q = Query::<Player>::new().filter(Player::PARTITION_KEY.eq(region));
        let mut board: Vec<_> = self
            .players
            .query(q)
            .collect_all()
            .await?
            .iter()
            .map(|p| (p.tag(), p.score()))
            .collect();
        board.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(board)
    }

    /// Deletes the table.
    pub async fn drop_table(&self) -> tablekit::Result<()> {
        self.players.delete_table().await
    }
}

/// The repository's tests: each gets a client and works in a table of its own.
pub mod tests {
    use super::*;

    /// A repository over a fresh table: tests sharing a server never see each other's data.
    async fn fresh(client: &TableServiceClient) -> Result<PlayerRepository, BoxError> {
        let name = format!("Players{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        let repo = PlayerRepository::new(client, &name);
        repo.migrate().await?;
        Ok(repo)
    }

    /// A tag is registered once per region.
    pub async fn registering_twice_is_refused(client: &TableServiceClient) -> Result<(), BoxError> {
        let repo = fresh(client).await?;
        repo.register("eu", "dragon")
            .await
            .map_err(|e| format!("{e:?}"))?;
        assert_eq!(
            repo.register("eu", "dragon").await,
            Err(RegisterError::Taken)
        );
        repo.register("us", "dragon")
            .await
            .map_err(|e| format!("{e:?}"))?;
        assert!(matches!(
            repo.register("eu", "a/b").await,
            Err(RegisterError::InvalidTag(_))
        ));
        repo.drop_table().await?;
        Ok(())
    }

    /// Points added at the same time are all counted.
    pub async fn concurrent_points_all_count(client: &TableServiceClient) -> Result<(), BoxError> {
        let repo = fresh(client).await?;
        repo.register("eu", "dragon")
            .await
            .map_err(|e| format!("{e:?}"))?;
        let adds = (0..5).map(|_| repo.add_points("eu", "dragon", 10));
        futures::future::try_join_all(adds).await?;
        assert_eq!(repo.leaderboard("eu").await?, [("dragon".to_owned(), 50)]);
        repo.drop_table().await?;
        Ok(())
    }

    /// The leaderboard is one region's, best first.
    pub async fn leaderboard_is_best_first(client: &TableServiceClient) -> Result<(), BoxError> {
        let repo = fresh(client).await?;
        for (region, tag, points) in [("eu", "a", 5), ("eu", "b", 20), ("us", "c", 99)] {
            repo.register(region, tag)
                .await
                .map_err(|e| format!("{e:?}"))?;
            repo.add_points(region, tag, points).await?;
        }
        let board = repo.leaderboard("eu").await?;
        assert_eq!(board, [("b".to_owned(), 20), ("a".to_owned(), 5)]);
        repo.drop_table().await?;
        Ok(())
    }

    /// Points for a player who does not exist are an error, not a new player.
    pub async fn points_for_nobody_are_not_found(
        client: &TableServiceClient,
    ) -> Result<(), BoxError> {
        let repo = fresh(client).await?;
        let err = repo.add_points("eu", "nobody", 1).await.unwrap_err();
        assert!(err.is_not_found());
        assert!(repo.leaderboard("eu").await?.is_empty());
        repo.drop_table().await?;
        Ok(())
    }
}

/// Runs every test on `client`; returns the names of those that passed.
pub async fn run_tests(client: &TableServiceClient) -> Result<Vec<&'static str>, BoxError> {
    tests::registering_twice_is_refused(client).await?;
    tests::concurrent_points_all_count(client).await?;
    tests::leaderboard_is_best_first(client).await?;
    tests::points_for_nobody_are_not_found(client).await?;
    Ok(vec![
        "registering_twice_is_refused",
        "concurrent_points_all_count",
        "leaderboard_is_best_first",
        "points_for_nobody_are_not_found",
    ])
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("testing_repository failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        // The in-process client: the same requests and answers, without sockets.
        let emulator = Emulator::start().await?;
        run_tests(&emulator.in_process_client()).await
    });
    match outcome {
        Ok(passed) => {
            for name in passed {
                println!("test {name} ... ok");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("testing_repository failed: {e}");
            ExitCode::FAILURE
        }
    }
}
