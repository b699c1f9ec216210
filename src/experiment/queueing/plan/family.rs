//! The systems a limit search probes, as a function of the load: the scenario a run at load x
//! makes, with its own seed. Its runs take their first look earlier than the file's chain
//! when that chain is shorter than the one the verdict was calibrated on ([`look_earlier`]).

use super::scenario::{Chain, Jobs, Scenario};
use crate::experiment::common::Shared;
use crate::experiment::queueing::spec::DEFAULT_EXTENSION;
use crate::model::Size;
use crate::sim::verdict::MIN_HORIZON_SERVICES;
use crate::sim::{BATCHES, RunConfig};
use crate::stability::plane::rays::{Held, rates_law};

/// The scenario of a search's probe at each load.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) enum Family {
    /// At load x, the base scenario with its jobs arriving at x · `per_load` jobs per slot.
    Scaled {
        /// The scenario, its arrival rate and seed set at each probe.
        base: Scenario,
        /// Jobs per slot per unit of load.
        per_load: f64,
    },
    /// Along a region map's ray with held types: at load x the two free types arrive at x
    /// over the ray's mean size in total (jobs per server per mean service time) in the
    /// proportions `mix`, the held types at their own rates, and the jobs' size law is their
    /// mixture, which changes with x.
    Held {
        /// The scenario, its law, arrival rate and seed set at each probe.
        base: Scenario,
        /// Jobs per slot per job per server per mean service time: L / E\[S\].
        per_server: f64,
        /// The two free types' sizes.
        sizes: [Size; 2],
        /// Their shares along the ray.
        mix: (f64, f64),
        /// The held types.
        held: Vec<Held>,
    },
}

impl Family {
    /// The probes of `base` at arrival rate x · `per_load`.
    pub(crate) fn scaled(base: Scenario, per_load: f64) -> Self {
        Family::Scaled { base, per_load }
    }

    /// The probes along a ray with held types (see [`Family::Held`]).
    pub(crate) fn held(
        base: Scenario,
        per_server: f64,
        (sizes, mix): ([Size; 2], (f64, f64)),
        held: Vec<Held>,
    ) -> Self {
        Family::Held {
            base,
            per_server,
            sizes,
            mix,
            held,
        }
    }

    /// The scenario at load `x` with run seed `seed`, its first look earlier where its chain
    /// is short ([`look_earlier`]).
    pub(crate) fn at(&self, x: f64, seed: u64) -> Scenario {
        let mut s = self.at_rate(x, seed);
        look_earlier(&mut s.chain);
        s
    }

    /// The scenario at load `x` with run seed `seed`, on the file's chain.
    fn at_rate(&self, x: f64, seed: u64) -> Scenario {
        match self {
            Family::Scaled { base, per_load } => Scenario {
                jobs: base.jobs.at_rate(x * per_load),
                seed,
                ..base.clone()
            },
            Family::Held {
                base,
                per_server,
                sizes,
                mix,
                held,
            } => {
                let free = x / (mix.0 * sizes[0].as_f64() + mix.1 * sizes[1].as_f64());
                let (atoms, total) =
                    rates_law([(sizes[0], free * mix.0), (sizes[1], free * mix.1)], held);
                let mut s = Scenario {
                    jobs: base.jobs.at_rate(total * per_server),
                    seed,
                    ..base.clone()
                };
                if let Jobs::Sampled { sizes, .. } = &mut s.jobs {
                    *sizes = Shared::new(super::law(atoms));
                }
                s
            }
        }
    }

    /// The arrival rate at load `x`, jobs per slot.
    pub(crate) fn rate_at(&self, x: f64) -> f64 {
        match self {
            Family::Scaled { per_load, .. } => x * per_load,
            Family::Held {
                per_server,
                sizes,
                mix,
                held,
                ..
            } => {
                let free = x / (mix.0 * sizes[0].as_f64() + mix.1 * sizes[1].as_f64());
                (free + held.iter().map(|h| h.per_server).sum::<f64>()) * per_server
            }
        }
    }

    /// The utilisation a stable system at load `x` would show, as a fraction of the cluster's
    /// capacity (E\[size\] · E\[service\] · arrival rate / L), for jobs drawn from one scalar
    /// size law by a scaled family; `None` otherwise (request vectors, a replayed trace, a
    /// region map's ray with held types).
    pub(crate) fn offered(&self, x: f64) -> Option<f64> {
        let Family::Scaled { base, per_load } = self else {
            return None;
        };
        match &base.jobs {
            Jobs::Sampled { sizes, service, .. } => {
                Some(x * per_load * sizes.mean() * service.mean() / base.servers as f64)
            }
            _ => None,
        }
    }

    /// The scenario its probes share, on the file's chain (its law and rate are a probe's).
    pub(crate) fn base(&self) -> &Scenario {
        match self {
            Family::Scaled { base, .. } | Family::Held { base, .. } => base,
        }
    }
}

/// Looks of the horizon chain the single-run verdict's error rates were measured on: `slots`
/// and four doublings, up to the default `max_slots` of 16 × `slots`.
const CALIBRATED_LOOKS: u32 = DEFAULT_EXTENSION.ilog2() + 1;

