//! Progress of long-running operations (bulk writes, backups, restores, migrations).
//!
//! Operations report through a [`ProgressSink`]: any `Fn(&Progress) + Send + Sync` closure is
//! one, so a terminal progress bar, a log line or a metrics counter plugs in without the library
//! depending on any of them. Reports are throttled by the caller's own sink if it wants; the
//! library reports after each unit of work (a page, a transaction) and once at the end.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use tablekit::patterns::progress::{Progress, ProgressCounter};
//!
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let log = Arc::clone(&seen);
//! let counter = ProgressCounter::new(move |p: &Progress| log.lock().unwrap().push(p.items()))
//!     .with_total(10);
//! counter.add(4, 400);
//! counter.add(6, 600);
//! counter.finish();
//! assert_eq!(*seen.lock().unwrap(), vec![4, 10, 10]);
//! let last = counter.snapshot();
//! assert_eq!((last.items(), last.bytes(), last.total()), (10, 1000, Some(10)));
//! assert!(last.is_finished());
//! ```

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One progress report: how much is done, how much there is, how fast it goes.
///
/// ```
/// use std::time::Duration;
/// use tablekit::patterns::progress::Progress;
/// let p = Progress::new(50, 5_000, Some(100), Duration::from_secs(2));
/// assert_eq!(p.items_per_second(), 25.0);
/// assert_eq!(p.bytes_per_second(), 2_500.0);
/// assert_eq!(p.fraction(), Some(0.5));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    items: u64,
    bytes: u64,
    total: Option<u64>,
    elapsed: Duration,
    finished: bool,
    setbacks: Setbacks,
}

/// What slowed an operation down: requests the service throttled, requests sent again, and
/// items that failed for good.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Setbacks {
    throttled: u64,
    retried: u64,
    failed: u64,
}

impl Progress {
    /// A report of `items` and `bytes` done out of `total` items, after `elapsed`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// let p = Progress::new(3, 300, None, Duration::from_secs(1));
    /// assert_eq!((p.items(), p.bytes(), p.total()), (3, 300, None));
    /// assert!(!p.is_finished()); // only a counter's last report is final
    /// ```
    pub fn new(items: u64, bytes: u64, total: Option<u64>, elapsed: Duration) -> Self {
        Progress {
            items,
            bytes,
            total,
            elapsed,
            finished: false,
            setbacks: Setbacks::default(),
        }
    }

    /// The same report, with `throttled` requests the service refused as too many (503
    /// Server Busy, 429), `retried` requests sent again, and `failed` items that will not be
    /// done.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// let p = Progress::new(900, 0, Some(1_000), Duration::from_secs(1)).with_setbacks(12, 13, 100);
    /// assert_eq!((p.throttled(), p.retried(), p.failed()), (12, 13, 100));
    /// assert_eq!(p.to_string(), "900/1000 items, 0 bytes, 900 items/s, 12 throttled, 13 retried, 100 failed");
    /// ```
    pub fn with_setbacks(mut self, throttled: u64, retried: u64, failed: u64) -> Self {
        self.setbacks = Setbacks {
            throttled,
            retried,
            failed,
        };
        self
    }

    /// Requests the service refused as too many so far (503 Server Busy, 429).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// assert_eq!(Progress::new(1, 0, None, Duration::ZERO).throttled(), 0);
    /// ```
    pub fn throttled(&self) -> u64 {
        self.setbacks.throttled
    }

    /// Requests sent again so far (after a throttle, a timeout or a lost answer).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// let p = Progress::new(1, 0, None, Duration::ZERO).with_setbacks(2, 3, 0);
    /// assert_eq!(p.retried(), 3);
    /// ```
    pub fn retried(&self) -> u64 {
        self.setbacks.retried
    }

    /// Items that failed for good so far.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// let p = Progress::new(1, 0, None, Duration::ZERO).with_setbacks(0, 0, 4);
    /// assert_eq!(p.failed(), 4);
    /// ```
    pub fn failed(&self) -> u64 {
        self.setbacks.failed
    }

