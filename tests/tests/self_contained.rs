//! The repository stands alone: nothing in it points to a file outside it;
//! code and docs cite `docs/` instead.

use std::path::Path;
use std::process::Command;

/// Words that name files outside the repository (spelled in pieces, so that
/// this file does not name them either and is checked like the others).
const OUTSIDE: &[&str] = &[
    concat!("../", "shared"),
    concat!("CONTRACT", ".md"),
    concat!("CONTRACT", " §"),
    concat!("seed/", "device-management-api"),
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