/// A probe's run takes its first look at half the horizon after warm-up that `run.slots`
/// gives, when its chain of looks up to `run.max_slots` is shorter than the calibrated one
/// ([`CALIBRATED_LOOKS`]): one look more, at the front. The later looks are those of the chain
/// from `run.slots`, on the same random streams (exactly when the horizon after warm-up is a
/// multiple of 2 × [`BATCHES`] slots; otherwise each ends less than one of its batches away).
/// A run decided at the new look (far from a limit, most of them) costs about half as much;
/// one still inconclusive goes on as before. Nothing changes where that half would be shorter
/// than [`BATCHES`] slots or its horizon shorter than the verdict judges
/// ([`MIN_HORIZON_SERVICES`] mean service times). Its error rates, measured as a chain of their
/// own, are in `proofs/verdict_calibration.md` ("A limit search's first look").
pub(crate) fn look_earlier(c: &mut Chain) {
    let looks = RunConfig {
        slots: c.slots,
        warmup: c.warmup,
        max_slots: c.max_slots,
        ..RunConfig::new(c.slots, c.warmup, c.mean_service)
    }
    .looks();
    if looks >= CALIBRATED_LOOKS {
        return;
    }
    let half = c.slots.saturating_sub(c.warmup) / 2;
    let first = c.warmup + half;
    if half < BATCHES as u64 || (first as f64) < MIN_HORIZON_SERVICES * c.mean_service {
        return;
    }
    c.slots = first;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::queueing::Experiment;
    use crate::sim::Verdict;

    #[test]
    fn a_probe_run_looks_earlier_only_when_its_chain_is_short_of_the_calibrated_one() {
        let cfg = |slots, warmup, max_slots, mean_service| RunConfig {
            max_slots,
            ..RunConfig::new(slots, warmup, mean_service)
        };
        let after = |c: RunConfig| {
            let mut chain = Chain {
                slots: c.slots,
                warmup: c.warmup,
                max_slots: c.max_slots,
                queue_cap: c.queue_cap,
                samples: c.samples,
                mean_service: c.mean_service,
            };
            look_earlier(&mut chain);
            let c2 = RunConfig {
                slots: chain.slots,
                ..c
            };
            (c.looks(), c2.slots, c2.looks())
        };
        // the threshold files: 3.6·10⁶ slots after warm-up, doubled three times within 3.2·10⁷;
        // one look at 1.8·10⁶ before them, the others where they were
        let c = cfg(4_000_000, 400_000, 32_000_000, 100.0);
        assert_eq!(after(c), (4, 2_200_000, 5));
        // the calibrated chain (the default extension to 16 × slots) is left alone
        assert_eq!(
            after(cfg(1_000_000, 100_000, 16_000_000, 10.0)).1,
            1_000_000
        );
        // no extension at all: one look more, not four
        assert_eq!(
            after(cfg(1_000_000, 100_000, 1_000_000, 10.0)),
            (1, 550_000, 2)
        );
        // a first look shorter than the verdict judges (100 mean service times) is not taken
        assert_eq!(after(cfg(30_000, 1_000, 30_000, 200.0)).1, 30_000);
        // nor one of fewer slots than batches
        assert_eq!(after(cfg(60, 0, 60, 0.1)).1, 60);
    }

    /// A run the earlier look leaves inconclusive goes on to the looks it had before, on the
    /// same streams: its verdict, statistics and slots are those of the run without it.
    #[test]
    fn a_run_undecided_at_the_earlier_look_ends_as_before() {
        // M/Geo/3 at its critical load: 1.28·10⁵ slots after warm-up, four looks to 1.6·10⁶
        let text = "name = \"early\"\nseed = 3\n[cluster]\nservers = 3\n[workload]\n\
             sizes = { dist = \"discrete\", values = [1.0], probs = [1.0] }\n\
             service = { dist = \"geometric\", mean = 10.0 }\n\
             [run]\nslots = 148_000\nwarmup = 20_000\nmax_slots = 1_600_000\n\
             queue_cap = 1_000_000\n[sweep]\nload = [1.0]\n[[policy]]\nname = \"fifo-ff\"\n";
        let exp = Experiment::parse(std::path::Path::new("early.toml"), text).unwrap();
        let rate = exp.rate_per_load();
        let file = std::path::Path::new("early.toml");
        let family = Family::scaled(Scenario::sampled(&exp, 0, 0.0, 0, (0, false)), rate);
        let (mut went_on, mut early, mut inconclusive) = (0, 0, 0);
        for seed in 0..12 {
            let before = Scenario::sampled(&exp, 0, rate, seed, (0, false));
            let after = family.at(1.0, seed);
            assert_eq!(after.chain.slots, 84_000);
            let run = crate::experiment::queueing::run::run_scenario;
            let (b, a) = (run(&before, file).unwrap(), run(&after, file).unwrap());
            if a.evidence.extensions == 0 {
                // decided at the new look, after half the slots
                assert_ne!(a.verdict, Verdict::Inconclusive);
                early += 1;
                continue;
            }
            went_on += 1;
            assert_eq!(
                a.evidence.extensions,
                b.evidence.extensions + 1,
                "seed {seed}"
            );
            assert_eq!((a.verdict, a.slots), (b.verdict, b.slots), "seed {seed}");
            assert_eq!(a.evidence.z_vn.to_bits(), b.evidence.z_vn.to_bits());
            assert_eq!(a.evidence.z_drift.to_bits(), b.evidence.z_drift.to_bits());
            if a.verdict == Verdict::Inconclusive {
                // `RunConfig::looks` counts the slot loop's own chain: an undecided run took
                // every look it allows
                assert_eq!(
                    a.evidence.extensions + 1,
                    after.chain.config().looks(),
                    "seed {seed}"
                );
                assert_eq!(
                    b.evidence.extensions + 1,
                    before.chain.config().looks(),
                    "seed {seed}"
                );
                inconclusive += 1;
            }
        }
        assert!(inconclusive > 0, "no run took every look");
        // critical runs are rarely decided early: most go on and are compared
        assert!(went_on >= 8, "{went_on} went on, {early} decided early");
    }
}
