//! What the client traces, captured once per test binary: a process has one global
//! subscriber, so the tests that read traces share it. A scoped subscriber would not do: it
//! can miss events whose callsites other tests' threads registered first.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

/// Everything traced at TRACE level by every thread of this binary since the first call of
/// [`captured`].
#[derive(Clone, Default)]
pub struct Traces(Arc<Mutex<Vec<u8>>>);

impl Traces {
    /// The text captured so far.
    pub fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for Traces {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut bytes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Traces {
    type Writer = Traces;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// The binary's capture, installed as the global subscriber on first use.
pub fn captured() -> Traces {
    static TRACES: OnceLock<Traces> = OnceLock::new();
    TRACES
        .get_or_init(|| {
            let traces = Traces::default();
            let subscriber = tracing_subscriber::fmt()
                .with_writer(traces.clone())
                .with_max_level(tracing::Level::TRACE)
                .with_ansi(false)
                .finish();
            tracing::subscriber::set_global_default(subscriber)
                .expect("no other global subscriber in this binary");
            traces
        })
        .clone()
}
