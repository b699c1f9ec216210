//! Runs that survive: the journal resumes after SIGKILL with byte-identical outputs, SIGINT
//! exits 130 and says how to resume, a journal of another experiment is refused, a quick run
//! and the full one keep their own journals, a folder in
//! use is refused, stale outputs go and foreign files stay, an unusable --out is reported before
//! any work, and shards merge into the outputs of one machine.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{self, bin, packlab, write};

fn tmp(name: &str) -> PathBuf {
    util::tmp("journal", name)
}

/// 48 runs of a few tens of milliseconds each.
const SWEEP: &str = r#"
name = "journal-test"
seed = 3
[cluster]
servers = 5
[workload]
sizes = { dist = "uniform", low = 0.2, high = 0.6 }
service = { dist = "geometric", mean = 20.0 }
[run]
slots = 300_000
replications = 8
[sweep]
load = [0.5, 0.6, 0.7]
[[policy]]
name = "bf-js"
[[policy]]
name = "fifo-ff"
[[plot]]
kind = "mean-queue-vs-load"
[[claim]]
policy = "bf-js"
load = 0.5
expect = "stable"
"#;

/// Every output file of `dir` (not packlab's own folder), sorted, with its bytes.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Starts a run and waits until its journal holds at least one unit.
fn start_and_wait(exp: &Path, out: &Path) -> Child {
    let child = bin()
        .args([exp.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let journal = out.join(".packlab").join("journal");
    let start = Instant::now();
    // the header alone is under 1 kB; a unit adds several
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) < 4_000 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no unit finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

#[test]
fn a_killed_sweep_resumes_to_the_same_bytes() {
    let d = tmp("kill9");
    let exp = write(&d, "exp.toml", SWEEP);
    let whole = d.join("whole");
    assert!(
        packlab(&[exp.to_str().unwrap(), "--out", whole.to_str().unwrap()])
            .status
            .success()
    );
    let cut = d.join("cut");
    let mut child = start_and_wait(&exp, &cut);
    signal(&child, "-KILL");
    child.wait().unwrap();
    let again = packlab(&[exp.to_str().unwrap(), "--out", cut.to_str().unwrap()]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(outputs(&whole), outputs(&cut));
    // once complete, running again only reassembles: the same bytes again
    assert!(
        packlab(&[exp.to_str().unwrap(), "--out", cut.to_str().unwrap()])
            .status
            .success()
    );
    assert_eq!(outputs(&whole), outputs(&cut));
}

#[test]
fn sigint_keeps_the_finished_units_and_exits_130() {
    let d = tmp("sigint");
    let exp = write(&d, "exp.toml", SWEEP);
    let out = d.join("out");
    let child = start_and_wait(&exp, &out);
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("interrupted by signal 2"), "{err}");
    assert!(
        err.contains("units kept") && err.contains("run the same command again"),
        "{err}"
    );
    assert!(
        err.contains("--out"),
        "the command to resume is printed: {err}"
    );
    // the last progress line counts only the units that finished, as the journal does
    let kept = err
        .split(" of 48 units kept")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .unwrap();
    assert!(
        err.contains(&format!("journal-test: {kept}/48 units in")),
        "{err}"
    );
}

/// One limit search of about 20 runs (a few seconds), beside the sweep's runs.
const SEARCH: &str = r#"
name = "search-journal-test"
seed = 5
[cluster]
servers = 4
[workload]
sizes = { dist = "uniform", low = 0.2, high = 0.6 }
service = { dist = "geometric", mean = 20.0 }
[run]
slots = 1_000_000
warmup = 100_000
max_slots = 8_000_000
replications = 3
[sweep]
load = [0.5]
[[policy]]
name = "bf-js"
[[claim]]
kind = "threshold"
policy = "bf-js"
at_least = 0.5
resolution = 0.005
"#;

/// The number just before `words` in `text`.
fn count_before(text: &str, words: &str) -> usize {
    text.split(words)
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count before \"{words}\": {text}"))
}

/// The size of `path` (0 if it is not there).
fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

