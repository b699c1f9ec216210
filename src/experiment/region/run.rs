//! The second stage of a region experiment: its plan of units and each unit computed (ρ* and
//! the restricted regions of one size law, Theorem 1's bracket, each distribution of the
//! random family).

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::RegionExperiment;
use crate::configurations::Partition;
use crate::configurations::region::RegionError;
use crate::experiment::ExperimentError;
use crate::model::Size;
use crate::rng::Stream;
use crate::stability::perfect;
use crate::stability::region::{BracketStep, bracket, interval_atoms, rho_reduced, rho_star};

/// An LP failure, named as what it is.
fn region_err(file: &Path, source: RegionError) -> ExperimentError {
    ExperimentError::Region {
        file: file.to_path_buf(),
        source,
    }
}

/// A random discrete distribution with sizes above 2^−J: half the sizes uniform, half just
/// above a cut point of X_J (where rounding loses the most).
fn random_case(seed: u64, max_types: usize, j: u32) -> Vec<(Size, f64)> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let x = Partition::universal(j);
    let floor = x.upper(x.len() - 1).as_f64();
    let n = rng.random_range(1..=max_types);
    let mut atoms: Vec<(Size, f64)> = Vec::new();
    for _ in 0..n {
        // strictly above the floor and at most 1 (a draw within 1e-6 of 1 is a full server)
        let s = if rng.random_bool(0.5) {
            rng.random_range(floor..1.0) + 1e-6
        } else {
            let c = x.uppers()[rng.random_range(1..x.len())].as_f64();
            c + rng.random_range(1e-6..0.02)
        };
        atoms.push((
            Size::from_f64(s.min(1.0)).unwrap_or(Size::ONE),
            rng.random_range(0.01..1.0),
        ));
    }
    let total: f64 = atoms.iter().map(|a| a.1).sum();
    for a in &mut atoms {
        a.1 /= total;
    }
    atoms
}

/// One row of region.csv.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct RegionRow {
    /// The set, in words (all configurations, K_RED or the dyadic set).
    pub(crate) set: String,
    /// Its depth J, for a restricted set.
    pub(crate) j: Option<u32>,
    /// c = λ*/(μ L): the most jobs per server per mean service time it supports.
    pub(crate) per_server: f64,
    /// Its supportable traffic intensity.
    pub(crate) traffic: f64,
    /// Ratio to ρ* (an interval when ρ* is bracketed).
    pub(crate) ratio: (f64, f64),
}

/// One random distribution of the family.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct FamilyCase {
    /// Its sizes and their probabilities.
    pub(crate) atoms: Vec<(Size, f64)>,
    /// Its mean size.
    pub(crate) mean: f64,
    /// ρ*.
    pub(crate) rho_star: f64,
    /// K_RED's supportable traffic intensity.
    pub(crate) kred: f64,
    /// The dyadic set's supportable traffic intensity.
    pub(crate) dyadic: f64,
}

/// One unit of a region experiment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Unit {
    /// ρ*, the bracket and the restricted regions of the size law.
    Regions,
    /// One random distribution of the family.
    Case(usize),
}

/// What a unit gives.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum Done {
    Regions {
        rows: Vec<RegionRow>,
        bracket: Vec<BracketStep>,
        mix: Vec<(Vec<(Size, u32)>, f64)>,
    },
    Case(FamilyCase),
}

/// Every unit: the size law's regions, then each case of the family.
pub(crate) fn plan(exp: &RegionExperiment) -> Vec<Unit> {
    let mut plan = Vec::new();
    if exp.sizes.is_some() {
        plan.push(Unit::Regions);
    }
    if let Some((count, _, _)) = exp.family {
        plan.extend((0..count).map(Unit::Case));
    }
    plan
}

/// Expected cost: a bracket step solves an LP over n types (about n³), a case a few small LPs.
pub(crate) fn cost(exp: &RegionExperiment, unit: &Unit) -> f64 {
    match unit {
        Unit::Regions => {
            let n = exp.bracket.1 as f64;
            1.0 + n * n * n / 1e4 + exp.js.len() as f64 * 10.0
        }
        Unit::Case(_) => 1.0,
    }
}

/// Runs one unit.
pub(crate) fn run(exp: &RegionExperiment, unit: &Unit) -> Result<Done, ExperimentError> {
    match unit {
        Unit::Regions => regions(exp),
        Unit::Case(c) => case(exp, *c).map(Done::Case),
    }
}

