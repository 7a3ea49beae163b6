//! The emulator as its clients meet it, over real HTTP (and, for the in-process transport,
//! without sockets): its command line, the headers of every kind of answer, what a request
//! must get right before it is acted on, authentication before the body, Shared Key
//! freshness, limits on connections, and the data directory of a persistent emulator
//! (damaged files, journal migration, kills of the binary).

mod answer_headers;
mod auth_first;
mod auth_replay;
mod authorization;
mod command_line;
mod connection_limits;
mod crash_persistence;
mod in_process;
mod persistence_files;
mod query_costs;
mod request_checks;
mod sas_checks;
mod throttle;

use chrono::{Duration, Utc};
use tablekit::sas::{TablePermissions, TableSas};
use tablekit_emulator::Emulator;

/// A fresh emulator with a `Gamers` table, and a SAS granting everything on it for an hour:
/// requests sent with it need no signing.
async fn gamers_with_sas() -> (Emulator, String) {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("Gamers").unwrap();
    let sas = full_sas(&emulator, "Gamers");
    (emulator, sas)
}

/// A SAS granting everything on `table` for an hour.
fn full_sas(emulator: &Emulator, table: &str) -> String {
    let sas = TableSas::new(
        table,
        TablePermissions::ALL,
        Utc::now() + Duration::hours(1),
    );
    emulator.sas(&sas).unwrap()
}
