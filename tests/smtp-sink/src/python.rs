//! A `python3` that imports aiosmtpd, pinned in `tests/smtp-sink/requirements.txt`
//! and installed under `target/` once.

use python_tools::{Packages, Python};
use std::sync::OnceLock;

/// Checked (and, if need be, installed) once per process; later calls wait
/// for the first to finish. Panics with a hint when that is impossible.
pub(crate) fn python() -> &'static Python {
    static PYTHON: OnceLock<Result<Python, String>> = OnceLock::new();
    let packages = Packages {
        name: "smtp-sink",
        imports: &["aiosmtpd"],
        requirements: include_str!("../requirements.txt"),
    };
    match PYTHON.get_or_init(|| python_tools::prepare(packages)) {
        Ok(python) => python,
        Err(problem) => panic!("smtp-sink: {problem}"),
    }
}
