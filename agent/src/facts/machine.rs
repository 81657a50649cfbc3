//! The machine-type code the server knows this machine by.

/// Where the device tree's model string may be.
const MODEL_PATHS: [&str; 2] = [
    "/proc/device-tree/model",
    "/sys/firmware/devicetree/base/model",
];

/// The code for a machine the agent cannot identify.
pub const UNKNOWN: &str = "unknown";

/// The machine type of this machine: its Raspberry Pi model if the device
/// tree names one, else its CPU architecture (`machine` of uname(2)).
pub fn detect(architecture: &str) -> &'static str {
    MODEL_PATHS
        .iter()
        .find_map(|path| std::fs::read(path).ok())
        .and_then(|model| from_model(&String::from_utf8_lossy(&model)))
        .unwrap_or_else(|| from_architecture(architecture))
}

/// The code of a Raspberry Pi from its device-tree model (e.g.
/// `Raspberry Pi 4 Model B Rev 1.4`); `None` for anything else.
pub fn from_model(model: &str) -> Option<&'static str> {
    let model = model.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    let normalized = model.to_ascii_lowercase().replace('+', " plus");
    let words: Vec<&str> = normalized
        .split_whitespace()
        .take_while(|word| !is_revision(word))
        .collect();
    let ["raspberry", "pi", product @ ..] = words.as_slice() else {
        return None;
    };
    let code = match product {
        ["zero"] => "rpi_zero",
        ["zero", "w" | "wh"] => "rpi_zero_w",
        ["zero", "2", "w"] => "rpi_zero_2_w",
        ["model", "b"] | ["model", "b", "plus"] => "rpi_1b",
        ["2", "model", "b"] => "rpi_2b",
        ["3", "model", "b"] => "rpi_3b",
        ["3", "model", "b", "plus"] => "rpi_3b_plus",
        ["3", "model", "a", "plus"] => "rpi_3a_plus",
        ["4", "model", "b"] => "rpi_4b",
        ["400"] => "rpi_400",
        ["5"] | ["5", "model", "b"] => "rpi_5",
        // "… Compute Module 4 IO Board" is how mainline kernels name it.
        ["compute", "module", "4", ..] => "rpi_cm4",
        _ => return None,
    };
    Some(code)
}

/// `Rev 1.4`, `rev2`: the board revision that ends the product name.
fn is_revision(word: &str) -> bool {
    word.strip_prefix("rev")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The generic code for a CPU architecture as uname(2) reports it.
pub fn from_architecture(architecture: &str) -> &'static str {
    match architecture {
        "x86_64" | "amd64" => "x86_64",
        "aarch64" | "aarch64_be" | "arm64" => "arm64",
        "arm" | "armv7" | "armv7l" | "armv7hl" | "armv8l" => "armv7",
        _ => UNKNOWN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raspberry_pi_models_map_onto_their_codes() {
        let cases = [
            ("Raspberry Pi Zero Rev 1.3", "rpi_zero"),
            ("Raspberry Pi Zero W Rev 1.1", "rpi_zero_w"),
            ("Raspberry Pi Zero 2 W Rev 1.0", "rpi_zero_2_w"),
            ("Raspberry Pi Model B Rev 2", "rpi_1b"),
            ("Raspberry Pi Model B rev2", "rpi_1b"),
            ("Raspberry Pi Model B Plus Rev 1.2", "rpi_1b"),
            ("Raspberry Pi Model B+", "rpi_1b"),
            ("Raspberry Pi 2 Model B Rev 1.1", "rpi_2b"),
            ("Raspberry Pi 3 Model B Rev 1.2", "rpi_3b"),
            ("Raspberry Pi 3 Model B Plus Rev 1.3", "rpi_3b_plus"),
            ("Raspberry Pi 3 Model B+", "rpi_3b_plus"),
            ("Raspberry Pi 3 Model A Plus Rev 1.0", "rpi_3a_plus"),
            ("Raspberry Pi 4 Model B Rev 1.4", "rpi_4b"),
            ("Raspberry Pi 400 Rev 1.0", "rpi_400"),
            ("Raspberry Pi 5 Model B Rev 1.0", "rpi_5"),
            ("Raspberry Pi 5", "rpi_5"),
            ("Raspberry Pi Compute Module 4 Rev 1.0", "rpi_cm4"),
            ("Raspberry Pi Compute Module 4 IO Board", "rpi_cm4"),
        ];
        for (model, code) in cases {
            assert_eq!(from_model(model), Some(code), "{model}");
        }
    }

    #[test]
    fn the_device_trees_nul_terminator_is_ignored() {
        assert_eq!(
            from_model("Raspberry Pi 4 Model B Rev 1.4\0"),
            Some("rpi_4b")
        );
    }

    #[test]
    fn other_boards_and_unlisted_pis_are_not_guessed() {
        for model in [
            "",
            "Pine64 RockPro64 v2.1",
            "Raspberry Pi Model A Plus Rev 1.1",
            "Raspberry Pi Compute Module 3 Plus Rev 1.0",
            "Raspberry Pi Compute Module 4S Rev 1.0",
            "Raspberry Pi 500 Rev 1.0",
            "Raspberry Pi 4 Model B Revolution",
        ] {
            assert_eq!(from_model(model), None, "{model}");
        }
    }

    #[test]
    fn architectures_map_onto_generic_codes() {
        assert_eq!(from_architecture("x86_64"), "x86_64");
        assert_eq!(from_architecture("aarch64"), "arm64");
        assert_eq!(from_architecture("armv7l"), "armv7");
        assert_eq!(from_architecture("arm"), "armv7");
        assert_eq!(from_architecture("armv6l"), UNKNOWN);
        assert_eq!(from_architecture("riscv64"), UNKNOWN);
        assert_eq!(from_architecture(""), UNKNOWN);
    }
}
