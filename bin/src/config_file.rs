//! `--config FILE`: options read from a TOML file, below the environment and
//! the flags (docs/operations.md, The configuration file).
//!
//! clap already layers flags over environment variables over defaults, and
//! checks every value; the file is one more layer under the environment. It
//! is read after a first parse (which finds `--config` or `DEVMGR_CONFIG`),
//! and each of its keys whose option came from neither a flag nor the
//! environment is handed to clap as that flag, so a value from the file is
//! checked exactly as the same value on the command line.

use crate::cli::Cli;
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches};
use std::ffi::OsString;
use std::path::Path;

/// The subcommand whose options, besides the global ones, the file may set.
const SERVE: &str = "serve";

/// Parses a command line (`devmgr` and its arguments) with the options of
/// the configuration file it names, if any, under the flags and the
/// environment.
pub fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let matches = Cli::command().try_get_matches_from(&args)?;
    let Some(path) = matches.get_one::<std::path::PathBuf>("config") else {
        return Cli::from_arg_matches(&matches);
    };
    let file = read(path)?;
    let mut layered = args;
    layered.extend(flags_from_file(path, &file, &matches)?);
    Cli::command()
        .try_get_matches_from(&layered)
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .map_err(|error| in_file(path, first_line(&error.render().to_string())))
}

/// clap's message without its usage and help lines.
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().to_owned()
}

/// The file's keys as a table.
fn read(path: &Path) -> Result<toml::Table, clap::Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| failure(format!("cannot read {}: {error}", path.display())))?;
    text.parse::<toml::Table>()
        .map_err(|error| in_file(path, error.to_string()))
}

/// The flags that give the file's values to the options no flag and no
/// environment variable set. Every key must name an option (a global one or
/// one of `serve`); those of `serve` apply only to `serve`.
fn flags_from_file(
    path: &Path,
    file: &toml::Table,
    matches: &ArgMatches,
) -> Result<Vec<OsString>, clap::Error> {
    let root = Cli::command();
    let serve = root
        .find_subcommand(SERVE)
        .expect("devmgr has a serve subcommand");
    let (running, options) = match matches.subcommand() {
        Some((name, options)) => (name, options),
        None => ("", matches),
    };
    let mut flags = Vec::new();
    for (key, value) in file {
        let global = root.get_arguments().find(|arg| is_option(arg, key));
        let of_serve = serve.get_arguments().find(|arg| is_option(arg, key));
        let Some(arg) = global.or(of_serve) else {
            return Err(in_file(path, unknown_key(key, &root, serve)));
        };
        if global.is_none() && running != SERVE {
            continue;
        }
        let given = matches!(
            options.value_source(key),
            Some(ValueSource::CommandLine | ValueSource::EnvVariable)
        );
        if given {
            continue;
        }
        let long = arg.get_long().unwrap_or(key);
        if let Some(flag) = flag(long, arg.get_action(), value)
            .map_err(|problem| in_file(path, format!("`{key}` {problem}")))?
        {
            flags.push(flag);
        }
    }
    Ok(flags)
}

/// Whether `arg` is an option the file may set under `key`.
fn is_option(arg: &clap::Arg, key: &str) -> bool {
    arg.get_id() == key && arg.get_long().is_some() && key != "config"
}

/// The flag giving `value` to the option `--long`; none for a switch set to false.
fn flag(long: &str, action: &ArgAction, value: &toml::Value) -> Result<Option<OsString>, String> {
    let switch = matches!(action, ArgAction::SetTrue);
    let text = match value {
        toml::Value::Boolean(on) if switch => return Ok(on.then(|| format!("--{long}").into())),
        _ if switch => return Err("must be true or false".to_owned()),
        toml::Value::String(text) => text.clone(),
        toml::Value::Integer(number) => number.to_string(),
        toml::Value::Float(number) => number.to_string(),
        toml::Value::Boolean(on) => on.to_string(),
        _ => return Err("must be a string or a number".to_owned()),
    };
    Ok(Some(format!("--{long}={text}").into()))
}

/// Names the unknown key, and the known key it was likely meant to be.
fn unknown_key(key: &str, root: &clap::Command, serve: &clap::Command) -> String {
    let known: Vec<String> = root
        .get_arguments()
        .chain(serve.get_arguments())
        .filter(|arg| arg.get_long().is_some() && arg.get_id() != "config")
        .map(|arg| arg.get_id().to_string())
        .collect();
    let underscored = key.replace('-', "_");
    if known.contains(&underscored) {
        return format!("unknown key `{key}` (did you mean `{underscored}`?)");
    }
    format!("unknown key `{key}` (known keys: {})", known.join(", "))
}

/// An error about the file, naming it.
fn in_file(path: &Path, problem: String) -> clap::Error {
    let problem = problem.trim().trim_start_matches("error: ");
    failure(format!("in {}: {problem}", path.display()))
}

fn failure(message: String) -> clap::Error {
    clap::Error::raw(
        clap::error::ErrorKind::ValueValidation,
        format!("{message}\n"),
    )
}

#[cfg(test)]
mod tests;
