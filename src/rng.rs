//! Seeds and random streams: every random number of a run comes from a stream derived from the
//! experiment's seed and a path of indices (load point, replication, …), never from the policy,
//! so every policy at a point sees the same jobs (common random numbers), and never from the
//! thread that runs it. The generator is PCG-64 (MCG variant, `rand_pcg::Pcg64Mcg`).

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// SplitMix64 finaliser: a well-mixed 64-bit value from a 64-bit input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A run's seed from the experiment seed and a path of indices (load point, replication, …).
/// The policy is never part of the path.
pub(crate) fn derive_seed(seed: u64, path: &[u64]) -> u64 {
    path.iter().fold(mix(seed), |acc, &p| mix(acc ^ mix(p)))
}

/// Every random stream packlab draws from, by what it is for: the one list of the seed tree.
/// A stream's seed derives from its parent's seed (the experiment's, or a run's) along the
/// path of its tag and indices ([`Stream::seed`]); the tags are fixed (changing one would
/// change every committed output that draws from it), and the policy is never on a path, so
/// every policy sees the same jobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Stream {
    /// From the experiment's seed: replication `rep` of the sweep point written `key` (the
    /// value's bits), the run seed of every policy's run there.
    Run {
        /// The value written in the sweep.
        key: f64,
        /// The replication.
        rep: u32,
    },
    /// From a search's seed: replication `rep` of its probe at `load`.
    Probe {
        /// The probe's load.
        load: f64,
        /// The replication (over the probe's rounds).
        rep: u32,
    },
    /// From the experiment's seed: the seed of the searches along a region map's ray at
    /// `degrees` (every policy on a ray sees the same runs).
    Ray {
        /// The ray's direction, degrees.
        degrees: f64,
    },
    /// From the experiment's seed: a saturation estimate's run.
    Saturation,
    /// From the experiment's seed: the tasks a compaction study draws, and (`trials`) its
    /// trials' cluster orders.
    Compaction {
        /// The trials' stream rather than the tasks'.
        trials: bool,
    },
    /// From the experiment's seed: the servers with attributes synthesised for placement
    /// constraints (the ground truth).
    Servers,
    /// From the experiment's seed: the re-synthesis of a characterisation's jobs.
    Resynthesis,
    /// From the experiment's seed: replication `rep`'s re-synthesised cluster.
    Resynthesised {
        /// The replication.
        rep: u64,
    },
    /// From the experiment's seed: case `k` of a region file's family of laws.
    Case(u64),
    /// From the experiment's seed: a packing scheduler's stream (its label's FNV-1a hash, so
    /// that adding a scheduler leaves the others' results as they were).
    Scheduler(u64),
    /// From a packing scheduler's stream: trial `k` of its inflation.
    Inflation(u64),
    /// From the experiment's seed: trial `k` of a cluster expansion (the same machines for
    /// every scheduler).
    Expansion(u64),
    /// From a compaction's seed: trial `k`'s order of the machines.
    CompactionTrial(u64),
    /// From a compaction's seed: trial `k` of the share `x` of the machines (T(x)).
    Share(u64, f64),
    /// From a run's seed: its arrival counts.
    Arrivals,
    /// From a run's seed: its jobs' sizes.
    Sizes,
    /// From a run's seed: its jobs' service times.
    Service,
    /// From a run's seed: its random scorers' choices.
    Scorer,
    /// From a run's seed: which jobs must run inside one NUMA node.
    Strict,
    /// From a run's seed: its jobs' placement constraint classes.
    Class,
    /// From a run's seed: its jobs' classes of a workload with `classes` (which class each job
    /// is; its size and service then come from the sizes' and the service's streams).
    JobClass,
    /// From the strict jobs' stream: whether job `id` must run inside one NUMA node.
    Job(u64),
}

/// The tag of the probes of a limit search ("thre").
const PROBES: u64 = 0x7468_7265;
/// The tag of a region map's rays ("maps").
const RAYS: u64 = 0x6d61_7073;
/// The tag of a saturation estimate ("satu").
const SATURATION: u64 = 0x7361_7475;
/// The tag of a compaction study ("comp").
const COMPACTION: u64 = 0x636f_6d70;
/// The tag of the synthesis of servers with attributes ("cons").
const SERVERS: u64 = 0x636f_6e73;

impl Stream {
    /// The stream's seed from its parent's.
    pub(crate) fn seed(self, parent: u64) -> u64 {
        match self {
            Stream::Run { key, rep } => derive_seed(parent, &[key.to_bits(), rep as u64]),
            Stream::Probe { load, rep } => {
                derive_seed(parent, &[PROBES, load.to_bits(), rep as u64])
            }
            Stream::Ray { degrees } => derive_seed(parent, &[RAYS, degrees.to_bits()]),
            Stream::Saturation => derive_seed(parent, &[SATURATION]),
            Stream::Compaction { trials: false } => derive_seed(parent, &[COMPACTION]),
            Stream::Compaction { trials: true } => derive_seed(parent, &[COMPACTION, 1]),
            Stream::Servers => derive_seed(parent, &[SERVERS]),
            Stream::Resynthesis => derive_seed(parent, &[SERVERS, 1]),
            Stream::Resynthesised { rep } => derive_seed(parent, &[SERVERS, 2, rep]),
            Stream::Case(k) | Stream::Scheduler(k) | Stream::CompactionTrial(k) => {
                derive_seed(parent, &[k])
            }
            Stream::Inflation(k) => derive_seed(parent, &[1, k]),
            Stream::Expansion(k) => derive_seed(parent, &[2, k]),
            Stream::Share(k, x) => derive_seed(parent, &[k, x.to_bits()]),
            Stream::Arrivals => derive_seed(parent, &[1]),
            Stream::Sizes => derive_seed(parent, &[2]),
            Stream::Service => derive_seed(parent, &[3]),
            Stream::Scorer => derive_seed(parent, &[4]),
            Stream::Strict => derive_seed(parent, &[5]),
            Stream::Class => derive_seed(parent, &[6]),
            Stream::JobClass => derive_seed(parent, &[7]),
            Stream::Job(id) => derive_seed(parent, &[id]),
        }
    }

    /// A generator of the stream, from its parent's seed.
    pub(crate) fn rng(self, parent: u64) -> Pcg64Mcg {
        Pcg64Mcg::seed_from_u64(self.seed(parent))
    }
}

/// The three random streams of one run: arrival counts, sizes and service times, separate so
/// that changing one law does not change what the others draw.
#[derive(Clone, Debug)]
pub struct Streams {
    /// Draws the number of arrivals per slot.
    pub arrivals: Pcg64Mcg,
    /// Draws the job sizes.
    pub sizes: Pcg64Mcg,
    /// Draws the service times.
    pub service: Pcg64Mcg,
}

impl Streams {
    /// Streams for a run seed (see `derive_seed`).
    pub fn new(run_seed: u64) -> Self {
        Streams {
            arrivals: Stream::Arrivals.rng(run_seed),
            sizes: Stream::Sizes.rng(run_seed),
            service: Stream::Service.rng(run_seed),
        }
    }
}