    /// Items (entities, operations) done so far.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// assert_eq!(Progress::new(40, 0, Some(100), Duration::ZERO).items(), 40);
    /// ```
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Bytes done so far (encoded bodies or file bytes, as the operation documents).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// assert_eq!(Progress::new(2, 2_048, None, Duration::ZERO).bytes(), 2_048);
    /// ```
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The number of items expected, when known in advance.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// let open_ended = Progress::new(5, 0, None, Duration::ZERO);
    /// assert_eq!(open_ended.total(), None);
    /// assert_eq!(open_ended.fraction(), None); // no total, no fraction
    /// assert_eq!(Progress::new(5, 0, Some(20), Duration::ZERO).total(), Some(20));
    /// ```
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// Time since the operation started.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// let p = Progress::new(10, 0, None, Duration::from_millis(500));
    /// assert_eq!(p.elapsed(), Duration::from_millis(500));
    /// assert_eq!(p.items_per_second(), 20.0);
    /// ```
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// Whether this is the final report.
    ///
    /// ```
    /// use tablekit::patterns::progress::{NoProgress, ProgressCounter};
    /// let counter = ProgressCounter::new(NoProgress);
    /// counter.add(1, 10);
    /// assert!(!counter.snapshot().is_finished());
    /// counter.finish();
    /// assert!(counter.snapshot().is_finished());
    /// ```
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Items per second since the start (0 before any time has passed).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// assert_eq!(Progress::new(300, 0, None, Duration::from_secs(2)).items_per_second(), 150.0);
    /// assert_eq!(Progress::new(300, 0, None, Duration::ZERO).items_per_second(), 0.0);
    /// ```
    pub fn items_per_second(&self) -> f64 {
        rate(self.items, self.elapsed)
    }

    /// Bytes per second since the start (0 before any time has passed).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// let p = Progress::new(1, 1_000_000, None, Duration::from_millis(250));
    /// assert_eq!(p.bytes_per_second(), 4_000_000.0);
    /// assert_eq!(Progress::new(1, 1, None, Duration::ZERO).bytes_per_second(), 0.0);
    /// ```
    pub fn bytes_per_second(&self) -> f64 {
        rate(self.bytes, self.elapsed)
    }

    /// The fraction done in `0.0..=1.0`, when the total is known.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::Progress;
    /// let at = |items, total| Progress::new(items, 0, total, Duration::ZERO).fraction();
    /// assert_eq!(at(25, Some(100)), Some(0.25));
    /// assert_eq!(at(120, Some(100)), Some(1.0)); // more than expected: capped
    /// assert_eq!(at(0, Some(0)), Some(1.0)); // nothing to do is all done
    /// assert_eq!(at(25, None), None);
    /// ```
    pub fn fraction(&self) -> Option<f64> {
        match self.total {
            Some(0) => Some(1.0),
            // Precision loss above 2^53 items is irrelevant for a progress fraction.
            Some(total) => Some((self.items as f64 / total as f64).min(1.0)),
            None => None,
        }
    }
}

fn rate(amount: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        amount as f64 / secs
    } else {
        0.0
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.total {
            Some(total) => write!(f, "{}/{} items", self.items, total)?,
            None => write!(f, "{} items", self.items)?,
        }
        write!(
            f,
            ", {} bytes, {:.0} items/s",
            self.bytes,
            self.items_per_second()
        )?;
        let Setbacks {
            throttled,
            retried,
            failed,
        } = self.setbacks;
        for (count, what) in [
            (throttled, "throttled"),
            (retried, "retried"),
            (failed, "failed"),
        ] {
            if count > 0 {
                write!(f, ", {count} {what}")?;
            }
        }
        Ok(())
    }
}

/// Receives progress reports. Implemented for every `Fn(&Progress) + Send + Sync` closure.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::Arc;
/// use tablekit::patterns::progress::{NoProgress, Progress, ProgressSink};
///
/// fn takes_sink(sink: impl ProgressSink) {
///     sink.report(&Progress::new(7, 0, None, Default::default()));
/// }
/// takes_sink(NoProgress); // reports nothing
/// let items = Arc::new(AtomicU64::new(0));
/// let seen = Arc::clone(&items);
/// takes_sink(move |p: &Progress| seen.store(p.items(), Ordering::Relaxed));
/// assert_eq!(items.load(Ordering::Relaxed), 7);
/// ```
pub trait ProgressSink: Send + Sync + 'static {
    /// Called after each unit of work and once more at the end (with
    /// [`Progress::is_finished`] true). Keep it quick: it runs on the working task.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    /// use std::time::Duration;
    /// use tablekit::patterns::progress::{Progress, ProgressSink};
    /// static ITEMS: AtomicU64 = AtomicU64::new(0);
    /// let sink = |p: &Progress| ITEMS.store(p.items(), Relaxed); // a closure is a sink
    /// sink.report(&Progress::new(40, 0, Some(100), Duration::ZERO));
    /// assert_eq!(ITEMS.load(Relaxed), 40);
    /// ```
    fn report(&self, progress: &Progress);
}

