//! Feasible configurations of finitely many sizes (docs/theory.md section 2, Definition 1) and the
//! max-weight configuration over all of them: an unbounded integer knapsack of capacity 1,
//! solved exactly by branch and bound, never by enumeration.

use crate::model::Size;

/// A feasible configuration: how many jobs of each type share one server.
pub(crate) type Counts = Vec<u32>;

#[cfg(test)]
/// Is `k` feasible for `sizes`: Σ k_i s_i ≤ 1, exactly?
pub(crate) fn feasible(sizes: &[Size], k: &[u32]) -> bool {
    let used: u128 = sizes
        .iter()
        .zip(k)
        .map(|(s, &n)| s.0 as u128 * n as u128)
        .sum();
    used <= Size::UNIT as u128
}

/// Every feasible configuration of `sizes` (the zero vector included), in lexicographic order,
/// or `None` if there are more than `limit`.
pub(crate) fn enumerate(sizes: &[Size], limit: usize) -> Option<Vec<Counts>> {
    fn rec(
        sizes: &[Size],
        i: usize,
        free: u64,
        cur: &mut Counts,
        out: &mut Vec<Counts>,
        limit: usize,
    ) -> bool {
        if i == sizes.len() {
            out.push(cur.clone());
            return out.len() <= limit;
        }
        let max = free / sizes[i].0;
        for n in 0..=max {
            cur[i] = n as u32;
            if !rec(sizes, i + 1, free - n * sizes[i].0, cur, out, limit) {
                return false;
            }
        }
        cur[i] = 0;
        true
    }
    let mut out = Vec::new();
    let mut cur = vec![0; sizes.len()];
    rec(sizes, 0, Size::UNIT, &mut cur, &mut out, limit).then_some(out)
}

