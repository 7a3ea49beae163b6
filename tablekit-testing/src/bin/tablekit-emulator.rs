//! The standalone emulator: `tablekit-emulator [--port 10002] [--data DIR] [--account NAME:KEY]
//! [--header-timeout SECONDS] [--body-timeout SECONDS] [--max-connections N]`.
//!
//! Serves the development account (and any `--account`) on 127.0.0.1 until Ctrl-C. With
//! `--data`, acknowledged writes are kept in DIR and survive a restart.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use tablekit_testing::Emulator;

const USAGE: &str = "usage: tablekit-emulator [--port PORT] [--data DIR] \
     [--account NAME:BASE64KEY]... [--header-timeout SECONDS] [--body-timeout SECONDS] [--max-connections N]";

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tablekit-emulator: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let mut builder = Emulator::builder().port(10002);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--port" => {
                let port = value()?;
                builder = builder.port(port.parse().map_err(|_| format!("bad port `{port}`"))?);
            }
            "--data" => builder = builder.persist_to(value()?),
            "--account" => {
                let spec = value()?;
                let (name, key) = spec
                    .split_once(':')
                    .ok_or_else(|| format!("--account takes NAME:KEY\n{USAGE}"))?;
                builder = builder.account(name, key);
            }
            "--header-timeout" => {
                let seconds = number(&value()?, "--header-timeout")?;
                builder = builder.header_timeout(Duration::from_secs(seconds));
            }
            "--body-timeout" => {
                let seconds = number(&value()?, "--body-timeout")?;
                builder = builder.body_timeout(Duration::from_secs(seconds));
            }
            "--max-connections" => {
                let max = number(&value()?, "--max-connections")?;
                builder = builder.max_connections(max);
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let emulator = builder.start().await.map_err(|e| e.to_string())?;
    // A closed stdout (the reader went away) must not stop the server: errors ignored.
    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "tablekit-emulator listening on {}",
        emulator.endpoint()
    );
    let _ = writeln!(
        out,
        "UseDevelopmentStorage=true works when the port is 10002"
    );
    let _ = out.flush();
    tokio::signal::ctrl_c()
        .await
        .map_err(|e| format!("cannot wait for Ctrl-C: {e}"))?;
    emulator.shutdown().await;
    Ok(())
}

/// A positive whole number for `flag`.
fn number<T: std::str::FromStr + Default + PartialOrd>(
    text: &str,
    flag: &str,
) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(n) if n > T::default() => Ok(n),
        _ => Err(format!(
            "{flag} takes a positive whole number, not `{text}`\n{USAGE}"
        )),
    }
}
