//! The address rule (docs/webhooks.md, "Addresses"): a target's address,
//! or every address its host name resolves to, must be public unless the
//! server allows private targets.

use application::ports::AddressRefusal;
use domain::webhook::is_forbidden_address;
use domain::{TargetHost, TargetUrl};
use std::net::SocketAddr;

/// Where a target was found to be, and allowed: the addresses an attempt
/// connects to, with no second resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Checked {
    /// The URL holds an address: it is connected to as written.
    Literal(SocketAddr),
    /// The URL names a host: these are its addresses, all allowed.
    Resolved {
        /// The host name, as the URL holds it.
        name: String,
        /// What it resolved to, on the target's port.
        addresses: Vec<SocketAddr>,
    },
}

/// Judges `target` now: its written address, or all its host name resolves
/// to on the target's port (one forbidden address refuses the name).
/// `allow_private` allows every address; a name must still resolve.
pub(crate) async fn check(
    target: &TargetUrl,
    allow_private: bool,
) -> Result<Checked, AddressRefusal> {
    let allowed = |address: &SocketAddr| allow_private || !is_forbidden_address(address.ip());
    match target.host() {
        TargetHost::Address(address) => {
            let address = SocketAddr::new(*address, target.port());
            if allowed(&address) {
                Ok(Checked::Literal(address))
            } else {
                Err(AddressRefusal::Forbidden)
            }
        }
        TargetHost::Name(name) => {
            let addresses: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), target.port()))
                    .await
                    .map_err(|_| AddressRefusal::Unresolved)?
                    .collect();
            if addresses.is_empty() {
                Err(AddressRefusal::Unresolved)
            } else if addresses.iter().all(allowed) {
                Ok(Checked::Resolved {
                    name: name.clone(),
                    addresses,
                })
            } else {
                Err(AddressRefusal::Forbidden)
            }
        }
    }
}