/// Largest capacity grid (server capacity in units of the sizes' greatest common divisor) on
/// which [`max_weight`] uses dynamic programming.
pub(crate) const DP_CELLS: u64 = 1 << 14;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The max-weight configuration: argmax Σ k_i w_i over feasible k (exact capacities, weights
/// as given). Types with weight ≤ 0 are left out. When every size is a multiple of 1/C of the
/// server for some C ≤ `DP_CELLS` (a grid partition, say), an exact dynamic programme over the
/// C capacity cells; otherwise branch and bound over the types in order of decreasing weight
/// per unit of size, trying larger counts first, pruned by the fractional (LP) bound. Either
/// way the result is exact and deterministic (among equal weights, a fixed but unspecified
/// choice). Returns (k, weight).
pub fn max_weight(sizes: &[Size], weights: &[f64]) -> (Counts, f64) {
    let mut k = Counts::new();
    let w = Knapsack::default().solve(sizes, weights, &mut k);
    (k, w)
}

/// [`max_weight`] with its working memory kept between calls, for a caller that solves many
/// knapsacks (a policy renewing configurations): no allocation once the buffers have grown.
#[derive(Clone, Debug, Default)]
pub(crate) struct Knapsack {
    live: Vec<usize>,
    /// The grid of the last solve, kept while the types with positive weight and their sizes
    /// stay the same (a renewing policy meets a few such sets over and over, and the grid costs
    /// divisions): their sizes, the greatest common divisor of those and of the unit (0: none
    /// yet), and their sizes in units of it.
    grid_sizes: Vec<u64>,
    grid: u64,
    units: Vec<usize>,
    best: Vec<f64>,
    choice: Vec<usize>,
}

impl Knapsack {
    /// [`max_weight`]: the configuration into `k` (resized to the number of types), the weight
    /// returned.
    pub(crate) fn solve(&mut self, sizes: &[Size], weights: &[f64], k: &mut Counts) -> f64 {
        assert_eq!(sizes.len(), weights.len());
        self.live.clear();
        self.live
            .extend((0..sizes.len()).filter(|&i| weights[i] > 0.0));
        let same = self.grid != 0
            && self.grid_sizes.len() == self.live.len()
            && (self.live.iter().zip(&self.grid_sizes)).all(|(&i, &s)| sizes[i].0 == s);
        if !same {
            self.grid_sizes.clear();
            self.grid_sizes
                .extend(self.live.iter().map(|&i| sizes[i].0));
            let g = self.grid_sizes.iter().fold(Size::UNIT, |g, &s| gcd(g, s));
            self.grid = g;
            self.units.clear();
            self.units
                .extend(self.grid_sizes.iter().map(|&s| (s / g) as usize));
        }
        let cells = Size::UNIT / self.grid;
        if !self.live.is_empty()
            && cells <= DP_CELLS
            && (cells as usize) * self.live.len() <= 50_000_000
        {
            return self.dynamic(sizes, weights, cells as usize, k);
        }
        let (best, w) = branch_and_bound(sizes, weights);
        k.clone_from(&best);
        w
    }

    /// Unbounded knapsack by dynamic programming over `cells` capacity units of the grid (the
    /// live types' sizes in `units`).
    fn dynamic(&mut self, sizes: &[Size], weights: &[f64], cells: usize, k: &mut Counts) -> f64 {
        const CARRY: usize = usize::MAX;
        let Knapsack {
            live,
            units,
            best,
            choice,
            ..
        } = self;
        best.clear();
        best.resize(cells + 1, 0.0);
        choice.clear();
        choice.resize(cells + 1, CARRY);
        for c in 1..=cells {
            // the first type, in order, that strictly improves on carrying: selects rather
            // than branches, whose outcomes follow the weights
            let (mut b, mut ch) = (best[c - 1], CARRY);
            for (t, &i) in live.iter().enumerate() {
                let u = units[t];
                if u <= c {
                    let cand = best[c - u] + weights[i];
                    let better = cand > b;
                    b = if better { cand } else { b };
                    ch = if better { t } else { ch };
                }
            }
            best[c] = b;
            choice[c] = ch;
        }
        k.clear();
        k.resize(sizes.len(), 0);
        let mut c = cells;
        while c > 0 {
            match choice[c] {
                CARRY => c -= 1,
                t => {
                    k[live[t]] += 1;
                    c -= units[t];
                }
            }
        }
        k.iter().zip(weights).map(|(&n, w)| n as f64 * w).sum()
    }
}

/// Copies per server above which a type is searched last, its count taken at once (the
/// most that fits) rather than tried one by one: the search's cost then does not depend on
/// it. Above this for two or more types, [`tractable`] refuses.
pub(crate) const MANY_COPIES: u64 = 1 << 20;

/// What [`tractable`] asks of sizes, in words.
pub(crate) const TRACTABLE: &str = "at most one size below 2⁻²⁰ of a server (≈ 9.5e-7) unless \
    every size is a multiple of 1/16384 of it (configurations are solved exactly, and their \
    search grows with the copies of the second such size per server)";

/// Whether [`max_weight`] over `sizes` finishes in bounded time: on the dynamic programme's
/// grid, or with at most one size that fits more than [`MANY_COPIES`] times in a server (see
/// [`TRACTABLE`]). `Err` gives the two smallest sizes otherwise, as fractions of a server.
pub(crate) fn tractable(sizes: &[Size]) -> Result<(), String> {
    let g = sizes.iter().fold(Size::UNIT, |g, s| gcd(g, s.0.max(1)));
    if Size::UNIT / g <= DP_CELLS {
        return Ok(());
    }
    let mut tiny: Vec<Size> = sizes
        .iter()
        .copied()
        .filter(|s| Size::UNIT / s.0.max(1) > MANY_COPIES)
        .collect();
    if tiny.len() < 2 {
        return Ok(());
    }
    tiny.sort();
    Err(format!(
        "sizes {:.3e} and {:.3e}",
        tiny[0].as_f64(),
        tiny[1].as_f64()
    ))
}

fn branch_and_bound(sizes: &[Size], weights: &[f64]) -> (Counts, f64) {
    let mut order: Vec<usize> = (0..sizes.len()).filter(|&i| weights[i] > 0.0).collect();
    let density = |i: usize| weights[i] / sizes[i].0 as f64;
    order.sort_by(|&a, &b| density(b).total_cmp(&density(a)).then(a.cmp(&b)));
    // the bound at each depth reads the densest type left: the type there in density order,
    // unless a type of very many copies is moved to the end (its count is then taken at once)
    let mut bound_type = order.clone();
    if let Some(pos) = (0..order.len())
        .filter(|&p| Size::UNIT / sizes[order[p]].0 > MANY_COPIES)
        .max_by_key(|&p| (Size::UNIT / sizes[order[p]].0, std::cmp::Reverse(p)))
        && pos + 1 < order.len()
    {
        let t = order.remove(pos);
        order.push(t);
        for d in 0..order.len() {
            bound_type[d] = order[d..]
                .iter()
                .copied()
                .max_by(|&a, &b| density(a).total_cmp(&density(b)).then(b.cmp(&a)))
                .unwrap_or(order[d]);
        }
    }
    let mut s = Search {
        sizes,
        weights,
        order: &order,
        bound_type: &bound_type,
        cur: vec![0; sizes.len()],
        best: vec![0; sizes.len()],
        best_w: 0.0,
    };
    s.dfs(0, Size::UNIT, 0.0);
    (s.best, s.best_w)
}

struct Search<'a> {
    sizes: &'a [Size],
    weights: &'a [f64],
    order: &'a [usize],
    /// The type whose density bounds what is left at each depth.
    bound_type: &'a [usize],
    cur: Counts,
    best: Counts,
    best_w: f64,
}

