//! The standalone emulator: serves the development account (and any `--account` or
//! `AZURITE_ACCOUNTS` account) until Ctrl-C. `tablekit-emulator --help` lists the options.
//!
//! It also takes the table options of Azurite's `azurite-table` with their meaning, so a
//! script that starts Azurite's table server can start this binary instead.

use std::process::ExitCode;

use clap::{ArgAction, Parser};
use tablekit_emulator::command::EmulatorArgs;

/// An Azure Table Storage emulator: the Table service's REST protocol over HTTP, with Shared
/// Key and SAS authentication, in memory or kept in a directory.
#[derive(Debug, Parser)]
#[command(
    name = "tablekit-emulator",
    version,
    disable_version_flag = true,
    after_help = "Azurite's table options are accepted with their meaning, so a script that \
                  starts `azurite-table` can start tablekit-emulator instead. Differences: data \
                  is kept in memory unless --location (or --data) names a directory, and the \
                  development account stays available when AZURITE_ACCOUNTS adds accounts."
)]
struct Options {
    #[command(flatten)]
    emulator: EmulatorArgs,

    /// Prints the version
    #[arg(long, short = 'v', visible_short_alias = 'V', action = ArgAction::Version)]
    version: Option<bool>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = Options::parse();
    match options.emulator.serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tablekit-emulator: {message}");
            ExitCode::FAILURE
        }
    }
}
