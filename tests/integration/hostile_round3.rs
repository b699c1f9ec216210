//! Hostile input, third round: small files that would take the machine's memory or run for
//! minutes in validation, closed streams, outputs that cannot all be written, Slurm options
//! that would re-set packlab's own, and words that named the wrong value. Each is refused with
//! exit 2 naming the key, or runs to the end, within a bounded address space and time.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::hostile::bounded;
use crate::util::{self, write};

fn tmp(name: &str) -> PathBuf {
    util::tmp("hostile3", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A queueing file on `servers` servers with `run` as its `[run]` table's body.
fn queue(servers: u32, run: &str, load: f64) -> String {
    format!(
        "name = \"h3\"\nseed = 1\n[cluster]\nservers = {servers}\n[workload]\n\
         sizes = {{ dist = \"uniform\", low = 0.1, high = 0.9 }}\n\
         service = {{ dist = \"geometric\", mean = 10.0 }}\n[run]\n{run}\n\
         [sweep]\nload = [{load}]\n[[policy]]\nname = \"bf-js\"\n"
    )
}

/// `text` (in a fresh folder, with `files` beside it) run with `extra` flags: refused with
/// exit 2 under the hostile tests' memory and time limits, the message holding every word.
fn refused(name: &str, text: &str, files: &[(&str, &[u8])], extra: &[&str], words: &[&str]) {
    let d = tmp(name);
    for (f, bytes) in files {
        write(&d, f, bytes);
    }
    let exp = write(&d, "exp.toml", text);
    let out = d.join("out");
    let mut args = vec![s(&exp), "--out", s(&out), "--quiet"];
    args.extend_from_slice(extra);
    let o = bounded(&args);
    assert_eq!(o.code, Some(2), "{name}: {}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "{name}: {}", o.stderr);
    for w in words {
        assert!(o.stderr.contains(w), "{name}: `{w}` not in {}", o.stderr);
    }
    assert!(
        !out.join(".packlab/journal").exists(),
        "{name}: refused after work started"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn memory_is_admitted_before_any_work() {
    // a million samples kept for each of 300 runs
    refused(
        "samples",
        &queue(
            10,
            "slots = 1_000_000\nreplications = 300\nsamples = 1_000_000",
            0.5,
        ),
        &[],
        &[],
        &["run.samples", "estimated peak", "GiB"],
    );
    // a million tiny runs, each a record held until the outputs are written
    refused(
        "runs",
        &queue(10, "slots = 100\nreplications = 999_999", 0.5),
        &[],
        &[],
        &["run.", "estimated peak", "finished runs"],
    );
    // eight runs in flight, each allowed ten million waiting jobs
    refused(
        "queue-cap",
        &queue(
            1000,
            "slots = 1_000_000\nreplications = 8\nqueue_cap = 10_000_000",
            3.0,
        ),
        &[],
        &["--threads", "8"],
        &["run.queue_cap", "8 runs in flight"],
    );
    // and --max-memory lowers the limit, down to its floor of 128 MiB
    refused(
        "max-memory",
        &queue(10, "slots = 10_000\nreplications = 2_000", 0.5),
        &[],
        &["--max-memory", "0.125"],
        &["--max-memory 128 MiB", "estimated peak"],
    );
    // the small file runs under the default
    let d = tmp("fits");
    let exp = write(
        &d,
        "exp.toml",
        queue(10, "slots = 10_000\nreplications = 2", 0.5),
    );
    let o = bounded(&[s(&exp), "--out", s(&d.join("out")), "--quiet"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_sizes_file_is_read_line_by_line_and_bounded_in_values() {
    // 2²⁵ + 1 values, 67 MB of text in a gzip file of about 100 kB
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let chunk = "1\n".repeat(1 << 20);
    for _ in 0..32 {
        gz.write_all(chunk.as_bytes()).unwrap();
    }
    gz.write_all(b"1\n").unwrap();
    let gz = gz.finish().unwrap();
    let text = queue(10, "slots = 10_000", 0.5).replace(
        "sizes = { dist = \"uniform\", low = 0.1, high = 0.9 }",
        "sizes = { dist = \"empirical\", file = \"sizes.gz\" }",
    );
    refused(
        "sizes-file",
        &text,
        &[("sizes.gz", &gz)],
        &[],
        &["workload.sizes.file", "at most 33554432 values"],
    );
}

/// A region map of the discrete law `values` on one server.
fn map_of(values: &str, extra: &str) -> String {
    format!(
        "name = \"h3map\"\n[cluster]\nservers = 1\n[workload]\n\
         sizes = {{ dist = \"discrete\", values = [{values}], probs = [0.5, 0.5] }}\n\
         service = {{ dist = \"geometric\", mean = 10.0 }}\n[run]\nslots = 10_000\n\
         [[policy]]\nname = \"bf-js\"\n[region_map]\nrays = 3\n{extra}"
    )
}

#[test]
fn enumerations_that_could_explode_are_bounded_or_refused() {
    // a map of a size a server holds 10¹² times
    refused(
        "tiny-map",
        &map_of("1e-12, 0.5", ""),
        &[],
        &[],
        &["workload.sizes", "2⁻²⁰"],
    );
    // a map of request vectors of 10⁻¹² of each resource
    let csv = b"kind,job,cpu,memory,disk,count\nmachine,,1,1,,1\ntask,1,1e-12,1e-12,,1\n\
                task,2,0.15,0.45,,1\n";
    let text = "name = \"h3vec\"\n[cluster]\nservers = 1\n[workload]\n\
                sizes = { dist = \"tasks\", source = \"csv\", file = \"v.csv\" }\n\
                service = { dist = \"geometric\", mean = 10.0 }\n[run]\nslots = 10_000\n\
                [[policy]]\nname = \"bf-js\"\nscore = \"bestfit-v1\"\n[region_map]\nrays = 3\n";
    refused(
        "tiny-vectors",
        text,
        &[("v.csv", csv)],
        &[],
        &["workload.sizes.file", "copies"],
    );
    // two sizes off the grid that a server holds 10¹² times: MaxWeight's search is refused
    let two_tiny = queue(2, "slots = 10_000", 0.5)
        .replace(
            "sizes = { dist = \"uniform\", low = 0.1, high = 0.9 }",
            "sizes = { dist = \"discrete\", values = [1e-12, 3e-12, 0.3], probs = [0.3, 0.3, 0.4] }",
        )
        .replace("name = \"bf-js\"", "name = \"max-weight\"");
    refused(
        "two-tiny",
        &two_tiny,
        &[],
        &[],
        &["workload.sizes", "at most one size below"],
    );
    // one such size is searched last, its count taken at once: MaxWeight runs
    let d = tmp("one-tiny");
    let exp = write(&d, "exp.toml", two_tiny.replace("3e-12", "0.5"));
    let o = bounded(&[s(&exp), "--out", s(&d.join("out")), "--quiet"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    std::fs::remove_dir_all(&d).unwrap();
    // many held types
    let held: String = (0..9)
        .map(|k| format!("[[region_map.held]]\nsize = 0.{}\nrate = 0.01\n", k + 1))
        .collect();
    let values: Vec<String> = (1..=10).map(|k| format!("0.{k:02}")).collect();
    let text = map_of(&values.join(", "), &held).replace(
        "probs = [0.5, 0.5]",
        &format!("probs = [{}]", ["0.1"; 10].join(", ")),
    );
    refused(
        "held",
        &text,
        &[],
        &[],
        &["region_map.held", "at most 8 held types"],
    );
}

/// Runs the README's example, shortened, with its stderr going to `stderr`; returns the exit
/// status and whether its outputs were written.
fn run_with_stderr(name: &str, stderr: Stdio) -> (Option<i32>, bool) {
    let d = tmp(name);
    let out = d.join("out");
    let status = util::bin()
        .args([
            "experiments/readme_example.toml",
            "--quick",
            "--out",
            s(&out),
        ])
        .env("PACKLAB_PROGRESS_SECONDS", "0")
        .stdout(Stdio::null())
        .stderr(stderr)
        .status()
        .unwrap();
    let written = out.join("summary.csv").exists() && out.join("report.md").exists();
    std::fs::remove_dir_all(&d).unwrap();
    (status.code(), written)
}

#[test]
fn a_closed_or_full_stderr_never_stops_a_run() {
    // a full device
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    assert_eq!(run_with_stderr("full", Stdio::from(full)), (Some(0), true));
    // a pipe whose reader is gone before the first line
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    assert_eq!(
        run_with_stderr("broken", Stdio::from(writer)),
        (Some(0), true)
    );
    // a pipe whose reader leaves after the first line (`packlab … 2>&1 | head -1`)
    let d = tmp("head");
    let out = d.join("out");
    let mut child = util::bin()
        .args([
            "experiments/readme_example.toml",
            "--quick",
            "--out",
            s(&out),
        ])
        .env("PACKLAB_PROGRESS_SECONDS", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let mut first = [0u8; 8];
    std::io::Read::read_exact(&mut err, &mut first).unwrap();
    drop(err);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(out.join("summary.csv").exists());
    std::fs::remove_dir_all(&d).unwrap();
}

/// The files of `dir` (not `.packlab`) with their contents.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
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
    v.sort();
    v
}

#[test]
fn outputs_are_all_or_nothing_and_packlabs_files_are_its_own() {
    let d = tmp("outputs");
    let out = d.join("out");
    let run = |extra: &[&str]| {
        let mut args = vec!["experiments/readme_example.toml", "--quick", "--quiet"];
        args.extend_from_slice(&["--out", s(&out)]);
        args.extend_from_slice(extra);
        util::packlab(&args)
    };
    assert!(run(&[]).status.success());
    // one output's name taken by a folder: refused before anything moves
    let before = contents(&out);
    std::fs::remove_file(out.join("summary.csv")).unwrap();
    std::fs::create_dir(out.join("summary.csv")).unwrap();
    let kept: Vec<_> = before
        .iter()
        .filter(|(n, _)| n != "summary.csv")
        .cloned()
        .collect();
    let o = run(&["--fresh"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("summary.csv is a folder"), "{e}");
    assert_eq!(contents(&out), kept, "an earlier output was replaced");
    std::fs::remove_dir(out.join("summary.csv")).unwrap();
    // a staging folder left by a run killed while writing is removed by the next run
    let stale = out.join(".packlab/staging-0000000000000000");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join("runs.csv"), "half").unwrap();
    assert!(run(&[]).status.success());
    assert!(!stale.exists());
    assert_eq!(contents(&out), before);
    // a hard link planted at the lock: refused, the linked file untouched
    let victim = util::write(&d, "victim", "mine");
    std::fs::remove_file(out.join(".packlab/lock")).unwrap();
    std::fs::hard_link(&victim, out.join(".packlab/lock")).unwrap();
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("hard links"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
    std::fs::remove_file(out.join(".packlab/lock")).unwrap();
    // an --out too long for the staging paths: refused before any work
    let mut long = d.clone();
    while long.as_os_str().len() < 3950 {
        long = long.join("a".repeat(200));
    }
    let o = util::packlab(&[
        "experiments/readme_example.toml",
        "--quick",
        "--quiet",
        "--out",
        s(&long),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("shorter --out"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A fake `sbatch` (a shell script of `body`) in a fresh folder, and the Slurm scripts of a
/// small experiment there; returns the folder, the experiment and the PATH to use.
fn fake_sbatch(name: &str, body: &str) -> (PathBuf, PathBuf, String) {
    use std::os::unix::fs::PermissionsExt as _;
    let d = tmp(name);
    let bin = d.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let sbatch = write(&bin, "sbatch", format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let exp = write(&d, "exp.toml", queue(2, "slots = 1000", 0.5));
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    (d, exp, path)
}

fn submit(d: &Path, exp: &Path, path: &str) -> std::process::Child {
    util::bin()
        .args([
            "slurm",
            s(exp),
            "--shards",
            "2",
            "--out",
            s(&d.join("out")),
            "--submit",
        ])
        .env("PATH", path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn sbatch_is_bounded_and_a_partial_submission_says_what_is_queued() {
    // an sbatch printing 200 MB and no id
    let (d, exp, path) = fake_sbatch(
        "sbatch-loud",
        "head -c 200000000 /dev/zero | tr '\\0' x; exit 0",
    );
    let o = submit(&d, &exp, &path).wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("printed no job id") && e.len() < 10_000,
        "{}",
        e.len()
    );
    std::fs::remove_dir_all(&d).unwrap();
    // the array queued, the merge refused
    let (d, exp, path) = fake_sbatch(
        "sbatch-half",
        "case \"$*\" in *dependency*) echo 'no merge for you' >&2; exit 1;; esac; echo 4242",
    );
    let o = submit(&d, &exp, &path).wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    for w in [
        "ARE queued, as job 4242",
        "no merge for you",
        "Do not run --submit again",
        "sbatch --dependency=afterok:4242",
    ] {
        assert!(e.contains(w), "`{w}` not in {e}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_signal_while_sbatch_runs_kills_it_and_says_so() {
    let (d, exp, path) = fake_sbatch(
        "sbatch-slow",
        "echo $$ > \"$(dirname \"$0\")/pid\"; sleep 30",
    );
    let child = submit(&d, &exp, &path);
    let pid_file = d.join("bin/pid");
    let start = Instant::now();
    while !pid_file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "sbatch never ran"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let sbatch_pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("may or may not be queued"), "{e}");
    assert!(e.contains("submitting Slurm jobs"), "{e}");
    // the child is gone
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !Path::new(&format!("/proc/{sbatch_pid}")).exists(),
        "sbatch {sbatch_pid} still runs"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn sighup_stops_a_run_like_sigterm() {
    let d = tmp("hup");
    let exp = write(
        &d,
        "exp.toml",
        queue(10, "slots = 50_000_000\nreplications = 4", 0.5),
    );
    let mut child = util::bin()
        .args([s(&exp), "--out", s(&d.join("out")), "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // once the run has started (its first progress line), a closed terminal
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("to do") {
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut err, &mut line).unwrap() == 0 {
            panic!("the run ended before it started: {seen}");
        }
        seen.push_str(&line);
    }
    Command::new("kill")
        .args(["-HUP", &child.id().to_string()])
        .status()
        .unwrap();
    std::io::Read::read_to_string(&mut err, &mut seen).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(129), "{seen}");
    assert!(seen.contains("signal 1"), "{seen}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn messages_name_the_right_value() {
    // one more than the most runs: the total named, with what it counts
    refused(
        "million",
        &queue(10, "slots = 100\nreplications = 1_000_000", 0.5)
            .replace("load = [0.5]", "load = [0.5, 0.6]"),
        &[],
        &[],
        &["1 × 1000000 = 2000000 runs"],
    );
    // angles closer than the outputs' four decimals
    let angles = map_of("0.3, 0.5", "").replace("rays = 3", "angles = [0.00001, 0.00002, 0.00003]");
    refused(
        "angles",
        &angles,
        &[],
        &[],
        &[
            "element #2 of key `region_map.angles`",
            "0.00002, within 0.0001° of region_map.angles[0] = 0.00001",
        ],
    );
    // a held rate with no load in it
    let held = |rate: &str| {
        map_of(
            "0.3, 0.5",
            &format!("[[region_map.held]]\nsize = 0.2\nrate = {rate}\n"),
        )
        .replace(
            "values = [0.3, 0.5], probs = [0.5, 0.5]",
            "values = [0.3, 0.5, 0.2], probs = [0.4, 0.4, 0.2]",
        )
    };
    refused(
        "held-tiny",
        &held("1e-300"),
        &[],
        &[],
        &["key `rate` of [[region_map.held]] #1", "at least 1e-9"],
    );
    // held at the capacity's edge (5 jobs of 0.2 fit a server: capacity 5)
    refused(
        "held-edge",
        &held("4.9999999"),
        &[],
        &[],
        &["region_map.held", "at most 99.9 %"],
    );
}