impl Search<'_> {
    /// The fractional bound at depth `d` with `free` capacity left and weight `w` so far.
    fn bound(&self, d: usize, free: u64, w: f64) -> f64 {
        let b = self.bound_type[d];
        w + free as f64 * self.weights[b] / self.sizes[b].0 as f64
    }

    /// Whether the branch at depth `d` is cut (a small slack keeps rounding in the bound from
    /// pruning a strictly better branch).
    fn cut(&self, d: usize, free: u64, w: f64) -> bool {
        self.bound(d, free, w) <= self.best_w + 1e-12 * self.best_w.abs().max(1.0) && d > 0
    }

    fn dfs(&mut self, d: usize, free: u64, w: f64) {
        if w > self.best_w {
            self.best_w = w;
            self.best.clone_from(&self.cur);
        }
        if d == self.order.len() {
            return;
        }
        let t = self.order[d];
        // fractional bound: fill what is free with the best remaining density
        if self.cut(d, free, w) {
            return;
        }
        let s = self.sizes[t].0;
        let max = free / s;
        let last = d + 1 == self.order.len();
        // with a positive weight, the most copies of the last type are best: fewer give less
        // and never replace it
        let fewest = if last { max } else { 0 };
        // the children's bounds fall with their count when this type is at least as dense as
        // what bounds them: once one is cut and no better, so is every later one
        let falling = !last && {
            let b = self.bound_type[d + 1];
            self.weights[t] / s as f64 >= self.weights[b] / self.sizes[b].0 as f64
        };
        for n in (fewest..=max).rev() {
            let (child_free, child_w) = (free - n * s, w + n as f64 * self.weights[t]);
            if falling && child_w <= self.best_w && self.cut(d + 1, child_free, child_w) {
                break;
            }
            self.cur[t] = n as u32;
            self.dfs(d + 1, child_free, child_w);
        }
        self.cur[t] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn a_size_of_very_many_copies_is_searched_last_and_exactly() {
        // 10¹² copies of the tiny size per server: its count is taken at once
        let tiny = Size(50);
        for (w_tiny, w_big) in [(1e-12, 1.0), (2.0 / 1.0066e12, 1.0), (1e-9, 1.0)] {
            let sizes = [tiny, Size::from_f64(0.3).unwrap()];
            let weights = [w_tiny, w_big];
            let (k, w) = max_weight(&sizes, &weights);
            let brute = (0..=3u64)
                .map(|n| {
                    let left = Size::UNIT - n * sizes[1].0;
                    n as f64 * w_big + (left / tiny.0) as f64 * w_tiny
                })
                .fold(f64::MIN, f64::max);
            assert!((w - brute).abs() <= 1e-12 * brute, "{w} {brute}");
            assert!(feasible(&sizes, &k));
        }
        assert!(tractable(&[tiny, Size::from_f64(0.3).unwrap()]).is_ok());
        assert!(tractable(&[tiny, Size(150), Size::from_f64(0.3).unwrap()]).is_err());
        // on the grid, any number of small sizes is fine
        assert!(tractable(&[Size(Size::UNIT / 16384), Size(Size::UNIT / 8192)]).is_ok());
    }

    #[test]
    fn enumerates_two_sizes() {
        // sizes 0.45 and 0.55: (0,0) (0,1) (1,0) (1,1) (2,0)
        let s = [Size::from_f64(0.45).unwrap(), Size::from_f64(0.55).unwrap()];
        let all = enumerate(&s, 100).unwrap();
        assert_eq!(
            all,
            vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1], vec![2, 0]]
        );
        assert!(enumerate(&s, 3).is_none());
    }

    #[test]
    fn max_weight_equals_brute_force_on_random_instances() {
        let mut rng = Pcg64Mcg::seed_from_u64(17);
        for case in 0..500 {
            let n = rng.random_range(1..=5);
            let sizes: Vec<Size> = (0..n)
                .map(|_| Size(rng.random_range(Size::UNIT / 12..=Size::UNIT)))
                .collect();
            let weights: Vec<f64> = (0..n)
                .map(|_| {
                    if rng.random_bool(0.2) {
                        0.0
                    } else if case % 2 == 0 {
                        rng.random_range(0..20) as f64
                    } else {
                        rng.random_range(0.0..10.0)
                    }
                })
                .collect();
            let all = enumerate(&sizes, 1_000_000).unwrap();
            let brute = all
                .iter()
                .map(|k| {
                    k.iter()
                        .zip(&weights)
                        .map(|(&c, w)| c as f64 * w)
                        .sum::<f64>()
                })
                .fold(0.0, f64::max);
            let (k, w) = max_weight(&sizes, &weights);
            assert!(feasible(&sizes, &k), "case {case}: infeasible {k:?}");
            let wk: f64 = k.iter().zip(&weights).map(|(&c, w)| c as f64 * w).sum();
            assert!((wk - w).abs() < 1e-9);
            assert!(
                (w - brute).abs() <= 1e-9 * brute.max(1.0),
                "case {case}: B&B {w} vs brute force {brute}"
            );
        }
    }

    #[test]
    fn dynamic_programme_equals_branch_and_bound_on_grids() {
        let mut rng = Pcg64Mcg::seed_from_u64(23);
        for case in 0..300 {
            let grid = [8u64, 12, 16, 60, 256][case % 5];
            let n = rng.random_range(1..=8);
            let sizes: Vec<Size> = (0..n)
                .map(|_| Size(rng.random_range(1..=grid) * (Size::UNIT / grid)))
                .collect();
            let weights: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..5.0)).collect();
            let (k1, w1) = max_weight(&sizes, &weights); // grid: dynamic programme
            let (k2, w2) = branch_and_bound(&sizes, &weights);
            assert!(feasible(&sizes, &k1) && feasible(&sizes, &k2));
            assert!(
                (w1 - w2).abs() <= 1e-9 * w2.max(1.0),
                "case {case}: {w1} vs {w2}"
            );
        }
    }

    /// One knapsack solving many instances (its grid kept while the live types and their
    /// sizes repeat, recomputed when either changes) answers as a fresh one each time.
    #[test]
    fn a_reused_knapsack_equals_a_fresh_one() {
        let mut rng = Pcg64Mcg::seed_from_u64(29);
        let mut reused = Knapsack::default();
        let (mut k, mut sizes) = (Counts::new(), Vec::new());
        for case in 0..2000 {
            // new sizes now and then, new weights (some zero: other live types) every time
            if case % 7 == 0 {
                let grid = [8u64, 12, 16, 60][case % 4];
                let n = rng.random_range(1..=4);
                sizes = (0..n)
                    .map(|_| Size(rng.random_range(1..=grid) * (Size::UNIT / grid)))
                    .collect();
            }
            let weights: Vec<f64> = (0..sizes.len())
                .map(|_| rng.random_range(0..4) as f64)
                .collect();
            let w = reused.solve(&sizes, &weights, &mut k);
            let (k_fresh, w_fresh) = max_weight(&sizes, &weights);
            assert_eq!(
                (&k, w),
                (&k_fresh, w_fresh),
                "case {case}: {sizes:?} {weights:?}"
            );
        }
    }

    #[test]
    fn many_types_are_solved_without_enumeration() {
        // 60 types down to 1/64: far too many configurations to enumerate.
        let sizes: Vec<Size> = (0..60)
            .map(|i| Size(Size::UNIT / 64 + i * (Size::UNIT / 70)))
            .collect();
        let weights: Vec<f64> = (0..60).map(|i| 1.0 + (i % 7) as f64).collect();
        assert!(enumerate(&sizes, 1_000_000).is_none());
        let (k, w) = max_weight(&sizes, &weights);
        assert!(feasible(&sizes, &k));
        assert!(w > 0.0);
    }
}
