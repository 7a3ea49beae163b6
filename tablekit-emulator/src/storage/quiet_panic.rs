//! [`catch`]: runs a closure and catches its panic without the panic message and backtrace
//! the default hook prints. redb asserts on some damaged files (one shorter than its header
//! says, for one) rather than returning an error; the emulator refuses such a file with a
//! message of its own, which would otherwise follow a backtrace that reads like a crash.

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, UnwindSafe};
use std::sync::Once;

thread_local! {
    /// Whether a panic on this thread is being caught by [`catch`].
    static CATCHING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`; a panic in it is returned as its message, and not printed.
///
/// The process's panic hook is wrapped once: a panic on a thread inside `catch` is silent,
/// every other panic goes to the hook that was there before, as ever.
pub(crate) fn catch<T>(f: impl FnOnce() -> T + UnwindSafe) -> Result<T, String> {
    static WRAP: Once = Once::new();
    WRAP.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = CATCHING.with(|c| c.replace(true));
    let outcome = panic::catch_unwind(f);
    CATCHING.with(|c| c.set(was));
    outcome.map_err(|payload| message(&*payload))
}

/// The text a panic was raised with.
fn message(payload: &(dyn Any + Send)) -> String {
    match (
        payload.downcast_ref::<&str>(),
        payload.downcast_ref::<String>(),
    ) {
        (Some(text), _) => (*text).to_owned(),
        (_, Some(text)) => text.clone(),
        _ => "no message".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_returned_with_its_message() {
        assert_eq!(catch(|| 7), Ok(7));
        assert_eq!(
            catch(|| panic!("cut short")),
            Err::<(), _>("cut short".to_owned())
        );
        let n = 3;
        assert_eq!(
            catch(move || panic!("{n} pages missing")),
            Err::<(), _>("3 pages missing".to_owned())
        );
        // Outside `catch`, panics are caught by whoever catches them, as ever.
        assert!(std::panic::catch_unwind(|| panic!("loud")).is_err());
    }
}