/// ρ*, Theorem 1's bracket and the regions of K_RED and of the dyadic set for the size law.
fn regions(exp: &RegionExperiment) -> Result<Done, ExperimentError> {
    let f = &exp.header.file;
    let (mut rows, mut mix) = (Vec::new(), Vec::new());
    let Some(law) = &exp.sizes else {
        return Ok(Done::Regions {
            rows,
            bracket: Vec::new(),
            mix,
        });
    };
    let (start, max, tol) = exp.bracket;
    let finite = law.atoms();
    let steps = bracket(law, start, max, tol).map_err(|e| region_err(f, e))?;
    let star = match &finite {
        Some(atoms) => {
            let s = rho_star(atoms).map_err(|e| region_err(f, e))?;
            mix = s
                .mix
                .iter()
                .map(|(k, x)| {
                    let cfg = atoms
                        .iter()
                        .zip(k)
                        .filter(|(_, n)| **n > 0)
                        .map(|(a, &n)| (a.0, n))
                        .collect();
                    (cfg, *x)
                })
                .collect();
            rows.push(RegionRow {
                set: "all configurations (rho*)".into(),
                j: None,
                per_server: s.per_server,
                traffic: s.traffic,
                ratio: (1.0, 1.0),
            });
            (s.traffic, s.traffic)
        }
        None => match perfect::of(law) {
            Some(p) => {
                // jobs fill servers exactly (docs/theory.md section 2): ρ* = 1, up to the
                // fixed-point grid for a mixed packing
                let (lo, hi) = p.rho_star(law.mean());
                rows.push(RegionRow {
                    set: "all configurations (rho*, a perfect packing)".into(),
                    j: None,
                    per_server: lo / law.mean(),
                    traffic: lo,
                    ratio: (1.0, 1.0),
                });
                (lo, hi)
            }
            None => steps
                .last()
                .map(|last| (last.lower_bound, last.upper_bound))
                .ok_or_else(|| region_err(f, RegionError::Input("an empty bracket".into())))?,
        },
    };
    let atoms_for = |p: &Partition| match &finite {
        Some(a) => a.clone(),
        None => interval_atoms(law, p),
    };
    for &j in &exp.js {
        for (name, p) in [
            ("K_RED on X_J", Partition::universal(j)),
            ("dyadic set", Partition::dyadic(j)),
        ] {
            let atoms = atoms_for(&p);
            let r = rho_reduced(&atoms, &p, law.mean()).map_err(|e| region_err(f, e))?;
            rows.push(RegionRow {
                set: name.into(),
                j: Some(j),
                per_server: r.per_server,
                traffic: r.traffic,
                ratio: (r.traffic / star.1, r.traffic / star.0),
            });
        }
    }
    Ok(Done::Regions {
        rows,
        bracket: steps,
        mix,
    })
}

/// Case `c` of the family: a random distribution seeded by (seed, c) and its ratios of K_RED
/// and of the dyadic set to ρ*.
fn case(exp: &RegionExperiment, c: usize) -> Result<FamilyCase, ExperimentError> {
    let f = &exp.header.file;
    let (_, types, j) = exp.family.unwrap_or((0, 1, 1));
    let atoms = random_case(Stream::Case(c as u64).seed(exp.header.seed), types, j);
    let mean = atoms.iter().map(|(s, p)| s.as_f64() * p).sum();
    let star = rho_star(&atoms).map_err(|e| region_err(f, e))?;
    let kred = rho_reduced(&atoms, &Partition::universal(j), mean).map_err(|e| region_err(f, e))?;
    let dy = rho_reduced(&atoms, &Partition::dyadic(j), mean).map_err(|e| region_err(f, e))?;
    Ok(FamilyCase {
        atoms,
        mean,
        rho_star: star.per_server,
        kred: kred.per_server,
        dyadic: dy.per_server,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_cases_are_valid_distributions_for_every_seed() {
        let floor = Size::from_f64(1.0 / 16.0).unwrap();
        for seed in 0..100_000 {
            let atoms = random_case(seed, 5, 4);
            assert!(!atoms.is_empty() && atoms.len() <= 5);
            for &(s, p) in &atoms {
                assert!(s > floor && s <= Size::ONE, "seed {seed}: {s}");
                assert!(p > 0.0);
            }
            let total: f64 = atoms.iter().map(|a| a.1).sum();
            assert!((total - 1.0).abs() < 1e-12);
        }
    }
}
