//! SQLite alone: where `sqlite://` URLs put the database file, and that it is private.

use crate::support::*;

e2e!(migrate_creates_the_database_file: sqlite);
fn migrate_creates_the_database_file() {
    let db = Db::new();
    db.json(&["migrate"]);
    assert!(
        db.path().is_file(),
        "the database file exists after migrate"
    );
}

e2e!(the_default_database_is_devmgr_db_in_the_working_directory: sqlite);
fn the_default_database_is_devmgr_db_in_the_working_directory() {
    let db = Db::new();
    stdout_json(&run(devmgr(db.dir()).arg("migrate")), "migrate");
    assert!(db.dir().join("devmgr.db").is_file());
}

e2e!(a_relative_sqlite_path_is_relative_to_the_working_directory: sqlite);
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

e2e!(the_database_files_are_private: sqlite);
/// The database holds install tokens: it, its `-wal` and its `-shm` are
/// readable by devmgr's user only.
fn the_database_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let server = Server::builder().process().start();
    server.cli(&["user", "create", "--email", "ann@example.com"]);
    let path = server.db.path().to_owned();
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{file:?}");
    }
}
