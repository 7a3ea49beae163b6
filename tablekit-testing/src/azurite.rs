//! The Azurite that `scripts/test.sh` starts, for suites that run on both servers.
//!
//! `scripts/azurite.sh start` runs the pinned Azurite on 127.0.0.1 and prints
//! `TABLEKIT_AZURITE_CONNECTION_STRING`; a suite meant to run on Azurite must fail, never skip
//! silently, when it is missing, so [`azurite_client`] panics with instructions.

use tablekit::client::TableServiceClient;

/// The variable `scripts/azurite.sh start` sets to Azurite's connection string.
///
/// [`azurite_client`] connects to whatever it names; here the in-process emulator stands in.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit_testing::{azurite_client, Emulator, AZURITE_CONNECTION_STRING_VAR};
/// let emulator = Emulator::start().await?;
/// emulator.create_table("Gamers")?;
/// std::env::set_var(AZURITE_CONNECTION_STRING_VAR, emulator.connection_string());
/// let client = azurite_client();
/// assert_eq!(client.list_table_names(None).await?, ["Gamers"]);
/// # Ok(()) }
/// ```
pub const AZURITE_CONNECTION_STRING_VAR: &str = "TABLEKIT_AZURITE_CONNECTION_STRING";

/// A client for the Azurite started by `scripts/test.sh`.
///
/// # Panics
///
/// When [`AZURITE_CONNECTION_STRING_VAR`] is unset or invalid: the message says how to start
/// Azurite.
///
/// ```no_run
/// let client = tablekit_testing::azurite_client();
/// println!("{}", client.endpoint().base_url());
/// ```
pub fn azurite_client() -> TableServiceClient {
    let Ok(connection_string) = std::env::var(AZURITE_CONNECTION_STRING_VAR) else {
        panic!(
            "{AZURITE_CONNECTION_STRING_VAR} is not set: run the tests with scripts/test.sh \
             (or `eval \"$(scripts/azurite.sh start)\"` first)"
        );
    };
    TableServiceClient::from_connection_string(&connection_string)
        .unwrap_or_else(|e| panic!("{AZURITE_CONNECTION_STRING_VAR}: {e}"))
}
