//! The stability verdict's error rates, from the committed calibration files (100 of their
//! 200 seeds per load): far inside the stability region no run may be called unstable and at
//! most 10 % inconclusive; far outside no run may be called stable.

use packlab::experiment::{Experiment, execute};
use std::path::Path;

fn rates(file: &str, text: &str) -> Vec<(f64, [u32; 3])> {
    let mut exp = Experiment::parse(Path::new(file), text).unwrap();
    exp.run.replications = 100;
    let out = execute(&exp, None).unwrap();
    out.summary
        .iter()
        .map(|r| (exp.points[r.point].key, r.verdict_counts))
        .collect()
}

#[test]
fn verdict_error_rates_on_unit_jobs() {
    for (load, [stable, unstable, inconclusive]) in rates(
        "experiments/verdict_calibration.toml",
        include_str!("../../experiments/verdict_calibration.toml"),
    ) {
        if load < 1.0 {
            assert_eq!(unstable, 0, "false alarms at ρ = {load}");
            assert!(
                inconclusive <= 10,
                "{inconclusive} inconclusive at ρ = {load}"
            );
        } else {
            assert_eq!(stable, 0, "misses at ρ = {load}");
            assert!(unstable >= 95, "only {unstable} unstable at ρ = {load}");
        }
    }
}

#[test]
fn verdict_error_rates_on_a_fragmentation_limit() {
    for (rate, [stable, unstable, inconclusive]) in rates(
        "experiments/verdict_calibration_vqs.toml",
        include_str!("../../experiments/verdict_calibration_vqs.toml"),
    ) {
        if rate < 0.133 {
            assert_eq!(unstable, 0, "false alarms at λ = {rate}");
            assert!(
                inconclusive <= 10,
                "{inconclusive} inconclusive at λ = {rate}"
            );
        } else {
            assert_eq!(stable, 0, "misses at λ = {rate}");
            assert!(unstable >= 95, "only {unstable} unstable at λ = {rate}");
        }
    }
}
