//! devmgr's use cases, and the ports they reach the outside world through.
//!
//! Use cases take their ports as `Arc<dyn Port>` (see [`Ports`]); adapters
//! implement the ports and `bin` chooses which adapter fills each one.

pub mod mail;
pub mod ports;
pub mod use_cases;

pub use ports::{Ports, StoreError};
pub use use_cases::{DevMgr, MailRetry, Settings};
