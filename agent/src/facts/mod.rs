//! What the agent reports about its machine: the body of a heartbeat.
//!
//! Every fact is read afresh for each heartbeat. A fact that cannot be read
//! (in a container, without permissions, …) takes its "unknown" value; reading
//! facts never fails.

pub mod machine;
pub mod os_release;
pub mod ports;
pub mod system;

use crate::protocol::{as_amount, as_optional_amount, as_text};
use domain::{AgentVersion, Amount, OperatingSystem, Uname};
use ports::ListeningPort;
use serde::Serialize;

/// The heartbeat body: every fact of the protocol's heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Facts {
    /// This agent's version.
    #[serde(serialize_with = "as_text")]
    pub agent_version: AgentVersion,
    /// `<sysname> <nodename> <release> <version> <machine>`.
    #[serde(serialize_with = "as_text")]
    pub uname: Uname,
    /// `PRETTY_NAME` of os-release, `""` when unknown.
    #[serde(serialize_with = "as_text")]
    pub operating_system: OperatingSystem,
    /// A machine-type code (`rpi_4b`, `x86_64`, …, `unknown`).
    pub machine_type: String,
    /// Size of the root file system in bytes, `null` when unknown.
    #[serde(serialize_with = "as_optional_amount")]
    pub disk_capacity: Option<Amount>,
    /// Bytes used on the root file system, `null` when unknown.
    #[serde(serialize_with = "as_optional_amount")]
    pub disk_used: Option<Amount>,
    /// Total memory in MiB, 0 when unknown.
    #[serde(serialize_with = "as_amount")]
    pub ram_capacity: Amount,
    /// Processor frequency in MHz, 0 when unknown.
    #[serde(serialize_with = "as_amount")]
    pub processor_speed: Amount,
    /// Listening TCP and UDP ports.
    pub ports: Vec<ListeningPort>,
}

/// This agent's version, as reported.
fn this_version() -> AgentVersion {
    AgentVersion::cut_to_fit(env!("CARGO_PKG_VERSION"))
}

impl Facts {
    /// Reads this machine's facts. It blocks on file I/O (`/proc`, `/sys`):
    /// call it from a blocking context.
    pub fn collect() -> Self {
        let uname = system::Uname::current();
        let disk = system::root_disk_space();
        let hardware = system::hardware();
        Self {
            agent_version: this_version(),
            uname: Uname::cut_to_fit(&uname.line()),
            operating_system: OperatingSystem::cut_to_fit(&os_release::pretty_name()),
            machine_type: machine::detect(&uname.machine).to_owned(),
            disk_capacity: disk.map(|disk| Amount::saturating(disk.capacity)),
            disk_used: disk.map(|disk| Amount::saturating(disk.used)),
            ram_capacity: Amount::saturating(hardware.ram_mib),
            processor_speed: Amount::saturating(hardware.processor_mhz),
            ports: ports::listening_ports(),
        }
    }

    /// The facts that need no reading at all: what a heartbeat carries if
    /// collecting the others went wrong.
    pub fn minimal() -> Self {
        Self {
            agent_version: this_version(),
            uname: Uname::default(),
            operating_system: OperatingSystem::default(),
            machine_type: machine::UNKNOWN.to_owned(),
            disk_capacity: None,
            disk_used: None,
            ram_capacity: Amount::ZERO,
            processor_speed: Amount::ZERO,
            ports: Vec::new(),
        }
    }
}

/// The machine type of this machine, for `install`.
pub fn detect_machine_type() -> &'static str {
    machine::detect(&system::Uname::current().machine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collected_facts_have_every_field_of_the_heartbeat() {
        let facts = serde_json::to_value(Facts::collect()).unwrap();
        let mut keys: Vec<_> = facts.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "agent_version",
                "disk_capacity",
                "disk_used",
                "machine_type",
                "operating_system",
                "ports",
                "processor_speed",
                "ram_capacity",
                "uname"
            ]
        );
        assert_eq!(facts["agent_version"], env!("CARGO_PKG_VERSION"));
        assert!(facts["uname"].as_str().unwrap().starts_with("Linux "));
    }

    #[test]
    fn minimal_facts_say_unknown() {
        let facts = serde_json::to_value(Facts::minimal()).unwrap();
        assert_eq!(facts["machine_type"], "unknown");
        assert_eq!(facts["disk_capacity"], serde_json::Value::Null);
        assert_eq!(facts["ports"], serde_json::json!([]));
    }
}
