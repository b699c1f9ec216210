//! Placement constraints for the slotted simulator (Sharma et al., SoCC 2011, Algorithms 2 and
//! 3, used online): L servers get properties by Algorithm 2 once, and every arriving job a
//! constraint set by Algorithm 3. A set no server satisfies would make a job that can never
//! run, so such a draw is thrown away and the job drawn again (cluster and constraints), as the
//! packing synthesis does; the law of a job's class is Algorithm 3's conditioned on some server
//! satisfying it.
//!
//! Every set Algorithm 3 can draw is known in advance (each task cluster's frequencies strictly
//! between 0 and 1 span its possible sets), so the eligibility table holds every class before
//! the run and the law of the classes is exact: the Utilization Multiplier of each constraint
//! follows from it without sampling.

use std::collections::{BTreeMap, HashMap};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::predicate::{Constraint, ConstraintSet};
use super::synthesis::{Characterisation, sort_and_merge};
use super::table::{ConstraintError, Eligibility, Properties};

/// Frequencies strictly between 0 and 1 per task statistical cluster at most (its sets are
/// enumerated: 2¹² at most).
pub(crate) const MAX_FREE: usize = 12;

/// Constraint sets enumerated over all task clusters at most (each costs a pass over the
/// vocabulary): 2¹⁶, sixteen clusters of twelve free frequencies.
pub(crate) const MAX_SETS: usize = 1 << 16;

/// A characterisation the simulator cannot use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SupportError {
    /// A task cluster draws from too many constraint sets.
    #[error(
        "task statistical cluster {cluster} has {free} frequencies strictly between 0 and 1; the simulator enumerates the constraint sets a cluster can draw and takes at most {MAX_FREE}"
    )]
    TooMany {
        /// The task cluster.
        cluster: usize,
        /// Its frequencies strictly between 0 and 1.
        free: usize,
    },
    /// The task clusters draw from too many constraint sets in all.
    #[error(
        "the task statistical clusters can draw {sets} constraint sets in all (2 to the number of \
         each cluster's frequencies strictly between 0 and 1, added up); the simulator enumerates \
         them and takes at most {MAX_SETS}"
    )]
    TooManySets {
        /// Constraint sets over all task clusters.
        sets: usize,
    },
    /// A task cluster none of whose constraint sets any server satisfies.
    #[error(
        "task statistical cluster {cluster}: no constraint set it can draw is satisfied by any of the servers, so its jobs could never run"
    )]
    NeverRunnable {
        /// The task cluster.
        cluster: usize,
    },
    /// A constraint the servers' attributes cannot decide.
    #[error(transparent)]
    Constraint(#[from] ConstraintError),
}

/// One constraint of the vocabulary on the simulated cluster: the share of jobs requesting it
/// (= its share of the demand for every resource, sizes being independent of constraints), the
/// share of servers satisfying it (= its share of the supply of every resource, all servers
/// having capacity 1), and their ratio, the Utilization Multiplier u*_c.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ServerMultiplier {
    /// The constraint.
    pub constraint: Constraint,
    /// The share of jobs requesting it.
    pub demand_share: f64,
    /// The share of servers satisfying it.
    pub supply_share: f64,
    /// Their ratio, u*_c.
    pub u: f64,
}

/// Servers with synthesised properties and the exact law of the jobs' constraint classes.
#[derive(Clone, Debug, serde::Serialize)]
pub struct JobClasses {
    /// Every class a job can have (class 0: no constraint), and the servers' kinds.
    pub table: Eligibility,
    /// Per server, its kind in `table`.
    pub kind: Vec<u32>,
    /// Per class, the probability a job has it.
    pub probability: Vec<f64>,
    /// Per task cluster, the probability a draw from it is satisfiable.
    pub satisfiable: Vec<f64>,
    ch: Characterisation,
    /// Each class by its set (derived from `table`, not part of the identity).
    #[serde(skip)]
    index: HashMap<ConstraintSet, u32>,
}

impl JobClasses {
    /// `servers` servers drawn by Algorithm 2 from `ch` with `seed` (in order, one stream), and
    /// every constraint set the task clusters can draw.
    pub fn new(ch: &Characterisation, servers: usize, seed: u64) -> Result<Self, SupportError> {
        Self::split(ch, ch, servers, seed)
    }

