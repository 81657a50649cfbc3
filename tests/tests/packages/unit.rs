//! The settings of a systemd unit file, as systemd reads them: `[Section]`
//! headers, `Key=value` lines, `#` and `;` comments, a trailing backslash
//! joining a line to the next. A key may be set several times; every
//! assignment is kept, in order.

/// A unit file's assignments.
#[derive(Debug)]
pub struct Unit {
    assignments: Vec<(String, String, String)>,
}

impl Unit {
    /// Reads a unit file's text.
    pub fn parse(text: &str) -> Self {
        let mut assignments = Vec::new();
        let mut section = String::new();
        let mut pending = String::new();
        for raw in text.lines() {
            let line = raw.trim();
            if pending.is_empty() && (line.is_empty() || line.starts_with(['#', ';'])) {
                continue;
            }
            if let Some(joined) = line.strip_suffix('\\') {
                pending.push_str(joined);
                pending.push(' ');
                continue;
            }
            let line = std::mem::take(&mut pending) + line;
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = name.to_owned();
                continue;
            }
            let (key, value) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("not a setting: {line}"));
            assignments.push((
                section.clone(),
                key.trim().to_owned(),
                value.trim().to_owned(),
            ));
        }
        Self { assignments }
    }

    /// Every value assigned to `key` in `[section]`, in order.
    pub fn values(&self, section: &str, key: &str) -> Vec<&str> {
        self.assignments
            .iter()
            .filter(|(s, k, _)| s == section && k == key)
            .map(|(_, _, value)| value.as_str())
            .collect()
    }

    /// The one value of `key` in `[section]`; fails when it is missing or
    /// assigned more than once.
    pub fn value(&self, section: &str, key: &str) -> &str {
        match self.values(section, key).as_slice() {
            [one] => one,
            other => panic!("[{section}] {key}= should be set once, is {other:?}"),
        }
    }

    /// Asserts `key=value` in `[Service]` for each pair.
    pub fn assert_service(&self, expected: &[(&str, &str)]) {
        for (key, value) in expected {
            assert_eq!(self.value("Service", key), *value, "[Service] {key}=");
        }
    }
}

#[test]
fn settings_are_read_as_systemd_reads_them() {
    let unit = Unit::parse(
        "# a comment\n[Unit]\nDescription=x\n\n[Service]\n; another\nExecStart=/usr/bin/a \\\n  --b c\nCapabilityBoundingSet=\nSystemCallFilter=@system-service\nSystemCallFilter=~@privileged\n",
    );
    assert_eq!(unit.value("Unit", "Description"), "x");
    assert_eq!(unit.value("Service", "ExecStart"), "/usr/bin/a  --b c");
    assert_eq!(unit.value("Service", "CapabilityBoundingSet"), "");
    assert_eq!(
        unit.values("Service", "SystemCallFilter"),
        ["@system-service", "~@privileged"]
    );
    assert!(unit.values("Unit", "ExecStart").is_empty());
}