impl<F: Fn(&Progress) + Send + Sync + 'static> ProgressSink for F {
    fn report(&self, progress: &Progress) {
        self(progress)
    }
}

/// A sink that ignores every report: the default of every operation.
///
/// ```
/// use tablekit::patterns::progress::{NoProgress, ProgressCounter};
/// let c = ProgressCounter::new(NoProgress);
/// c.add(1, 1);
/// assert_eq!(c.snapshot().items(), 1);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn report(&self, _: &Progress) {}
}

/// Counts work shared by concurrent tasks and reports each change to a sink.
///
/// Cloning gives another handle on the same counts.
///
/// ```
/// use tablekit::patterns::progress::{NoProgress, ProgressCounter};
/// let a = ProgressCounter::new(NoProgress);
/// let b = a.clone();
/// b.add(3, 30);
/// assert_eq!(a.snapshot().items(), 3);
/// ```
#[derive(Clone)]
pub struct ProgressCounter {
    inner: Arc<Inner>,
}

struct Inner {
    sink: Box<dyn ProgressSink>,
    items: AtomicU64,
    bytes: AtomicU64,
    throttled: AtomicU64,
    retried: AtomicU64,
    failed: AtomicU64,
    total: Option<u64>,
    finished: AtomicBool,
    started: Instant,
}

impl ProgressCounter {
    /// A counter starting now, reporting to `sink`.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::sync::Arc;
    /// use tablekit::patterns::progress::{Progress, ProgressCounter};
    /// let reports = Arc::new(AtomicU64::new(0));
    /// let seen = Arc::clone(&reports);
    /// let counter = ProgressCounter::new(move |_: &Progress| {
    ///     seen.fetch_add(1, Ordering::Relaxed);
    /// });
    /// counter.add(1, 100);
    /// counter.add(1, 100);
    /// assert_eq!(reports.load(Ordering::Relaxed), 2);
    /// ```
    pub fn new(sink: impl ProgressSink) -> Self {
        Self::from_boxed(Box::new(sink))
    }

    /// A counter reporting to an already boxed sink.
    ///
    /// ```
    /// use tablekit::patterns::progress::{NoProgress, ProgressCounter, ProgressSink};
    /// let sink: Box<dyn ProgressSink> = Box::new(NoProgress);
    /// assert_eq!(ProgressCounter::from_boxed(sink).snapshot().items(), 0);
    /// ```
    pub fn from_boxed(sink: Box<dyn ProgressSink>) -> Self {
        ProgressCounter {
            inner: Arc::new(Inner {
                sink,
                items: AtomicU64::new(0),
                bytes: AtomicU64::new(0),
                throttled: AtomicU64::new(0),
                retried: AtomicU64::new(0),
                failed: AtomicU64::new(0),
                total: None,
                finished: AtomicBool::new(false),
                started: Instant::now(),
            }),
        }
    }