    /// Servers drawn by Algorithm 2 from `machines` (as [`JobClasses::new`] draws them from
    /// it with `seed`), jobs by Algorithm 3 from `tasks`: the two halves of a synthesis taken
    /// from different characterisations (Sharma et al.'s Fig. 17 synthesises tasks only,
    /// machines only, or both). The two must share the vocabulary and the values.
    pub fn split(
        machines: &Characterisation,
        tasks: &Characterisation,
        servers: usize,
        seed: u64,
    ) -> Result<Self, SupportError> {
        debug_assert_eq!(machines.vocabulary, tasks.vocabulary);
        debug_assert_eq!(machines.values, tasks.values);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let rows: Vec<_> = (0..servers)
            .map(|_| machines.machine(&mut rng).properties)
            .collect();
        Self::on_servers(tasks, &rows)
    }

    /// Servers with the properties `rows` (one per server, in order), jobs by Algorithm 3
    /// from `ch`.
    pub fn on_servers(ch: &Characterisation, rows: &[Properties]) -> Result<Self, SupportError> {
        let (mut table, kind) = Eligibility::from_machines(rows);
        // every set each cluster can draw, with its probability within the cluster
        let mut sets: BTreeMap<ConstraintSet, Vec<(usize, f64)>> = BTreeMap::new();
        let free_of = |k: usize| -> Vec<usize> {
            let f = &ch.tasks[k].frequency;
            (0..f.len()).filter(|&i| f[i] > 0.0 && f[i] < 1.0).collect()
        };
        let mut total = 0usize;
        for k in 0..ch.tasks.len() {
            let free = free_of(k).len();
            if free > MAX_FREE {
                return Err(SupportError::TooMany { cluster: k, free });
            }
            total += 1 << free;
        }
        if total > MAX_SETS {
            return Err(SupportError::TooManySets { sets: total });
        }
        for (k, cluster) in ch.tasks.iter().enumerate() {
            let free = free_of(k);
            // each vocabulary item's bit in the mask, if its frequency is free
            let mut bit = vec![None; cluster.frequency.len()];
            for (b, &i) in free.iter().enumerate() {
                bit[i] = Some(b);
            }
            for mask in 0u32..(1 << free.len()) {
                let mut p = 1.0;
                let mut set: ConstraintSet = Vec::new();
                for (i, c) in ch.vocabulary.iter().enumerate() {
                    let f = cluster.frequency[i];
                    match bit[i] {
                        Some(b) if mask >> b & 1 == 1 => {
                            p *= f;
                            set.push(c.clone());
                        }
                        Some(_) => p *= 1.0 - f,
                        None if f >= 1.0 => set.push(c.clone()),
                        None => {}
                    }
                }
                set.sort();
                set.dedup();
                sets.entry(set).or_default().push((k, p));
            }
        }
        let mut satisfiable = vec![0.0; ch.tasks.len()];
        let mut mass: Vec<f64> = vec![0.0];
        let mut index = HashMap::new();
        for (set, from) in &sets {
            match table.class_of(set) {
                Ok(c) => {
                    let c = c as usize;
                    if mass.len() <= c {
                        mass.resize(c + 1, 0.0);
                    }
                    for &(k, p) in from {
                        satisfiable[k] += p;
                        mass[c] += ch.tasks[k].share * p;
                    }
                    index.insert(set.clone(), c as u32);
                }
                Err(ConstraintError::Unsatisfiable { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if let Some(k) =
            (0..ch.tasks.len()).find(|&k| ch.tasks[k].share > 0.0 && satisfiable[k] <= 0.0)
        {
            return Err(SupportError::NeverRunnable { cluster: k });
        }
        mass.resize(table.classes().len(), 0.0);
        let total: f64 = mass.iter().sum();
        let probability = mass.iter().map(|m| m / total).collect();
        Ok(JobClasses {
            table,
            kind,
            probability,
            satisfiable,
            ch: ch.clone(),
            index,
        })
    }

    /// A job's class by Algorithm 3, drawn again until some server satisfies the set.
    pub fn draw(&self, rng: &mut impl Rng) -> u32 {
        loop {
            let (_, set) = self.ch.task(rng);
            if let Some(&c) = self.index.get(&set) {
                return c;
            }
        }
    }

    /// The characterisation the jobs' classes are drawn from (Algorithm 3's; the servers may
    /// have been drawn from another, [`JobClasses::split`]).
    pub fn characterisation(&self) -> &Characterisation {
        &self.ch
    }

    /// Characterises this cluster as Sharma et al.'s Section 5.1 does a real one: the servers'
    /// binary feature vectors (satisfies each vocabulary item) and those of `tasks` jobs drawn
    /// from the class law with `rng` (requests each item), each grouped into statistical
    /// clusters by sort-and-merge with `tolerance` ([`sort_and_merge`]); attribute values as
    /// before.
    pub fn characterise(
        &self,
        tasks: usize,
        tolerance: f64,
        rng: &mut impl Rng,
    ) -> Characterisation {
        let vocab = &self.ch.vocabulary;
        let machines: Vec<Vec<bool>> = self
            .kind
            .iter()
            .map(|&k| vocab.iter().map(|c| self.table.satisfies(k, c)).collect())
            .collect();
        let jobs: Vec<Vec<bool>> = (0..tasks)
            .map(|_| {
                let set = &self.table.classes()[self.draw(rng) as usize];
                vocab.iter().map(|c| set.contains(c)).collect()
            })
            .collect();
        Characterisation {
            vocabulary: vocab.clone(),
            values: self.ch.values.clone(),
            machines: sort_and_merge(&machines, tolerance).0,
            tasks: sort_and_merge(&jobs, tolerance).0,
        }
    }

    /// The Utilization Multiplier of every distinct constraint of the vocabulary, in its order.
    pub fn multipliers(&self) -> Vec<ServerMultiplier> {
        let servers = self.kind.len().max(1) as f64;
        let mut seen: Vec<&Constraint> = Vec::new();
        let mut out = Vec::new();
        for c in &self.ch.vocabulary {
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
            let demand: f64 = self
                .table
                .classes()
                .iter()
                .zip(&self.probability)
                .filter(|(set, _)| set.contains(c))
                .map(|(_, p)| p)
                .sum();
            let supply = self
                .kind
                .iter()
                .filter(|&&k| self.table.satisfies(k, c))
                .count() as f64
                / servers;
            out.push(ServerMultiplier {
                constraint: c.clone(),
                demand_share: demand,
                supply_share: supply,
                u: if supply > 0.0 {
                    demand / supply
                } else {
                    f64::NAN
                },
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::StatCluster;

    fn ch() -> Characterisation {
        let c = |t: &str| Constraint::parse(t).unwrap();
        Characterisation {
            vocabulary: vec![c("tier = a"), c("cores >= 8")],
            values: [
                ("tier".to_string(), vec!["a".to_string(), "b".to_string()]),
                ("cores".to_string(), vec!["4".to_string(), "8".to_string()]),
            ]
            .into_iter()
            .collect(),
            // a quarter of the servers are tier a; every server has 8 cores
            machines: vec![StatCluster {
                share: 1.0,
                frequency: vec![0.25, 1.0],
            }],
            tasks: vec![
                StatCluster {
                    share: 0.5,
                    frequency: vec![0.4, 0.0],
                },
                StatCluster {
                    share: 0.5,
                    frequency: vec![0.0, 1.0],
                },
            ],
        }
    }

    #[test]
    fn the_class_law_is_algorithm_3s_and_the_draws_follow_it() {
        let j = JobClasses::new(&ch(), 4000, 7).unwrap();
        // sets: {} 0.5·0.6, {tier=a} 0.5·0.4, {cores>=8} 0.5; all satisfiable
        let mut by_text: Vec<(String, f64)> = j
            .table
            .classes()
            .iter()
            .zip(&j.probability)
            .map(|(s, p)| (crate::constraints::set_text(s), *p))
            .collect();
        by_text.sort_by(|a, b| a.0.cmp(&b.0));
        let want = [("", 0.3), ("cores >= 8", 0.5), ("tier = a", 0.2)];
        assert_eq!(by_text.len(), 3);
        for ((t, p), (wt, wp)) in by_text.iter().zip(want) {
            assert_eq!(t, wt);
            assert!((p - wp).abs() < 1e-12, "{t}: {p}");
        }
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let n = 200_000;
        let mut count = vec![0usize; j.probability.len()];
        for _ in 0..n {
            count[j.draw(&mut rng) as usize] += 1;
        }
        for (c, &p) in j.probability.iter().enumerate() {
            let f = count[c] as f64 / n as f64;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!((f - p).abs() < 5.0 * sd, "class {c}: {f} vs {p}");
        }
        // u*: tier = a asked by 20 % of the jobs, satisfied by about 25 % of the servers
        let m = j.multipliers();
        assert_eq!(m[0].demand_share, 0.2);
        assert!(
            (m[0].supply_share - 0.25).abs() < 0.03,
            "{}",
            m[0].supply_share
        );
        assert_eq!(m[1].supply_share, 1.0);
        assert!((m[1].u - 0.5).abs() < 1e-12);
    }

    #[test]
    fn sets_no_server_satisfies_are_drawn_again() {
        let mut ch = ch();
        // no server is tier a: the cluster asking for it 40 % of the time is conditioned
        ch.machines[0].frequency[0] = 0.0;
        let j = JobClasses::new(&ch, 50, 1).unwrap();
        assert!((j.satisfiable[0] - 0.6).abs() < 1e-12);
        let total = 0.5 * 0.6 + 0.5;
        let p0 = j.probability[0];
        assert!((p0 - 0.3 / total).abs() < 1e-12, "{p0}");
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        for _ in 0..1000 {
            let c = j.draw(&mut rng);
            assert!(j.kind.iter().any(|&k| j.table.allowed(c, k)));
        }
        // a cluster that always asks for it can never run
        ch.tasks[0].frequency[0] = 1.0;
        assert_eq!(
            JobClasses::new(&ch, 50, 1).unwrap_err(),
            SupportError::NeverRunnable { cluster: 0 }
        );
    }

    #[test]
    fn split_keeps_the_servers_and_takes_the_other_job_law() {
        let a = ch();
        let mut b = ch();
        b.tasks[0].frequency = vec![1.0, 0.0];
        b.machines[0].frequency[0] = 0.9; // not used: the servers come from `a`
        let truth = JobClasses::new(&a, 300, 7).unwrap();
        let split = JobClasses::split(&a, &b, 300, 7).unwrap();
        let kinds = |j: &JobClasses| -> Vec<Properties> {
            j.kind
                .iter()
                .map(|&k| j.table.kinds()[k as usize].clone())
                .collect()
        };
        assert_eq!(kinds(&truth), kinds(&split));
        // jobs: {tier = a} half the time (all of cluster 0), {cores >= 8} the other half
        let m = split.multipliers();
        assert!((m[0].demand_share - 0.5).abs() < 1e-12);
        assert_eq!(m[0].supply_share, truth.multipliers()[0].supply_share);
        assert_eq!(split.characterisation(), &b);
    }

    #[test]
    fn characterising_and_resynthesising_keeps_the_shares() {
        // a large cluster: the re-synthesis's own sampling is small next to the tolerance
        let j = JobClasses::new(&ch(), 5000, 7).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(8);
        let found = j.characterise(100_000, 0.05, &mut rng);
        let again = JobClasses::new(&found, 5000, 9).unwrap();
        for (a, b) in j.multipliers().iter().zip(again.multipliers()) {
            assert_eq!(a.constraint, b.constraint);
            assert!(
                (a.demand_share - b.demand_share).abs() < 0.01,
                "{a:?} {b:?}"
            );
            assert!(
                (a.supply_share - b.supply_share).abs() < 0.03,
                "{a:?} {b:?}"
            );
        }
        // the same constraint sets, with about the same probabilities
        for (set, p) in j.table.classes().iter().zip(&j.probability) {
            let k = again.table.classes().iter().position(|s| s == set).unwrap();
            assert!((again.probability[k] - p).abs() < 0.01, "{set:?}");
        }
    }
}
