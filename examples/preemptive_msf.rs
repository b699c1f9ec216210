//! A preemptive policy of one's own, written against packlab's public API only: preemptive
//! Most-Servers-First on one machine (`pmsf`).
//!
//! Every slot in which a job arrives or leaves, the jobs present (waiting, preempted or in
//! service) are taken largest first (ties: the earliest arrival) while they fit in the
//! machine; every job in service that is not among them is preempted, and every one among them
//! that is not in service starts. A preempted job comes back from
//! [`Cluster::preempt`](packlab::sim::Cluster::preempt) with the service it still needs
//! (preempt-resume), and resumes with it later.
//!
//! The example
//! 1. implements [`Policy`] twice: a fast version (the jobs present in a set ordered by size,
//!    walked only until the machine is full) and the rule as stated, recomputed from a plain
//!    list every slot;
//! 2. declares in its entry that it runs on one server (`max_servers(1)`) and says it
//!    preempts ([`Policy::preemptive`]), so the cluster keeps its jobs the preemptive way, and
//!    runs the suites packlab's own policies go through
//!    ([`packlab::policy::testing::check_entry`]);
//! 3. runs `examples/preemptive_msf.toml` beside ServerFilling and FCFS through packlab's
//!    runner: verdicts, limit searches, waits by job class, and the preemptions per job in
//!    `runs.csv` and the report.
//!
//! `cargo run --release --example preemptive_msf [-- --quick] [--out DIR]`; exit status 0 when
//! the suites pass and every claim held (or, with `--quick`, was not checked).

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;

use packlab::experiment::{ExperimentFile, Options};
use packlab::model::{Job, Size};
use packlab::policy::registry::Registry;
use packlab::policy::testing::check_entry;
use packlab::policy::{Policy, PolicyEntry, PolicySpec, SlotView};
use packlab::sim::{Cluster, Violation};

/// The order of service: largest first, then earliest arrival (job ids increase with arrival).
type Key = (Reverse<Size>, u64);

/// A job present: the job (its `service` what it still needs when it is not in service) and,
/// in service, the slot it leaves at step 1 of.
#[derive(Clone, Copy)]
struct Present {
    job: Job,
    due: Option<u64>,
}

/// Preemptive MSF, fast: the jobs present ordered by [`Key`]; the jobs in service by the slot
/// they leave, so that departures are found without a scan.
struct PreemptiveMsf {
    present: BTreeMap<Key, Present>,
    leaving: BTreeMap<(u64, u64), Key>,
    waiting: usize,
    changed: bool,
}

impl PreemptiveMsf {
    fn new(servers: usize) -> Self {
        assert_eq!(servers, 1, "pmsf runs on one machine");
        PreemptiveMsf {
            present: BTreeMap::new(),
            leaving: BTreeMap::new(),
            waiting: 0,
            changed: false,
        }
    }
}

fn key(job: &Job) -> Key {
    (Reverse(job.size), job.id)
}

impl Policy for PreemptiveMsf {
    fn enqueue(&mut self, job: Job) {
        self.present.insert(key(&job), Present { job, due: None });
        self.waiting += 1;
        self.changed = true;
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let now = view.now;
        // the jobs that left at step 1 of this slot
        while let Some((&(due, id), &k)) = self.leaving.first_key_value() {
            if due > now {
                break;
            }
            self.leaving.remove(&(due, id));
            self.present.remove(&k);
            self.changed = true;
        }
        if !std::mem::take(&mut self.changed) {
            return;
        }
        // largest first while they fit: the jobs to serve
        let mut free = Size::ONE;
        let mut serve: Vec<Key> = Vec::new();
        for (k, p) in &self.present {
            if free == Size::ZERO {
                break;
            }
            if p.job.size <= free {
                free = Size(free.0 - p.job.size.0);
                serve.push(*k);
            }
        }
        let chosen: HashSet<Key> = serve.iter().copied().collect();
        // preemptions first (the running jobs not chosen), then starts, each in arrival order
        let mut running: Vec<(u64, Key)> = self
            .leaving
            .iter()
            .map(|(&(due, _), &k)| (due, k))
            .collect();
        running.sort_by_key(|&(_, k)| k.1);
        serve.sort_by_key(|k| k.1);
        for (due, k) in running {
            if !chosen.contains(&k) {
                let (_, job) = cluster.preempt(k.1, now);
                self.leaving.remove(&(due, k.1));
                self.present.insert(k, Present { job, due: None });
                self.waiting += 1;
            }
        }
        for k in serve {
            let p = self.present.get_mut(&k).expect("a job present");
            if p.due.is_none() {
                cluster.place(0, &p.job, now);
                let due = now + p.job.service as u64;
                p.due = Some(due);
                self.leaving.insert((due, k.1), k);
                self.waiting -= 1;
            }
        }
    }

