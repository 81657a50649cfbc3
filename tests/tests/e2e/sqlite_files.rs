//! CONTRACT §5 for SQLite alone: where `sqlite://` URLs put the database file.

use crate::support::*;

#[test]
fn migrate_creates_the_database_file() {
    let db = Db::new();
    db.json(&["migrate"]);
    assert!(
        db.path().is_file(),
        "the database file exists after migrate"
    );
}

#[test]
fn the_default_database_is_devmgr_db_in_the_working_directory() {
    let db = Db::new();
    stdout_json(&run(devmgr(db.dir()).arg("migrate")), "migrate");
    assert!(db.dir().join("devmgr.db").is_file());
}

#[test]
fn a_relative_sqlite_path_is_relative_to_the_working_directory() {
    let db = Db::new();
    let mut command = devmgr(db.dir());
    command.args(["--database-url", "sqlite://relative.db", "migrate"]);
    stdout_json(
        &run(&mut command),
        "--database-url sqlite://relative.db migrate",
    );
    assert!(db.dir().join("relative.db").is_file());
}
