//! Machine types: the code stored and sent, and its human-readable name.

/// Every machine type devmgr knows: `(code, display name)`. `unknown` is the default.
const TABLE: [(&str, &str); 16] = [
    ("unknown", "Unknown"),
    ("rpi_zero", "Raspberry Pi Zero"),
    ("rpi_zero_w", "Raspberry Pi Zero W"),
    ("rpi_zero_2_w", "Raspberry Pi Zero 2 W"),
    ("rpi_1b", "Raspberry Pi 1 Model B"),
    ("rpi_2b", "Raspberry Pi 2 Model B"),
    ("rpi_3b", "Raspberry Pi 3 Model B"),
    ("rpi_3b_plus", "Raspberry Pi 3 Model B+"),
    ("rpi_3a_plus", "Raspberry Pi 3 Model A+"),
    ("rpi_4b", "Raspberry Pi 4 Model B"),
    ("rpi_400", "Raspberry Pi 400"),
    ("rpi_5", "Raspberry Pi 5"),
    ("rpi_cm4", "Raspberry Pi Compute Module 4"),
    ("x86_64", "x86-64 PC"),
    ("arm64", "Generic ARM64 board"),
    ("armv7", "Generic ARMv7 board"),
];

/// One column of the table, at compile time.
const fn column<const N: usize>(
    table: &[(&'static str, &'static str); N],
    second: bool,
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = if second { table[i].1 } else { table[i].0 };
        i += 1;
    }
    out
}

/// A known machine type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MachineType(&'static str, &'static str);

impl MachineType {
    /// The default for a device whose hardware is not known yet.
    pub const UNKNOWN: MachineType = MachineType("unknown", "Unknown");

    /// Every code, in table order.
    pub const CODES: [&'static str; TABLE.len()] = column(&TABLE, false);

    /// Every display name, in table order.
    pub const DISPLAY_NAMES: [&'static str; TABLE.len()] = column(&TABLE, true);

    /// Looks a code up in the table.
    pub fn from_code(code: &str) -> Option<Self> {
        TABLE
            .iter()
            .find(|(known, _)| *known == code)
            .map(|(code, display)| MachineType(code, display))
    }

    /// Every known machine type, in table order.
    pub fn all() -> impl Iterator<Item = MachineType> {
        TABLE
            .iter()
            .map(|(code, display)| MachineType(code, display))
    }

    /// The code, e.g. `rpi_4b`.
    pub fn code(self) -> &'static str {
        self.0
    }

    /// The human-readable name, e.g. `Raspberry Pi 4 Model B`.
    pub fn display_name(self) -> &'static str {
        self.1
    }
}

impl Default for MachineType {
    fn default() -> Self {
        Self::UNKNOWN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_display_names() {
        let pi = MachineType::from_code("rpi_4b").unwrap();
        assert_eq!(pi.display_name(), "Raspberry Pi 4 Model B");
        assert_eq!(MachineType::default().code(), "unknown");
        assert_eq!(MachineType::from_code("toaster"), None);
    }

    #[test]
    fn codes_are_unique() {
        let mut codes: Vec<_> = MachineType::all().map(MachineType::code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), MachineType::all().count());
    }
}
