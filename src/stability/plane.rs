//! Stability regions of two job types, drawn in the plane of their normalised arrival rates
//! (x, y) = (λ₁/μ, λ₂/μ) (docs/theory.md section 2; Psychas & Ghaderi, Section III and Fig. 3).
//!
//! On one server, a configuration k = (k₁, k₂) is a point of the plane; the capacity region
//! is the set of rate vectors strictly below the convex hull of the feasible configurations
//! (0 included), and on L servers it is L times that. Such a region is *downward closed*: its
//! outer boundary is the upper-right chain of the hull, from its point on the y axis to its
//! point on the x axis, whose vertices are configurations. The same holds for a restricted set
//! (K_RED over X_J, the homogeneous set of the dyadic partition), once each configuration over
//! the partition's classes is read as the counts of the two types it can hold.
//!
//! Exact arithmetic: configurations are small integers, and the hull is built with integer
//! cross products.

pub(crate) mod rays;

use crate::configurations::{Partition, ReducedSet};
use crate::model::Size;

/// A downward-closed convex region of two types, as its outer boundary.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Polygon {
    /// The boundary's vertices, per server (configurations (k₁, k₂)), from the one on the y
    /// axis (k₁ = 0) to the one on the x axis (k₂ = 0), clockwise.
    pub(crate) vertices: Vec<(u32, u32)>,
}

impl Polygon {
    /// The outer boundary of the downward-closed convex hull of `points` and the origin.
    pub(crate) fn of(points: &[(u32, u32)]) -> Polygon {
        let max_x = points.iter().map(|p| p.0).max().unwrap_or(0);
        let max_y = points.iter().map(|p| p.1).max().unwrap_or(0);
        // the hull of the points and their shadows on the axes: its upper-right chain
        let mut pts: Vec<(u32, u32)> = points.to_vec();
        pts.push((0, max_y));
        pts.push((max_x, 0));
        pts.sort_unstable();
        pts.dedup();
        // left to right, keep a chain turning clockwise (upper hull)
        let cross = |o: (u32, u32), a: (u32, u32), b: (u32, u32)| {
            let (ox, oy) = (i64::from(o.0), i64::from(o.1));
            (i64::from(a.0) - ox) * (i64::from(b.1) - oy)
                - (i64::from(a.1) - oy) * (i64::from(b.0) - ox)
        };
        let mut hull: Vec<(u32, u32)> = Vec::new();
        for p in pts {
            while hull.len() >= 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) >= 0 {
                hull.pop();
            }
            hull.push(p);
        }
        // from the highest point of x = 0 (the shadow (0, max_y)), down to the x axis: the
        // chain's last point is the highest of x = max_x, below which the boundary is vertical
        let start = hull.iter().rposition(|p| p.0 == 0).unwrap_or(0);
        let mut vertices = hull[start..].to_vec();
        if let Some(&(x, y)) = vertices.last()
            && y > 0
        {
            vertices.push((x, 0));
        }
        Polygon { vertices }
    }

    /// The boundary's distance along direction (dx, dy) ≥ 0 (not both 0), per server: the t
    /// with t·(dx, dy) on the boundary.
    #[cfg(test)]
    pub(crate) fn along(&self, dx: f64, dy: f64) -> f64 {
        let mut best = f64::INFINITY;
        for w in self.vertices.windows(2) {
            let (a, b) = (w[0], w[1]);
            let (ax, ay) = (f64::from(a.0), f64::from(a.1));
            let (bx, by) = (f64::from(b.0), f64::from(b.1));
            // t·d on the line through a and b: t (d × (b − a)) = a × (b − a)
            let ex = bx - ax;
            let ey = by - ay;
            let den = dx * ey - dy * ex;
            if den.abs() < 1e-15 {
                continue;
            }
            let t = (ax * ey - ay * ex) / den;
            // within the edge: the crossing's parameter on it in [0, 1]
            let (px, py) = (t * dx, t * dy);
            let s = if ex.abs() > ey.abs() {
                (px - ax) / ex
            } else {
                (py - ay) / ey
            };
            if t >= 0.0 && (-1e-12..=1.0 + 1e-12).contains(&s) {
                best = best.min(t);
            }
        }
        best
    }
}

/// Every feasible configuration of two sizes on one server: (k₁, k₂) with k₁s₁ + k₂s₂ ≤ 1,
/// compared exactly.
pub(crate) fn configurations(sizes: [Size; 2]) -> Vec<(u32, u32)> {
    let (a, b) = (sizes[0].0, sizes[1].0);
    let mut out = Vec::new();
    for k1 in 0..=Size::UNIT / a {
        let left = Size::UNIT - k1 * a;
        out.push((k1 as u32, (left / b) as u32));
    }
    out
}

