//! `kind = "region"` experiments: stability regions computed, not simulated (paper-notes
//! sections 2, 5, 6, 12). For one size distribution: ρ* (exact for finitely many sizes, else
//! Theorem 1's bracket on refined grids) and the regions of K_RED (X_J) and of the dyadic set;
//! for a family of random discrete distributions: the ratios ρ(K_RED)/ρ* and ρ(dyadic)/ρ*.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;
use serde::Deserialize;

use super::output::{
    create_dir, num, render_figure, report_claims_and_figures, write, write_claims,
    write_provenance,
};
use super::spec::{Ctx, RawCluster, RawService, RawSizes, parse_toml, service_law, size_law};
use super::{ClaimResult, ExperimentError, VERSION};
use crate::configurations::{MAX_J, Partition};
use crate::model::Size;
use crate::plot::{Chart, Series};
use crate::rng::derive_seed;
use crate::stability::region::{BracketStep, bracket, interval_atoms, rho_reduced, rho_star};
use crate::workload::SizeLaw;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    name: String,
    description: Option<String>,
    seed: Option<u64>,
    #[allow(dead_code)]
    kind: String,
    cluster: Option<RawCluster>,
    workload: Option<RawWorkload>,
    region: RawRegion,
    #[serde(default)]
    plot: Vec<RawPlot>,
    #[serde(default)]
    claim: Vec<RawClaim>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkload {
    sizes: RawSizes,
    /// Only its mean matters here: it turns c into an arrival rate.
    service: Option<RawService>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegion {
    #[serde(rename = "J")]
    j: Option<Vec<i64>>,
    bracket: Option<RawBracket>,
    family: Option<RawFamily>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBracket {
    start: Option<i64>,
    max_intervals: Option<i64>,
    tolerance: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFamily {
    count: i64,
    max_types: i64,
    #[serde(rename = "J")]
    j: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlot {
    kind: String,
    title: Option<String>,
    file: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    kind: String,
    set: Option<String>,
    at_least: Option<f64>,
    at_most: Option<f64>,
}

/// Which restricted set a family claim is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetKind {
    Kred,
    Dyadic,
}

/// A claim of a region experiment.
#[derive(Clone, Debug, PartialEq)]
pub enum RegionClaim {
    /// The worst ratio over the family lies within the bounds.
    MinRatio {
        set: SetKind,
        at_least: Option<f64>,
        at_most: Option<f64>,
    },
    /// Both ends of the bracket move monotonically inwards.
    BracketMonotone,
    /// The last bracket is at most this wide.
    BracketWidth { at_most: f64 },
    /// ρ* (or its whole bracket) lies within the bounds.
    RhoStar {
        at_least: Option<f64>,
        at_most: Option<f64>,
    },
}

/// A validated region experiment.
#[derive(Clone, Debug)]
pub struct RegionExperiment {
    pub file: PathBuf,
    pub source: String,
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub sizes: Option<SizeLaw>,
    /// (servers L, mean service 1/μ in slots), to report λ* = c·L·μ.
    pub scale: Option<(usize, f64)>,
    pub js: Vec<u32>,
    pub bracket: (usize, usize, f64),
    pub family: Option<(usize, usize, u32)>,
    pub plots: Vec<(String, Option<String>, String)>,
    pub claims: Vec<RegionClaim>,
}

impl RegionExperiment {
    /// Validates a region experiment's text.
    pub fn parse(file: &Path, source: &str) -> Result<Self, ExperimentError> {
        let raw: Raw = parse_toml(file, source)?;
        let cx = Ctx { file };
        cx.name(&raw.name)?;
        let (sizes, service) = match raw.workload {
            Some(w) => (Some(size_law(&cx, w.sizes)?), w.service),
            None => (None, None),
        };
        let scale = match (raw.cluster, service) {
            (Some(c), Some(s)) => {
                let l = cx.positive("cluster.servers", c.servers)? as usize;
                Some((l, service_law(&cx, s)?.mean()))
            }
            (None, None) => None,
            _ => {
                return Err(cx.bad(
                    "cluster",
                    "both [cluster] servers and workload.service = { dist = …, mean = … } (to report λ*), or neither",
                    "only one",
                ));
            }
        };
        let j_ok = |key: &str, j: i64| {
            if (1..=MAX_J as i64).contains(&j) {
                Ok(j as u32)
            } else {
                Err(cx.bad(key, &format!("J in [1, {MAX_J}]"), j))
            }
        };
        let js = raw
            .region
            .j
            .unwrap_or_default()
            .into_iter()
            .map(|j| j_ok("region.J", j))
            .collect::<Result<Vec<_>, _>>()?;
        let b = raw.region.bracket.unwrap_or(RawBracket {
            start: None,
            max_intervals: None,
            tolerance: None,
        });
        let start = cx.positive("region.bracket.start", b.start.unwrap_or(8))? as usize;
        let max = cx.positive(
            "region.bracket.max_intervals",
            b.max_intervals.unwrap_or(256),
        )? as usize;
        if max > 1024 || max < start {
            return Err(cx.bad(
                "region.bracket.max_intervals",
                &format!("an integer in [start = {start}, 1024] (the cost grows as n³)"),
                max,
            ));
        }
        let tol = b.tolerance.unwrap_or(0.0);
        if !tol.is_finite() || tol < 0.0 {
            return Err(cx.bad("region.bracket.tolerance", "a width ≥ 0", tol));
        }
        let family = match raw.region.family {
            None => None,
            Some(f) => {
                let count = cx.positive("region.family.count", f.count)? as usize;
                let types = cx.positive("region.family.max_types", f.max_types)? as usize;
                if types > 50 {
                    return Err(cx.bad("region.family.max_types", "at most 50", types));
                }
                Some((count, types, j_ok("region.family.J", f.j)?))
            }
        };
        if sizes.is_none() && family.is_none() {
            return Err(cx.bad(
                "workload",
                "a [workload] with sizes, or a region.family, or both",
                "neither",
            ));
        }
        let mut plots = Vec::new();
        for (i, p) in raw.plot.into_iter().enumerate() {
            let ok = match p.kind.as_str() {
                "bracket" => sizes.is_some(),
                "family-ratios" => family.is_some(),
                _ => {
                    return Err(cx.bad(
                        &format!("plot[{i}].kind"),
                        "\"bracket\" or \"family-ratios\"",
                        format!("\"{}\"", p.kind),
                    ));
                }
            };
            if !ok {
                return Err(cx.bad(
                    &format!("plot[{i}].kind"),
                    "a plot of something this file computes ([workload] for bracket, region.family for family-ratios)",
                    &p.kind,
                ));
            }
            let file = p.file.unwrap_or_else(|| p.kind.clone());
            plots.push((p.kind, p.title, file));
        }
        let mut claims = Vec::new();
        for (i, c) in raw.claim.into_iter().enumerate() {
            let key = |k: &str| format!("claim[{i}].{k}");
            let bounds = || {
                if c.at_least.is_none() && c.at_most.is_none() {
                    Err(cx.bad(&key("at_least"), "`at_least` and/or `at_most`", "neither"))
                } else {
                    Ok((c.at_least, c.at_most))
                }
            };
            claims.push(match c.kind.as_str() {
                "min-ratio" => {
                    let set = match c.set.as_deref() {
                        Some("kred") => SetKind::Kred,
                        Some("dyadic") => SetKind::Dyadic,
                        other => {
                            return Err(cx.bad(
                                &key("set"),
                                "\"kred\" or \"dyadic\"",
                                format!("{other:?}"),
                            ));
                        }
                    };
                    if family.is_none() {
                        return Err(cx.bad(&key("kind"), "a region.family to check", "none"));
                    }
                    let (at_least, at_most) = bounds()?;
                    RegionClaim::MinRatio {
                        set,
                        at_least,
                        at_most,
                    }
                }
                "bracket-monotone" => RegionClaim::BracketMonotone,
                "bracket-width" => RegionClaim::BracketWidth {
                    at_most: c
                        .at_most
                        .ok_or_else(|| cx.bad(&key("at_most"), "a width", "nothing"))?,
                },
                "rho-star" => {
                    let (at_least, at_most) = bounds()?;
                    RegionClaim::RhoStar { at_least, at_most }
                }
                other => {
                    return Err(cx.bad(
                        &key("kind"),
                        "\"min-ratio\", \"bracket-monotone\", \"bracket-width\" or \"rho-star\"",
                        format!("\"{other}\""),
                    ));
                }
            });
            if !matches!(claims.last(), Some(RegionClaim::MinRatio { .. })) && sizes.is_none() {
                return Err(cx.bad(&key("kind"), "a [workload] to check", "none"));
            }
        }
        Ok(RegionExperiment {
            file: file.to_path_buf(),
            source: source.to_string(),
            name: raw.name,
            description: raw.description.unwrap_or_default(),
            seed: raw.seed.unwrap_or(1),
            sizes,
            scale,
            js,
            bracket: (start, max, tol),
            family,
            plots,
            claims,
        })
    }

    /// About 1/100 of the family, and brackets to 32 intervals at most.
    pub fn quick(&mut self) {
        if let Some(f) = &mut self.family {
            f.0 = (f.0 / 100).max(1);
        }
        self.bracket.1 = self.bracket.1.min(32.max(self.bracket.0));
    }
}

/// One row of region.csv.
#[derive(Clone, Debug)]
pub struct RegionRow {
    pub set: String,
    pub j: Option<u32>,
    pub per_server: f64,
    pub traffic: f64,
    /// Ratio to ρ* (an interval when ρ* is bracketed).
    pub ratio: (f64, f64),
}

/// One random distribution of the family.
#[derive(Clone, Debug)]
pub struct FamilyCase {
    pub atoms: Vec<(Size, f64)>,
    pub mean: f64,
    pub rho_star: f64,
    pub kred: f64,
    pub dyadic: f64,
}

/// What a region experiment computed.
#[derive(Clone, Debug, Default)]
pub struct RegionOutcome {
    pub rows: Vec<RegionRow>,
    pub bracket: Vec<BracketStep>,
    pub family: Vec<FamilyCase>,
    /// An optimal configuration mix of ρ* (finitely many sizes): (counts per size, fraction
    /// of servers), with the sizes.
    pub mix: Vec<(Vec<(Size, u32)>, f64)>,
    pub claims: Vec<ClaimResult>,
}

fn region_err(file: &Path, e: impl std::fmt::Display) -> ExperimentError {
    ExperimentError::Parse {
        file: file.to_path_buf(),
        message: format!("region computation failed: {e}"),
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
    let f = &exp.file;
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
        let mut builder = rayon::ThreadPoolBuilder::new();
        if let Some(n) = threads {
            builder = builder.num_threads(n);
        }
        let pool = builder.build().expect("a thread pool");
        let cases: Result<Vec<FamilyCase>, ExperimentError> = pool.install(|| {
            (0..count)
                .into_par_iter()
                .map(|c| {
                    let atoms = random_case(derive_seed(exp.seed, &[c as u64]), types, j);
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
        });
        out.family = cases?;
    }
    out.claims = check_claims(exp, &out);
    Ok(out)
}

fn worst(out: &RegionOutcome, set: SetKind) -> Option<(usize, f64)> {
    out.family
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let v = match set {
                SetKind::Kred => c.kred,
                SetKind::Dyadic => c.dyadic,
            };
            (i, v / c.rho_star)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn within(x: f64, lo: Option<f64>, hi: Option<f64>) -> bool {
    lo.is_none_or(|l| x >= l) && hi.is_none_or(|h| x <= h)
}

fn bounds_text(lo: Option<f64>, hi: Option<f64>) -> String {
    match (lo, hi) {
        (Some(l), Some(h)) => format!("in [{l}, {h}]"),
        (Some(l), None) => format!("≥ {l}"),
        (None, Some(h)) => format!("≤ {h}"),
        (None, None) => "anything".into(),
    }
}

fn check_claims(exp: &RegionExperiment, out: &RegionOutcome) -> Vec<ClaimResult> {
    exp.claims
        .iter()
        .map(|c| match c {
            RegionClaim::MinRatio {
                set,
                at_least,
                at_most,
            } => {
                let name = match set {
                    SetKind::Kred => "rho(K_RED)/rho*",
                    SetKind::Dyadic => "rho(dyadic)/rho*",
                };
                let (i, r) = worst(out, *set).unwrap_or((0, f64::NAN));
                let case = out.family.get(i);
                let sizes = case
                    .map(|c| {
                        c.atoms
                            .iter()
                            .map(|(s, p)| format!("{:.4}@{:.3}", s.as_f64(), p))
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                ClaimResult {
                    claim: format!(
                        "worst {name} over {} distributions is {}",
                        out.family.len(),
                        bounds_text(*at_least, *at_most)
                    ),
                    expected: bounds_text(*at_least, *at_most),
                    observed: format!("{r:.6}"),
                    evidence: format!("worst case {i}: sizes@probabilities {sizes}"),
                    holds: within(r, *at_least, *at_most),
                }
            }
            RegionClaim::BracketMonotone => {
                let b = &out.bracket;
                let ok = b.windows(2).all(|w| {
                    w[1].lower_bound >= w[0].lower_bound - 1e-9
                        && w[1].upper_bound <= w[0].upper_bound + 1e-9
                });
                ClaimResult {
                    claim: "the bracket narrows monotonically as the partition is refined".into(),
                    expected: "monotone".into(),
                    observed: if ok { "monotone" } else { "not monotone" }.into(),
                    evidence: b
                        .iter()
                        .map(|s| {
                            format!(
                                "n={}: [{:.6}, {:.6}]",
                                s.intervals, s.lower_bound, s.upper_bound
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("; "),
                    holds: ok && b.len() >= 2,
                }
            }
            RegionClaim::BracketWidth { at_most } => {
                let last = out.bracket.last();
                let w = last.map_or(f64::INFINITY, |s| s.width());
                ClaimResult {
                    claim: format!("the final bracket is at most {at_most} wide"),
                    expected: format!("≤ {at_most}"),
                    observed: format!("{w:.6}"),
                    evidence: last
                        .map(|s| {
                            format!(
                                "n={}: [{:.6}, {:.6}]",
                                s.intervals, s.lower_bound, s.upper_bound
                            )
                        })
                        .unwrap_or_default(),
                    holds: w <= *at_most,
                }
            }
            RegionClaim::RhoStar { at_least, at_most } => {
                let (lo, hi) = match out.rows.first() {
                    Some(r) if r.j.is_none() => (r.traffic, r.traffic),
                    _ => out
                        .bracket
                        .last()
                        .map_or((f64::NAN, f64::NAN), |s| (s.lower_bound, s.upper_bound)),
                };
                ClaimResult {
                    claim: format!("rho* is {}", bounds_text(*at_least, *at_most)),
                    expected: bounds_text(*at_least, *at_most),
                    observed: format!("[{lo:.6}, {hi:.6}]"),
                    evidence: "exact for finitely many sizes, else the last bracket".into(),
                    holds: within(lo, *at_least, None) && within(hi, None, *at_most),
                }
            }
        })
        .collect()
}

/// Writes region.csv, bracket.csv, family.csv, claims.csv, figures, report.md and
/// experiment.toml.
pub fn write_region_outputs(
    exp: &RegionExperiment,
    out: &RegionOutcome,
    dir: &Path,
) -> Result<Vec<PathBuf>, ExperimentError> {
    create_dir(dir)?;
    let mut files = Vec::new();
    let rate = |c: f64| {
        exp.scale
            .map_or(String::new(), |(l, mean)| num(c * l as f64 / mean))
    };
    let mut s = String::from("set,J,per_server,traffic,arrival_rate,ratio_low,ratio_high\n");
    for r in &out.rows {
        let j = r.j.map_or(String::new(), |j| j.to_string());
        writeln!(
            s,
            "{},{},{},{},{},{},{}",
            r.set,
            j,
            num(r.per_server),
            num(r.traffic),
            rate(r.per_server),
            num(r.ratio.0),
            num(r.ratio.1)
        )
        .expect("string");
    }
    files.push(write(dir.join("region.csv"), &s)?);
    let mix_label = |cfg: &Vec<(Size, u32)>| {
        cfg.iter()
            .map(|(sz, n)| format!("{n}×{sz}"))
            .collect::<Vec<_>>()
            .join("+")
    };
    if !out.mix.is_empty() {
        let mut s = String::from("configuration,fraction_of_servers\n");
        for (cfg, x) in &out.mix {
            writeln!(s, "{},{}", mix_label(cfg), num(*x)).expect("string");
        }
        files.push(write(dir.join("mix.csv"), &s)?);
    }
    let mut s = String::from("intervals,rho_up,rho_low,width\n");
    for b in &out.bracket {
        writeln!(
            s,
            "{},{},{},{}",
            b.intervals,
            num(b.lower_bound),
            num(b.upper_bound),
            num(b.width())
        )
        .expect("string");
    }
    files.push(write(dir.join("bracket.csv"), &s)?);
    if !out.family.is_empty() {
        let mut s = String::from(
            "case,types,mean_size,rho_star,rho_kred,rho_dyadic,ratio_kred,ratio_dyadic,sizes,probs\n",
        );
        for (i, c) in out.family.iter().enumerate() {
            let sizes: Vec<String> = c.atoms.iter().map(|a| num(a.0.as_f64())).collect();
            let probs: Vec<String> = c.atoms.iter().map(|a| num(a.1)).collect();
            writeln!(
                s,
                "{i},{},{},{},{},{},{},{},{},{}",
                c.atoms.len(),
                num(c.mean),
                num(c.rho_star),
                num(c.kred),
                num(c.dyadic),
                num(c.kred / c.rho_star),
                num(c.dyadic / c.rho_star),
                sizes.join(" "),
                probs.join(" ")
            )
            .expect("string");
        }
        files.push(write(dir.join("family.csv"), &s)?);
    }
    files.push(write_claims(dir, &out.claims)?);
    let mut figures = Vec::new();
    for (kind, title, file) in &exp.plots {
        let chart = if kind == "bracket" {
            let pts = |f: fn(&BracketStep) -> f64| {
                out.bracket
                    .iter()
                    .map(|b| ((b.intervals as f64).log2(), f(b)))
                    .collect()
            };
            Chart {
                title: title
                    .clone()
                    .unwrap_or_else(|| format!("{}: bracket on ρ*", exp.name)),
                x_label: "log2 of the number of intervals n".into(),
                y_label: "traffic intensity".into(),
                series: vec![
                    Series {
                        label: "ρ_low(P_n) ≥ ρ* (sizes rounded down)".into(),
                        points: pts(|b| b.upper_bound),
                        ..Default::default()
                    },
                    Series {
                        label: "ρ_up(P_n) ≤ ρ* (sizes rounded up)".into(),
                        points: pts(|b| b.lower_bound),
                        ..Default::default()
                    },
                ],
                markers: true,
                log_y: false,
            }
        } else {
            let scatter =
                |f: fn(&FamilyCase) -> f64| out.family.iter().map(|c| (c.mean, f(c))).collect();
            let hline = |y: f64| vec![(0.0, y), (1.0, y)];
            Chart {
                title: title
                    .clone()
                    .unwrap_or_else(|| format!("{}: restricted regions / ρ*", exp.name)),
                x_label: "mean job size E[R]".into(),
                y_label: "ρ(restricted set) / ρ*".into(),
                series: vec![
                    Series {
                        label: "K_RED on X_J".into(),
                        colour: Some((31, 119, 180)),
                        points: scatter(|c| c.kred / c.rho_star),
                        points_only: true,
                        ..Default::default()
                    },
                    Series {
                        label: "dyadic set".into(),
                        colour: Some((214, 39, 40)),
                        points: scatter(|c| c.dyadic / c.rho_star),
                        points_only: true,
                        ..Default::default()
                    },
                    Series {
                        label: "2/3".into(),
                        colour: Some((31, 119, 180)),
                        points: hline(2.0 / 3.0),
                        ..Default::default()
                    },
                    Series {
                        label: "1/2".into(),
                        colour: Some((214, 39, 40)),
                        points: hline(0.5),
                        ..Default::default()
                    },
                ],
                markers: false,
                log_y: false,
            }
        };
        let paths = render_figure(dir, &chart, file)?;
        figures.push(paths[0].clone());
        files.extend(paths);
    }
    files.push(write_provenance(dir, &exp.file, &exp.source)?);
    let mut r = String::new();
    let _ = writeln!(r, "# {}\n", exp.name);
    if !exp.description.is_empty() {
        let _ = writeln!(r, "{}\n", exp.description.trim());
    }
    let _ = writeln!(r, "packlab {VERSION}, seed {}.\n", exp.seed);
    if !out.rows.is_empty() {
        let _ = writeln!(r, "## Regions (traffic intensity ρ = c·E[R])\n");
        if let Some((l, mean)) = exp.scale {
            let _ = writeln!(
                r,
                "Arrival rates are for L = {l} servers and mean service {mean} slots: λ = c·L/E[S].\n"
            );
        }
        let _ = writeln!(
            r,
            "| set | J | c = λ/(μL) | ρ | λ (jobs/slot) | ratio to ρ* |"
        );
        let _ = writeln!(r, "|---|---|---|---|---|---|");
        for row in &out.rows {
            let ratio = if (row.ratio.0 - row.ratio.1).abs() < 1e-12 {
                format!("{:.4}", row.ratio.0)
            } else {
                format!("{:.4} .. {:.4}", row.ratio.0, row.ratio.1)
            };
            let _ = writeln!(
                r,
                "| {} | {} | {:.6} | {:.6} | {} | {} |",
                row.set,
                row.j.map_or("–".into(), |j| j.to_string()),
                row.per_server,
                row.traffic,
                rate(row.per_server),
                ratio
            );
        }
    }
    if !out.mix.is_empty() {
        let _ = writeln!(r, "\nAn optimal configuration mix for ρ*:\n");
        for (cfg, x) in &out.mix {
            let _ = writeln!(r, "- {}: {:.2}% of servers", mix_label(cfg), 100.0 * x);
        }
    }
    if !out.bracket.is_empty() {
        let _ = writeln!(r, "\n## Theorem 1's bracket ρ_up(P_n) ≤ ρ* ≤ ρ_low(P_n)\n");
        let _ = writeln!(r, "| n | ρ_up | ρ_low | width |");
        let _ = writeln!(r, "|---|---|---|---|");
        for b in &out.bracket {
            let _ = writeln!(
                r,
                "| {} | {:.6} | {:.6} | {:.6} |",
                b.intervals,
                b.lower_bound,
                b.upper_bound,
                b.width()
            );
        }
    }
    if !out.family.is_empty() {
        let (_, k) = worst(out, SetKind::Kred).unwrap_or((0, f64::NAN));
        let (_, d) = worst(out, SetKind::Dyadic).unwrap_or((0, f64::NAN));
        let _ = writeln!(
            r,
            "\n## Family\n\n{} random discrete distributions: worst ρ(K_RED)/ρ* = {k:.6}, worst \
             ρ(dyadic)/ρ* = {d:.6}. Every case is in `family.csv`.",
            out.family.len()
        );
    }
    report_claims_and_figures(&mut r, &out.claims, &figures);
    files.push(write(dir.join("report.md"), &r)?);
    Ok(files)
}