#[test]
fn a_limit_search_stopped_inside_resumes_with_its_finished_runs_to_the_same_bytes() {
    let d = tmp("search");
    let exp = write(&d, "exp.toml", SEARCH);
    let whole = d.join("whole");
    let o = packlab(&[exp.to_str().unwrap(), "--out", whole.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cut = d.join("cut");
    let journal = cut.join(".packlab").join("journal");
    // stopped three times inside the search, by SIGINT, SIGKILL and SIGINT, each time once a
    // few more of its runs are journaled (a run's record is about 30 bytes); the runs the
    // journal holds after each stop, as the next start says, are exactly the count a SIGINT
    // reported, and after a SIGKILL more than before it
    let mut kept = 0usize;
    let mut exact = true;
    for (k, sig) in ["-INT", "-KILL", "-INT"].into_iter().enumerate() {
        let from = size(&journal);
        // one thread: the search runs first (the longest unit), alone, so what the journal
        // gains is its runs
        let child = bin()
            .args([
                exp.to_str().unwrap(),
                "--out",
                cut.to_str().unwrap(),
                "--threads",
                "1",
            ])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let mut base = from;
        loop {
            let now = size(&journal);
            if base == 0 {
                // the new journal's header
                base = now;
            } else if now >= base + 120 {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "no run finished"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        signal(&child, sig);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success(),
            "stop {k}: the search ended first: {err}"
        );
        if k > 0 {
            let resumed = count_before(&err, " finished runs of 1 unfinished unit");
            assert!(
                if exact {
                    resumed == kept
                } else {
                    resumed > kept
                },
                "{err}"
            );
            kept = resumed;
        }
        if sig == "-INT" {
            let now = count_before(&err, " finished runs of units still in progress");
            assert!(now > kept, "{err}");
            kept = now;
        }
        exact = sig == "-INT";
    }
    let again = packlab(&[exp.to_str().unwrap(), "--out", cut.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert_eq!(
        count_before(&err, " finished runs of 1 unfinished unit"),
        kept,
        "{err}"
    );
    assert_eq!(outputs(&whole), outputs(&cut));
    // every run is journaled once: the journal of the stopped and resumed search is as long
    // as the uninterrupted one's
    assert_eq!(
        size(&journal),
        size(&whole.join(".packlab").join("journal"))
    );
}

#[test]
fn progress_moves_inside_a_long_unit() {
    let d = tmp("inside");
    // one unit of a few seconds (a debug build)
    let one = "name = \"journal-test\"\n[cluster]\nservers = 5\n[workload]\n\
               sizes = { dist = \"uniform\", low = 0.2, high = 0.6 }\n\
               service = { dist = \"geometric\", mean = 20.0 }\n\
               [run]\nslots = 20_000_000\n[sweep]\nload = [0.7]\n[[policy]]\nname = \"bf-js\"\n";
    let exp = write(&d, "exp.toml", one);
    let o = bin()
        .args([
            exp.to_str().unwrap(),
            "--out",
            d.join("out").to_str().unwrap(),
        ])
        .env("PACKLAB_PROGRESS_SECONDS", "0.2")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // lines while the only unit runs, its share of the work growing
    let shares: Vec<f64> = err
        .lines()
        .filter(|l| l.contains("0/1 units, "))
        .map(|l| {
            let s = l.split("0/1 units, ").nth(1).unwrap();
            s.split(" %").next().unwrap().parse().unwrap()
        })
        .collect();
    assert!(shares.len() >= 2, "{err}");
    assert!(shares.windows(2).all(|w| w[0] <= w[1]), "{err}");
    assert!(shares[0] > 0.0 && *shares.last().unwrap() < 100.0, "{err}");
    assert!(err.contains("journal-test: 1/1 units in"), "{err}");
}

#[test]
fn a_journal_of_another_experiment_is_refused_until_fresh() {
    let d = tmp("mismatch");
    let a = write(&d, "a.toml", SWEEP);
    let b = write(
        &d,
        "b.toml",
        SWEEP.replace("name = \"journal-test\"", "name = \"another\""),
    );
    let out = d.join("out");
    assert!(
        packlab(&[a.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .status
            .success()
    );
    let o = packlab(&[b.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("another experiment")
            && err.contains("belongs to experiment \"journal-test\"")
            && err.contains("--fresh"),
        "{err}"
    );
    let o = packlab(&[
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--fresh",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn an_edit_keeps_the_units_it_does_not_change() {
    let d = tmp("edit");
    let base = format!("{SWEEP}[[policy]]\nname = \"vqs\"\nJ = 4\n");
    let a = write(&d, "exp.toml", &base);
    let out = d.join("out");
    let run = |out: &Path| packlab(&[a.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(run(&out).status.success());
    // one policy's key and a claim edited: the other policies' 48 runs are kept
    let edited = base
        .replace("J = 4", "J = 3")
        .replace("load = 0.5\nexpect", "load = 0.6\nexpect");
    write(&d, "exp.toml", &edited);
    let o = run(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("changed in: claim, policy")
            && err.contains("48 finished units of the journal")
            && err.contains("unchanged and kept"),
        "{err}"
    );
    // the same bytes as a fresh run of the edited file
    let fresh = d.join("fresh");
    assert!(run(&fresh).status.success());
    assert_eq!(outputs(&out), outputs(&fresh));
    // fewer replications: every run moves in the plan, and the runs that are still asked for
    // (replications 1 and 2 of each point and policy, 18) are kept where they now stand
    let fewer = edited.replace("replications = 8", "replications = 2");
    write(&d, "exp.toml", &fewer);
    let o = run(&out);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("18 finished units"), "{err}");
    let fresh = d.join("fresh-fewer");
    assert!(run(&fresh).status.success());
    assert_eq!(outputs(&out), outputs(&fresh));
    std::fs::remove_dir_all(&d).unwrap();
}

/// A sweep point added in front, with a limit search in the file: every run of the old points
/// and the search are kept (they compute what they computed), only the new point's runs are
/// made, and the outputs are a fresh run's.
#[test]
fn a_sweep_point_added_keeps_every_old_point_and_the_limit_search() {
    let d = tmp("sweep-point");
    let base = format!(
        "{SWEEP}[[claim]]\nkind = \"threshold\"\npolicy = \"bf-js\"\nat_least = 0.5\n\
         resolution = 0.1\n"
    )
    .replace(
        "slots = 300_000\nreplications = 8",
        "slots = 100_000\nreplications = 3",
    );
    let a = write(&d, "exp.toml", &base);
    let out = d.join("out");
    let run = |out: &Path| packlab(&[a.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let o = run(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // 3 points × 2 policies × 3 replications and the search: 19 units; a point in front
    write(
        &d,
        "exp.toml",
        base.replace("load = [0.5, 0.6, 0.7]", "load = [0.4, 0.5, 0.6, 0.7]"),
    );
    let o = run(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("changed in: sweep") && err.contains("19 finished units of the journal"),
        "{err}"
    );
    let fresh = d.join("fresh");
    assert!(run(&fresh).status.success());
    assert_eq!(outputs(&out), outputs(&fresh));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_quick_run_and_the_full_run_keep_their_own_journals_and_only_quick_figures_are_stamped() {
    let d = tmp("quick-full");
    let a = write(&d, "a.toml", SWEEP);
    let out = d.join("out");
    let run = |extra: &[&str]| {
        let mut args = vec![a.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = packlab(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    run(&["--quick"]);
    // a smoke test's figure says so on its face; the full run's does not
    let figure = || std::fs::read_to_string(out.join("mean-queue-vs-load.svg")).unwrap();
    assert!(figure().contains("SMOKE TEST (--quick)"));
    let full = run(&[]);
    assert!(!full.contains("resumed"), "{full}");
    assert!(!figure().contains("SMOKE TEST"));
    let summary = std::fs::read(out.join("summary.csv")).unwrap();
    // each run resumes its own journal, and the full run's outputs come back the same
    let quick = run(&["--quick"]);
    assert!(quick.contains("resumed"), "{quick}");
    let again = run(&[]);
    assert!(again.contains("48 of 48 units resumed"), "{again}");
    assert_eq!(std::fs::read(out.join("summary.csv")).unwrap(), summary);
}

#[test]
fn a_folder_in_use_is_refused_naming_its_holder() {
    let d = tmp("lock");
    let exp = write(&d, "exp.toml", SWEEP);
    let out = d.join("out");
    // another process's run: its lock taken, its holder written as packlab writes it
    let internal = out.join(".packlab");
    std::fs::create_dir_all(&internal).unwrap();
    let mut held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(internal.join("lock"))
        .unwrap();
    held.try_lock().unwrap();
    held.set_len(0).unwrap();
    writeln!(held, "pid {} on this-host", std::process::id()).unwrap();
    let o = packlab(&[exp.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("in use") && err.contains(&format!("pid {}", std::process::id())),
        "{err}"
    );
    drop(held);
    assert!(
        packlab(&[exp.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .status
            .success()
    );
}

#[test]
fn stale_outputs_go_and_foreign_files_stay() {
    let d = tmp("stale");
    let with_vq = SWEEP
        .replace("name = \"bf-js\"", "name = \"vqs\"\nJ = 3")
        .replace("policy = \"bf-js\"", "policy = \"vqs\"");
    let a = write(&d, "a.toml", &with_vq);
    let b = write(&d, "b.toml", SWEEP);
    let out = d.join("out");
    assert!(
        packlab(&[a.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .status
            .success()
    );
    assert!(out.join("vq_timeseries.csv").exists() && out.join("config_mix.csv").exists());
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let o = packlab(&[
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--fresh",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !out.join("vq_timeseries.csv").exists(),
        "a stale output stayed"
    );
    assert!(
        !out.join("config_mix.csv").exists(),
        "a stale output stayed"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(out.join("runs.csv").exists());
}

#[test]
fn an_unusable_out_is_reported_before_any_work() {
    let d = tmp("unwritable");
    // a day of simulation if it ever started
    let exp = write(
        &d,
        "exp.toml",
        SWEEP.replace("slots = 300_000", "slots = 2_000_000_000"),
    );
    let file = write(&d, "a-file", "not a folder");
    for out in ["/proc/packlab-cannot", file.to_str().unwrap()] {
        let start = Instant::now();
        let o = packlab(&[exp.to_str().unwrap(), "--out", out]);
        assert_eq!(o.status.code(), Some(2), "{out}");
        assert!(start.elapsed() < Duration::from_secs(10));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("output folder") && err.contains(out), "{err}");
    }
}

/// A folder's output files: name and bytes.
type Outputs = Vec<(String, Vec<u8>)>;

/// Runs `exp` on one machine and as `n` shards merged; returns both folders' outputs.
fn sharded(name: &str, exp: &str, n: u32) -> (Outputs, Outputs) {
    let d = tmp(name);
    let one = d.join("one");
    let o = packlab(&[exp, "--quick", "--out", one.to_str().unwrap()]);
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let many = d.join("many");
    // in reverse order: nothing depends on which shard runs first
    for i in (1..=n).rev() {
        let s = format!("{i}/{n}");
        let o = packlab(&[
            exp,
            "--quick",
            "--out",
            many.to_str().unwrap(),
            "--shard",
            &s,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(outputs(&many).is_empty(), "a shard writes only its journal");
    }
    let o = packlab(&["merge", many.to_str().unwrap()]);
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (outputs(&one), outputs(&many))
}

#[test]
fn one_shard_equals_no_sharding() {
    let (a, b) = sharded("shard1", "experiments/fig3a_vqs_unstable.toml", 1);
    assert_eq!(a, b);
}

#[test]
fn shards_merge_to_one_machines_bytes_for_every_kind() {
    for (name, exp, n) in [
        ("q", "experiments/fig4b_uniform_large.toml", 3),
        ("r", "experiments/region_kred_ratio.toml", 4),
        ("p", "experiments/packing_google2011.toml", 3),
        ("m", "experiments/region_map_fig3b.toml", 3),
    ] {
        let (a, b) = sharded(name, exp, n);
        assert!(!a.is_empty());
        assert_eq!(a, b, "{exp}");
    }
}

#[test]
fn merging_refuses_missing_and_foreign_shards() {
    let d = tmp("merge-refuse");
    let out = d.join("out");
    let exp = "experiments/fig3a_vqs_unstable.toml";
    for s in ["1/3", "3/3"] {
        let o = packlab(&[exp, "--quick", "--out", out.to_str().unwrap(), "--shard", s]);
        assert!(o.status.success());
    }
    let o = packlab(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("shard 2/3 has no journal"), "{err}");
    let other = "experiments/fig3b_bfjs_unstable.toml";
    let o = packlab(&[
        other,
        "--quick",
        "--out",
        out.to_str().unwrap(),
        "--shard",
        "2/3",
    ]);
    assert!(o.status.success());
    let o = packlab(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("shard 2/3 does not belong"), "{err}");
}

#[test]
fn probes_are_lines_of_their_own_only_with_verbose() {
    let d = tmp("verbose");
    let exp = write(&d, "exp.toml", SEARCH);
    let run = |extra: &[&str]| {
        let out = d.join(format!("out{}", extra.len()));
        let o = bin()
            .args([
                exp.to_str().unwrap(),
                "--quick",
                "--out",
                out.to_str().unwrap(),
            ])
            .args(extra)
            // off a terminal, no periodic line during this short run
            .env("PACKLAB_PROGRESS_SECONDS", "600")
            .output()
            .unwrap();
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let plain = run(&[]);
    assert!(!plain.contains("probe 1 at load"), "{plain}");
    // a start line, an end line and the summary: no flood
    assert!(plain.lines().count() <= 8, "{plain}");
    let verbose = run(&["--verbose"]);
    assert!(
        verbose.contains("limit of bf-js: probe 1 at load "),
        "{verbose}"
    );
    // the load beside the fraction of ρ* that the claim and thresholds.csv speak in: here
    // ρ* of a continuous law is a bracket (within 4 % below 1), so the fraction is a range
    let probe = verbose
        .lines()
        .find(|l| l.contains("probe 1 at load"))
        .unwrap();
    let (load, of) = probe
        .split(" at load ")
        .nth(1)
        .and_then(|s| s.split_once(" ("))
        .unwrap();
    let load: f64 = load.parse().unwrap();
    let (range, rest) = of.split_once(" of ρ*)").expect("a fraction of ρ*");
    let ends: Vec<f64> = range.split('–').map(|x| x.parse().unwrap()).collect();
    assert!(
        ends[0] >= load - 1e-3 && ends[ends.len() - 1] <= load / 0.96,
        "{probe}"
    );
    assert!(rest.contains("stable/unstable"), "{probe}");
}

/// Shards run by a program with a policy of its own, merged by one without it: the refusal
/// names the program that ran them (recorded in the folder) and the folder's experiment file.
#[test]
fn a_merge_without_the_shards_policy_names_the_program_that_ran_them() {
    use packlab::experiment::{ExperimentFile, Options};
    use packlab::policy::registry::Registry;
    use packlab::policy::{FifoFirstFit, ParamError, PolicyEntry, PolicyParams, PolicySpec};
    use packlab::workload::SizeLaw;

    fn parse(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
        Ok(PolicySpec::new("", FifoFirstFit::new))
    }
    packlab::progress::set_quiet(true);
    let own = Registry::builtin()
        .with(PolicyEntry::new("my-fifo", "a policy of one's own", parse))
        .unwrap();
    let dir = tmp("merge-program");
    let file = write(
        &dir,
        "mine.toml",
        SWEEP
            .replace("name = \"fifo-ff\"", "name = \"my-fifo\"")
            .replace("replications = 8", "replications = 2")
            .replace("slots = 300_000", "slots = 20_000"),
    );
    let out = dir.join("out");
    for i in 1..=2 {
        let opts = Options {
            quick: false,
            threads: Some(1),
            fresh: false,
            shard: Some((i, 2)),
            max_memory: None,
        };
        ExperimentFile::load_with(&file, &own)
            .unwrap()
            .run(opts, &out)
            .unwrap();
    }
    let e = packlab::experiment::merge(&out).unwrap_err().to_string();
    let me = std::env::current_exe().unwrap();
    assert!(
        e.contains(&format!("the shards were run by {}", me.display())),
        "{e}"
    );
    assert!(e.contains(&file.display().to_string()), "{e}");
    assert!(e.contains("got \"my-fifo\""), "{e}");
    // the program that ran them merges them
    packlab::experiment::merge_with(&out, &own).unwrap();
}
