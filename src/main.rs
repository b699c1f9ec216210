//! `packlab EXP.toml [--out DIR] [--quick] [--threads N]`
//!
//! Exit status: 0 = ran and every claim held; 1 = ran and a claim failed; 2 = bad input or a
//! failure to run (the message names the file, the key and what is expected).

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};
use packlab::experiment::{ExperimentFile, Options};

/// Run a packlab experiment: simulate, write CSV tables, figures and a report, check claims.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    /// The experiment file (TOML); see experiments/README.md.
    experiment: PathBuf,
    /// Output folder (default: results/<name>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// A shortened run (about 1/100 of the slots and replications) with the same outputs.
    #[arg(long)]
    quick: bool,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

fn main() -> ExitCode {
    let help = format!(
        "Policies ([[policy]] name = …, with the keys each takes):\n{}\n\nEvery key of an \
         experiment file: experiments/README.md.",
        packlab::policy::registry::help()
    );
    let cli = Cli::from_arg_matches(&Cli::command().after_help(help).get_matches())
        .unwrap_or_else(|e| e.exit());
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("packlab: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<bool> {
    let file = ExperimentFile::load(&cli.experiment)?;
    let dir = cli
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(file.name()));
    let opts = Options {
        quick: cli.quick,
        threads: cli.threads.map(usize::from),
    };
    let ran = file.run(opts, &dir)?;
    eprintln!("{}", ran.done);
    for c in &ran.claims {
        eprintln!(
            "  claim {}: {} (observed {}; {})",
            if c.holds { "holds " } else { "FAILS " },
            c.claim,
            c.observed,
            c.evidence
        );
    }
    Ok(ran.claims.iter().all(|c| c.holds))
}
