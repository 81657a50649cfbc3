//! The harness: a server on a fresh database (an SQLite file or a PostgreSQL
//! database, see [`Backend`]) — the real app inside the test process, or a
//! `devmgr serve` process where the process is the subject —, an HTTP
//! client that never follows redirects, the command line on the same
//! database, and the e-mails the server sent (kept in memory by the
//! in-process server, else written to its mail directory).

mod checks;
mod clock;
mod console;
mod db;
mod html;
mod http;
mod mail;
mod mail_parts;
pub mod metrics;
mod process;
mod receiver;
mod requests;
mod server;

pub use checks::*;
pub use console::*;
pub use db::{Account, Backend, Db, on_backend};
pub use html::*;
pub use http::{Call, Reply};
pub use mail_parts::{MailParts, read_mail};
pub use process::{BIN, assert_refused, devmgr, run, stdout_json};
pub use receiver::{Answer, Received, Receiver, signature_of};
pub use server::{DatabaseUrlAt, Server, ServerBuilder};

/// A password that passes every rule for the addresses and names used here.
pub const PASSWORD: &str = "Sturdy-Lantern-42";

/// `target/<profile>/<name>`, beside the test binaries' `deps` folder, made
/// if missing: where tests leave what people look at (screenshots).
pub fn output_dir(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe
        .ancestors()
        .find(|dir| dir.file_name().is_some_and(|n| n == "deps"))
        .and_then(std::path::Path::parent)
        .expect("the test binary is in target/<profile>/deps");
    let dir = profile.join(name);
    std::fs::create_dir_all(&dir).expect("the output folder");
    dir
}
