//! Progress bars on stderr (counts, rate, ETA), drawn only when stderr is a terminal so
//! scripts and logs get none.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar of `what` (such as `entities`), with a length when it is known.
pub(crate) fn bar(what: &str, total: Option<u64>) -> ProgressBar {
    let bar = match total {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    let template = match total {
        Some(_) => format!(
            "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} {what} \
             ({{per_sec}}, ETA {{eta}})"
        ),
        None => format!("{{spinner}} [{{elapsed_precise}}] {{human_pos}} {what} ({{per_sec}})"),
    };
    if let Ok(style) = ProgressStyle::with_template(&template) {
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
