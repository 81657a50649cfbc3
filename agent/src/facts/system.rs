//! Kernel identity, memory, root file system and processor speed.

use sysinfo::{CpuRefreshKind, MemoryRefreshKind, RefreshKind, System};

/// The processor's highest frequency, in kHz, as cpufreq reports it.
const CPU_MAX_FREQUENCY_PATH: &str = "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq";

/// The fields of uname(2) the agent reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uname {
    /// Kernel name, e.g. `Linux`.
    pub sysname: String,
    /// Host name.
    pub nodename: String,
    /// Kernel release.
    pub release: String,
    /// Kernel version (build) string.
    pub version: String,
    /// Hardware name, e.g. `x86_64` or `aarch64`.
    pub machine: String,
}

impl Uname {
    /// This machine's uname(2).
    pub fn current() -> Self {
        let uname = rustix::system::uname();
        let text = |value: &std::ffi::CStr| value.to_string_lossy().into_owned();
        Self {
            sysname: text(uname.sysname()),
            nodename: text(uname.nodename()),
            release: text(uname.release()),
            version: text(uname.version()),
            machine: text(uname.machine()),
        }
    }

    /// Like `uname -a` without its last fields: `<sysname> <nodename> <release> <version> <machine>`.
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {} {}",
            self.sysname, self.nodename, self.release, self.version, self.machine
        )
    }
}

/// The host name, for a device's default name; `device` when there is none.
pub fn host_name() -> String {
    let name = Uname::current().nodename;
    let name = name.trim();
    if name.is_empty() || name == "(none)" {
        "device".to_owned()
    } else {
        name.to_owned()
    }
}

/// Size and use of the file system mounted at `/`, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskSpace {
    /// Total size.
    pub capacity: u64,
    /// What `df` calls used: the blocks that are not free, the blocks
    /// reserved for root included.
    pub used: u64,
}

/// The block counts of statvfs(3) that size a file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockCounts {
    /// `f_blocks`: the file system's size, in fragments.
    pub blocks: u64,
    /// `f_bfree`: fragments free, the ones reserved for root included.
    pub free: u64,
    /// `f_bavail`: fragments free for unprivileged users.
    pub available: u64,
    /// `f_frsize`: the fragment size in bytes.
    pub fragment_size: u64,
}

impl BlockCounts {
    /// Size and use in bytes, as `df` shows them: used is
    /// `(f_blocks − f_bfree) × f_frsize`. (`f_bavail` leaves out the
    /// reserved blocks as well, so it would count them as used.)
    pub fn disk_space(&self) -> DiskSpace {
        DiskSpace {
            capacity: self.blocks.saturating_mul(self.fragment_size),
            used: self
                .blocks
                .saturating_sub(self.free)
                .saturating_mul(self.fragment_size),
        }
    }
}

/// The root file system's size and use; `None` when statvfs(3) fails.
pub fn root_disk_space() -> Option<DiskSpace> {
    let stat = rustix::fs::statvfs("/").ok()?;
    // Old kernels and some file systems leave the fragment size 0.
    let fragment_size = if stat.f_frsize > 0 {
        stat.f_frsize
    } else {
        stat.f_bsize
    };
    let counts = BlockCounts {
        blocks: stat.f_blocks,
        free: stat.f_bfree,
        available: stat.f_bavail,
        fragment_size,
    };
    Some(counts.disk_space())
}

/// Memory and processor, read together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hardware {
    /// Total memory in MiB, 0 when unknown.
    pub ram_mib: u64,
    /// Processor frequency in MHz, 0 when unknown.
    pub processor_mhz: u64,
}

/// This machine's memory and processor speed. The speed is cpufreq's maximum
/// (steady, unlike the current frequency) or else what sysinfo finds.
pub fn hardware() -> Hardware {
    let refresh = RefreshKind::nothing()
        .with_memory(MemoryRefreshKind::nothing().with_ram())
        .with_cpu(CpuRefreshKind::nothing().with_frequency());
    let system = System::new_with_specifics(refresh).ok();
    let ram_mib = system
        .as_ref()
        .map_or(0, |system| system.total_memory() / (1024 * 1024));
    let processor_mhz = std::fs::read_to_string(CPU_MAX_FREQUENCY_PATH)
        .ok()
        .and_then(|khz| mhz_from_khz(&khz))
        .or_else(|| {
            system
                .as_ref()?
                .cpus()
                .iter()
                .map(|cpu| cpu.frequency())
                .max()
        })
        .unwrap_or(0);
    Hardware {
        ram_mib,
        processor_mhz,
    }
}

/// cpufreq's kHz as MHz; `None` unless it is a positive number.
fn mhz_from_khz(text: &str) -> Option<u64> {
    let khz: u64 = text.trim().parse().ok()?;
    (khz > 0).then_some(khz / 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uname_line_has_five_fields_in_order() {
        let uname = Uname {
            sysname: "Linux".to_owned(),
            nodename: "kitchen-pi".to_owned(),
            release: "6.6.51+rpt-rpi-v8".to_owned(),
            version: "#1 SMP PREEMPT Debian 1:6.6.51-1+rpt3 (2024-10-08)".to_owned(),
            machine: "aarch64".to_owned(),
        };
        assert_eq!(
            uname.line(),
            "Linux kitchen-pi 6.6.51+rpt-rpi-v8 #1 SMP PREEMPT Debian 1:6.6.51-1+rpt3 (2024-10-08) aarch64"
        );
    }

    #[test]
    fn this_machines_uname_is_read() {
        let uname = Uname::current();
        assert_eq!(uname.sysname, "Linux");
        assert!(!uname.machine.is_empty());
        assert!(!host_name().is_empty());
    }

    #[test]
    fn cpufreq_khz_become_mhz() {
        assert_eq!(mhz_from_khz("1800000\n"), Some(1800));
        assert_eq!(mhz_from_khz("0"), None);
        assert_eq!(mhz_from_khz("fast"), None);
    }

    #[test]
    fn disk_use_is_what_df_calls_used_reserved_blocks_included() {
        let counts = BlockCounts {
            blocks: 1000,
            free: 850,
            available: 800,
            fragment_size: 4096,
        };
        assert_eq!(
            counts.disk_space(),
            DiskSpace {
                capacity: 1000 * 4096,
                used: 150 * 4096,
            }
        );
    }

    #[test]
    fn disk_arithmetic_never_overflows_or_goes_negative() {
        let counts = BlockCounts {
            blocks: u64::MAX,
            free: 10,
            available: 0,
            fragment_size: 4096,
        };
        assert_eq!(counts.disk_space().capacity, u64::MAX);
        let inconsistent = BlockCounts {
            blocks: 10,
            free: 20,
            available: 20,
            fragment_size: 512,
        };
        assert_eq!(inconsistent.disk_space().used, 0);
    }

    #[test]
    fn this_machine_has_memory_and_a_root_file_system() {
        assert!(hardware().ram_mib > 0);
        let disk = root_disk_space().expect("/ is mounted");
        assert!(disk.capacity > 0);
        assert!(disk.used <= disk.capacity);
    }
}
