//! A policy of one's own, written against packlab's public API only: FIFO with worst fit.
//!
//! Worst fit is a classic baseline of the bin-packing literature: each job goes to the server
//! with the *most* free capacity (where best fit picks the least that fits), spreading load at
//! the cost of leaving no server room for a large job. Here it serves the queue in arrival
//! order, as FIFO-FF does, with head-of-line blocking: `fifo-wf`.
//!
//! The example
//! 1. implements [`Policy`] twice: a fast version (servers kept ordered by free capacity, so
//!    every decision is O(log L)) and a plain linear scan of every server, the rule as stated;
//! 2. names the scan as its entry's plain version, and runs the suites packlab's own policies
//!    go through on the entry ([`packlab::policy::testing::check_entry`]): decision by decision
//!    against the scan on random systems, invariants after every slot, and the slot loop's
//!    shortcuts giving the loop's result;
//! 3. adds `fifo-wf` (name, keys, one line of doc, parser, colour) to a registry beside the
//!    built-in policies, so that experiment files read with it name it like a built-in one;
//! 4. runs `examples/worst_fit.toml`, which sets it beside FIFO-FF and BF-J/S and makes claims
//!    about it, through the same runner, verdicts, journal, figures and report.
//!
//! `cargo run --release --example worst_fit [-- --quick] [--out DIR]`; exit status 0 when the
//! decisions agree and every claim held (or, with `--quick`, was not checked).

use std::cmp::Reverse;
use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;
use std::process::ExitCode;

use packlab::experiment::{ExperimentFile, Options};
use packlab::model::{Job, ServerId, Size};
use packlab::policy::registry::Registry;
use packlab::policy::testing::check_entry;
use packlab::policy::{Policy, PolicyEntry, PolicySpec, SlotView};
use packlab::sim::{Cluster, Violation};

/// FIFO-WF, fast: the servers in a set ordered by free capacity (most first, then lowest
/// index), updated where jobs leave and where one is placed.
struct FifoWorstFit {
    queue: VecDeque<Job>,
    by_free: BTreeSet<(Reverse<Size>, ServerId)>,
    /// Each server's free capacity as `by_free` holds it.
    free: Vec<Size>,
}

impl FifoWorstFit {
    fn new(servers: usize) -> Self {
        FifoWorstFit {
            queue: VecDeque::new(),
            by_free: (0..servers as ServerId)
                .map(|i| (Reverse(Size::ONE), i))
                .collect(),
            free: vec![Size::ONE; servers],
        }
    }

    /// Records server `i`'s free capacity now.
    fn update(&mut self, cluster: &Cluster, i: ServerId) {
        let now = cluster.free(i);
        let was = std::mem::replace(&mut self.free[i as usize], now);
        self.by_free.remove(&(Reverse(was), i));
        self.by_free.insert((Reverse(now), i));
    }
}

impl Policy for FifoWorstFit {
    fn enqueue(&mut self, job: Job) {
        self.queue.push_back(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for &i in view.departed {
            self.update(cluster, i);
        }
        while let Some(head) = self.queue.front() {
            // the emptiest server: the head fits there or nowhere
            let Some(&(Reverse(most), i)) = self.by_free.first() else {
                break;
            };
            if most < head.size {
                break; // head-of-line blocking
            }
            let job = self.queue.pop_front().expect("a head");
            cluster.place(i, &job, view.now);
            self.update(cluster, i);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// Nothing changes until a job arrives or leaves: the slot loop may skip idle slots.
    fn idle(&self) -> bool {
        true
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        match self.queue.front() {
            Some(h) if cluster.frees().iter().any(|&f| f >= h.size) => {
                Err(Violation("the head-of-line job fits on a server".into()))
            }
            _ => Ok(()),
        }
    }
}

/// FIFO-WF as stated: every slot, scan every server for the most free capacity (ties: the
/// lowest index) and place the head there if it fits.
struct LinearWorstFit {
    queue: VecDeque<Job>,
}

impl Policy for LinearWorstFit {
    fn enqueue(&mut self, job: Job) {
        self.queue.push_back(job);
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        while let Some(head) = self.queue.front() {
            let mut best: Option<ServerId> = None;
            for i in 0..cluster.servers() as ServerId {
                if best.is_none_or(|b| cluster.free(i) > cluster.free(b)) {
                    best = Some(i);
                }
            }
            match best {
                Some(i) if cluster.free(i) >= head.size => {
                    let job = self.queue.pop_front().expect("a head");
                    cluster.place(i, &job, view.now);
                }
                _ => break,
            }
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

/// What packlab needs to know of `fifo-wf`: its name in files, a line for `--help`, how its
/// table becomes a policy (no keys: [`packlab::policy::PolicyParams`]' getters read a policy's
/// own keys), its colour in figures, that it serves jobs in arrival order (so `saturation`
/// claims may be made of it), and its plain version for the suites; its cost per slot keeps
/// the default, BF-J/S's.
const FIFO_WF: PolicyEntry = PolicyEntry::new(
    "fifo-wf",
    "FIFO-WF: the head job to the server with the most free capacity; head-of-line blocking",
    |_, _| Ok(PolicySpec::new("", FifoWorstFit::new)),
)
.colour((214, 120, 0))
.fifo_service()
.reference(|_, _| {
    Ok(PolicySpec::new("linear scan", |_| LinearWorstFit {
        queue: VecDeque::new(),
    }))
});

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|k| args.get(k + 1))
        .map_or_else(|| PathBuf::from("results/worst_fit"), PathBuf::from);

    // 1. the suites every policy goes through: against the scan, decision by decision
    match check_entry(&FIFO_WF, 60, 2026) {
        Ok(c) => println!(
            "fifo-wf: {} placements on 60 random systems, the same as the linear scan; {} runs \
             with every invariant checked after every slot",
            c.compared, c.runs
        ),
        Err(e) => {
            eprintln!("fifo-wf fails its suites: {e}");
            return ExitCode::FAILURE;
        }
    }

    // 2. in a registry beside the built-in policies, it is a policy experiment files can name
    let policies = match Registry::builtin().with(FIFO_WF) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };

    // 3. the experiment file beside this one, through packlab's own runner
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/worst_fit.toml");
    let ran = ExperimentFile::load_with(&file, &policies).and_then(|f| {
        f.run(
            Options {
                quick,
                ..Options::default()
            },
            &out,
        )
    });
    let ran = match ran {
        Ok(r) => r,
        Err(e) => {
            eprintln!("packlab: {e}");
            return ExitCode::from(2);
        }
    };
    println!("{}", ran.done);
    for c in &ran.claims {
        println!("  {:<11}  {}: {}", c.status(), c.claim, c.observed);
    }
    if ran.claims.iter().all(|c| c.passes()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
