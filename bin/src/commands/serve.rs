use crate::cli::{Cli, ServeArgs, Throttle};
use crate::{CommandError, print_json, wiring};
use adapters_http::HttpState;
use adapters_mail::{DirMailer, LogMailer};
use application::Settings;
use application::ports::Mailer;
use std::net::TcpListener;
use std::sync::Arc;

/// `devmgr serve`: migrate, bind, announce the address on stdout, serve until
/// SIGINT or SIGTERM (then finish in-flight requests and stop).
pub async fn run(cli: &Cli, args: &ServeArgs) -> Result<(), CommandError> {
    if args.throttle == Throttle::On {
        return Err(CommandError(
            "--throttle on is not available yet: this version has no rate limiting. Use --throttle off."
                .into(),
        ));
    }
    let mailer = mailer(args)?;
    let (store, version) = wiring::open_store(&cli.database_url).await?;
    let settings = Settings {
        online_window: chrono::Duration::seconds(i64::from(args.online_window)),
        ..Settings::default()
    };
    let app = wiring::application(store, mailer, settings).await?;
    let listener = TcpListener::bind(&args.bind)
        .map_err(|e| CommandError(format!("cannot listen on {}: {e}", args.bind)))?;
    let address = listener.local_addr().map_err(CommandError::from_display)?;
    let state = HttpState::new(app, cli.public_url.clone(), address.to_string());
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    let server =
        adapters_http::serve(listener, state, workers).map_err(CommandError::from_display)?;
    tracing::info!(%address, schema_version = version, "devmgr is listening");
    print_json(&serde_json::json!({ "listening": format!("http://{address}") }))?;
    server.await.map_err(CommandError::from_display)?;
    tracing::info!("devmgr stopped");
    Ok(())
}

fn mailer(args: &ServeArgs) -> Result<Arc<dyn Mailer>, CommandError> {
    match &args.mail_dir {
        None => Ok(Arc::new(LogMailer)),
        Some(dir) => {
            let from = args
                .mail_from
                .parse()
                .map_err(|e| CommandError(format!("--mail-from is not a valid address: {e}")))?;
            let mailer = DirMailer::new(dir.clone(), from).map_err(|e| {
                CommandError(format!("cannot use --mail-dir {}: {e}", dir.display()))
            })?;
            Ok(Arc::new(mailer))
        }
    }
}
