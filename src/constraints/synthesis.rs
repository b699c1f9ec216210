//! Constraint synthesis and characterisation (Sharma et al., SoCC 2011, Section 5).
//!
//! A *statistical cluster* of machines (or tasks) has an occurrence fraction (its share of all
//! machines) and a constraint frequency vector (for each constraint of the vocabulary, the
//! fraction of its members that satisfy it, or request it). Algorithm 2 gives a machine
//! properties: draw a cluster by occurrence fraction, then each constraint with its frequency,
//! and give the machine, for every attribute, a value that satisfies the drawn constraints on
//! it (and as few of the others as possible). Algorithm 3 gives a task constraints the same
//! way. Characterisation goes back: from machines' (tasks') feature vectors to clusters.

use std::collections::BTreeMap;

use rand::Rng;
use rand::seq::SliceRandom;

use super::predicate::{Constraint, ConstraintSet, is_number};
use super::table::Properties;

/// A statistical cluster: occurrence fraction and constraint frequency vector.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StatCluster {
    /// The fraction of machines (or tasks) in the cluster.
    pub share: f64,
    /// Per constraint of the vocabulary, the fraction of its members that have it.
    pub frequency: Vec<f64>,
}

/// A constraint characterisation: the vocabulary, each attribute's possible values, and the
/// machine and task statistical clusters.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Characterisation {
    /// The constraints the clusters' frequencies refer to, in order.
    pub vocabulary: Vec<Constraint>,
    /// Possible values of each attribute the vocabulary names (numbers for a numeric one).
    pub values: BTreeMap<String, Vec<String>>,
    /// The machine statistical clusters.
    pub machines: Vec<StatCluster>,
    /// The task statistical clusters.
    pub tasks: Vec<StatCluster>,
}

/// Draws an index by weights (which sum to about 1; the last index takes the rest).
fn weighted(clusters: &[StatCluster], rng: &mut impl Rng) -> usize {
    let total: f64 = clusters.iter().map(|c| c.share).sum();
    let mut x = rng.random::<f64>() * total;
    for (i, c) in clusters.iter().enumerate() {
        if x < c.share {
            return i;
        }
        x -= c.share;
    }
    clusters.len() - 1
}

/// `n` split by `weights` (which sum to about 1) into whole parts adding up to `n`, by largest
/// remainders (ties to the first).
fn quota(weights: impl Iterator<Item = f64>, n: usize) -> Vec<usize> {
    let w: Vec<f64> = weights.collect();
    let total: f64 = w.iter().sum();
    let exact: Vec<f64> = w.iter().map(|x| x / total * n as f64).collect();
    let mut parts: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by(|&a, &b| {
        (exact[b] - exact[b].floor())
            .total_cmp(&(exact[a] - exact[a].floor()))
            .then(a.cmp(&b))
    });
    let short = n.saturating_sub(parts.iter().sum());
    for &i in order.iter().cycle().take(short) {
        parts[i] += 1;
    }
    parts
}

/// A machine drawn by Algorithm 2.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthMachine {
    /// The machine cluster it was drawn from.
    pub cluster: usize,
    /// Its attributes.
    pub properties: Properties,
    /// Whether some drawn constraints could not all be satisfied together (the attribute's
    /// values offered none that satisfies them all); the machine then satisfies as many as
    /// possible.
    pub inconsistent: bool,
}

impl Characterisation {
    /// Algorithm 2: a machine's statistical cluster and properties.
    pub fn machine(&self, rng: &mut impl Rng) -> SynthMachine {
        let cluster = weighted(&self.machines, rng);
        let f = &self.machines[cluster].frequency;
        let drawn: Vec<bool> = f.iter().map(|&p| rng.random::<f64>() < p).collect();
        self.assign(cluster, &drawn, rng)
    }

