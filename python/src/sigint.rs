//! Ctrl-C during a run. The run holds no GIL, so Python's own handler
//! cannot raise `KeyboardInterrupt` until it returns; for the length of a
//! run on the main thread this module's SIGINT handler stops it through
//! its [`runtime::Interrupter`] and then calls the handler it replaced
//! (Python's, which records the signal, so `check_signals` raises
//! `KeyboardInterrupt` once the run is back).

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// The interrupter of the run in progress (null between runs).
static CURRENT: AtomicPtr<runtime::Interrupter> = AtomicPtr::new(std::ptr::null_mut());
/// The handler this one replaced (`sa_sigaction`), or 0.
static PREVIOUS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_sigint(sig: libc::c_int) {
    let prev = PREVIOUS.load(Ordering::SeqCst);
    if prev == libc::SIG_IGN {
        // The program ignores Ctrl-C (`signal.signal(SIGINT, SIG_IGN)`).
        return;
    }
    let p = CURRENT.load(Ordering::SeqCst);
    if !p.is_null() {
        // SAFETY: `p` points at the interrupter `Guard` owns until it
        // clears CURRENT; `interrupt` is one atomic store (signal-safe).
        unsafe { (*p).interrupt() };
    }
    if prev != libc::SIG_DFL && prev != 0 {
        // SAFETY: `prev` is the plain handler that was installed for SIGINT.
        let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(prev) };
        f(sig);
    }
}

/// Our handler, installed while it lives; the previous one restored after.
pub struct Guard {
    interrupter: *mut runtime::Interrupter,
    previous: Option<libc::sigaction>,
}

impl Guard {
    /// Installs the handler for this run when called on the main thread
    /// (where Python handles signals) with an interrupter; else does nothing.
    pub fn install(interrupter: Option<runtime::Interrupter>) -> Guard {
        // SAFETY: getpid and gettid have no preconditions.
        let main = unsafe { libc::getpid() == libc::gettid() };
        let Some(i) = interrupter.filter(|_| main) else {
            return Guard { interrupter: std::ptr::null_mut(), previous: None };
        };
        let p = Box::into_raw(Box::new(i));
        CURRENT.store(p, Ordering::SeqCst);
        // SAFETY: a zeroed sigaction is valid; sigaction reads `new` and
        // writes `old`, both live locals.
        let previous = unsafe {
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut new.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, &new, &mut old) != 0 {
                None
            } else {
                // A handler taking siginfo is not chained (Python's is plain).
                let plain = old.sa_flags & libc::SA_SIGINFO == 0;
                let keep = plain || old.sa_sigaction == libc::SIG_IGN;
                PREVIOUS.store(if keep { old.sa_sigaction } else { 0 }, Ordering::SeqCst);
                Some(old)
            }
        };
        Guard { interrupter: p, previous }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(old) = &self.previous {
            // SAFETY: restores the handler read at install.
            unsafe { libc::sigaction(libc::SIGINT, old, std::ptr::null_mut()) };
        }
        if !self.interrupter.is_null() {
            CURRENT.store(std::ptr::null_mut(), Ordering::SeqCst);
            // SAFETY: from Box::into_raw in install; the handler no longer sees it.
            drop(unsafe { Box::from_raw(self.interrupter) });
        }
    }
}
