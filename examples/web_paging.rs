//! Web paging with continuation tokens: an axum handler that serves one page of a partition
//! and a `next` token, which the client sends back for the following page.
//!
//! The token is the query's position (the next PartitionKey and RowKey) plus the identity of
//! the query that made it: a token sent with another query (another region here) is refused
//! with 400 instead of silently skipping or repeating entities. Nothing is kept on the server
//! between requests.
//!
//! Run with `cargo run --example web_paging`: it starts the embedded emulator and the web
//! server on 127.0.0.1, pages through the players as a browser would, and stops. Set
//! `TABLEKIT_CONNECTION_STRING` to use another Table service.

use std::future::IntoFuture;
use std::process::ExitCode;

use axum::extract::{Query as QueryString, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tablekit::prelude::*;
use tablekit_testing::Emulator;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A player, in the partition of its region.
#[derive(Debug, TableEntity)]
pub struct Player {
    /// The region: the PartitionKey, so one page is one partition's range.
    #[tablekit(partition_key)]
    pub region: String,
    /// The gamer tag: the RowKey.
    #[tablekit(row_key)]
    pub tag: String,
    /// The score.
    pub score: i32,
}

/// Players per page.
pub const PAGE_SIZE: u32 = 10;

/// `GET /players?region=eu&next=TOKEN`.
#[derive(Deserialize)]
struct PageRequest {
    region: String,
    next: Option<String>,
}

/// One page as JSON.
#[derive(Debug, Serialize, Deserialize)]
pub struct PageBody {
    /// The players' tags, in key order.
    pub players: Vec<String>,
    /// The token for the next page; absent on the last one.
    pub next: Option<String>,
}

/// The handler's error: a status and a message for the client.
type HttpError = (StatusCode, String);

fn http_error(e: tablekit::Error) -> HttpError {
    // A malformed or foreign token is the caller's mistake; anything else is ours.
    let status = if e.is_invalid_input() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::INTERNAL_SERVER_ERROR
    };
    (status, e.to_string())
}

async fn list_players(
    State(players): State<Table<Player>>,
    QueryString(request): QueryString<PageRequest>,
) -> Result<Json<PageBody>, HttpError> {
    let query = Query::<Player>::new()
        .filter(Player::PARTITION_KEY.eq(request.region.as_str()))
        .top(PAGE_SIZE)
        .map_err(|e| http_error(e.into()))?;
    let mut query = players.query(query);
    if let Some(next) = &request.next {
        query = query.resume_from(next.parse().map_err(http_error)?);
    }
    let page = query.first_page().await.map_err(http_error)?;
    Ok(Json(PageBody {
        players: page.entities().iter().map(|p| p.tag()).collect(),
        next: page.continuation().map(ToString::to_string),
    }))
}

/// The web application: one route over the players' table.
pub fn app(players: Table<Player>) -> Router {
    Router::new()
        .route("/players", get(list_players))
        .with_state(players)
}

/// What the walk through the pages saw, for the test suite to check.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The number of players on each page, in order.
    pub page_sizes: Vec<usize>,
    /// Every tag served, in order.
    pub tags: Vec<String>,
    /// The status of a request that sent the first page's token with another region.
    pub foreign_token_status: u16,
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("web_paging failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        // The client: a Table service from the environment, else the embedded emulator.
        let (client, _emulator) = match std::env::var("TABLEKIT_CONNECTION_STRING") {
            Ok(conn) => (TableServiceClient::from_connection_string(&conn)?, None),
            Err(_) => {
                let emulator = Emulator::start().await?;
                (emulator.client(), Some(emulator))
            }
        };
        run(&client).await
    });
    match outcome {
        Ok(outcome) => {
            println!("pages of {:?}: {:?}", outcome.page_sizes, outcome.tags);
            println!(
                "a token sent with another region: {}",
                outcome.foreign_token_status
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("web_paging failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Stores 25 players of `eu` (and one of `us`) in a fresh table, serves them, walks the pages
/// as a browser following `next` links would, and deletes the table.
pub async fn run(client: &TableServiceClient) -> Result<Outcome, BoxError> {
    let name = format!("Players{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let players = client.table_named::<Player>(&name);
    players.create().await?;
    let outcome = serve_and_walk(&players).await;
    players.delete_table().await?;
    outcome
}

async fn serve_and_walk(players: &Table<Player>) -> Result<Outcome, BoxError> {
    // One transaction: 25 inserts of one partition.
    let mut batch = players.batch();
    for i in 1..=25 {
        let mut player = PlayerEntity::new("eu", format!("player-{i:02}"));
        player.set_score(i);
        batch.insert(&player)?;
    }
    batch.submit().await?;
    players
        .insert(&mut PlayerEntity::new("us", "player-01"))
        .await?;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/players", listener.local_addr()?);
    let server = tokio::spawn(axum::serve(listener, app(players.clone())).into_future());

    let walked = walk(&url).await;
    server.abort();
    walked
}

/// Follows the `next` links from the first page to the last.
async fn walk(url: &str) -> Result<Outcome, BoxError> {
    let http = reqwest::Client::new();
    let mut outcome = Outcome::default();
    let mut next: Option<String> = None;
    let mut first_token = None;
    loop {
        let mut params = vec![("region", "eu".to_owned())];
        params.extend(next.clone().map(|token| ("next", token)));
        let response = http.get(url).query(&params).send().await?;
        let page: PageBody = serde_json::from_str(&response.error_for_status()?.text().await?)?;
        outcome.page_sizes.push(page.players.len());
        outcome.tags.extend(page.players);
        first_token = first_token.or_else(|| page.next.clone());
        match page.next {
            Some(token) => next = Some(token),
            None => break,
        }
    }
    // The first page's token, sent with another region.
    let token = first_token.ok_or("25 players fit on one page")?;
    let params = [("region", "us"), ("next", token.as_str())];
    let response = http.get(url).query(&params).send().await?;
    outcome.foreign_token_status = response.status().as_u16();
    Ok(outcome)
}
