//! Checking a policy decision by decision against another, on random small instances: the
//! harness packlab's own policies are checked by (each against a plain linear-scan version of
//! its rule), public so that a policy written outside the crate is checked the same way.
//!
//! An [`Instance`] is a small cluster with a random size law (few distinct sizes, so that ties
//! in size and in free capacity happen all the time, or a uniform law), a random service law
//! and a load between 0.4 and 1.3. [`run_logged`] runs a policy on it for a number of slots
//! with every invariant checked after every slot and returns every placement in order;
//! [`same_decisions`] runs two policies on the same instances (the same jobs: common random
//! numbers) and names the first placement where they differ.
//!
//! ```
//! use packlab::policy::testing::same_decisions;
//! use packlab::policy::{BestFitJS, Policy};
//! // BF-J/S against itself: the same decisions, of course
//! let placed = same_decisions(
//!     |servers| Box::new(BestFitJS::new(servers)) as Box<dyn Policy>,
//!     |servers| Box::new(BestFitJS::new(servers)) as Box<dyn Policy>,
//!     5,
//!     1,
//! )
//! .unwrap();
//! assert!(placed > 0);
//! ```

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::Policy;
use crate::model::Size;
use crate::sim::{Cluster, Placement, RunConfig};
use crate::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};

/// A small random system to compare policies on.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Servers of capacity 1.
    pub servers: usize,
    /// The law of the job sizes.
    pub sizes: SizeLaw,
    /// The law of the service times.
    pub service: ServiceLaw,
    /// Poisson arrivals per slot.
    pub rate: f64,
    /// The seed of the job stream.
    pub seed: u64,
}

impl Instance {
    /// 1 to 8 servers; half the time 1 to 4 distinct sizes (multiples of 1/12), else a uniform
    /// law; geometric service with mean 1 to 15 slots (deterministic 1 to 9 slots 30 % of the
    /// time); load 0.4 to 1.3.
    pub fn random(rng: &mut impl Rng) -> Instance {
        let servers = rng.random_range(1..=8);
        let sizes = if rng.random_bool(0.5) {
            let k = rng.random_range(1..=4);
            let values: Vec<Size> = (0..k)
                .map(|_| Size(rng.random_range(1..=12u64) * Size::UNIT / 12))
                .collect();
            SizeLaw::discrete(values, vec![1.0; k]).expect("positive weights")
        } else {
            let a = rng.random_range(1..Size::UNIT);
            let b = rng.random_range(a..=Size::UNIT);
            SizeLaw::uniform(Size(a), Size(b))
        };
        let service = if rng.random_bool(0.7) {
            ServiceLaw::geometric(rng.random_range(1.0..15.0))
        } else {
            ServiceLaw::Deterministic(rng.random_range(1..10))
        };
        let load = rng.random_range(0.4..1.3);
        let rate = load * servers as f64 / (sizes.mean() * service.mean());
        Instance {
            servers,
            sizes,
            service,
            rate,
            seed: rng.random(),
        }
    }

    /// [`Instance::random`] with 1 to 3 distinct sizes among 1, 1/2, 1/4 and 1/8 of a server
    /// (the multiserver-job model's machines of 2^m cores).
    pub fn powers_of_two(rng: &mut impl Rng) -> Instance {
        let mut inst = Instance::random(rng);
        let k = rng.random_range(1..=3);
        let values: Vec<Size> = (0..k)
            .map(|_| Size(Size::UNIT >> rng.random_range(0..=3u32)))
            .collect();
        let load = rng.random_range(0.4..1.3);
        inst.sizes = SizeLaw::discrete(values, vec![1.0; k]).expect("positive weights");
        inst.rate = load * inst.servers as f64 / (inst.sizes.mean() * inst.service.mean());
        inst
    }

    /// The same system on at most `servers` servers, at the same load.
    pub fn at_most(mut self, servers: usize) -> Instance {
        if self.servers > servers {
            self.rate *= servers as f64 / self.servers as f64;
            self.servers = servers;
        }
        self
    }
}

