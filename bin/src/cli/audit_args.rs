//! Options of `devmgr audit` and of the log's retention in `serve`
//! (docs/audit.md).

use clap::{Args, Subcommand};

/// The longest retention `serve --audit-retention-days` takes: 100 years.
pub const MAX_RETENTION_DAYS: u32 = 36_500;

/// `audit` subcommands.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check every entry's hash, link and place in the sequence, from the
    /// retention checkpoint on. Prints {"ok": true, "entries": N} and exits 0
    /// when the chain is intact; prints {"ok": false, "entries": N, "broken":
    /// ID, "reason": "…"} naming the first entry that does not hold and exits
    /// 1 when it is not; exits 2, saying why on stderr, when the log cannot be
    /// read. A server may be running on the database meanwhile.
    Verify,
    /// Print the entries with an id above --since as JSON lines (one entry
    /// a line, as GET /audit/ shows it, ascending id), to ship the log
    /// elsewhere. Exits 2, saying why on stderr, when the log cannot be read.
    Export(AuditExportArgs),
}

/// Options of `audit export`.
#[derive(Debug, Args)]
pub struct AuditExportArgs {
    /// Print only the entries with an id above this one (the last id an
    /// earlier export printed); 0 prints every entry kept.
    #[arg(long, value_name = "ID", default_value_t = 0)]
    pub since: u64,
}

/// Reads `--audit-retention-days`: a whole number of days, 1 to
/// [`MAX_RETENTION_DAYS`].
pub fn retention_days(value: &str) -> Result<u32, String> {
    let refusal = || {
        format!(
            "the audit retention is a whole number of days from 1 to {MAX_RETENTION_DAYS} \
             (entries are kept at least a day)"
        )
    };
    match value.trim().parse::<u32>() {
        Ok(days) if (1..=MAX_RETENTION_DAYS).contains(&days) => Ok(days),
        _ => Err(refusal()),
    }
}

#[cfg(test)]
mod tests {
    use super::retention_days;

    #[test]
    fn retention_is_a_whole_number_of_days_from_one_to_a_century() {
        assert_eq!(retention_days("1"), Ok(1));
        assert_eq!(retention_days("365"), Ok(365));
        assert_eq!(retention_days("36500"), Ok(36_500));
        for refused in ["0", "-1", "36501", "1.5", "a year", ""] {
            let error = retention_days(refused).unwrap_err();
            assert!(error.contains("whole number of days"), "{refused}: {error}");
        }
    }
}
