//! The command line: byte-identical outputs whatever the thread count, and bad input exiting 2
//! with a message naming the key, never a panic.

use std::path::{Path, PathBuf};

use crate::util::{self, packlab};

fn tmp(name: &str) -> PathBuf {
    util::tmp("test", name)
}

const GOOD: &str = r#"
name = "cli-test"
seed = 5
[cluster]
servers = 4
[workload]
sizes = { dist = "uniform", low = 0.1, high = 0.7 }
service = { dist = "geometric", mean = 10.0 }
arrivals = { process = "poisson" }
[run]
slots = 20_000
warmup = 2_000
replications = 3
[sweep]
load = [0.6, 0.9]
[[policy]]
name = "bf-js"
[[policy]]
name = "fifo-ff"
[[policy]]
name = "bf-j"
[[plot]]
kind = "mean-queue-vs-load"
[[plot]]
kind = "queue-vs-time"
load = 0.9
[[claim]]
policy = "bf-js"
load = 0.6
expect = "stable"
"#;

fn write_exp(dir: &Path, text: &str) -> PathBuf {
    util::write(dir, "exp.toml", text)
}

#[test]
fn outputs_are_identical_with_one_and_two_threads() {
    let dir = tmp("threads");
    let exp = write_exp(&dir, GOOD);
    let mut outs = Vec::new();
    for t in ["1", "2"] {
        let out = dir.join(format!("out{t}"));
        let o = packlab(&[
            exp.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            t,
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        outs.push(out);
    }
    for f in [
        "runs.csv",
        "summary.csv",
        "timeseries.csv",
        "claims.csv",
        "report.md",
        "mean-queue-vs-load-0.svg",
        "queue-vs-time-1.svg",
    ] {
        let a = std::fs::read(outs[0].join(f)).unwrap();
        let b = std::fs::read(outs[1].join(f)).unwrap();
        assert!(!a.is_empty(), "{f} is empty");
        assert!(a == b, "{f} differs between 1 and 2 threads");
    }
    let runs = std::fs::read_to_string(outs[0].join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 2 * 3 * 3);
    assert!(outs[0].join("mean-queue-vs-load-0.png").exists());
}

#[test]
fn policies_see_the_same_jobs() {
    // Common random numbers: at each (load, replication), every policy gets the same seed and
    // the same number of arrivals, so their throughputs differ only through the queue.
    let dir = tmp("crn");
    let exp = write_exp(&dir, GOOD);
    let out = dir.join("out");
    let o = packlab(&[exp.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let mut seeds = std::collections::BTreeMap::new();
    for line in runs.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (f[1].to_string(), f[3].to_string());
        let seed = f[4].to_string();
        assert_eq!(seeds.entry(key).or_insert(seed.clone()), &seed);
    }
    assert_eq!(seeds.len(), 2 * 3);
}

/// Writes `text` into a fresh folder for `name`, runs packlab on it with `--out DIR/out` and
/// `extra`, checks the exit status; returns the output folder and stderr.
/// Runs `text` and returns the output folder and the summary printed on stdout.
fn run_text(name: &str, text: &str, extra: &[&str], status: i32) -> (PathBuf, String) {
    let dir = tmp(name);
    let exp = write_exp(&dir, text);
    let out = dir.join("out");
    let mut args = vec![exp.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend(extra);
    let o = packlab(&args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(status), "{err}");
    (out, String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The index of column `name` in a CSV header line.
fn column(header: &str, name: &str) -> usize {
    header.split(',').position(|h| h == name).unwrap()
}

#[test]
fn failed_claim_exits_1() {
    let text = GOOD.replace("expect = \"stable\"", "expect = \"unstable\"");
    let (out, _) = run_text("claim", &text, &[], 1);
    let claims = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    assert!(claims.lines().nth(1).unwrap().ends_with(",false"));
}

#[test]
fn quick_is_a_smoke_test_that_checks_no_claim() {
    // the same failing claim: exit 1 at full length, exit 0 and "not checked" under --quick
    let text = GOOD.replace("expect = \"stable\"", "expect = \"unstable\"");
    let (out, summary) = run_text("quick-claims", &text, &["--quick"], 0);
    assert!(
        summary.contains("not checked at this length (--quick)"),
        "{summary}"
    );
    let claims = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    let row = claims.lines().nth(1).unwrap();
    assert!(row.ends_with(",not checked"), "{row}");
    assert!(row.contains("not checked at this length"), "{row}");
    // the observation is kept (the shortened run extends its horizon by default until it is
    // decided: stable at load 0.6)
    assert!(row.contains(",unstable,stable,"), "{row}");
    assert!(row.contains("horizon doubled"), "{row}");
}

#[test]
fn quick_checks_an_exact_claim() {
    // ρ* of finitely many sizes is the configuration LP's, whatever the run's length
    let region = |at_least: &str| {
        format!(
            "name = \"exact\"\nkind = \"region\"\n[workload]\n\
             sizes = {{ dist = \"discrete\", values = [0.45, 0.55], probs = [0.5, 0.5] }}\n\
             [region]\nJ = [2]\n[[claim]]\nkind = \"rho-star\"\nat_least = {at_least}\n"
        )
    };
    let (out, summary) = run_text("quick-exact", &region("0.9999"), &["--quick"], 0);
    let claims = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    assert!(
        claims.lines().nth(1).unwrap().ends_with(",true"),
        "{claims}"
    );
    assert!(summary.contains("1 held"), "{summary}");
    // and fails under --quick as in a full run
    let (out, _) = run_text("quick-exact-fails", &region("1.01"), &["--quick"], 1);
    let claims = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    assert!(
        claims.lines().nth(1).unwrap().ends_with(",false"),
        "{claims}"
    );
}

#[test]
fn progress_lines_when_not_a_terminal_and_quiet_silences_them() {
    let dir = tmp("progress");
    let exp = write_exp(&dir, GOOD);
    let out = dir.join("out");
    // stderr is a pipe here: plain progress lines; the summary on stdout
    let o = packlab(&[exp.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    let summary = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("cli-test: 18 units to do"), "{err}");
    assert!(err.contains("cli-test: 18/18 units in"), "{err}");
    assert!(!err.contains("  claims   "), "{err}");
    assert!(summary.contains("  report   "), "{summary}");
    assert!(summary.contains("  claims   1 held"), "{summary}");
    assert!(
        summary.contains("holds        bf-js is stable at load 0.6: stable"),
        "{summary}"
    );
    // resumed from the journal: said so; --quiet: no progress, the summary stays
    let o = packlab(&[
        exp.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("units"), "{err}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("  claims   1 held"),
        "{err}"
    );
    let o = packlab(&[exp.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("18 of 18 units resumed from the journal"),
        "{err}"
    );
}

#[test]
fn rows_that_are_not_stable_show_evidence_not_a_mean() {
    // FIFO-FF far above its limit with a small cap: every run stops at the cap
    let text = GOOD
        .replace("load = [0.6, 0.9]", "load = [0.6, 1.3]")
        .replace("warmup = 2_000", "warmup = 2_000\nqueue_cap = 300")
        .replace("load = 0.9", "load = 1.3");
    let (out, _) = run_text("evidence", &text, &[], 0);
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let col = |name: &str| column(summary.lines().next().unwrap(), name);
    let row = summary
        .lines()
        .find(|l| l.starts_with("fifo-ff,1.300000"))
        .unwrap();
    let f: Vec<&str> = row.split(',').collect();
    assert_eq!(f[col("verdict")], "unstable");
    assert_eq!(f[col("capped_runs")], "3");
    assert!(f[col("median_cap_slot")].parse::<u64>().unwrap() < 20_000);
    assert!(f[col("growth_per_slot")].parse::<f64>().unwrap() > 0.0);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let line = report
        .lines()
        .find(|l| l.starts_with("| fifo-ff | 1.3000"))
        .unwrap();
    assert!(line.contains("| – | – | – |"), "{line}");
    assert!(
        line.contains("3 of 3 runs reached the cap of 300 jobs"),
        "{line}"
    );
    assert!(line.contains("net growth"), "{line}");
    // runs.csv: a capped run has no statistics; a judged one has the verdict's, and they agree
    // with its verdict (stable: z_vn ≤ 2 and z_rise ≤ 2.33; unstable: z_drift > 3)
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let col = |name: &str| column(runs.lines().next().unwrap(), name);
    let (mut capped, mut stable) = (0, 0);
    for row in runs.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let z = |name: &str| f[col(name)].parse::<f64>();
        assert!(f[col("judged_slots")].parse::<u64>().is_ok(), "{row}");
        if row.starts_with("fifo-ff,1.300000") {
            capped += 1;
            assert_eq!(f[col("z_drift")], "", "{row}");
            assert_eq!(f[col("z_vn")], "", "{row}");
        } else if f[col("verdict")] == "stable" {
            stable += 1;
            assert!(
                z("z_vn").unwrap() <= 2.0 && z("z_rise").unwrap() <= 2.33,
                "{row}"
            );
            assert!(z("z_drift").unwrap() <= 3.0, "{row}");
        } else if f[col("verdict")] == "unstable" && !f[col("z_drift")].is_empty() {
            assert!(z("z_drift").unwrap() > 3.0, "{row}");
        }
    }
    assert_eq!(capped, 3);
    assert!(stable > 0, "{runs}");
}

#[test]
fn a_quick_trace_replay_still_queues() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tmp("quick-trace");
    let out = dir.join("out");
    let exp = root.join("experiments/fig5_trace_scaling.toml");
    let o = packlab(&[
        exp.to_str().unwrap(),
        "--quick",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let header = summary.lines().next().unwrap();
    let (q, u, load) = (
        column(header, "mean_queue"),
        column(header, "utilization"),
        column(header, "load"),
    );
    for row in summary.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let (q, u, load): (f64, f64, f64) = (
            f[q].parse().unwrap(),
            f[u].parse().unwrap(),
            f[load].parse().unwrap(),
        );
        // every 100th job on 40 servers: the offered load is kept, so is the queueing
        assert!(q > 1.0, "{row}");
        assert!((u - load).abs() < 0.15 * load, "{row}");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("one job in 100 of the trace is replayed, on 40 servers"));
}

fn assert_bad(text: Option<&str>, must_mention: &[&str]) {
    let dir = tmp(&format!(
        "bad-{}",
        must_mention[0].replace(['.', ' ', '`', '/'], "_")
    ));
    let path = match text {
        Some(t) => write_exp(&dir, t),
        None => dir.join("missing.toml"),
    };
    let o = packlab(&[
        path.to_str().unwrap(),
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(!err.contains("RUST_BACKTRACE"), "panic: {err}");
    assert!(
        err.contains(path.file_name().unwrap().to_str().unwrap()),
        "no file name: {err}"
    );
    for m in must_mention {
        assert!(err.contains(m), "message does not mention {m:?}: {err}");
    }
}

#[test]
fn missing_file_exits_2() {
    assert_bad(None, &["cannot read"]);
}

#[test]
fn invalid_toml_exits_2() {
    assert_bad(
        Some("name = \"x\"\n[cluster\nservers = 3"),
        &["TOML", "line"],
    );
}

#[test]
fn unknown_key_exits_2() {
    let t = GOOD.replace("servers = 4", "servers = 4\nspeed = 2");
    assert_bad(Some(&t), &["unknown field", "speed"]);
    // a misspelt table: the closest key, and the list of expected keys whole
    let t = format!("{GOOD}\n[numb]\nstrict = 0.5\n");
    assert_bad(
        Some(&t),
        &[
            "unknown field `numb`",
            "`constraints`, `region_map`",
            "did you mean `numa`?",
        ],
    );
}

#[test]
fn missing_key_exits_2() {
    let t = GOOD.replace("slots = 20_000", "");
    assert_bad(Some(&t), &["run.slots", "slots per run"]);
    let t = GOOD.replace("servers = 4", "");
    assert_bad(Some(&t), &["missing field", "servers"]);
}

#[test]
fn negative_rate_exits_2() {
    let t = GOOD.replace("load = [0.6, 0.9]", "arrival_rate = [0.3, -0.2]");
    assert_bad(Some(&t), &["sweep.arrival_rate", "-0.2"]);
}

#[test]
fn size_outside_unit_interval_exits_2() {
    let t = GOOD.replace("high = 0.7", "high = 1.5");
    assert_bad(Some(&t), &["workload.sizes.high", "(0, 1]"]);
    let t = GOOD.replace("low = 0.1", "low = 0.0");
    assert_bad(Some(&t), &["workload.sizes.low"]);
}

#[test]
fn empty_sweep_exits_2() {
    let t = GOOD.replace("load = [0.6, 0.9]", "load = []");
    assert_bad(Some(&t), &["sweep.load", "non-empty"]);
}

#[test]
fn unknown_policy_and_bad_probabilities_exit_2() {
    let t = GOOD.replace("name = \"bf-j\"", "name = \"best\"");
    assert_bad(Some(&t), &["key `name` of [[policy]] #3", "bf-js"]);
    let t = GOOD.replace(
        "sizes = { dist = \"uniform\", low = 0.1, high = 0.7 }",
        "sizes = { dist = \"discrete\", values = [0.2, 0.5], probs = [0.5, 0.6] }",
    );
    assert_bad(Some(&t), &["workload.sizes.probs", "adding up to 1"]);
    let t = GOOD.replace("load = 0.6\nexpect", "load = 0.65\nexpect");
    assert_bad(Some(&t), &["key `load` of [[claim]] #1", "sweep.load"]);
    // Bernoulli arrivals reach the sweep (at most 0.9 jobs per slot) but not the loads a limit
    // search probes (up to 1.5 · ρ*): refused before anything runs, not when a probe gets there
    let t = GOOD
        .replace("process = \"poisson\"", "process = \"bernoulli\"")
        .replace("mean = 10.0", "mean = 6.666666")
        .replace("load = [0.6, 0.9]", "load = [0.3, 0.6]")
        .replace("load = 0.9\n", "load = 0.6\n")
        .replace(
            "load = 0.6\nexpect = \"stable\"",
            "load = 0.6\nexpect = \"stable\"\n[[claim]]\nkind = \"threshold\"\npolicy = \"bf-js\"\nat_least = 0.5",
        );
    assert_bad(
        Some(&t),
        &[
            "key `workload.arrivals`",
            "Bernoulli arrivals, with searches up to",
        ],
    );
    // a claim names the key it wrote, whatever the sweep varies
    let t = GOOD.replace("load = 0.6\nexpect", "fraction = 0.6\nexpect");
    assert_bad(
        Some(&t),
        &[
            "key `fraction` of [[claim]] #1",
            "`load`, the quantity the sweep varies",
        ],
    );
    // λ = 0.9 · 4 / (0.4 · 2) = 4.5 jobs per slot: impossible for Bernoulli arrivals
    let t = GOOD
        .replace("process = \"poisson\"", "process = \"bernoulli\"")
        .replace("mean = 10.0", "mean = 2.0");
    assert_bad(Some(&t), &["sweep.load", "≤ 1"]);
}

#[test]
fn bad_policy_parameters_exit_2() {
    let with = |policy: &str| GOOD.replace("[[policy]]\nname = \"bf-j\"", policy);
    assert_bad(
        Some(&with("[[policy]]\nname = \"vqs\"")),
        &["key `J` of [[policy]] #3", "partition depth"],
    );
    assert_bad(
        Some(&with("[[policy]]\nname = \"vqs\"\nJ = 0")),
        &["key `J` of [[policy]] #3", "[1, 30]"],
    );
    assert_bad(
        Some(&with("[[policy]]\nname = \"vqs-bf\"\nJ = 4\nstall = 1.5")),
        &["key `stall` of [[policy]] #3", "(0, 1]"],
    );
    assert_bad(
        Some(&with(
            "[[policy]]\nname = \"vqs\"\nJ = 4\npartition = \"binary\"",
        )),
        &["key `partition` of [[policy]] #3", "dyadic"],
    );
    assert_bad(
        Some(&with("[[policy]]\nname = \"vqs\"\ncuts = [0.5, 1.2]")),
        &["key `cuts` of [[policy]] #3", "(0, 1)"],
    );
    assert_bad(
        Some(&with("[[policy]]\nname = \"bf-j\"\nJ = 4")),
        &[
            "key `J` of [[policy]] #3",
            "only vqs and vqs-bf",
            "takes no keys besides",
        ],
    );
    // a misspelt key: the closest one the policy takes, and every key it takes
    assert_bad(
        Some(&with("[[policy]]\nname = \"vqs-bf\"\nj = 4")),
        &[
            "key `j` of [[policy]] #3",
            "did you mean `J`?",
            "takes J, partition, cuts, stall",
        ],
    );
    assert_bad(
        Some(&with("[[policy]]\nname = \"max-weight\"")),
        &["key `name` of [[policy]] #3", "finitely many job sizes"],
    );
    assert_bad(
        Some(&with("[[policy]]\nname = \"bf-js\"")),
        &["key `label` of [[policy]] #3", "different"],
    );
}

#[test]
fn a_policy_twice_with_labels_runs() {
    let t = GOOD.replace(
        "[[policy]]\nname = \"bf-j\"",
        "[[policy]]\nname = \"vqs\"\nJ = 2\nlabel = \"vqs-j2\"\n[[policy]]\nname = \"vqs\"\nJ = 5\nlabel = \"vqs-j5\"\n[[policy]]\nname = \"vqs\"\nJ = 3\npartition = \"dyadic\"\nlabel = \"vqs-dyadic\"",
    );
    let dir = tmp("labels");
    let exp = write_exp(&dir, &t);
    let out = dir.join("out");
    let o = packlab(&[exp.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    for l in ["vqs-j2,", "vqs-j5,", "vqs-dyadic,"] {
        assert!(summary.contains(l), "{l} missing");
    }
    let mix = std::fs::read_to_string(out.join("config_mix.csv")).unwrap();
    assert!(mix.lines().count() > 1);
    let vq = std::fs::read_to_string(out.join("vq_timeseries.csv")).unwrap();
    assert!(vq.starts_with("policy,load,replication,slot,class,queue\n"));
}

#[test]
fn bad_region_maps_exit_2() {
    let two = GOOD.replace(
        "{ dist = \"uniform\", low = 0.1, high = 0.7 }",
        "{ dist = \"discrete\", values = [0.3, 0.6], probs = [0.5, 0.5] }",
    );
    let map = two.replace("[sweep]", "[region_map]\nrays = 0\n[sweep]");
    assert_bad(Some(&map), &["region_map.rays", "[2, 256]"]);
    let map = two.replace("[sweep]", "[region_map]\nangles = [45.0, 120.0]\n[sweep]");
    assert_bad(
        Some(&map),
        &["element #2 of key `region_map.angles`", "positive quadrant"],
    );
    let map = two.replace("[sweep]", "[region_map]\nangles = [45.0, 45.0]\n[sweep]");
    assert_bad(
        Some(&map),
        &["element #2 of key `region_map.angles`", "distinct"],
    );
    // more than two free types
    let map = GOOD
        .replace("[sweep]", "[region_map]\nrays = 8\n[sweep]")
        .replace(
            "{ dist = \"uniform\", low = 0.1, high = 0.7 }",
            "{ dist = \"discrete\", values = [0.3, 0.6, 0.2], probs = [0.4, 0.4, 0.2] }",
        );
    assert_bad(Some(&map), &["workload.sizes", "more than two free types"]);
}

/// `--help` lists every built-in policy of the registry with the keys it takes, and exits 0.
#[test]
fn help_lists_every_policy_with_its_keys() {
    let o = packlab(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout);
    for e in packlab::policy::POLICIES {
        let line = if e.keys.is_empty() {
            format!("  {}: ", e.name)
        } else {
            format!("  {} [{}]: ", e.name, e.keys.join(", "))
        };
        assert!(help.contains(&line), "--help lacks {line:?}:\n{help}");
    }
}