/// Runs `policy` on `inst` for `slots` slots, checking after every slot that no server is over
/// capacity, that jobs are conserved and the policy's own invariant ([`Policy::check`]);
/// returns every placement in order, or the first violation.
pub fn run_logged(
    inst: &Instance,
    policy: &mut dyn Policy,
    slots: u64,
) -> Result<Vec<Placement>, crate::sim::SimError> {
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, inst.rate).expect("a valid rate");
    let mut source = JobSource::new(
        inst.sizes.clone(),
        inst.service.clone(),
        arrivals,
        inst.seed,
    );
    let mut cluster = Cluster::new(inst.servers, inst.service.mean());
    cluster.enable_log();
    let cfg = RunConfig {
        slots,
        warmup: 0,
        queue_cap: 5_000,
        samples: 10,
        check_every_slot: true,
        max_slots: 0,
        mean_service: 1.0,
        watch: crate::sim::Watch::NONE,
        look: crate::sim::Look::ALWAYS,
    };
    super::run(policy, &mut source, &mut cluster, &cfg)?;
    Ok(cluster.log().to_vec())
}

/// Runs `fast` and `reference` (each built for a number of servers) on `cases` random
/// [`Instance`]s drawn from `seed`, 3,000 slots each, invariants checked every slot; returns
/// the number of placements compared, or the first case and decision where they differ (or
/// where either breaks an invariant or places nothing).
pub fn same_decisions(
    fast: impl Fn(usize) -> Box<dyn Policy>,
    reference: impl Fn(usize) -> Box<dyn Policy>,
    cases: usize,
    seed: u64,
) -> Result<usize, String> {
    same_decisions_on(fast, reference, cases, seed, Instance::random)
}

/// [`same_decisions`] on instances drawn by `instance`.
pub fn same_decisions_on(
    fast: impl Fn(usize) -> Box<dyn Policy>,
    reference: impl Fn(usize) -> Box<dyn Policy>,
    cases: usize,
    seed: u64,
    instance: impl Fn(&mut Pcg64Mcg) -> Instance,
) -> Result<usize, String> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut compared = 0;
    for case in 0..cases {
        let inst = instance(&mut rng);
        let run = |p: &mut dyn Policy, who: &str| {
            run_logged(&inst, p, 3_000).map_err(|e| format!("case {case}: {who}: {e}"))
        };
        let a = run(fast(inst.servers).as_mut(), "fast")?;
        let b = run(reference(inst.servers).as_mut(), "reference")?;
        if a.is_empty() {
            return Err(format!("case {case}: nothing was placed"));
        }
        if let Some(k) = (0..a.len().min(b.len())).find(|&k| a[k] != b[k]) {
            return Err(format!(
                "case {case} ({} servers, rate {:.3}): decision {k} differs: fast {:?}, reference {:?}",
                inst.servers, inst.rate, a[k], b[k]
            ));
        }
        if a.len() != b.len() {
            return Err(format!(
                "case {case}: {} placements against the reference's {}",
                a.len(),
                b.len()
            ));
        }
        compared += a.len();
    }
    Ok(compared)
}

/// What [`check_entry`] checked of a policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// Runs made, each checked after every slot.
    pub runs: usize,
    /// Placements compared with the plain version's, decision by decision (none without one).
    pub compared: usize,
}

/// A source that, unless `tell`, hides when its next batch comes, so that the slot loop runs
/// every slot.
struct EverySlot {
    source: JobSource,
    tell: bool,
}

impl crate::workload::Source<crate::model::Job> for EverySlot {
    fn batch(&mut self, t: u64, out: &mut Vec<crate::model::Job>) {
        self.source.batch(t, out)
    }
    fn arrived(&self) -> u64 {
        self.source.arrived()
    }
    fn arrived_work(&self) -> u128 {
        self.source.arrived_work()
    }
    fn next_arrival(&self) -> u64 {
        if self.tell {
            self.source.next_arrival()
        } else {
            0
        }
    }
}

