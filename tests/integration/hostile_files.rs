//! Hostile situations around the files packlab reads and writes: links planted in the output
//! folder, inputs that live there under an output's name, FIFOs and devices as inputs, lines
//! and counts without end, crafted shard journals, injected Slurm lines, and signals while
//! reading. Each runs the binary under a memory and a time limit; nothing outside the test's
//! folders may change.

use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::hostile::{QUEUE, bounded};
use crate::util::{tmp, write};

fn dir(name: &str) -> std::path::PathBuf {
    tmp("hostile-files", name)
}

/// Runs `args`, expecting exit 2 and every one of `words` in the message.
fn refused(args: &[&str], words: &[&str]) {
    let o = bounded(args);
    assert_eq!(o.code, Some(2), "{args:?}: {}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
    for w in words {
        assert!(o.stderr.contains(w), "`{w}` not in {}", o.stderr);
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A queueing file replaying the CSV trace `file` (relative to the experiment file).
fn trace_file(file: &str) -> String {
    QUEUE
        .replace(
            "sizes = { dist = \"uniform\", low = 0.2, high = 0.6 }\nservice = { dist = \"geometric\", mean = 20.0 }",
            &format!("trace = {{ format = \"csv\", file = \"{file}\", slot = 1.0 }}"),
        )
        .replace("slots = 10_000\n", "")
        .replace("replications = 2", "replications = 1")
        .replace("load = [0.5]", "scaling = [1.0]")
}

#[test]
fn links_in_the_output_folder_reach_nothing_outside_it() {
    let d = dir("links");
    let exp = write(&d, "exp.toml", QUEUE);
    let outside = d.join("outside");
    std::fs::create_dir(&outside).unwrap();
    write(&outside, "victim", "mine");
    write(&outside, "journal", "mine");
    write(&outside, "journal-old", "mine");
    // the lock a link to a file outside
    let out = d.join("out1");
    std::fs::create_dir_all(out.join(".packlab")).unwrap();
    symlink(outside.join("victim"), out.join(".packlab/lock")).unwrap();
    refused(&[s(&exp), "--out", s(&out)], &["symbolic link"]);
    // `.packlab` a link to a folder outside, with --fresh
    let out = d.join("out2");
    std::fs::create_dir_all(&out).unwrap();
    symlink(&outside, out.join(".packlab")).unwrap();
    refused(
        &[s(&exp), "--out", s(&out), "--fresh"],
        &[".packlab", "symbolic link"],
    );
    // an output a link to a file outside: refused, the finished work kept for a resume
    let out = d.join("out3");
    std::fs::create_dir_all(&out).unwrap();
    symlink(outside.join("victim"), out.join("report.md")).unwrap();
    refused(
        &[s(&exp), "--out", s(&out)],
        &["report.md", "symbolic link"],
    );
    std::fs::remove_file(out.join("report.md")).unwrap();
    let o = bounded(&[s(&exp), "--out", s(&out)]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stderr.contains("resumed from the journal"),
        "{}",
        o.stderr
    );
    // `.packlab` a file: named
    let out = d.join("out4");
    std::fs::create_dir_all(&out).unwrap();
    write(&out, ".packlab", "x");
    refused(&[s(&exp), "--out", s(&out)], &["out4/.packlab is a file"]);
    for name in ["victim", "journal", "journal-old"] {
        assert_eq!(std::fs::read_to_string(outside.join(name)).unwrap(), "mine");
    }
    // --fresh removes its own journal, never a user's file beside it
    let out = d.join("out5");
    let o = bounded(&[s(&exp), "--out", s(&out)]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    write(&out.join(".packlab"), "journal.bak", "mine");
    let o = bounded(&[s(&exp), "--out", s(&out), "--fresh"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(out.join(".packlab/journal.bak").exists());
    // no temporary file is left anywhere
    for e in std::fs::read_dir(&out).unwrap().flatten() {
        assert!(!e.file_name().to_string_lossy().starts_with(".tmp"));
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_shard_cannot_take_a_folder_a_whole_run_holds() {
    let d = dir("shard-lock");
    let exp = write(&d, "exp.toml", QUEUE);
    let out = d.join("out");
    let o = bounded(&[s(&exp), "--out", s(&out)]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let journal = std::fs::read(out.join(".packlab/journal")).unwrap();
    // a whole run holds the lock (this test, as a running sweep would)
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(out.join(".packlab/lock"))
        .unwrap();
    lock.try_lock().unwrap();
    refused(
        &[s(&exp), "--out", s(&out), "--shard", "1/2", "--fresh"],
        &["in use by another packlab"],
    );
    drop(lock);
    assert_eq!(
        std::fs::read(out.join(".packlab/journal")).unwrap(),
        journal
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn inputs_under_an_outputs_name_are_refused_and_kept() {
    let d = dir("inputs");
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // a trace named like an output, inside --out
    let trace = b"arrival,duration,cpu\n0,10,0.5\n1,10,0.5\n2,10,0.25\n";
    write(&out, "runs.csv", trace);
    let exp = write(&d, "exp.toml", trace_file("out/runs.csv"));
    refused(&[s(&exp), "--out", s(&out)], &["runs.csv", "overwrite"]);
    assert_eq!(std::fs::read(out.join("runs.csv")).unwrap(), trace);
    // the experiment file as its own provenance copy
    let own = write(&out, "experiment.toml", QUEUE);
    refused(
        &[s(&own), "--out", s(&out)],
        &["experiment.toml", "overwrite"],
    );
    assert_eq!(std::fs::read_to_string(&own).unwrap(), QUEUE);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn fifos_devices_and_endless_lines_are_refused_at_once() {
    let d = dir("readers");
    let fifo = d.join("fifo.csv");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let exp = write(&d, "exp.toml", trace_file("fifo.csv"));
    let out = d.join("out");
    refused(
        &[s(&exp), "--out", s(&out)],
        &["FIFO", "not a regular file"],
    );
    let exp = write(&d, "exp.toml", trace_file("/dev/zero"));
    refused(&[s(&exp), "--out", s(&out)], &["a device"]);
    // the experiment file itself a FIFO
    refused(&[s(&fifo)], &["FIFO"]);
    // a journal that is a FIFO
    let exp = write(&d, "q.toml", QUEUE);
    let out2 = d.join("out2");
    std::fs::create_dir_all(out2.join(".packlab")).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(out2.join(".packlab/journal"))
            .status()
            .unwrap()
            .success()
    );
    refused(&[s(&exp), "--out", s(&out2)], &["journal", "FIFO"]);
    // one line of 4 MB, gzip-compressed to a few kilobytes
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"arrival,duration,cpu\n").unwrap();
    gz.write_all(&vec![b'7'; 4 << 20]).unwrap();
    write(&d, "long.csv.gz", gz.finish().unwrap());
    let exp = write(&d, "exp.toml", trace_file("long.csv.gz"));
    refused(
        &[s(&exp), "--out", s(&out)],
        &["long.csv.gz", "line longer than"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn trace_rows_that_ask_too_much_are_refused_by_line() {
    let d = dir("trace-rows");
    let out = d.join("out");
    // two Alibaba rows, one with 10^12 instances arriving in one slot
    let rows = "1,100,1,1,1000000000000,Terminated,100,0.01\n2,100,1,2,1,Terminated,100,0.01\n";
    write(&d, "a.csv", rows);
    let exp = write(
        &d,
        "exp.toml",
        trace_file("a.csv").replace("format = \"csv\"", "format = \"alibaba2017\""),
    );
    refused(
        &[s(&exp), "--out", s(&out)],
        &["a.csv:1", "number_of_instances", "1e6"],
    );
    // a duration of 10^300 s
    write(&d, "t.csv", "arrival,duration,cpu\n0,1e300,0.5\n1,10,0.5\n");
    let exp = write(&d, "exp.toml", trace_file("t.csv"));
    refused(&[s(&exp), "--out", s(&out)], &["t.csv:2", "duration"]);
    // an SWF job on more processors than the machine has
    let swf = "; MaxProcs: 8\n1 0 0 10 16 -1 -1 16 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
    write(&d, "t.swf", swf);
    let exp = write(
        &d,
        "exp.toml",
        trace_file("t.swf").replace("format = \"csv\"", "format = \"swf\""),
    );
    refused(
        &[s(&exp), "--out", s(&out)],
        &["t.swf:2", "allocated_processors", "MaxProcs"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn crafted_shard_journals_are_refused_without_allocating() {
    let d = dir("merge");
    let out = d.join("out");
    std::fs::create_dir_all(out.join(".packlab")).unwrap();
    write(&out.join(".packlab"), "journal-1-of-4000000000", "x");
    refused(
        &["merge", s(&out)],
        &["journal-1-of-4000000000", "1 ≤ I ≤ N ≤ 10000"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn figure_names_that_collide_or_escape_are_handled() {
    let d = dir("figures");
    let out = d.join("out");
    let two = format!(
        "{QUEUE}[[plot]]\nkind = \"mean-queue-vs-load\"\nfile = \"fig.a\"\n[[plot]]\nkind = \"mean-queue-vs-load\"\nfile = \"fig.b\"\n"
    );
    let exp = write(&d, "exp.toml", &two);
    let o = bounded(&[s(&exp), "--out", s(&out)]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    for f in ["fig.a.png", "fig.a.svg", "fig.b.png", "fig.b.svg"] {
        assert!(out.join(f).exists(), "{f}");
    }
    for bad in ["..", ".hidden", &"x".repeat(300)] {
        let exp = write(
            &d,
            "exp.toml",
            format!("{QUEUE}[[plot]]\nkind = \"mean-queue-vs-load\"\nfile = \"{bad}\"\n"),
        );
        refused(&[s(&exp), "--out", s(&out)], &["key `file` of [[plot]] #1"]);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn slurm_values_that_would_add_lines_are_refused() {
    let d = dir("slurm");
    let exp = write(&d, "exp.toml", QUEUE);
    let out = d.join("out");
    for (flag, value, word) in [
        ("--partition", "short\nrm -rf ~", "control character"),
        ("--time", "1:00:00\necho hi", "control character"),
        (
            "--sbatch",
            "--mem=1G\n#SBATCH --array=0-9",
            "control character",
        ),
        ("--sbatch", "--array=0-99", "--array"),
        ("--partition", "", "empty"),
        ("--time", "", "empty"),
    ] {
        let arg = format!("{flag}={value}");
        refused(
            &["slurm", s(&exp), "--shards", "2", "--out", s(&out), &arg],
            &[word],
        );
    }
    assert!(!out.join("slurm/shards.sbatch").exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_signal_while_reading_stops_packlab_within_a_second() {
    let d = dir("signal");
    // a trace long enough to take seconds to read (about 40 MB)
    let mut f = std::io::BufWriter::new(std::fs::File::create(d.join("big.csv")).unwrap());
    writeln!(f, "arrival,duration,cpu").unwrap();
    for i in 0..2_500_000u64 {
        writeln!(f, "{i}.25,10.5,0.125").unwrap();
    }
    drop(f);
    let exp = write(&d, "exp.toml", trace_file("big.csv"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_packlab"))
        .args([s(&exp), "--out", s(&d.join("out")), "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "finished before the signal"
    );
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(sent.elapsed() < Duration::from_secs(3), "still running");
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(143), "{err}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
    assert!(err.contains("interrupted by signal 15"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn nesting_without_end_is_refused_by_line_in_a_short_message() {
    let d = dir("nesting");
    let dotted = format!("name = \"x\"\n{} = 1\n", ["a"; 20_000].join("."));
    let exp = write(&d, "dotted.toml", dotted);
    refused(&[s(&exp)], &["dotted.toml", "line 2", "nested too deep"]);
    let brackets = format!(
        "name = \"x\"\na = {}{}\n",
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    let exp = write(&d, "brackets.toml", brackets);
    let o = bounded(&[s(&exp)]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(o.stderr.contains("line 2"), "{}", o.stderr);
    assert!(
        o.stderr.len() < 2_000,
        "{} bytes of message",
        o.stderr.len()
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn characterisations_at_the_limits_validate_quickly_or_are_refused() {
    let d = dir("sets");
    // 12 attributes, every task frequency strictly between 0 and 1: 2^12 sets per cluster
    let vocabulary: Vec<String> = (0..12).map(|i| format!("\"a{i} = x\"")).collect();
    let values: String = (0..12)
        .map(|i| format!("a{i} = [\"x\", \"y\"]\n"))
        .collect();
    let file = |clusters: usize| {
        let tasks: String = (0..clusters)
            .map(|_| {
                format!(
                    "[[constraints.tasks]]\nshare = {}\nfrequency = [{}]\n",
                    1.0 / clusters as f64,
                    ["0.1"; 12].join(", ")
                )
            })
            .collect();
        format!(
            "{}[constraints]\nvocabulary = [{}]\n[constraints.values]\n{values}[[constraints.machines]]\nshare = 1.0\nfrequency = [{}]\n{tasks}",
            QUEUE.replace(
                "name = \"bf-js\"",
                "name = \"bf-js\"\nscore = \"bestfit-v1\""
            ),
            vocabulary.join(", "),
            ["0.5"; 12].join(", ")
        )
    };
    let out = d.join("out");
    // sixteen clusters of 2^12 sets: at the limit, validated in seconds
    let exp = write(&d, "at.toml", file(16));
    let start = Instant::now();
    let o = bounded(&[s(&exp), "--out", s(&out), "--quick"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    // seventeen: more sets than the simulator enumerates
    let exp = write(&d, "over.toml", file(17));
    refused(
        &[s(&exp), "--out", s(&out)],
        &["constraints.tasks", "69632 constraint sets", "65536"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_trace_job_no_numa_node_holds_is_named_by_its_line() {
    let d = dir("numa-trace");
    write(
        &d,
        "t.csv",
        "arrival,duration,cpu\n0,10,0.25\n1,10,0.75\n2,10,0.5\n",
    );
    let text = trace_file("t.csv").replace(
        "name = \"bf-js\"",
        "name = \"bf-js\"\nscore = \"bestfit-v1\"",
    ) + "[numa]\nnodes = 2\nstrict = 1.0\n";
    let exp = write(&d, "exp.toml", text);
    refused(
        &[s(&exp), "--out", s(&d.join("out"))],
        &["workload.trace.file", "t.csv:3", "a job of 0.75"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}
