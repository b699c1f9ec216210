//! The Utilization Multiplier of Sharma et al. (SoCC 2011, Section 4, equations (1) and (2)):
//! for a constraint c and a resource r, `u_cr = f^D_cr / f^S_cr`, the share of the demand for r
//! that comes from tasks requesting c over the share of the supply of r on machines satisfying
//! c; the maximum over resources `u*_c` is the utilisation a task with c sees, relative to the
//! cluster's average, at its bottleneck resource.

use super::predicate::Constraint;
use super::table::Eligibility;

/// One constraint's multiplier.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Multiplier {
    /// The constraint, as written.
    pub(crate) constraint: String,
    /// Tasks requesting the constraint, and machines satisfying it.
    pub(crate) tasks: usize,
    /// Machines satisfying it.
    pub(crate) machines: usize,
    /// Per resource: share of the demand, share of the supply, and their ratio (`NaN` for a
    /// resource no task requests; `inf` if no machine satisfies the constraint).
    pub(crate) demand_share: Vec<f64>,
    /// Per resource, the share of the supply (machines satisfying it).
    pub(crate) supply_share: Vec<f64>,
    /// Per resource, demand share over supply share.
    pub(crate) u: Vec<f64>,
    /// The maximum of `u` over the resources requested (`u*_c`).
    pub(crate) u_max: f64,
}

/// The number of `items` (amounts, tag) whose tag passes `keep`, and their amounts summed over
/// the first `dims` resources.
fn sum_where(
    items: &[(&[u64], u32)],
    dims: usize,
    keep: impl Fn(u32) -> bool,
) -> (usize, Vec<u128>) {
    let mut sum = vec![0u128; dims];
    let mut n = 0;
    for (amounts, _) in items.iter().filter(|(_, t)| keep(*t)) {
        n += 1;
        for (s, &a) in sum.iter_mut().zip(amounts.iter()) {
            *s += a as u128;
        }
    }
    (n, sum)
}

/// Every constraint appearing in some class's set, in the order of first appearance.
pub(crate) fn vocabulary(table: &Eligibility) -> Vec<&Constraint> {
    let mut vocab: Vec<&Constraint> = Vec::new();
    for set in table.classes() {
        for c in set {
            if !vocab.contains(&c) {
                vocab.push(c);
            }
        }
    }
    vocab
}

/// The multiplier of every constraint of [`vocabulary`], in its order; `dims` resources. Machines are `(capacity, kind)`, tasks
/// `(request, class)`.
pub(crate) fn multipliers(
    table: &Eligibility,
    dims: usize,
    machines: &[(&[u64], u32)],
    tasks: &[(&[u64], u32)],
) -> Vec<Multiplier> {
    let vocab = vocabulary(table);
    let (_, supply) = sum_where(machines, dims, |_| true);
    let (_, demand) = sum_where(tasks, dims, |_| true);
    vocab
        .into_iter()
        .map(|c| {
            // which classes request c, which kinds satisfy it
            let has: Vec<bool> = table.classes().iter().map(|s| s.contains(c)).collect();
            let sat: Vec<bool> = (0..table.kinds().len() as u32)
                .map(|k| table.satisfies(k, c))
                .collect();
            let (n_tasks, dc) = sum_where(tasks, dims, |class| has[class as usize]);
            let (n_machines, sc) = sum_where(machines, dims, |kind| sat[kind as usize]);
            let share = |a: u128, b: u128| {
                if b == 0 {
                    f64::NAN
                } else {
                    a as f64 / b as f64
                }
            };
            let fd: Vec<f64> = (0..dims).map(|d| share(dc[d], demand[d])).collect();
            let fs: Vec<f64> = (0..dims).map(|d| share(sc[d], supply[d])).collect();
            let u: Vec<f64> = (0..dims)
                .map(|d| {
                    if fd[d].is_nan() {
                        f64::NAN
                    } else if sc[d] == 0 {
                        f64::INFINITY
                    } else {
                        fd[d] / fs[d]
                    }
                })
                .collect();
            let u_max = u
                .iter()
                .copied()
                .filter(|x| !x.is_nan())
                .fold(f64::NAN, f64::max);
            Multiplier {
                constraint: c.to_string(),
                tasks: n_tasks,
                machines: n_machines,
                demand_share: fd,
                supply_share: fs,
                u,
                u_max,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::predicate::parse_set;

    #[test]
    fn sharma_figure_one() {
        // Six identical machines M1..M6 and ten identical tasks, one resource. Each machine
        // satisfies one of four constraints, each task requests one; tasks with c3 can run only
        // on M4, and four tasks request c3. u_c3 = (4/10) / (1/6) = 2.4.
        let sats = ["c1", "c2", "c2", "c3", "c4", "c4"];
        let kinds: Vec<Vec<(String, String)>> = ["c1", "c2", "c3", "c4"]
            .iter()
            .map(|c| vec![("satisfies".to_string(), c.to_string())])
            .collect();
        let mut e = Eligibility::new(kinds);
        let kind = |s: &str| {
            ["c1", "c2", "c3", "c4"]
                .iter()
                .position(|c| *c == s)
                .unwrap() as u32
        };
        let one = [1u64];
        let machines: Vec<(&[u64], u32)> = sats.iter().map(|s| (&one[..], kind(s))).collect();
        let mut class = |c: &str| e.class_of(&parse_set(&format!("satisfies = {c}")).unwrap());
        let requests = ["c1", "c2", "c2", "c2", "c3", "c3", "c3", "c3", "c4", "c4"];
        let classes: Vec<u32> = requests.iter().map(|c| class(c).unwrap()).collect();
        let tasks: Vec<(&[u64], u32)> = classes.iter().map(|&c| (&one[..], c)).collect();
        let m = multipliers(&e, 1, &machines, &tasks);
        let c3 = m.iter().find(|x| x.constraint == "satisfies = c3").unwrap();
        assert_eq!((c3.tasks, c3.machines), (4, 1));
        assert!((c3.u[0] - 2.4).abs() < 1e-12, "{}", c3.u[0]);
        assert_eq!(c3.u_max, c3.u[0]);
        // c2: 3 of 10 tasks on 2 of 6 machines, 0.9; c1: 1/10 over 1/6, 0.6
        let u = |n: &str| m.iter().find(|x| x.constraint == n).unwrap().u_max;
        assert!((u("satisfies = c2") - 0.9).abs() < 1e-12);
        assert!((u("satisfies = c1") - 0.6).abs() < 1e-12);
    }

    #[test]
    fn bottleneck_is_the_largest_resource_share() {
        // two machines (1, 1) and (1, 3) of kinds a and b; tasks (1, 1) of class "k = b" and
        // (1, 0) unconstrained. For k = b: CPU demand 1/2, supply 1/2 → 1; memory demand 1/1,
        // supply 3/4 → 4/3, so u* = 4/3.
        let mut e = Eligibility::new(vec![
            vec![("k".into(), "a".into())],
            vec![("k".into(), "b".into())],
        ]);
        let cb = e.class_of(&parse_set("k = b").unwrap()).unwrap();
        let (m1, m2, t1, t2) = ([1u64, 1], [1u64, 3], [1u64, 1], [1u64, 0]);
        let m = multipliers(&e, 2, &[(&m1, 0), (&m2, 1)], &[(&t1, cb), (&t2, 0)]);
        assert_eq!(m.len(), 1);
        assert!((m[0].u[0] - 1.0).abs() < 1e-12);
        assert!((m[0].u[1] - 4.0 / 3.0).abs() < 1e-12);
        assert_eq!(m[0].u_max, m[0].u[1]);
    }
}