/// The suites every policy of a registry goes through, on one entry (a program checks its own
/// policies with it, as packlab checks the built-in ones): for each of its parameter sets
/// ([`super::PolicyEntry::examples`]) on `cases` random [`Instance`]s drawn from `seed` (on at
/// most [`super::PolicyEntry::max_servers`] servers; when its parser refuses the size law, an
/// instance of power-of-two sizes instead, skipped if refused too):
/// - its invariants after every slot (no server over capacity, jobs conserved, its own
///   [`Policy::check`]);
/// - with a plain version ([`super::PolicyEntry::reference`]), the same placements, decision by
///   decision, on the same jobs;
/// - the slot loop skipping slots without events, and compiled for the policy's own type, giving
///   the result, number for number, of the loop that runs every slot over `dyn Policy` (through
///   warm-up, sampling, horizon doublings and the queue cap).
///
/// Returns what was checked, or the first parameter set, case and difference.
pub fn check_entry(entry: &super::PolicyEntry, cases: usize, seed: u64) -> Result<Checked, String> {
    let mut checked = Checked::default();
    for example in entry.examples {
        let table: toml::Table = example
            .parse()
            .map_err(|e| format!("{}: example `{example}` is not TOML: {e}", entry.name))?;
        let params = super::PolicyParams::new(entry.name, &table);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut accepted = 0;
        for case in 0..cases {
            // a random system, or one of power-of-two sizes for a policy that refuses it
            let mut inst = Instance::random(&mut rng).at_most(entry.max_servers);
            if (entry.parse)(&params, &inst.sizes).is_err() {
                inst = Instance::powers_of_two(&mut rng).at_most(entry.max_servers);
            }
            let Ok(spec) = (entry.parse)(&params, &inst.sizes) else {
                continue;
            };
            accepted += 1;
            let at = |what: String| format!("{} with `{example}`, case {case}: {what}", entry.name);
            let fast = run_logged(&inst, spec.build(inst.servers).as_mut(), 3_000)
                .map_err(|e| at(e.to_string()))?;
            checked.runs += 1;
            if let Some(reference) = entry.reference {
                let plain = (reference)(&params, &inst.sizes).map_err(|e| at(format!("{e:?}")))?;
                let slow = run_logged(&inst, plain.build(inst.servers).as_mut(), 3_000)
                    .map_err(|e| at(format!("its plain version: {e}")))?;
                if let Some(k) = (0..fast.len().min(slow.len())).find(|&k| fast[k] != slow[k]) {
                    return Err(at(format!(
                        "decision {k} differs from the plain version's ({} servers, rate {:.3}): \
                         {:?} against {:?}",
                        inst.servers, inst.rate, fast[k], slow[k]
                    )));
                }
                if fast.len() != slow.len() {
                    return Err(at(format!(
                        "{} placements against the plain version's {}",
                        fast.len(),
                        slow.len()
                    )));
                }
                checked.compared += fast.len();
            }
            same_loops(&spec, &inst, 2_000 + 97 * case as u64).map_err(at)?;
            checked.runs += 3;
        }
        if accepted == 0 {
            return Err(format!(
                "{} with `{example}`: its parser accepted none of {cases} random size laws",
                entry.name
            ));
        }
    }
    Ok(checked)
}

/// The run of `spec` on `inst` for `slots` slots (a tenth warm-up, 97 samples, doublings up to
/// four times the horizon, a small queue cap) by the slot loop skipping slots without events,
/// compiled for the policy's type, and running every slot: the same result, number for number.
fn same_loops(spec: &super::PolicySpec, inst: &Instance, slots: u64) -> Result<(), String> {
    let mut cfg = RunConfig::new(slots, slots / 10 + 1, inst.service.mean());
    cfg.samples = 97;
    cfg.queue_cap = 400;
    cfg.max_slots = 4 * slots;
    let run = |tell: bool, compiled: bool| {
        let arrivals = Arrivals::new(ArrivalProcess::Poisson, inst.rate).expect("a valid rate");
        let mut source = EverySlot {
            source: JobSource::new(
                inst.sizes.clone(),
                inst.service.clone(),
                arrivals,
                inst.seed,
            ),
            tell,
        };
        let mut cluster = Cluster::new(inst.servers, inst.service.mean());
        if compiled {
            super::run_spec(spec, &mut source, &mut cluster, &cfg)
        } else {
            super::run(
                spec.build(inst.servers).as_mut(),
                &mut source,
                &mut cluster,
                &cfg,
            )
        }
        .map_err(|e| e.to_string())
    };
    let every = run(false, false)?;
    if run(true, false)? != every {
        return Err("skipping slots without events changed the result".into());
    }
    if run(true, true)? != every {
        return Err("the loop compiled for the policy's type gave another result".into());
    }
    Ok(())
}
