//! devmgr's use cases, and the ports they reach the outside world through.
//!
//! The use cases are services by area ([`Services`]), each holding the ports
//! it needs as `Arc<dyn Port>` (built from [`Ports`]); adapters implement the
//! ports and `bin` chooses which adapter fills each one.

pub mod mail;
pub mod ports;
pub mod use_cases;
pub mod view;

pub use ports::{Ports, StoreError};
pub use use_cases::{MailRetry, Registration, Requester, Services, Settings};
