//! Progress bars on stderr (counts, rate, ETA), drawn only when stderr is a terminal so
//! scripts and logs get none.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar of `what` (such as `entities`), with a length (and so an ETA) when it is
/// known.
pub(crate) fn bar(what: &str, total: Option<u64>) -> ProgressBar {
    let template = match total {
        Some(_) => format!(
            "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} {what} \
             ({{per_sec}}, ETA {{eta}})"
        ),
        None => format!("{{spinner}} [{{elapsed_precise}}] {{human_pos}} {what} ({{per_sec}})"),
    };
    styled(total, &template)
}

/// A progress bar over the bytes of an input file of `total` bytes, so with an ETA; the
/// entities written so far go in its message.
pub(crate) fn file_bar(total: u64) -> ProgressBar {
    styled(
        Some(total),
        "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, \
         ETA {eta}) {msg}",
    )
}

fn styled(total: Option<u64>, template: &str) -> ProgressBar {
    let bar = match total {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    if std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.enable_steady_tick(Duration::from_millis(200));
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}
