//! Directions of the plane of two job types, and the slices of regions along them with other
//! types held at fixed rates (docs/theory.md section 2; Psychas & Ghaderi, Section III).
//!
//! A direction θ ∈ [0°, 90°] of the plane (λ₁/μ, λ₂/μ) is a mix of the two types in proportion
//! (cos θ, sin θ); a region's boundary along it is the largest total rate of that mix the
//! region holds, in jobs per server per mean service time. With types held at fixed rates the
//! map is the slice of the regions of all the types at those rates: along a direction, the
//! points of a convex region that holds the held point form an interval [0, t*] of free rates,
//! and [`slice`] finds t* by bisection over the region's boundary along laws.

use crate::configurations::Partition;
use crate::model::Size;
use crate::stability::region::{rho_reduced, rho_star};

/// A job type held at a fixed rate while the map's two free types vary.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) struct Held {
    /// Its size.
    pub(crate) size: Size,
    /// Its rate, jobs per server per mean service time.
    pub(crate) per_server: f64,
}

/// The shares of the two types along the direction at `degrees` (in [0, 90]): (cos θ, sin θ)
/// normalised to sum 1, exactly (1, 0) and (0, 1) on the axes.
pub(crate) fn mix(degrees: f64) -> (f64, f64) {
    if degrees == 0.0 {
        (1.0, 0.0)
    } else if degrees == 90.0 {
        (0.0, 1.0)
    } else {
        let t = degrees.to_radians();
        let (c, s) = (t.cos(), t.sin());
        (c / (c + s), s / (c + s))
    }
}

/// The law of types arriving at `free` and `held` rates (jobs per server per mean service
/// time): atoms (size, probability) of the positive rates, and their total rate.
pub(crate) fn rates_law(free: [(Size, f64); 2], held: &[Held]) -> (Vec<(Size, f64)>, f64) {
    let rates: Vec<(Size, f64)> = free
        .into_iter()
        .chain(held.iter().map(|h| (h.size, h.per_server)))
        .filter(|r| r.1 > 0.0)
        .collect();
    let total: f64 = rates.iter().map(|r| r.1).sum();
    (
        rates.into_iter().map(|(s, r)| (s, r / total)).collect(),
        total,
    )
}

/// The bottleneck resource of two request vectors (fixed point, per resource, the first
/// `dims` used) mixed in proportion `mix` — the largest mean request; the last of equal ones —
/// and its mean request, a fraction of a server: the load of request vectors counts it.
pub(crate) fn bottleneck((v, dims): ([[u64; 3]; 2], usize), mix: (f64, f64)) -> (usize, f64) {
    let mean = |d: usize| mix.0 * Size(v[0][d]).as_f64() + mix.1 * Size(v[1][d]).as_f64();
    let b = (0..dims)
        .max_by(|&a, &c| mean(a).total_cmp(&mean(c)))
        .unwrap_or(0);
    (b, mean(b))
}

/// A region's boundary along the law of `atoms` (size, probability), jobs per server per mean
/// service time; an error in words when its LP fails.
pub(crate) type BoundaryOf<'a> = dyn Fn(&[(Size, f64)]) -> Result<f64, String> + 'a;

/// An owned [`BoundaryOf`].
pub(crate) type Boundary<'a> = Box<BoundaryOf<'a>>;

/// Along the direction `mix` of the free types' plane (sizes `sizes`) with the `held` types at
/// their rates, the largest free rate t (jobs per server per mean service time) whose point is
/// inside the region whose boundary along any law is `c_of`, found by bisection to double
/// precision (each step one boundary, i.e. one configuration LP), accepting a point within a
/// relative 10⁻¹² of the boundary. `None` when the held types alone are outside the region.
pub(crate) fn slice(
    sizes: [Size; 2],
    mix: (f64, f64),
    held: &[Held],
    c_of: &BoundaryOf<'_>,
) -> Result<Option<f64>, String> {
    let inside = |t: f64| -> Result<bool, String> {
        let (atoms, total) = rates_law([(sizes[0], t * mix.0), (sizes[1], t * mix.1)], held);
        Ok(total <= c_of(&atoms)? * (1.0 + 1e-12))
    };
    // the boundary without the held types bounds the slice's (and is it, without any)
    let free: Vec<(Size, f64)> = [(sizes[0], mix.0), (sizes[1], mix.1)]
        .into_iter()
        .filter(|a| a.1 > 0.0)
        .collect();
    if held.is_empty() {
        return c_of(&free).map(Some);
    }
    if !inside(0.0)? {
        return Ok(None);
    }
    let (mut lo, mut hi) = (0.0, c_of(&free)?);
    if inside(hi)? {
        return Ok(Some(hi));
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if inside(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo))
}