    /// `n` machines by quota, Algorithm 2 without its sampling noise: cluster k gets its share
    /// of the `n` (largest remainders), and within it exactly its frequency's share of the
    /// members (rounded) draw each constraint, the members chosen at random independently per
    /// constraint; properties then as [`Characterisation::machine`] gives them. The occurrence
    /// fractions and frequency vectors are met as exactly as `n` allows; what is left to
    /// chance is which constraints meet on which machine.
    pub fn machines_by_quota(&self, n: usize, rng: &mut impl Rng) -> Vec<SynthMachine> {
        let counts = quota(self.machines.iter().map(|c| c.share), n);
        let mut out = Vec::with_capacity(n);
        for (cluster, &m) in counts.iter().enumerate() {
            let mut drawn = vec![vec![false; self.vocabulary.len()]; m];
            for (i, &p) in self.machines[cluster].frequency.iter().enumerate() {
                let k = ((p * m as f64).round() as usize).min(m);
                for j in rand::seq::index::sample(rng, m, k) {
                    drawn[j][i] = true;
                }
            }
            out.extend(drawn.iter().map(|d| self.assign(cluster, d, rng)));
        }
        // no trace of the clusters in the machines' order
        out.shuffle(rng);
        out
    }

    /// Properties for a machine of `cluster` that drew the constraints `drawn`.
    fn assign(&self, cluster: usize, drawn: &[bool], rng: &mut impl Rng) -> SynthMachine {
        let mut properties = Properties::new();
        let mut inconsistent = false;
        for (attr, values) in &self.values {
            let num = values.iter().all(|v| is_number(v));
            let on: Vec<usize> = (0..self.vocabulary.len())
                .filter(|&i| self.vocabulary[i].attr == *attr)
                .collect();
            // (drawn satisfied, undrawn satisfied) per value: most of the first, fewest of the
            // second; ties broken at random
            let score = |v: &String| {
                let (mut d, mut u) = (0i64, 0i64);
                for &i in &on {
                    if self.vocabulary[i].satisfied_by(Some(v), num) {
                        if drawn[i] {
                            d += 1;
                        } else {
                            u += 1;
                        }
                    }
                }
                (d, -u)
            };
            let best = values
                .iter()
                .map(score)
                .max()
                .expect("values are not empty");
            let ties: Vec<&String> = values.iter().filter(|v| score(v) == best).collect();
            let v = ties[rng.random_range(0..ties.len())];
            let wanted = on.iter().filter(|&&i| drawn[i]).count() as i64;
            inconsistent |= best.0 < wanted;
            properties.push((attr.clone(), v.clone()));
        }
        SynthMachine {
            cluster,
            properties,
            inconsistent,
        }
    }

    /// Algorithm 3: a task's statistical cluster and constraints (a sorted set).
    pub fn task(&self, rng: &mut impl Rng) -> (usize, ConstraintSet) {
        let cluster = weighted(&self.tasks, rng);
        let f = &self.tasks[cluster].frequency;
        let mut set: ConstraintSet = f
            .iter()
            .zip(&self.vocabulary)
            .filter(|(p, _)| rng.random::<f64>() < **p)
            .map(|(_, c)| c.clone())
            .collect();
        set.sort();
        set.dedup();
        (cluster, set)
    }
}

