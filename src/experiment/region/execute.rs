//! Computes what a region experiment asks for: ρ* and the restricted regions of one size law,
//! Theorem 1's bracket, and the family of random distributions.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use super::RegionExperiment;
use super::outcome::{FamilyCase, RegionOutcome, RegionRow};
use crate::configurations::Partition;
use crate::configurations::region::RegionError;
use crate::experiment::ExperimentError;
use crate::model::Size;
use crate::rng::derive_seed;
use crate::stability::region::{bracket, interval_atoms, rho_reduced, rho_star};

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
        let s = if rng.random_bool(0.5) {
            rng.random_range(floor..1.0) + 1e-6
        } else {
            let c = x.uppers()[rng.random_range(1..x.len())].as_f64();
            (c + rng.random_range(1e-6..0.02)).min(1.0)
        };
        atoms.push((
            Size::from_f64(s).expect("in (0, 1]"),
            rng.random_range(0.01..1.0),
        ));
    }
    let total: f64 = atoms.iter().map(|a| a.1).sum();
    for a in &mut atoms {
        a.1 /= total;
    }
    atoms
}

/// Computes everything the experiment asks for.
pub fn execute_region(
    exp: &RegionExperiment,
    threads: Option<usize>,
) -> Result<RegionOutcome, ExperimentError> {
    let f = &exp.header.file;
    let mut out = RegionOutcome::default();
    if let Some(law) = &exp.sizes {
        let (start, max, tol) = exp.bracket;
        let finite = law.atoms();
        out.bracket = bracket(law, start, max, tol).map_err(|e| region_err(f, e))?;
        let star = match &finite {
            Some(atoms) => {
                let s = rho_star(atoms).map_err(|e| region_err(f, e))?;
                out.mix = s
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
                out.rows.push(RegionRow {
                    set: "all configurations (rho*)".into(),
                    j: None,
                    per_server: s.per_server,
                    traffic: s.traffic,
                    ratio: (1.0, 1.0),
                });
                (s.traffic, s.traffic)
            }
            None => {
                let last = out.bracket.last().expect("at least one step");
                (last.lower_bound, last.upper_bound)
            }
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
                out.rows.push(RegionRow {
                    set: name.into(),
                    j: Some(j),
                    per_server: r.per_server,
                    traffic: r.traffic,
                    ratio: (r.traffic / star.1, r.traffic / star.0),
                });
            }
        }
    }
    if let Some((count, types, j)) = exp.family {
        out.family = family(exp, count, types, j, threads)?;
    }
    out.claims = super::claims::check(exp, &out);
    Ok(out)
}

/// The ratios of K_RED and of the dyadic set to ρ* over `count` random distributions, in
/// parallel; each seeded by (seed, case), so results do not depend on `threads`.
fn family(
    exp: &RegionExperiment,
    count: usize,
    types: usize,
    j: u32,
    threads: Option<usize>,
) -> Result<Vec<FamilyCase>, ExperimentError> {
    let f = &exp.header.file;
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    let pool = builder.build().expect("a thread pool");
    pool.install(|| {
        (0..count)
            .into_par_iter()
            .map(|c| {
                let atoms = random_case(derive_seed(exp.header.seed, &[c as u64]), types, j);
                let mean = atoms.iter().map(|(s, p)| s.as_f64() * p).sum();
                let star = rho_star(&atoms).map_err(|e| region_err(f, e))?;
                let kred = rho_reduced(&atoms, &Partition::universal(j), mean)
                    .map_err(|e| region_err(f, e))?;
                let dy = rho_reduced(&atoms, &Partition::dyadic(j), mean)
                    .map_err(|e| region_err(f, e))?;
                Ok(FamilyCase {
                    atoms,
                    mean,
                    rho_star: star.per_server,
                    kred: kred.per_server,
                    dyadic: dy.per_server,
                })
            })
            .collect()
    })
}
