//! The whole command line of packlab, for the shipped binary and for a researcher's own:
//! `packlab EXP.toml [--out DIR] [--quick] [--threads N] [--fresh] [--shard I/N]
//! [--max-memory GIB]`, `packlab merge DIR`, `packlab slurm EXP.toml --shards N [...]`.
//!
//! The shipped `packlab` is [`main`] on the built-in policies. A program that brings its own
//! policies calls it with them, and gets every flag, subcommand, signal handling, progress,
//! exit status and `--help` of the shipped binary, its policies listed with their keys; the
//! Slurm scripts it writes run that program:
//!
//! ```no_run
//! use packlab::policy::registry::Registry;
//! use packlab::policy::{FifoFirstFit, PolicyEntry, PolicySpec};
//!
//! // FIFO-FF under a name of one's own (examples/capped_best_fit.rs has a policy with keys)
//! const MY_POLICY: PolicyEntry = PolicyEntry::new(
//!     "my-fifo",
//!     "FIFO first fit, as a policy of one's own",
//!     |_, _| Ok(PolicySpec::new("", FifoFirstFit::new)),
//! )
//! .fifo_service();
//!
//! fn main() -> std::process::ExitCode {
//!     match Registry::builtin().with(MY_POLICY) {
//!         Ok(policies) => packlab::cli::main(policies),
//!         Err(e) => {
//!             eprintln!("{e}");
//!             std::process::ExitCode::from(2)
//!         }
//!     }
//! }
//! ```
//!
//! Exit status: 0 = ran and every claim held; 1 = ran and a claim failed; 2 = bad input or a
//! failure to run (the message names the file, the key and what is expected); 130 / 143 =
//! stopped by SIGINT / SIGTERM (129 for SIGHUP) after saving what was finished (run the same
//! command to resume).

use std::path::PathBuf;

use crate::limits::THREADS_PER_CORE;
use crate::policy::registry::Registry;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::experiment::slurm::{self, SlurmSpec};
use crate::experiment::{ExperimentError, ExperimentFile, Options, Ran};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

/// A line on stderr; a closed, full or broken stderr is not an error (the run goes on).
macro_rules! eprint_line {
    ($($arg:tt)*) => {
        crate::progress::stderr_line(format_args!($($arg)*))
    };
}

/// A line of the summary on stdout; a closed stdout (`packlab … | head`) is not an error.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// Run a packlab experiment: simulate, write CSV tables, figures and a report, check claims.
#[derive(Parser, Debug)]
#[command(
    name = "packlab",
    version,
    about = "Run a packlab experiment: simulate, write CSV tables, figures and a report, check claims.",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The experiment file (TOML); see experiments/README.md.
    #[arg(required = true)]
    experiment: Option<PathBuf>,
    /// Output folder (default: results/<name>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// A shortened run (about 1/100 of the slots and replications) with the same outputs; it
    /// keeps its own journal, so the full run into the same folder afterwards just runs.
    #[arg(long)]
    quick: bool,
    /// Worker threads, and the most cores the run keeps busy (default: all cores). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// Discard the output folder's journal (the finished units of an earlier run) and start
    /// afresh. Without it a run resumes its journal, and refuses one of another experiment.
    #[arg(long)]
    fresh: bool,
    /// No progress (bars, progress lines, the time estimate); the final summary and errors
    /// are still printed.
    #[arg(long)]
    quiet: bool,
    /// Every step inside a long unit (each probe of a limit search, with its runs' verdicts)
    /// on a line of its own; without it, the latest step is shown on the progress bar or line.
    #[arg(long, conflicts_with = "quiet")]
    verbose: bool,
    /// The most memory the run may be expected to hold at its peak, GiB (default 4; never
    /// more than this process can have: its ulimit -v, its control group, the machine). A
    /// plan estimated above it is refused before any work, naming the key that asks for most.
    #[arg(long, value_name = "GIB", value_parser = parse_gib)]
    max_memory: Option<u64>,
    /// Run only shard I of N of the plan (1 ≤ I ≤ N), writing only its journal; then
    /// `packlab merge DIR`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(u32, u32)>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Merge the shards' journals in DIR into the outputs (byte-identical to one machine's).
    Merge {
        /// The output folder the shards ran into.
        dir: PathBuf,
        /// The most memory the merge may be expected to hold, GiB (as for a run; estimated
        /// before any journal is read).
        #[arg(long, value_name = "GIB", value_parser = parse_gib)]
        max_memory: Option<u64>,
    },
    /// Write (and with --submit, submit) Slurm scripts: a job array of N shards and a merge job
    /// that runs when they all succeeded.
    Slurm(SlurmArgs),
}

