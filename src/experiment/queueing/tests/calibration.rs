//! The stability verdict at and around a known limit (the full tables, 200 runs per load, come
//! from the committed `experiments/verdict_calibration*.toml`; these are shorter versions):
//! M/Geo/3 with unit jobs, whose limit is load 1 exactly and whose queue at load 1 is null
//! recurrent.

use crate::experiment::queueing::Horizon;
use crate::experiment::queueing::{Experiment, execute};
use crate::sim::Verdict;
use std::path::Path;

fn unit_jobs(loads: &str, replications: u32, seed: u64) -> Experiment {
    let text = format!(
        "name = \"cal\"\nseed = {seed}\n[cluster]\nservers = 3\n[workload]\n\
         sizes = {{ dist = \"discrete\", values = [1.0], probs = [1.0] }}\n\
         service = {{ dist = \"geometric\", mean = 10.0 }}\n\
         [run]\nslots = 200_000\nwarmup = 20_000\nmax_slots = 1_600_000\nreplications = {replications}\n\
         probe_groups = {replications}\n\
         queue_cap = 1_000_000\n[sweep]\nload = [{loads}]\n[[policy]]\nname = \"fifo-ff\"\n"
    );
    Experiment::parse(Path::new("cal.toml"), &text).unwrap()
}

#[test]
fn a_critical_queue_is_never_called_stable_by_a_majority_and_rarely_by_a_probe() {
    // 20 claims of 5 replications each at load 1 (null recurrent: not stable)
    let mut stable_runs = 0;
    let mut stable_probes = 0;
    let mut no_majority = 0;
    for group in 0..20 {
        let out = execute(&unit_jobs("1.0", 5, 100 + group), None).unwrap();
        let row = &out.summary[0];
        assert_ne!(
            row.verdict,
            Verdict::Stable,
            "group {group}: {:?}",
            row.verdict_counts
        );
        stable_runs += row.verdict_counts[0];
        // the same five runs as a limit search's probe: the majority, then the pooled test
        let g = &out.groups[0];
        assert_eq!(g.groups, 1);
        stable_probes += g.majority[0] + g.pooled[0];
        no_majority += g.pooled[0] + g.pooled[1] + g.undecided;
    }
    // each probe is called stable with probability about 1 % (the pooled test's error, plus
    // 10⁻³ for the majority's): 3 or more of 20 would happen in about 0.1 % of such tests
    assert!(
        stable_probes <= 2,
        "{stable_probes} of 20 critical probes stable"
    );
    // nearly every group has no majority at the critical load: the pooled test is what decides
    assert!(no_majority >= 15, "{no_majority} of 20 without a majority");
    // the calibrated per-run rate is about 2 %; 10 of 100 would be far outside it
    assert!(
        stable_runs <= 10,
        "{stable_runs} of 100 critical runs stable"
    );
}

#[test]
fn clearly_stable_and_clearly_unstable_loads_are_decided() {
    let out = execute(&unit_jobs("0.9, 1.1", 20, 7), None).unwrap();
    for row in &out.summary {
        let want = if row.point == 0 { 0 } else { 1 };
        assert_eq!(
            row.verdict_counts[want], 20,
            "point {}: {:?}",
            row.point, row.verdict_counts
        );
    }
}

#[test]
fn horizon_extensions_do_not_depend_on_threads() {
    // near the limit most runs are extended, some several times
    let exp = unit_jobs("0.99, 1.0", 4, 11);
    let one = execute(&exp, Some(1)).unwrap();
    let two = execute(&exp, Some(2)).unwrap();
    assert!(
        one.runs.iter().any(|r| r.evidence.extensions >= 2),
        "no run was extended twice"
    );
    for (a, b) in one.runs.iter().zip(&two.runs) {
        assert_eq!(a.result, b.result);
        assert_eq!(a.verdict, b.verdict);
    }
    // an extended run continues the same streams: its first slots are those of a run that
    // stopped at the initial horizon
    let mut fixed = exp.clone();
    let (slots, warmup, _) = fixed.run.slots().unwrap();
    fixed.run.horizon = Horizon::Slots {
        slots,
        warmup,
        max_slots: slots,
    };
    let short = execute(&fixed, Some(2)).unwrap();
    for (a, b) in one.runs.iter().zip(&short.runs) {
        let n = b.result.series.len() - 1; // the short run's last point is its final slot
        let t_max = b.result.series[n - 1].0;
        let long: Vec<_> = a.result.series.iter().filter(|s| s.0 <= t_max).collect();
        let short: Vec<_> = b.result.series[..n]
            .iter()
            .filter(|s| long.iter().any(|l| l.0 == s.0))
            .collect();
        assert!(!short.is_empty());
        for s in short {
            assert!(long.contains(&s), "slot {} differs", s.0);
        }
    }
}
