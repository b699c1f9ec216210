//! A policy of one's own with keys of its own, run through packlab's whole command line: FIFO
//! best fit with at most `max_jobs` jobs per server (`capped-bf`). Its `main` is one call,
//! [`packlab::cli::main`], so this binary has every flag and subcommand of `packlab`
//! (`--quick`, `--threads`, `--shard`, `merge`, `slurm`, `--help` listing `capped-bf` and its
//! key), and the Slurm scripts it writes run this binary.
//!
//! ```text
//! cargo run --release --example capped_best_fit -- examples/capped_best_fit.toml
//! cargo run --release --example capped_best_fit -- --help
//! ```

use std::collections::VecDeque;
use std::process::ExitCode;

use packlab::model::{Job, ServerId};
use packlab::policy::registry::Registry;
use packlab::policy::{ParamError, Policy, PolicyEntry, PolicyParams, PolicySpec, SlotView};
use packlab::sim::Cluster;
use packlab::workload::SizeLaw;

/// FIFO best fit, capped: the head-of-line job goes to the fullest server it fits on among
/// those holding fewer than `max_jobs` jobs (ties: the lowest index); when there is none, the
/// queue waits (head-of-line blocking), so jobs are served in arrival order. A plain scan of
/// the servers per placement: O(L), enough for an example.
struct CappedBestFit {
    max_jobs: u32,
    queue: VecDeque<Job>,
}

impl Policy for CappedBestFit {
    fn enqueue(&mut self, job: Job) {
        self.queue.push_back(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        while let Some(head) = self.queue.front() {
            let mut best: Option<ServerId> = None;
            for i in 0..cluster.servers() as ServerId {
                let room = cluster.free(i) >= head.size && cluster.jobs_on(i) < self.max_jobs;
                if room && best.is_none_or(|b| cluster.free(i) < cluster.free(b)) {
                    best = Some(i);
                }
            }
            let Some(i) = best else {
                break; // head-of-line blocking
            };
            let job = self.queue.pop_front().expect("a head");
            cluster.place(i, &job, view.now);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// Nothing changes until a job arrives or leaves: the slot loop may skip idle slots.
    fn idle(&self) -> bool {
        true
    }
}

/// `[[policy]] name = "capped-bf"` with `max_jobs`, an integer ≥ 1 (required). The spec's
/// parameters in words name its value, so runs with different caps are told apart.
fn parse(params: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    let max_jobs = match params.int("max_jobs")? {
        Some(m) if (1..=1_000_000).contains(&m) => m as u32,
        Some(m) => return Err(ParamError::new("max_jobs", "an integer in [1, 1000000]", m)),
        None => {
            return Err(ParamError::new(
                "max_jobs",
                "the most jobs a server may hold (an integer ≥ 1)",
                "nothing",
            ));
        }
    };
    Ok(PolicySpec::new(
        format!("max_jobs = {max_jobs}"),
        move |_| CappedBestFit {
            max_jobs,
            queue: VecDeque::new(),
        },
    ))
}

/// What packlab needs to know of `capped-bf`: its key, a line for `--help`, its colour, and
/// that it serves jobs in arrival order (so a `saturation` claim simulates it saturated).
const CAPPED_BF: PolicyEntry = PolicyEntry::new(
    "capped-bf",
    "FIFO best fit with at most max_jobs jobs per server (an example of a policy with keys)",
    parse,
)
.keys(&["max_jobs"])
.colour((0, 150, 136))
.fifo_service();

fn main() -> ExitCode {
    match Registry::builtin().with(CAPPED_BF) {
        Ok(policies) => packlab::cli::main(policies),
        Err(e) => {
            eprintln!("capped_best_fit: {e}");
            ExitCode::from(2)
        }
    }
}
