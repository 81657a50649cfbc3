//! Product source files stay small enough to read in one sitting: none of
//! the product crates' Rust files passes 400 lines (split by subject instead).

use std::path::Path;
use std::process::Command;

/// The most lines a product source file may have.
const MAX_LINES: usize = 400;

/// The product crates: the hexagon's core, its adapters and the binaries.
const PRODUCT: &[&str] = &["domain/", "application/", "adapters-", "bin/", "agent/"];

#[test]
fn no_product_source_file_passes_400_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(&root)
        .output()
        .expect("git runs");
    assert!(listed.status.success(), "git ls-files failed");
    let mut too_long = Vec::new();
    let mut checked = 0;
    for name in listed.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        if !name.ends_with(".rs") || !PRODUCT.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(&name)) else {
            continue;
        };
        checked += 1;
        let lines = text.lines().count();
        if lines > MAX_LINES {
            too_long.push(format!("{name}: {lines} lines"));
        }
    }
    assert!(checked > 100, "only {checked} product source files found");
    assert!(
        too_long.is_empty(),
        "over {MAX_LINES} lines:\n{}",
        too_long.join("\n")
    );
}