/// Sort-and-merge clustering (Sharma et al., Section 5.1): sort the binary feature vectors
/// lexicographically, and walk them in that order, merging the next group of identical vectors
/// into the current cluster as long as the merge moves no element of the cluster's constraint
/// frequency vector by more than `tolerance` (0.05 in the paper). Returns the clusters in
/// walking order, each with its share of all entities and its frequency vector, and each
/// entity's cluster.
pub fn sort_and_merge(features: &[Vec<bool>], tolerance: f64) -> (Vec<StatCluster>, Vec<usize>) {
    let n = features.len();
    let mut order: Vec<usize> = (0..n).collect();
    // descending: vectors with the first constraints set come first
    order.sort_by(|&a, &b| features[b].cmp(&features[a]).then(a.cmp(&b)));
    let width = features.first().map_or(0, |f| f.len());
    let mut clusters: Vec<(usize, Vec<usize>)> = Vec::new(); // (members, counts)
    let mut of = vec![0usize; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j < n && features[order[j]] == features[order[i]] {
            j += 1;
        }
        let group = j - i;
        let v = &features[order[i]];
        let merge = clusters.last().is_some_and(|(m, counts)| {
            (0..width).all(|k| {
                let before = counts[k] as f64 / *m as f64;
                let after = (counts[k] + group * v[k] as usize) as f64 / (m + group) as f64;
                (after - before).abs() <= tolerance
            })
        });
        if !merge {
            clusters.push((0, vec![0; width]));
        }
        let c = clusters.len() - 1;
        let (m, counts) = clusters.last_mut().expect("a cluster");
        *m += group;
        for k in 0..width {
            counts[k] += group * v[k] as usize;
        }
        for &e in &order[i..j] {
            of[e] = c;
        }
        i = j;
    }
    let out = clusters
        .into_iter()
        .map(|(m, counts)| StatCluster {
            share: m as f64 / n as f64,
            frequency: counts.iter().map(|&c| c as f64 / m as f64).collect(),
        })
        .collect();
    (out, of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn c(t: &str) -> Constraint {
        Constraint::parse(t).unwrap()
    }

    fn example() -> Characterisation {
        Characterisation {
            vocabulary: vec![c("cores >= 8"), c("arch = x86"), c("cores >= 4")],
            values: [
                ("arch".to_string(), vec!["x86".into(), "arm".into()]),
                (
                    "cores".to_string(),
                    vec!["2".into(), "4".into(), "8".into(), "16".into()],
                ),
            ]
            .into(),
            machines: vec![
                StatCluster {
                    share: 0.3,
                    frequency: vec![1.0, 0.5, 1.0],
                },
                StatCluster {
                    share: 0.7,
                    frequency: vec![0.0, 0.9, 0.25],
                },
            ],
            tasks: vec![
                StatCluster {
                    share: 0.6,
                    frequency: vec![0.1, 0.8, 0.0],
                },
                StatCluster {
                    share: 0.4,
                    frequency: vec![0.5, 0.0, 0.3],
                },
            ],
        }
    }

    /// |x − p| within 5 standard errors of a proportion over n draws.
    fn close(x: f64, p: f64, n: f64) {
        let se = (p * (1.0 - p) / n).sqrt().max(1.0 / n);
        assert!((x - p).abs() <= 5.0 * se, "{x} vs {p} (n = {n})");
    }

    #[test]
    fn algorithm_two_reproduces_occurrence_and_frequency() {
        let ch = example();
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let n = 40_000;
        let mut count = [0usize; 2];
        let mut sat = [[0usize; 3]; 2];
        for _ in 0..n {
            let m = ch.machine(&mut rng);
            assert!(!m.inconsistent, "these constraints never contradict");
            count[m.cluster] += 1;
            let get = |a: &str| {
                m.properties
                    .iter()
                    .find(|(k, _)| k == a)
                    .map(|(_, v)| v.as_str())
            };
            for (i, con) in ch.vocabulary.iter().enumerate() {
                let num = con.attr == "cores";
                sat[m.cluster][i] += con.satisfied_by(get(&con.attr), num) as usize;
            }
        }
        for k in 0..2 {
            close(count[k] as f64 / n as f64, ch.machines[k].share, n as f64);
            for (got, want) in sat[k].iter().zip(&ch.machines[k].frequency) {
                let got = *got as f64 / count[k] as f64;
                let want = *want;
                // cores >= 8 drawn implies cores >= 4 satisfied: in cluster 1 (0.0, -, 0.25)
                // the implication never fires, in cluster 0 both are 1
                close(got, want, count[k] as f64);
            }
        }
    }

    #[test]
    fn algorithm_three_reproduces_occurrence_and_frequency() {
        let ch = example();
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        let n = 40_000;
        let mut count = [0usize; 2];
        let mut has = [[0usize; 3]; 2];
        for _ in 0..n {
            let (k, set) = ch.task(&mut rng);
            count[k] += 1;
            for (i, con) in ch.vocabulary.iter().enumerate() {
                has[k][i] += set.contains(con) as usize;
            }
        }
        for k in 0..2 {
            close(count[k] as f64 / n as f64, ch.tasks[k].share, n as f64);
            for (h, f) in has[k].iter().zip(&ch.tasks[k].frequency) {
                close(*h as f64 / count[k] as f64, *f, count[k] as f64);
            }
        }
    }

    #[test]
    fn quota_splits_exactly() {
        let share = |w: &[f64], n| quota(w.iter().copied(), n);
        assert_eq!(share(&[0.35, 0.4, 0.25], 100), vec![35, 40, 25]);
        // 3.33.., 3.33.., 3.33..: the first takes the odd one
        assert_eq!(share(&[1.0, 1.0, 1.0], 10), vec![4, 3, 3]);
        assert_eq!(share(&[0.05, 0.95], 7), vec![0, 7]);
        assert_eq!(share(&[0.5, 0.5], 0), vec![0, 0]);
    }

    #[test]
    fn machines_by_quota_meet_shares_and_frequencies_exactly() {
        let ch = example();
        let mut rng = Pcg64Mcg::seed_from_u64(6);
        let n = 200;
        let ms = ch.machines_by_quota(n, &mut rng);
        assert_eq!(ms.len(), n);
        // 60 of cluster 0, 140 of cluster 1, not in cluster order
        let count = |k| ms.iter().filter(|m| m.cluster == k).count();
        assert_eq!((count(0), count(1)), (60, 140));
        assert!(ms[..60].iter().any(|m| m.cluster == 1));
        for (k, m) in [(0, 60.0), (1, 140.0)] {
            for (i, con) in ch.vocabulary.iter().enumerate() {
                let num = con.attr == "cores";
                let sat = ms
                    .iter()
                    .filter(|x| x.cluster == k)
                    .filter(|x| {
                        let v = x.properties.iter().find(|(a, _)| *a == con.attr);
                        con.satisfied_by(v.map(|(_, v)| v.as_str()), num)
                    })
                    .count();
                let want = (ch.machines[k].frequency[i] * m).round() as usize;
                assert_eq!(sat, want, "cluster {k}, {con}");
            }
        }
        // Algorithm 2's draws on as many machines miss them by sampling
        let mut rng = Pcg64Mcg::seed_from_u64(6);
        let drawn: Vec<_> = (0..n).map(|_| ch.machine(&mut rng)).collect();
        assert_ne!(drawn.iter().filter(|m| m.cluster == 0).count(), 60);
    }

    #[test]
    fn contradictions_are_flagged() {
        let mut ch = example();
        ch.vocabulary[1] = c("cores <= 2"); // contradicts cores >= 8 in cluster 0
        ch.machines[0].frequency = vec![1.0, 1.0, 1.0];
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let mut flagged = 0;
        for _ in 0..1000 {
            let m = ch.machine(&mut rng);
            flagged += (m.cluster == 0 && m.inconsistent) as usize;
            if m.cluster == 0 {
                // the two of three satisfiable together win: cores 8 or 16
                let v = &m.properties.iter().find(|(a, _)| a == "cores").unwrap().1;
                assert!(v == "8" || v == "16", "{v}");
            }
        }
        assert!(flagged > 200);
    }

    #[test]
    fn sort_and_merge_groups_and_absorbs_rare_vectors() {
        let v = |s: &str| s.chars().map(|c| c == '1').collect::<Vec<bool>>();
        // 60 of 110, 40 of 101, and one odd 100 next to the 101s: merging it moves the 101
        // cluster's third element by 1/41 < 0.05, so it joins; 110 and 101 stay apart
        let mut f = Vec::new();
        f.extend(std::iter::repeat_n(v("110"), 60));
        f.extend(std::iter::repeat_n(v("101"), 40));
        f.push(v("100"));
        let (cl, of) = sort_and_merge(&f, 0.05);
        assert_eq!(cl.len(), 2, "{cl:?}");
        assert_eq!(of[0], 0);
        assert_eq!(of[60], 1);
        assert_eq!(of[100], 1);
        assert!((cl[0].share - 60.0 / 101.0).abs() < 1e-12);
        assert_eq!(cl[0].frequency, vec![1.0, 1.0, 0.0]);
        assert!((cl[1].frequency[2] - 40.0 / 41.0).abs() < 1e-12);
        // tolerance 0: identical vectors only
        let (cl, _) = sort_and_merge(&f, 0.0);
        assert_eq!(cl.len(), 3);
    }
}