/// The boundaries a map compares policies with, each along any law ([`BoundaryOf`]): what
/// [`slice`] cuts at the held rates.
pub(crate) struct Boundaries<'a> {
    /// The capacity region's (every feasible configuration).
    pub(crate) capacity: Boundary<'a>,
    /// K_RED's over X_J (the region VQS and VQS-BF are guaranteed).
    pub(crate) kred: Boundary<'a>,
    /// The dyadic set's (homogeneous configurations of sizes rounded up to powers of two).
    pub(crate) dyadic: Boundary<'a>,
    /// 1/2 of the capacity region's (BF-J/S's guarantee).
    pub(crate) half: Boundary<'a>,
    /// 2/3 of the capacity region's (VQS's guarantee).
    pub(crate) two_thirds: Boundary<'a>,
    /// The restricted region's (NUMA nodes, placement constraints), if the servers have one.
    pub(crate) restricted: Option<Boundary<'a>>,
}

impl<'a> Boundaries<'a> {
    /// The boundaries of X_J with `j` for K_RED and the dyadic set, and `restricted` as given.
    pub(crate) fn new(j: u32, restricted: Option<Boundary<'a>>) -> Self {
        let capacity =
            |a: &[(Size, f64)]| rho_star(a).map(|r| r.per_server).map_err(|e| e.to_string());
        let reduced = move |p: Partition| {
            move |a: &[(Size, f64)]| {
                rho_reduced(a, &p, 1.0)
                    .map(|r| r.per_server)
                    .map_err(|e| e.to_string())
            }
        };
        Boundaries {
            capacity: Box::new(capacity),
            kred: Box::new(reduced(Partition::universal(j))),
            dyadic: Box::new(reduced(Partition::dyadic(j))),
            half: Box::new(move |a: &[(Size, f64)]| capacity(a).map(|c| 0.5 * c)),
            two_thirds: Box::new(move |a: &[(Size, f64)]| capacity(a).map(|c| 2.0 / 3.0 * c)),
            restricted,
        }
    }

