//! What the client traces, captured once per test binary: a process has one global
//! subscriber, so the tests that read traces share it. A scoped subscriber would not do: it
//! can miss events whose callsites other tests' threads registered first.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

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

/// A closed span: its name, its fields as last recorded, and the fields of the events in it
/// (or in its children).
#[derive(Clone, Debug, Default)]
pub struct SpanRecord {
    /// The span's name.
    pub name: String,
    /// Field name to value (strings without quotes, others as `Debug` shows them).
    pub fields: BTreeMap<String, String>,
    /// The events traced inside it, each as its fields (the message under `message`).
    pub events: Vec<BTreeMap<String, String>>,
}

impl SpanRecord {
    /// A field's value.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

/// Keeps every closed span of the binary.
#[derive(Clone, Default)]
struct SpanRecorder(Arc<Mutex<Vec<SpanRecord>>>);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for SpanRecorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut record = SpanRecord {
            name: attrs.metadata().name().to_owned(),
            ..SpanRecord::default()
        };
        attrs.record(&mut Fields(&mut record.fields));
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(record);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(record) = span.extensions_mut().get_mut::<SpanRecord>() {
                values.record(&mut Fields(&mut record.fields));
            }
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        for span in ctx.event_scope(event).into_iter().flatten() {
            if let Some(record) = span.extensions_mut().get_mut::<SpanRecord>() {
                record.events.push(fields.clone());
            }
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let record = ctx
            .span(&id)
            .and_then(|span| span.extensions_mut().remove::<SpanRecord>());
        if let Some(record) = record {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(record);
        }
    }
}

/// The binary's capture, installed as the global subscriber on first use.
pub fn captured() -> Traces {
    capture().0.clone()
}

/// Every span closed so far in this binary (the capture is installed on first use).
pub fn closed_spans() -> Vec<SpanRecord> {
    let spans = capture().1 .0.lock().unwrap_or_else(|e| e.into_inner());
    spans.clone()
}

fn capture() -> &'static (Traces, SpanRecorder) {
    static CAPTURE: OnceLock<(Traces, SpanRecorder)> = OnceLock::new();
    CAPTURE.get_or_init(|| {
        let traces = Traces::default();
        let recorder = SpanRecorder::default();
        let text = tracing_subscriber::fmt::layer()
            .with_writer(traces.clone())
            .with_ansi(false);
        let subscriber = tracing_subscriber::registry()
            .with(text)
            .with(recorder.clone());
        tracing::subscriber::set_global_default(subscriber)
            .expect("no other global subscriber in this binary");
        (traces, recorder)
    })
}
