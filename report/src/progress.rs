//! Progress on standard error for work that takes more than a second: a
//! spinner with the elapsed time and the current step (a compiler pass, a
//! codelet file, a program run). It exists only when standard error is a
//! terminal, and draws nothing until [`DELAY`] has passed, so piped output,
//! logs and golden files never see it. Libraries take a [`Progress`] and
//! report steps; only binaries create a visible one, or a binding hands
//! the steps to its own display ([`Progress::calling`]: the Python
//! package's progress bar).

use std::borrow::Cow;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before its progress appears.
pub const DELAY: Duration = Duration::from_secs(1);

/// A function told each step's name as it starts, and `None` when the work
/// ends.
pub type StepFn = Arc<dyn Fn(Option<&str>) + Send + Sync>;

/// A progress display, or nothing (the default).
#[derive(Clone, Default)]
pub struct Progress {
    bar: Option<ProgressBar>,
    call: Option<StepFn>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match (&self.bar, &self.call) {
            (Some(_), _) => "Progress(stderr)",
            (None, Some(_)) => "Progress(calling)",
            (None, None) => "Progress(hidden)",
        })
    }
}

impl Progress {
    /// A spinner labelled `what` on standard error if it is a terminal,
    /// else a hidden one.
    pub fn on_terminal(what: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress::default();
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed}] {prefix}: {msg}") {
            bar.set_style(style);
        }
        bar.set_prefix(what.to_string());
        let later = bar.clone();
        std::thread::spawn(move || {
            std::thread::sleep(DELAY);
            if !later.is_finished() {
                later.set_draw_target(ProgressDrawTarget::stderr());
                later.enable_steady_tick(Duration::from_millis(120));
            }
        });
        Progress { bar: Some(bar), call: None }
    }

    /// A progress that draws nothing itself and calls `f` instead: with
    /// each step's name, then with `None` at [`Progress::finish`].
    pub fn calling(f: StepFn) -> Progress {
        Progress { bar: None, call: Some(f) }
    }

    /// Names the step now running.
    pub fn step(&self, msg: impl Into<Cow<'static, str>>) {
        let msg = msg.into();
        if let Some(f) = &self.call {
            f(Some(&msg));
        }
        if let Some(b) = &self.bar {
            b.set_message(msg);
        }
    }

    /// Removes the display.
    pub fn finish(&self) {
        if let Some(f) = &self.call {
            f(None);
        }
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