#[derive(Args, Debug)]
struct SlurmArgs {
    /// The experiment file.
    experiment: PathBuf,
    /// Number of shards (array tasks).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    shards: u32,
    /// Output folder, on a filesystem every node sees (default: results/<name>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Slurm partition.
    #[arg(long)]
    partition: Option<String>,
    /// Time limit of each job, Slurm's format (e.g. 2:00:00).
    #[arg(long)]
    time: Option<String>,
    /// CPUs per array task (its --threads).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cpus_per_task: u32,
    /// A further #SBATCH line, e.g. --sbatch=--mem=4G (repeatable).
    #[arg(long = "sbatch", value_name = "LINE")]
    extra: Vec<String>,
    /// The shortened experiment.
    #[arg(long)]
    quick: bool,
    /// Each shard's --max-memory, GiB (see the run's flag).
    #[arg(long, value_name = "GIB", value_parser = parse_gib)]
    max_memory: Option<u64>,
    /// Submit both jobs with sbatch and print their ids.
    #[arg(long)]
    submit: bool,
}

/// A number of GiB in [[`MIN_MEMORY_GIB`], 65536], as bytes.
fn parse_gib(s: &str) -> Result<u64, String> {
    let floor = crate::experiment::memory::MIN_MEMORY_GIB;
    match s.trim().parse::<f64>() {
        Ok(g) if (floor..=65536.0).contains(&g) => Ok((g * (1u64 << 30) as f64) as u64),
        Ok(g) if g.is_finite() && g < floor => Err(format!(
            "expected a number of GiB in [{floor}, 65536] (packlab itself takes about {} before \
             a plan holds anything), got `{s}`",
            crate::experiment::memory::bytes_words(crate::experiment::memory::own(2))
        )),
        _ => Err(format!(
            "expected a number of GiB in [{floor}, 65536], got `{s}`"
        )),
    }
}

fn parse_shard(s: &str) -> Result<(u32, u32), String> {
    let max = crate::limits::MAX_SHARDS;
    let bad = || format!("expected I/N with 1 ≤ I ≤ N ≤ {max}, got `{s}`");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n) = (
        i.trim().parse::<u32>().map_err(|_| bad())?,
        n.trim().parse::<u32>().map_err(|_| bad())?,
    );
    if i == 0 || i > n || n > max {
        return Err(bad());
    }
    Ok((i, n))
}

/// SIGINT, SIGTERM and SIGHUP (a closed terminal or ssh session) ask long loops to stop (a second one ends the process at once); what
/// has not stopped a second later (a validation, a solver, a reader between two checks) is
/// ended by [`watchdog`], with the same exit status.
fn handle_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let again = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        let _ = signal_hook::flag::register_conditional_default(sig, Arc::clone(&again));
        let _ = signal_hook::flag::register(sig, Arc::clone(&again));
        let _ =
            signal_hook::flag::register_usize(sig, Arc::clone(crate::cancel::flag()), sig as usize);
    }
    let _ = std::thread::Builder::new()
        .name("signal-watchdog".into())
        .spawn(watchdog);
}

/// Grace after a signal for the work to stop by itself (saving its journal and saying so).
const GRACE: std::time::Duration = std::time::Duration::from_millis(900);

/// Ends the process [`GRACE`] after a signal if it is still running. Finished units are in the
/// journal already (each is written to the operating system as it finishes), so nothing
/// finished is lost; the exit status is 128 + the signal's number, as for a clean stop.
fn watchdog() {
    use crate::cancel;
    loop {
        std::thread::sleep(std::time::Duration::from_millis(20));
        if let Some(signal) = cancel::requested() {
            std::thread::sleep(GRACE);
            eprint_line!(
                "packlab: interrupted by signal {signal} while {}; finished units are kept in \
                 the output folder's journal; run the same command again to resume",
                cancel::phase()
            );
            std::process::exit(128 + signal);
        }
    }
}

