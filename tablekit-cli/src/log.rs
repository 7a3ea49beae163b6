//! The log on stderr: the client's warnings (a retry, and why) always, so a slow or silent
//! service never keeps the command waiting without a word; every request with `-v`; each
//! try with `-vv`. `RUST_LOG` replaces the filter. Requests are logged by their operation,
//! host and status, never with a secret.

use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::EnvFilter;

/// Starts the log for `-v` given `verbose` times, or as `RUST_LOG` says.
pub(crate) fn init(verbose: u8) {
    let from_env = std::env::var("RUST_LOG")
        .ok()
        .filter(|f| !f.trim().is_empty());
    let requests = verbose > 0 || from_env.is_some();
    let filter = match from_env {
        Some(filter) => EnvFilter::new(filter),
        None => EnvFilter::new(match verbose {
            0 => "tablekit=warn",
            1 => "tablekit=info",
            _ => "tablekit=debug",
        }),
    };
    // A request is a span: its closing line carries the status and the time it took.
    let spans = if requests {
        FmtSpan::CLOSE
    } else {
        FmtSpan::NONE
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(spans)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
