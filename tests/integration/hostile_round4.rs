//! Hostile input, fourth round: what a finished run keeps is priced before a plan is admitted,
//! a resume and a merge are admitted like a run and read their journals a record at a time,
//! and the smaller failures of the round (a memory limit below packlab's own, Slurm options set
//! through the submitter's environment, impossible wait claims, the documented limit of
//! replications, journals cut short, forged or repeated). Each is refused with exit 2 naming the
//! key and the way out, or runs to the end, within a bounded address space and time.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::hostile::bounded;
use crate::util::{self, write};

fn tmp(name: &str) -> PathBuf {
    util::tmp("hostile4", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Sixteen equally likely sizes, as a discrete law's two arrays.
fn sixteen() -> String {
    let values: Vec<String> = (1..=16).map(|k| format!("{}", k as f64 * 0.05)).collect();
    format!(
        "sizes = {{ dist = \"discrete\", values = [{}], probs = [{}] }}",
        values.join(", "),
        vec!["0.0625"; 16].join(", ")
    )
}

/// Short runs of jobs with sixteen sizes whose service is near the longest a run draws: each
/// finished run keeps a response time histogram reaching 10⁹ slots.
fn long_services(replications: u64) -> String {
    format!(
        "name = \"h4\"\nseed = 1\n[cluster]\nservers = 10\n[workload]\n{}\n\
         service = {{ dist = \"geometric\", mean = 1e9 }}\n[run]\nslots = 100\n\
         replications = {replications}\nsamples = 1\n[sweep]\narrival_rate = [1.0]\n\
         [[policy]]\nname = \"bf-js\"\n",
        sixteen()
    )
}

/// A small queueing file of two points, two policies and two replications.
fn small() -> String {
    "name = \"h4s\"\nseed = 3\n[cluster]\nservers = 4\n[workload]\n\
     sizes = { dist = \"uniform\", low = 0.1, high = 0.6 }\n\
     service = { dist = \"geometric\", mean = 10.0 }\n[run]\nslots = 20_000\n\
     replications = 2\n[sweep]\nload = [0.5, 0.7]\n[[policy]]\nname = \"bf-js\"\n\
     [[policy]]\nname = \"fifo-ff\"\n"
        .to_string()
}

/// `text` run with `extra` flags into a fresh folder: its exit status and standard error.
fn run(name: &str, text: &str, extra: &[&str]) -> (PathBuf, crate::hostile::Outcome) {
    let d = tmp(name);
    let exp = write(&d, "exp.toml", text);
    let out = d.join("out");
    let mut args = vec![s(&exp), "--out", s(&out), "--quiet"];
    args.extend_from_slice(extra);
    let o = bounded(&args);
    assert!(!o.stderr.contains("panicked"), "{name}: {}", o.stderr);
    (d, o)
}

/// Every output file of a folder (not packlab's own), with its bytes.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn what_a_finished_run_keeps_of_its_delays_is_priced_before_it_is_admitted() {
    // 4,000 such runs are priced with their delay records and refused under a small limit,
    // naming what holds it and the way out
    let (d, o) = run("delays", &long_services(4_000), &["--max-memory", "0.125"]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    for w in [
        "run.replications",
        "waiting and response times (16 size classes",
        "--max-memory",
    ] {
        assert!(o.stderr.contains(w), "`{w}` not in {}", o.stderr);
    }
    assert!(!d.join("out/.packlab/journal").exists());
    std::fs::remove_dir_all(&d).unwrap();
    // a few hundred of them, admitted, run to the end within the bounded address space
    let (d, o) = run("delays-fit", &long_services(300), &[]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_memory_limit_below_packlabs_own_is_refused_naming_the_floor() {
    for tiny in ["1e-30", "1e-9", "0.1"] {
        let (d, o) = run("floor", &small(), &["--max-memory", tiny]);
        assert_eq!(o.code, Some(2), "{tiny}: {}", o.stderr);
        assert!(
            o.stderr.contains("[0.125, 65536]") && o.stderr.contains("packlab itself"),
            "{tiny}: {}",
            o.stderr
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
    // the floor itself is a limit, and a plan over it is refused naming the plan's key, not a
    // key for packlab's own margin
    let (d, o) = run(
        "floor-plan",
        &small().replace("replications = 2", "replications = 40_000\nsamples = 1000"),
        &["--max-memory", "0.125"],
    );
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("key `run.samples`"), "{}", o.stderr);
    assert!(o.stderr.contains("for packlab itself"), "{}", o.stderr);
    std::fs::remove_dir_all(&d).unwrap();
    // and so does Slurm, before it writes a script whose every task would be refused
    let d = tmp("floor-slurm");
    let exp = write(&d, "exp.toml", small());
    let o = util::packlab(&[
        "slurm",
        s(&exp),
        "--shards",
        "2",
        "--out",
        s(&d.join("out")),
        "--max-memory",
        "1e-30",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!d.join("out/slurm").exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn impossible_claims_and_the_documented_limit_are_named_before_any_work() {
    let wait = format!(
        "{}[[claim]]\nkind = \"wait\"\npolicy = \"bf-js\"\nload = 0.5\nat_least = 50\n\
         at_most = 10\n",
        small()
    );
    let (d, o) = run("wait-claim", &wait, &[]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("`at_least` of [[claim]] #1")
            && o.stderr.contains("at most `at_most` (10"),
        "{}",
        o.stderr
    );
    assert!(!d.join("out/.packlab/journal").exists());
    std::fs::remove_dir_all(&d).unwrap();
    // exactly the documented most replications: counted as the million runs they are, and
    // refused for the memory they would hold, naming the key
    let million = small()
        .replace("replications = 2", "replications = 1_000_000\nsamples = 1")
        .replace("load = [0.5, 0.7]", "load = [0.5]")
        .replace("[[policy]]\nname = \"fifo-ff\"\n", "");
    let (d, o) = run("million", &million, &[]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        !o.stderr.contains("units of work") && o.stderr.contains("key `run.replications`"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("1000000 finished runs"), "{}", o.stderr);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_journal_that_is_no_journal_is_refused_naming_fresh_without_reading_it_whole() {
    let d = tmp("zeros");
    let exp = write(&d, "exp.toml", small());
    let out = d.join("out");
    std::fs::create_dir_all(out.join(".packlab")).unwrap();
    // a 3 GiB journal of zeros (sparse: nothing on disk), under the tests' 1.5 GB address space
    let f = std::fs::File::create(out.join(".packlab/journal")).unwrap();
    f.set_len(3 << 30).unwrap();
    drop(f);
    let o = bounded(&[s(&exp), "--out", s(&out), "--quiet"]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("not a packlab journal") && o.stderr.contains("--fresh"),
        "{}",
        o.stderr
    );
    // cut inside its header
    let mut cut = vec![40u8, 0, 0, 0, 1, 2, 3, 4];
    cut.extend_from_slice(&[7u8; 12]);
    std::fs::write(out.join(".packlab/journal"), cut).unwrap();
    let o = bounded(&[s(&exp), "--out", s(&out), "--quiet"]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("cut short") && o.stderr.contains("--fresh"),
        "{}",
        o.stderr
    );
    // and --fresh starts over
    let o = bounded(&[s(&exp), "--out", s(&out), "--quiet", "--fresh"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_resume_counts_only_what_it_keeps_and_gives_the_same_bytes() {
    let d = tmp("repeated");
    let exp = write(&d, "exp.toml", small());
    let whole = d.join("whole");
    let o = util::packlab(&[s(&exp), "--out", s(&whole), "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    // the journal's records after its header, written twice more: every unit recorded three
    // times (a journal copied onto itself, or forged)
    let journal = std::fs::read(whole.join(".packlab/journal")).unwrap();
    let header = 8 + u32::from_le_bytes(journal[..4].try_into().unwrap()) as usize;
    let mut tripled = journal.clone();
    tripled.extend_from_slice(&journal[header..]);
    tripled.extend_from_slice(&journal[header..]);
    let again = d.join("again");
    std::fs::create_dir_all(again.join(".packlab")).unwrap();
    std::fs::write(again.join(".packlab/journal"), &tripled).unwrap();
    let o = util::bin()
        .args([s(&exp), "--out", s(&again)])
        .env("PACKLAB_PROGRESS_SECONDS", "100000")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let e = String::from_utf8_lossy(&o.stderr);
    // 8 units, each kept once; the 16 repeats named as ignored
    assert!(e.contains("8 of 8 units resumed"), "{e}");
    assert!(e.contains("16 records of it repeated another"), "{e}");
    assert_eq!(outputs(&whole), outputs(&again));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_merge_is_admitted_like_a_run_and_names_a_damaged_shard() {
    // two real shards of a small file, one of them damaged in its header
    let d = tmp("merge-damaged");
    let exp = write(&d, "exp.toml", small());
    let out = d.join("out");
    for shard in ["1/2", "2/2"] {
        let o = util::packlab(&[s(&exp), "--out", s(&out), "--quiet", "--shard", shard]);
        assert_eq!(o.status.code(), Some(0));
    }
    // the merge of the two under a limit the plan needs more than is refused before reading
    let heavy = small().replace("replications = 2", "replications = 20_000\nsamples = 1000");
    std::fs::write(&exp, &heavy).unwrap();
    let o = bounded(&["merge", s(&out), "--max-memory", "0.125"]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("estimated peak"), "{}", o.stderr);
    std::fs::write(&exp, small()).unwrap();
    let j2 = out.join(".packlab/journal-2-of-2");
    let bytes = std::fs::read(&j2).unwrap();
    std::fs::write(&j2, &bytes[..10]).unwrap();
    let o = bounded(&["merge", s(&out)]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("shard 2/2") && o.stderr.contains("--shard 2/2 --fresh"),
        "{}",
        o.stderr
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn slurm_options_of_packlabs_own_set_through_the_environment_are_not_let_through() {
    use std::os::unix::fs::PermissionsExt as _;
    let d = tmp("sbatch-env");
    let bin = d.join("bin");
    std::fs::create_dir(&bin).unwrap();
    // a fake sbatch that records its arguments and the variables it was given
    let log = d.join("log");
    let sbatch = write(
        &bin,
        "sbatch",
        format!(
            "#!/bin/sh\necho \"args: $* env: [$SBATCH_ARRAY_INX][$SBATCH_JOB_NAME]\" >> '{}'\necho 77\n",
            log.display()
        ),
    );
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let exp = write(&d, "exp.toml", small());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let o = util::bin()
        .args([
            "slurm",
            s(&exp),
            "--shards",
            "2",
            "--out",
            s(&d.join("out")),
            "--submit",
        ])
        .env("PATH", &path)
        .env("SBATCH_ARRAY_INX", "0-99")
        .env("SBATCH_JOB_NAME", "hijacked")
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let log = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    // the shards: packlab's array and name on the command line, the variables removed
    assert!(lines[0].contains("--array=0-1"), "{log}");
    assert!(lines[0].contains("--job-name=packlab-h4s"), "{log}");
    assert!(lines[0].ends_with("env: [][]"), "{log}");
    // the merge: no array at all
    assert!(!lines[1].contains("--array"), "{log}");
    assert!(lines[1].contains("--dependency=afterok:77"), "{log}");
    assert!(lines[1].ends_with("env: [][]"), "{log}");
    // writing the scripts for submission by hand says the shell would override them
    let o = util::bin()
        .args([
            "slurm",
            s(&exp),
            "--shards",
            "2",
            "--out",
            s(&d.join("out2")),
        ])
        .env("SBATCH_ARRAY_INX", "0-99")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("SBATCH_ARRAY_INX (--array)"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}