    /// The unrestricted boundaries, in the order capacity, K_RED, dyadic, 1/2, 2/3.
    pub(crate) fn regions(&self) -> [&BoundaryOf<'a>; 5] {
        [
            self.capacity.as_ref(),
            self.kred.as_ref(),
            self.dyadic.as_ref(),
            self.half.as_ref(),
            self.two_thirds.as_ref(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(num: u64, den: u64) -> Size {
        Size::ratio(num, den)
    }

    #[test]
    fn mixes_are_exact_on_the_axes_and_even_at_45_degrees() {
        assert_eq!(mix(0.0), (1.0, 0.0));
        assert_eq!(mix(90.0), (0.0, 1.0));
        let (a, b) = mix(45.0);
        assert!((a - 0.5).abs() < 1e-15 && (b - 0.5).abs() < 1e-15);
        // the share of type 2 grows with the angle, and the shares sum to 1
        let mut last = 0.0;
        for d in 1..90 {
            let (a, b) = mix(f64::from(d));
            assert!(b > last && (a + b - 1.0).abs() < 1e-15, "{d}°");
            last = b;
        }
    }

    #[test]
    fn a_law_of_rates_keeps_the_positive_ones_and_normalises_them() {
        let held = [Held {
            size: size(1, 2),
            per_server: 0.5,
        }];
        let (atoms, total) = rates_law([(size(1, 4), 1.0), (size(3, 4), 0.0)], &held);
        assert_eq!(total, 1.5);
        assert_eq!(
            atoms,
            vec![(size(1, 4), 1.0 / 1.5), (size(1, 2), 0.5 / 1.5)]
        );
    }

    #[test]
    fn the_bottleneck_is_the_largest_mean_request_and_the_last_of_equal_ones() {
        let (a, b) = (Size::ratio(1, 5).0, Size::ratio(2, 5).0);
        // (0.2, 0.4) and (0.4, 0.2): even at 45° (the last wins), resource 0 towards type 2
        let v = [[a, b, 0], [b, a, 0]];
        assert_eq!(bottleneck((v, 2), (0.5, 0.5)).0, 1);
        let (r, mean) = bottleneck((v, 2), (0.25, 0.75));
        assert_eq!(r, 0);
        assert!((mean - (0.25 * 0.2 + 0.75 * 0.4)).abs() < 1e-12);
    }

    /// A region whose boundary along any law is 1 job per server per mean service time (the
    /// simplex of total rate 1): its slice at held rate h is 1 − h on every direction.
    #[test]
    fn the_slice_of_a_simplex_is_what_the_held_rate_leaves() {
        let simplex = |_: &[(Size, f64)]| -> Result<f64, String> { Ok(1.0) };
        let sizes = [size(1, 4), size(3, 4)];
        for d in [0.0, 30.0, 45.0, 90.0] {
            assert_eq!(slice(sizes, mix(d), &[], &simplex), Ok(Some(1.0)));
            let held = [Held {
                size: size(1, 2),
                per_server: 0.3,
            }];
            let t = slice(sizes, mix(d), &held, &simplex).unwrap().unwrap();
            assert!((t - 0.7).abs() < 1e-9, "{d}°: {t}");
            let over = [Held {
                size: size(1, 2),
                per_server: 1.2,
            }];
            assert_eq!(slice(sizes, mix(d), &over, &simplex), Ok(None));
        }
    }

    /// Sizes 3/8 (type 1) and 1/4 (type 2) on one server: the capacity region's hull is
    /// (0, 4), (2, 1), (2, 0), exactly (3/8 · 2 + 1/4 = 1). With type 2 held at 2.5, type 1
    /// keeps what the hull leaves at y = 2.5: x = (4 − 2.5)/1.5 = 1; held at 1, x = 2 (the
    /// vertical edge). The guarantees are the region scaled: at y = 1, 1/2 of it leaves
    /// (2 − 1)/1.5 = 2/3 and 2/3 of it leaves (8/3 − 1)/1.5 = 10/9.
    #[test]
    fn a_held_type_slices_each_region_at_its_hull() {
        let sizes = [size(3, 8), size(1, 4)];
        let b = Boundaries::new(2, None);
        let held = |y: f64| {
            [Held {
                size: size(1, 4),
                per_server: y,
            }]
        };
        let cut = |y: f64, c_of: &BoundaryOf<'_>| {
            slice(sizes, mix(0.0), &held(y), c_of).unwrap().unwrap()
        };
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(
            slice(sizes, mix(0.0), &[], &*b.capacity).unwrap().unwrap(),
            2.0
        ));
        assert!(
            close(cut(2.5, &*b.capacity), 1.0),
            "{}",
            cut(2.5, &*b.capacity)
        );
        assert!(
            close(cut(1.0, &*b.capacity), 2.0),
            "{}",
            cut(1.0, &*b.capacity)
        );
        assert!(
            close(cut(1.0, &*b.half), 2.0 / 3.0),
            "{}",
            cut(1.0, &*b.half)
        );
        assert!(close(cut(1.0, &*b.two_thirds), 10.0 / 9.0));
        // beyond 2/3 of the region's own reach along type 2 (8/3), the 2/3 slice is empty
        assert_eq!(slice(sizes, mix(0.0), &held(2.7), &*b.two_thirds), Ok(None));
    }

    #[test]
    fn kred_is_inside_the_capacity_region_and_restricted_is_passed_through() {
        let restricted: Boundary<'_> = Box::new(|_| Ok(0.25));
        let b = Boundaries::new(3, Some(restricted));
        let sizes = [size(2, 5), size(3, 10)];
        for d in [0.0, 20.0, 45.0, 70.0, 90.0] {
            let m = mix(d);
            let [c, k, y, h, t] = b
                .regions()
                .map(|r| slice(sizes, m, &[], r).unwrap().unwrap());
            assert!(k <= c + 1e-9 && y <= c + 1e-9, "{d}°: {c} {k} {y}");
            assert!((h - 0.5 * c).abs() < 1e-9 && (t - 2.0 / 3.0 * c).abs() < 1e-9);
            let r = slice(sizes, m, &[], b.restricted.as_deref().unwrap());
            assert_eq!(r, Ok(Some(0.25)));
        }
    }
}