    fn waiting(&self) -> usize {
        self.waiting
    }

    /// Nothing changes until a job arrives or leaves: the slot loop may skip the slots between.
    fn idle(&self) -> bool {
        true
    }

    fn preemptive(&self) -> bool {
        true
    }

    fn check(&self, cluster: &Cluster) -> Result<(), Violation> {
        // no waiting job fits in the room the machine has
        let free = cluster.free(0);
        match self
            .present
            .values()
            .find(|p| p.due.is_none() && p.job.size <= free)
        {
            Some(p) => Err(Violation(format!("job {} waits but fits", p.job.id))),
            None => Ok(()),
        }
    }
}

/// The rule as stated: every slot, every job present in arrival order, sorted afresh.
struct PlainPreemptiveMsf {
    present: Vec<Present>,
}

impl Policy for PlainPreemptiveMsf {
    fn enqueue(&mut self, job: Job) {
        self.present.push(Present { job, due: None });
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let now = view.now;
        self.present.retain(|p| p.due.is_none_or(|d| d > now));
        let mut order: Vec<usize> = (0..self.present.len()).collect();
        order.sort_by_key(|&k| key(&self.present[k].job));
        let mut free = Size::ONE;
        let mut on = vec![false; self.present.len()];
        for k in order {
            if self.present[k].job.size <= free {
                free = Size(free.0 - self.present[k].job.size.0);
                on[k] = true;
            }
        }
        for (p, &on) in self.present.iter_mut().zip(&on) {
            if p.due.is_some() && !on {
                let (_, job) = cluster.preempt(p.job.id, now);
                *p = Present { job, due: None };
            }
        }
        for (p, &on) in self.present.iter_mut().zip(&on) {
            if p.due.is_none() && on {
                cluster.place(0, &p.job, now);
                p.due = Some(now + p.job.service as u64);
            }
        }
    }

    fn waiting(&self) -> usize {
        self.present.iter().filter(|p| p.due.is_none()).count()
    }

    fn preemptive(&self) -> bool {
        true
    }
}

/// `pmsf` for experiment files: one machine only (a file with more servers is refused naming
/// `cluster.servers`), with its plain version for the suites.
const PMSF: PolicyEntry = PolicyEntry::new(
    "pmsf",
    "preemptive Most-Servers-First (one machine): the jobs present largest first while they fit",
    |_, _| Ok(PolicySpec::new("", PreemptiveMsf::new)),
)
.max_servers(1)
.colour((120, 80, 200))
.reference(|_, _| {
    Ok(PolicySpec::new("rule as stated", |_| PlainPreemptiveMsf {
        present: Vec::new(),
    }))
});

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|k| args.get(k + 1))
        .map_or_else(|| PathBuf::from("results/preemptive_msf"), PathBuf::from);

    match check_entry(&PMSF, 40, 2026) {
        Ok(c) => println!(
            "pmsf: {} decisions on 40 random systems, the same as the rule as stated; {} runs \
             with every invariant checked after every slot",
            c.compared, c.runs
        ),
        Err(e) => {
            eprintln!("pmsf fails its suites: {e}");
            return ExitCode::FAILURE;
        }
    }
    let policies = match Registry::builtin().with(PMSF) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/preemptive_msf.toml");
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