    /// Sets the expected number of items (call before sharing the counter).
    ///
    /// ```
    /// use tablekit::patterns::progress::{NoProgress, ProgressCounter};
    /// assert_eq!(ProgressCounter::new(NoProgress).with_total(7).snapshot().total(), Some(7));
    /// ```
    pub fn with_total(self, total: u64) -> Self {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.total = Some(total);
                ProgressCounter {
                    inner: Arc::new(inner),
                }
            }
            // Already shared: the total stays unknown rather than racing other handles.
            Err(inner) => ProgressCounter { inner },
        }
    }

    /// Adds finished work and reports.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use tablekit::patterns::progress::{Progress, ProgressCounter};
    /// let last = Arc::new(Mutex::new(None));
    /// let slot = Arc::clone(&last);
    /// let counter =
    ///     ProgressCounter::new(move |p: &Progress| *slot.lock().unwrap() = Some(p.clone()));
    /// counter.add(100, 4_096);
    /// counter.add(50, 2_048);
    /// let report = last.lock().unwrap().clone().unwrap();
    /// assert_eq!((report.items(), report.bytes()), (150, 6_144));
    /// ```
    pub fn add(&self, items: u64, bytes: u64) {
        self.inner.items.fetch_add(items, Ordering::Relaxed);
        self.inner.bytes.fetch_add(bytes, Ordering::Relaxed);
        self.inner.sink.report(&self.snapshot());
    }

    /// Counts requests the service throttled and requests sent again, and reports.
    ///
    /// ```
    /// use tablekit::patterns::progress::{NoProgress, ProgressCounter};
    /// let counter = ProgressCounter::new(NoProgress);
    /// counter.add_setbacks(1, 2);
    /// counter.add_setbacks(0, 1);
    /// let p = counter.snapshot();
    /// assert_eq!((p.throttled(), p.retried()), (1, 3));
    /// ```
    pub fn add_setbacks(&self, throttled: u64, retried: u64) {
        self.inner.throttled.fetch_add(throttled, Ordering::Relaxed);
        self.inner.retried.fetch_add(retried, Ordering::Relaxed);
        self.inner.sink.report(&self.snapshot());
    }

    /// Counts items that failed for good (they count as settled items too) and reports.
    ///
    /// ```
    /// use tablekit::patterns::progress::{NoProgress, ProgressCounter};
    /// let counter = ProgressCounter::new(NoProgress);
    /// counter.add(10, 100);
    /// counter.add_failed(3);
    /// let p = counter.snapshot();
    /// assert_eq!((p.items(), p.failed()), (13, 3));
    /// ```
    pub fn add_failed(&self, items: u64) {
        self.inner.items.fetch_add(items, Ordering::Relaxed);
        self.inner.failed.fetch_add(items, Ordering::Relaxed);
        self.inner.sink.report(&self.snapshot());
    }

    /// Marks the work done and sends the final report.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use tablekit::patterns::progress::{Progress, ProgressCounter};
    /// let finals = Arc::new(Mutex::new(Vec::new()));
    /// let log = Arc::clone(&finals);
    /// let counter =
    ///     ProgressCounter::new(move |p: &Progress| log.lock().unwrap().push(p.is_finished()));
    /// counter.add(1, 0);
    /// counter.finish();
    /// assert_eq!(*finals.lock().unwrap(), [false, true]);
    /// ```
    pub fn finish(&self) {
        self.inner.finished.store(true, Ordering::Relaxed);
        self.inner.sink.report(&self.snapshot());
    }

    /// The counts now.
    ///
    /// ```
    /// use tablekit::patterns::progress::{NoProgress, ProgressCounter};
    /// let counter = ProgressCounter::new(NoProgress).with_total(4);
    /// counter.add(1, 10);
    /// let p = counter.snapshot();
    /// assert_eq!((p.items(), p.bytes(), p.fraction()), (1, 10, Some(0.25)));
    /// ```
    pub fn snapshot(&self) -> Progress {
        Progress {
            items: self.inner.items.load(Ordering::Relaxed),
            bytes: self.inner.bytes.load(Ordering::Relaxed),
            total: self.inner.total,
            elapsed: self.inner.started.elapsed(),
            finished: self.inner.finished.load(Ordering::Relaxed),
            setbacks: Setbacks {
                throttled: self.inner.throttled.load(Ordering::Relaxed),
                retried: self.inner.retried.load(Ordering::Relaxed),
                failed: self.inner.failed.load(Ordering::Relaxed),
            },
        }
    }
}

impl fmt::Debug for ProgressCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ProgressCounter")
            .field(&self.snapshot())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn concurrent_adds_are_all_counted() {
        let counter = ProgressCounter::new(NoProgress);
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let c = counter.clone();
                std::thread::spawn(move || (0..1000).for_each(|_| c.add(1, 2)))
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let p = counter.snapshot();
        assert_eq!((p.items(), p.bytes()), (8000, 16000));
    }

    #[test]
    fn finish_sends_a_final_report() {
        let last = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&last);
        let counter = ProgressCounter::new(move |p: &Progress| {
            *slot.lock().unwrap() = Some(p.clone());
        });
        counter.add(2, 0);
        assert!(!last.lock().unwrap().as_ref().unwrap().is_finished());
        counter.finish();
        assert!(last.lock().unwrap().as_ref().unwrap().is_finished());
    }

    #[test]
    fn fraction_handles_zero_total_and_overshoot() {
        let zero = Progress::new(0, 0, Some(0), Duration::ZERO);
        assert_eq!(zero.fraction(), Some(1.0));
        let over = Progress::new(5, 0, Some(2), Duration::ZERO);
        assert_eq!(over.fraction(), Some(1.0));
        assert_eq!(over.items_per_second(), 0.0);
    }
}
