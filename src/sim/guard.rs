//! A run whose policy breaks the model's rules (a job placed where it does not fit, a server
//! that does not exist) panics where the rule is checked, so that no run goes on from a state
//! the model cannot reach; [`caught`] turns that panic into the message of an error, printed
//! once by whoever reports the error, never as a panic of the process.

use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs of [`caught`] in progress: while any is, panics are not printed by the panic hook
/// (their message travels in the error instead).
static GUARDED: AtomicUsize = AtomicUsize::new(0);

/// Installs, once, a panic hook that stays silent while a [`caught`] call is in progress and
/// otherwise does what the previous hook did.
fn quiet_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.load(Ordering::SeqCst) == 0 {
                previous(info);
            }
        }));
    });
}

/// Runs `f`; a panic inside it (on this thread, or re-raised from the threads it waits for)
/// becomes `Err` with the panic's message.
pub(crate) fn caught<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    quiet_hook();
    GUARDED.fetch_add(1, Ordering::SeqCst);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.fetch_sub(1, Ordering::SeqCst);
    r.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "it stopped with a panic".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message() {
        assert_eq!(caught(|| 3), Ok(3));
        let e = caught(|| -> u32 { panic!("placed job 7 on server 9 of 3") }).unwrap_err();
        assert_eq!(e, "placed job 7 on server 9 of 3");
    }
}
