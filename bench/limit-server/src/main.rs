//! A bare actix-web server that answers devmgr's hot-path routes from memory:
//! the practical limit of a machine and wrk that `bench/hotpath.py` sets
//! devmgr beside (docs/performance.md, "The hot path beside a bare actix-web
//! server").
//!
//! `devmgr-limit-server --bind 127.0.0.1:0 --answers DIR` reads every
//! `*.json` file of DIR, prints `{"listening": "http://127.0.0.1:PORT"}` and
//! answers:
//!
//! - `GET /devices/` with `devices.json`, or with `devices-NAME.json` when the
//!   query is `?set=NAME` (a second account's list, for example 1,000 devices);
//! - `GET /devices/{serial}/` with `device-{serial}.json`;
//! - `POST /devices/{serial}/reboot/` with 202 and `reboot-{serial}.json`;
//!
//! and 404 for anything it was not given. Workers: one per core, actix's default.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path as UrlPath, Query};
use actix_web::{App, HttpResponse, HttpServer, web};

/// The answers' bodies by file stem (`devices`, `device-ABC123`, …).
type Answers = Arc<HashMap<String, web::Bytes>>;

/// `GET /devices/`'s query: which list to answer.
#[derive(serde::Deserialize)]
struct ListQuery {
    set: Option<String>,
}

fn answer(answers: &Answers, name: &str, status: StatusCode) -> HttpResponse {
    match answers.get(name) {
        Some(body) => HttpResponse::build(status)
            .content_type("application/json")
            .body(body.clone()),
        None => HttpResponse::NotFound()
            .content_type("application/json")
            .body(r#"{"detail":"Not found."}"#),
    }
}

async fn list(answers: Data<Answers>, query: Query<ListQuery>) -> HttpResponse {
    let name = match &query.set {
        Some(set) => format!("devices-{set}"),
        None => "devices".to_owned(),
    };
    answer(&answers, &name, StatusCode::OK)
}

async fn detail(answers: Data<Answers>, serial: UrlPath<String>) -> HttpResponse {
    answer(&answers, &format!("device-{serial}"), StatusCode::OK)
}

async fn reboot(answers: Data<Answers>, serial: UrlPath<String>) -> HttpResponse {
    answer(&answers, &format!("reboot-{serial}"), StatusCode::ACCEPTED)
}

fn load(dir: &Path) -> std::io::Result<HashMap<String, web::Bytes>> {
    let mut answers = HashMap::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|ext| ext == "json")
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        {
            answers.insert(stem.to_owned(), web::Bytes::from(std::fs::read(&path)?));
        }
    }
    Ok(answers)
}

fn usage() -> ! {
    eprintln!("usage: devmgr-limit-server --bind ADDRESS:PORT --answers DIR");
    std::process::exit(2)
}

fn arguments() -> (String, PathBuf) {
    let (mut bind, mut dir) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--bind" => bind = Some(value),
            "--answers" => dir = Some(PathBuf::from(value)),
            _ => usage(),
        }
    }
    match (bind, dir) {
        (Some(bind), Some(dir)) => (bind, dir),
        _ => usage(),
    }
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let (bind, dir) = arguments();
    let answers: Answers = Arc::new(load(&dir)?);
    let data = Data::new(answers);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/devices/", web::get().to(list))
            .route("/devices/{serial}/", web::get().to(detail))
            .route("/devices/{serial}/reboot/", web::post().to(reboot))
    })
    .bind(&bind)?;
    let address = server.addrs()[0];
    println!(
        "{}",
        serde_json::json!({ "listening": format!("http://{address}") })
    );
    server.run().await
}