/// Says, every few seconds, that packlab is still reading and validating its input once that
/// has taken [`SLOW_VALIDATION`] (a long trace, a region map's boundaries, constraint
/// programmes), so that no validation runs for minutes in silence. Stops when it is over.
fn watch_validation() {
    use crate::cancel;
    let start = std::time::Instant::now();
    let every = std::env::var("PACKLAB_PROGRESS_SECONDS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| (0.5..=86_400.0).contains(s))
        .map_or(SLOW_VALIDATION, std::time::Duration::from_secs_f64);
    let mut next = SLOW_VALIDATION;
    while cancel::reading() {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let elapsed = start.elapsed();
        if elapsed >= next && cancel::reading() && cancel::requested().is_none() {
            eprint_line!(
                "packlab: still reading and validating the input, {} s so far",
                elapsed.as_secs()
            );
            next = elapsed + every;
        }
    }
}

/// How long validation may run before [`watch_validation`] says so.
const SLOW_VALIDATION: std::time::Duration = std::time::Duration::from_secs(5);

/// The experiment file's sections and keys, for `--help` (every key in experiments/README.md).
const KEYS: &str = "\
Experiment file (TOML; every key, its type and default in experiments/README.md):
  name, description, seed, kind = \"queueing\" | \"region\" | \"packing\"
  [cluster]     servers
  [workload]    sizes = { dist = uniform|discrete|empirical|tasks, … },
                service = { dist = geometric|deterministic|empirical, … },
                arrivals = { process = poisson|bernoulli|batch },
                rho_star_intervals (Theorem 1's bracket on rho*, default 512),
                or trace = { format, file, slot, finished_only, size, scale, start, end }
  [run]         slots, warmup, max_slots (default 16 x slots), replications, queue_cap,
                samples
  [sweep]       one of load | arrival_rate | fraction (of rho*) | scaling (traces)
  [[policy]]    name, label, score, numa, and the policy's own keys (below)
  [[plot]] and [[claim]]   kind, and the keys of that kind (below)
  [numa], [constraints], [compaction]   NUMA nodes, placement constraints, packing beside
                stability
  [region_map]  rays | angles, policies, J, resolution, max_probes, rounds, title: regions of
                the workload's two sizes in the plane (lambda1/mu, lambda2/mu), [sweep] optional
  region files: [region] J, bracket, family;  packing files: [snapshot], [[scheduler]],
                [evaluate]
";

/// The exit statuses, for `--help`.
const EXIT: &str = "\
Exit status:
  0    done, and every claim held (or was not checked under --quick)
  1    done, and a claim failed (claims.csv has the evidence)
  2    bad input (file, key and expected value named) or an error; nothing half-written
  128+N  interrupted by signal N (130 for Ctrl-C, 143 SIGTERM, 129 SIGHUP); the journal
         keeps the finished units and the same command resumes

A closed, full or broken stderr or stdout never stops a run: its lines are lost, the
outputs are written and the exit status is as above.

The final summary goes to stdout; progress, warnings and errors to stderr.";

/// Runs the command line of the process (its arguments, signals, stdout and stderr) with the
/// policies of `policies`, and returns the exit status: 0 when every claim held, 1 when one
/// failed, 2 for bad input or an error, 128 + N after signal N.
pub fn main(policies: Registry) -> ExitCode {
    let help = format!(
        "{KEYS}\n{}\n\nPolicies ([[policy]] name = …, with the keys each takes):\n{}\n\n{EXIT}",
        crate::experiment::table_kinds_help(),
        policies.help()
    );
    // usage lines name the program as it was started (packlab, or a researcher's own binary)
    let command = Cli::command()
        .bin_name(crate::experiment::engine::program())
        .after_help(help);
    let cli = Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit());
    handle_signals();
    crate::progress::set_quiet(cli.run.quiet);
    crate::progress::set_verbose(cli.run.verbose);
    if !cli.run.quiet {
        let _ = std::thread::Builder::new()
            .name("validation-watch".into())
            .spawn(watch_validation);
    }
    let result = match &cli.command {
        None => run(&cli.run, &policies),
        Some(Command::Merge { dir, max_memory }) => {
            crate::experiment::merge_within(dir, &policies, *max_memory).map(report)
        }
        Some(Command::Slurm(a)) => slurm_scripts(a, &policies).map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e @ ExperimentError::Interrupted { signal, .. }) => {
            eprint_line!("packlab: {e}:");
            let args: Vec<String> = std::env::args().collect();
            eprint_line!("  {}", args.join(" "));
            ExitCode::from((128 + signal).clamp(129, 255) as u8)
        }
        Err(e) => match crate::cancel::requested() {
            // an error caused by the stop (a reader cut short) is the interruption
            Some(signal) => {
                if let ExperimentError::Slurm(_) = e {
                    // what was queued before the stop
                    eprint_line!("packlab: error: {e}");
                }
                eprint_line!(
                    "packlab: interrupted by signal {signal} while {}",
                    crate::cancel::phase()
                );
                ExitCode::from((128 + signal).clamp(129, 255) as u8)
            }
            None => {
                eprint_line!("packlab: error: {e}");
                ExitCode::from(2)
            }
        },
    }
}

