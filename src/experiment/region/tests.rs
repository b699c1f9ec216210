//! Regions computed by linear programming, from the committed region experiment files: the
//! claims of each file must hold (the family reduced to 500 distributions to keep the test
//! short; brackets at the file's full refinement).

use super::RegionExperiment;
use super::execute_region;
use std::path::Path;

fn check(file: &str, text: &str) {
    let mut exp = RegionExperiment::parse(Path::new(file), text).unwrap();
    if let Some(f) = &mut exp.family {
        f.0 = f.0.min(500);
    }
    let out = execute_region(&exp, None).unwrap();
    assert!(!out.claims.is_empty());
    for c in &out.claims {
        assert!(
            c.holds,
            "{file}: {} — observed {} ({})",
            c.claim, c.observed, c.evidence
        );
    }
}

#[test]
fn kred_keeps_two_thirds_dyadic_about_half() {
    check(
        "experiments/region_kred_ratio.toml",
        include_str!("../../../experiments/region_kred_ratio.toml"),
    );
}

#[test]
fn bracket_narrows_for_fig4_sizes() {
    check(
        "experiments/region_bracket_uniform_large.toml",
        include_str!("../../../experiments/region_bracket_uniform_large.toml"),
    );
    check(
        "experiments/region_bracket_uniform_small.toml",
        include_str!("../../../experiments/region_bracket_uniform_small.toml"),
    );
}

#[test]
fn fig3a_region_is_exact() {
    check(
        "experiments/region_fig3.toml",
        include_str!("../../../experiments/region_fig3.toml"),
    );
}