/// The maximal configurations (k₁, k₂) of two request vectors on one server of capacity 1 in
/// every resource: for each k₁, the most of type 2 that still fit in every resource (exact, in
/// fixed point). `dims` resources are compared; a vector requesting nothing of a resource
/// takes none of it.
pub(crate) fn vector_configurations(v: [[u64; 3]; 2], dims: usize) -> Vec<(u32, u32)> {
    let most = |left: &[u64; 3], r: &[u64; 3]| {
        (0..dims)
            .filter(|&d| r[d] > 0)
            .map(|d| left[d] / r[d])
            .min()
            .unwrap_or(0)
    };
    let full = [Size::UNIT; 3];
    let mut out = Vec::new();
    for k1 in 0..=most(&full, &v[0]) {
        let left: [u64; 3] = std::array::from_fn(|d| Size::UNIT - k1 * v[0][d]);
        out.push((k1 as u32, most(&left, &v[1]) as u32));
    }
    out
}

/// The configurations of the reduced set of `p` (K_RED on X_J, homogeneous otherwise) as counts
/// of the two types: a configuration's count in a type's class goes to that type; when both
/// types share a class, every split of its count.
pub(crate) fn reduced_configurations(sizes: [Size; 2], p: &Partition) -> Vec<(u32, u32)> {
    let (c1, c2) = (p.index(sizes[0]), p.index(sizes[1]));
    let set = ReducedSet::new(p);
    let mut out = Vec::new();
    for k in set.iter() {
        let d = k.dense(p.len());
        if c1 == c2 {
            out.extend((0..=d[c1]).map(|a| (a, d[c1] - a)));
        } else {
            out.push((d[c1], d[c2]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stability::region::{rho_reduced, rho_star};

    fn s(x: f64) -> Size {
        Size::from_f64(x).unwrap()
    }

    #[test]
    fn fig3a_polygons_are_the_paper_s() {
        // 0.45 and 0.55: two small, one of each, or one large fit; K_RED: two small or one large
        let sizes = [s(0.45), s(0.55)];
        let all = Polygon::of(&configurations(sizes));
        assert_eq!(all.vertices, vec![(0, 1), (1, 1), (2, 0)]);
        let kred = Polygon::of(&reduced_configurations(sizes, &Partition::universal(4)));
        assert_eq!(kred.vertices, vec![(0, 1), (2, 0)]);
        // at 45°: the capacity boundary at (1, 1), K_RED's at (2/3, 2/3), 2/3 of it
        let d = std::f64::consts::FRAC_1_SQRT_2;
        assert!((all.along(d, d) - 2f64.sqrt()).abs() < 1e-12);
        assert!((kred.along(d, d) / all.along(d, d) - 2.0 / 3.0).abs() < 1e-12);
        // on the axes
        assert_eq!(all.along(1.0, 0.0), 2.0);
        assert_eq!(all.along(0.0, 1.0), 1.0);
    }

    /// The boundary along every direction is the configuration LP's: c·‖p‖ for the mix p of the
    /// direction, for the capacity region and for K_RED's and the dyadic set's.
    #[test]
    fn the_polygon_s_boundary_is_the_lp_s_along_every_ray() {
        let cases = [
            (0.45, 0.55),
            (0.2, 0.45),
            (0.3, 0.35),
            (0.07, 0.61),
            (0.26, 0.26),
            (1.0, 0.125),
            (0.45, 0.1),
        ];
        for (a, b) in cases {
            let sizes = [s(a), s(b)];
            let x = Partition::universal(4);
            let d = Partition::dyadic(4);
            let polys = [
                Polygon::of(&configurations(sizes)),
                Polygon::of(&reduced_configurations(sizes, &x)),
                Polygon::of(&reduced_configurations(sizes, &d)),
            ];
            for k in 0..=16 {
                let th = std::f64::consts::FRAC_PI_2 * f64::from(k) / 16.0;
                let (dx, dy) = (th.cos(), th.sin());
                let (p1, p2) = (dx / (dx + dy), dy / (dx + dy));
                let mut atoms = vec![];
                if p1 > 1e-12 {
                    atoms.push((sizes[0], p1));
                }
                if p2 > 1e-12 {
                    atoms.push((sizes[1], p2));
                }
                let mean = atoms.iter().map(|(s, p)| s.as_f64() * p).sum::<f64>();
                let lps = [
                    rho_star(&atoms).unwrap().per_server,
                    rho_reduced(&atoms, &x, mean).unwrap().per_server,
                    rho_reduced(&atoms, &d, mean).unwrap().per_server,
                ];
                for (poly, c) in polys.iter().zip(lps) {
                    // c jobs per server in total along the mix: the point c·(p1, p2)
                    let want = c * (p1 * p1 + p2 * p2).sqrt();
                    let got = poly.along(dx, dy);
                    assert!(
                        (got - want).abs() < 1e-7 * want.max(1.0),
                        "{a}/{b} θ={th}: polygon {got} against LP {want} ({poly:?})"
                    );
                }
            }
        }
    }
}