/// Prints on stdout what ran, where its report and figures are, and its claims (one line each;
/// the evidence is in claims.csv and the report); whether every claim held or was not checked.
/// Progress, warnings and errors go to stderr.
fn report(ran: Ran) -> bool {
    say!("{}", ran.done);
    if let Some(r) = ran.files.iter().find(|f| f.ends_with("report.md")) {
        say!("  report   {}", r.display());
    }
    let figures: Vec<String> = ran
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "png"))
        .map(|f| f.display().to_string())
        .collect();
    if !figures.is_empty() {
        say!("  figures  {}", figures.join(", "));
    }
    if ran.claims.is_empty() {
        return true;
    }
    let count = |s: &str| ran.claims.iter().filter(|c| c.status() == s).count();
    let (held, failed, unchecked) = (count("holds"), count("FAILS"), count("not checked"));
    let mut parts = Vec::new();
    if held > 0 {
        parts.push(format!("{held} held"));
    }
    if failed > 0 {
        parts.push(format!("{failed} FAILED"));
    }
    if unchecked > 0 {
        parts.push(format!(
            "{unchecked} not checked{}",
            if ran.quick {
                " at this length (--quick)"
            } else {
                ""
            }
        ));
    }
    say!("  claims   {} (evidence in claims.csv)", parts.join(", "));
    for c in &ran.claims {
        say!(
            "    {:<11}  {}: {}",
            c.status(),
            c.claim,
            shorten(&c.observed, 90)
        );
    }
    failed == 0
}

/// `s` cut to at most `n` characters, with an ellipsis.
fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

fn run(a: &RunArgs, policies: &Registry) -> Result<bool, ExperimentError> {
    let Some(path) = &a.experiment else {
        return Ok(true); // clap requires it
    };
    let file = ExperimentFile::load_with(path, policies)?;
    let dir = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(file.name()));
    let opts = Options {
        quick: a.quick,
        threads: a.threads.map(|n| threads(usize::from(n))),
        fresh: a.fresh,
        shard: a.shard,
        max_memory: a.max_memory,
    };
    file.run(opts, &dir).map(report)
}

/// `--threads n`, at most [`THREADS_PER_CORE`] per available core (more only slows a run down
/// and can swamp a shared machine), with a warning when capped.
fn threads(n: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let max = cores * THREADS_PER_CORE;
    if n > max {
        eprint_line!(
            "packlab: warning: --threads {n} capped at {max} ({THREADS_PER_CORE} per core, {cores} cores)"
        );
        max
    } else {
        n
    }
}

fn absolute(p: &std::path::Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn slurm_scripts(a: &SlurmArgs, policies: &Registry) -> Result<(), ExperimentError> {
    let file = ExperimentFile::load_with(&a.experiment, policies)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(file.name()));
    let spec = SlurmSpec {
        packlab: std::env::current_exe()
            .map(|p| absolute(&p))
            .unwrap_or_else(|_| "packlab".into()),
        workdir: std::env::current_dir()
            .map_err(|e| ExperimentError::Slurm(format!("cannot read the current folder: {e}")))?,
        experiment: a.experiment.clone(),
        out: absolute(&out),
        name: file.name().to_string(),
        shards: a.shards,
        quick: a.quick,
        partition: a.partition.clone(),
        time: a.time.clone(),
        cpus_per_task: a.cpus_per_task,
        extra: a.extra.clone(),
        max_memory: a.max_memory,
    };
    let (shards, merge) = spec.write()?;
    eprint_line!(
        "packlab: wrote {} and {}",
        shards.display(),
        merge.display()
    );
    if a.submit {
        let (a, b) = slurm::submit(&spec, &shards, &merge)?;
        say!("{a} {b}");
        eprint_line!("packlab: submitted shards as job {a} and the merge as job {b} (after {a})");
    } else {
        eprint_line!(
            "packlab: submit with `sbatch {}`, then `sbatch --dependency=afterok:<id> {}`",
            shards.display(),
            merge.display()
        );
        let env = slurm::own_environment();
        if !env.is_empty() {
            eprint_line!(
                "packlab: note: this shell sets {}, which sbatch would let outrank the scripts' \
                 own lines; unset {} before running sbatch by hand, or let --submit submit \
                 (it removes them)",
                env.iter()
                    .map(|(v, o)| format!("{v} ({o})"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if env.len() == 1 { "it" } else { "them" }
            );
        }
    }
    Ok(())
}
