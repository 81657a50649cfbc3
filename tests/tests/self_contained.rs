//! The repository stands alone: nothing in it points to a file outside it
//! (the specification and contract the project was built from live outside
//! the repository; code and docs cite `docs/` instead).

use std::path::Path;
use std::process::Command;

/// Words that name files outside the repository.
const OUTSIDE: &[&str] = &[
    "../shared",
    "CONTRACT.md",
    "CONTRACT §",
    "seed/device-management-api",
];

#[test]
fn no_tracked_file_points_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&root)
        .output()
        .expect("git runs");
    assert!(listed.status.success(), "git ls-files failed");
    let mut offenders = Vec::new();
    for name in listed.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        if name == "tests/tests/self_contained.rs" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(&name)) else {
            continue;
        };
        for word in OUTSIDE {
            if text.contains(word) {
                offenders.push(format!("{name}: {word}"));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}
