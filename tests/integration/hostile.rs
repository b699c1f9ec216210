//! Hostile input: every file here asks for too much, would once have crashed packlab, or says
//! something that cannot be right. Each must be refused with exit 2 and a message naming the
//! key (or file and line), or run correctly, within a bounded time and address space, never
//! a panic or an abort.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{self, write};

/// Virtual memory for one run, KiB (thread stacks and allocator arenas count here, so this is
/// well above what a run touches).
const MEMORY_KIB: u64 = 1_500_000;
/// Wall time for one run: generous for a debug build on a loaded two-core machine.
const SECONDS: u64 = 30;

pub(crate) struct Outcome {
    pub code: Option<i32>,
    pub stderr: String,
}

/// Runs packlab under a memory limit and a time limit (killed past it: a failure).
pub(crate) fn bounded(args: &[&str]) -> Outcome {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_packlab"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            return Outcome {
                code: status.code(),
                stderr,
            };
        }
        if start.elapsed() > Duration::from_secs(SECONDS) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("packlab {args:?} ran longer than {SECONDS} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn tmp(name: &str) -> PathBuf {
    util::tmp("hostile", name)
}

pub(crate) const QUEUE: &str = r#"
name = "hostile"
seed = 1
[cluster]
servers = 5
[workload]
sizes = { dist = "uniform", low = 0.2, high = 0.6 }
service = { dist = "geometric", mean = 20.0 }
[run]
slots = 10_000
replications = 2
[sweep]
load = [0.5]
[[policy]]
name = "bf-js"
"#;

/// `text`, written to `dir/file` beside any data files already there, refused with exit 2, the
/// message containing every one of `words`.
fn refused_in(dir: &Path, file: &str, text: &str, extra: &[&str], words: &[&str]) {
    let exp = write(dir, file, text);
    let out = dir.join("out");
    let mut args = vec![exp.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = bounded(&args);
    let name = dir.display();
    assert_eq!(o.code, Some(2), "{name}: {}", o.stderr);
    assert!(!o.stderr.contains("panicked"), "{name}: {}", o.stderr);
    for w in words {
        assert!(o.stderr.contains(w), "{name}: `{w}` not in {}", o.stderr);
    }
}

/// `text` refused with exit 2, the message containing every one of `words` (in a fresh
/// folder, removed afterwards).
fn refused(name: &str, file: &str, text: &str, extra: &[&str], words: &[&str]) {
    let d = tmp(name);
    refused_in(&d, file, text, extra, words);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn queueing_work_beyond_the_limits_is_refused_before_it_starts() {
    let cases: [(&str, &str, &[&str]); 7] = [
        (
            "load = [0.5]",
            "load = [1e9]",
            &["sweep.load", "arrivals per slot"],
        ),
        (
            "replications = 2",
            "replications = 10000000000",
            &["run.replications", "at most 1000000"],
        ),
        (
            "replications = 2\n[sweep]\nload = [0.5]",
            "replications = 600000\n[sweep]\nload = [0.4, 0.5]",
            &["run.replications", "units of work in all"],
        ),
        (
            "slots = 10_000",
            "slots = 9000000000000000000",
            &["run.slots", "slots per run"],
        ),
        (
            "slots = 10_000\nreplications = 2",
            "slots = 10_000\nmax_slots = 90000000000\nreplications = 2000",
            &["key `run`", "slots and expected arrivals"],
        ),
        (
            "replications = 2",
            "replications = 2\nqueue_cap = 1000000000000",
            &["run.queue_cap"],
        ),
        (
            "replications = 2",
            "replications = 2\nprobe_groups = 3",
            &["run.probe_groups", "at most 2"],
        ),
    ];
    for (i, (from, to, words)) in cases.iter().enumerate() {
        let text = QUEUE.replace(from, to);
        assert_ne!(text, QUEUE);
        refused(&format!("queue{i}"), "exp.toml", &text, &[], words);
        // --quick does not make an impossible file possible
        refused(
            &format!("queue{i}q"),
            "exp.toml",
            &text,
            &["--quick"],
            words,
        );
    }
}

#[test]
fn lists_beyond_the_limit_are_refused() {
    let loads: Vec<String> = (1..=10_001)
        .map(|i| format!("{}", i as f64 * 1e-5))
        .collect();
    let text = QUEUE.replace("load = [0.5]", &format!("load = [{}]", loads.join(",")));
    refused(
        "list",
        "exp.toml",
        &text,
        &[],
        &["sweep.load", "at most 10000 values"],
    );
}

#[test]
fn too_many_threads_are_capped_with_a_warning() {
    let d = tmp("threads");
    let exp = write(&d, "exp.toml", QUEUE.as_bytes());
    let out = d.join("out");
    let o = bounded(&[
        exp.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "10000",
    ]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stderr.contains("capped"), "{}", o.stderr);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_trace_sliced_too_fine_is_refused() {
    let d = tmp("trace");
    write(
        &d,
        "t.csv",
        b"arrival,duration,cpu\n0,1e-6,0.5\n60000,1e-6,0.5\n",
    );
    let text = QUEUE
        .replace(
            "sizes = { dist = \"uniform\", low = 0.2, high = 0.6 }\nservice = { dist = \"geometric\", mean = 20.0 }",
            "trace = { format = \"csv\", file = \"t.csv\", slot = 1e-9 }",
        )
        .replace("slots = 10_000\n", "")
        .replace("replications = 2", "replications = 1")
        .replace("load = [0.5]", "scaling = [1.0]");
    refused_in(
        &d,
        "exp.toml",
        &text,
        &[],
        &["sweep.scaling", "slots per replay"],
    );
    // a traffic scaling so small that the slot count overflows 64 bits: refused, no panic
    let tiny = text
        .replace("1e-9", "1.0")
        .replace("scaling = [1.0]", "scaling = [1e-300]");
    refused_in(&d, "exp.toml", &tiny, &[], &["got 1e-300 ("]);
    // a service of 10 s in slots of 10^-9 s is more slots than a job's service can hold
    write(
        &d,
        "t.csv",
        b"arrival,duration,cpu\n0,10,0.5\n60000,10,0.5\n",
    );
    refused_in(&d, "exp.toml", &text, &[], &["t.csv:2", "duration 10 s"]);
    // a CSV trace without its header row is refused, not short of its first task
    write(&d, "t.csv", b"0,10,0.5\n60,10,0.5\n");
    let text = text.replace("1e-9", "1.0");
    refused_in(&d, "exp.toml", &text, &[], &["t.csv:1", "header"]);
    std::fs::remove_dir_all(&d).unwrap();
}

const REGION: &str = r#"
name = "hostile-region"
kind = "region"
seed = 1
[workload]
sizes = { dist = "uniform", low = 0.1, high = 0.5 }
[region]
J = [3]
bracket = { start = 8, max_intervals = 64 }
"#;

#[test]
fn region_files_that_would_panic_or_run_for_ever_are_refused() {
    for start in [7, 9, 11, 13, 14] {
        refused(
            &format!("bracket{start}"),
            "r.toml",
            &REGION.replace("start = 8", &format!("start = {start}")),
            &[],
            &["region.bracket.start", &start.to_string()],
        );
    }
    refused(
        "family",
        "r.toml",
        &REGION.replace(
            "J = [3]",
            "J = [3]\nfamily = { count = 1000000000, max_types = 5, J = 4 }",
        ),
        &[],
        &["region.family.count", "at most 100000"],
    );
    let values: Vec<String> = (0..2000)
        .map(|i| format!("{:.6}", 0.1 + 0.0004 * i as f64))
        .collect();
    let probs = vec!["0.0005"; 2000];
    refused(
        "types",
        "r.toml",
        &REGION.replace(
            "{ dist = \"uniform\", low = 0.1, high = 0.5 }",
            &format!(
                "{{ dist = \"discrete\", values = [{}], probs = [{}] }}",
                values.join(","),
                probs.join(",")
            ),
        ),
        &[],
        &["workload.sizes", "at most 256"],
    );
    // a claim the file cannot pass: one level of the bracket
    refused(
        "monotone",
        "r.toml",
        &(REGION.replace("max_intervals = 64", "max_intervals = 8")
            + "[[claim]]\nkind = \"bracket-monotone\"\n"),
        &[],
        &["key `kind` of [[claim]] #1", "two levels"],
    );
    // a misspelt kind is named, not the first key the queueing schema lacks
    for kind in ["regoin", "Packing", "7"] {
        let value = if kind == "7" {
            "7".into()
        } else {
            format!("\"{kind}\"")
        };
        refused(
            &format!("kind-{kind}"),
            "r.toml",
            &REGION.replace("kind = \"region\"", &format!("kind = {value}")),
            &[],
            &[
                "key `kind`",
                "\"queueing\", \"region\" or \"packing\"",
                kind,
            ],
        );
    }
    // two plots into one file
    refused(
        "plots",
        "r.toml",
        &(REGION.to_string() + "[[plot]]\nkind = \"bracket\"\n[[plot]]\nkind = \"bracket\"\n"),
        &[],
        &["key `file` of [[plot]] #2"],
    );
}

#[test]
fn queueing_claims_and_plots_that_cannot_be_right_are_refused() {
    refused(
        "ranking",
        "exp.toml",
        &(QUEUE
            .replace("replications = 2", "replications = 1")
            .replace(
                "name = \"bf-js\"",
                "name = \"bf-js\"\n[[policy]]\nname = \"fifo-ff\"",
            )
            + "[[claim]]\nkind = \"ranking\"\norder = [\"bf-js\", \"fifo-ff\"]\nload = 0.5\n"),
        &[],
        &["[[claim]] #1", "run.replications ≥ 2"],
    );
    refused(
        "plots",
        "exp.toml",
        &(QUEUE.to_string()
            + "[[plot]]\nkind = \"mean-queue-vs-load\"\nfile = \"a\"\n[[plot]]\nkind = \"queue-vs-time\"\nfile = \"a\"\n"),
        &[],
        &["key `file` of [[plot]] #2"],
    );
}

const PACKING: &str = r#"
name = "hostile-packing"
kind = "packing"
seed = 1
[snapshot]
source = "SOURCE"
file = "snap"
[[scheduler]]
order = "arrival"
scorer = "firstfit-v1"
[evaluate]
compaction_tau = [0.0]
trials = 2
expansion_tau = 0.1
"#;

fn packing(name: &str, source: &str, snap: &[u8], words: &[&str]) {
    let d = tmp(name);
    write(&d, "snap", snap);
    refused_in(&d, "p.toml", &PACKING.replace("SOURCE", source), &[], words);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn packing_snapshots_that_would_exhaust_memory_or_hang_are_refused() {
    let header = "kind,job,cpu,memory,disk,count\n";
    packing(
        "too-big",
        "csv",
        format!("{header}machine,0,0.5,0.5,,2\ntask,1,0.2,0.2,,3\ntask,2,0.6,0.1,,1\n").as_bytes(),
        &["snap:4", "fits on no machine"],
    );
    packing(
        "count",
        "csv",
        format!("{header}machine,0,1,1,,1\ntask,1,0.2,0.2,,1000000000000\n").as_bytes(),
        &["snap:3", "more than 10000000 tasks"],
    );
    packing(
        "machines",
        "csv",
        format!("{header}task,1,0.2,0.2,,3\n").as_bytes(),
        &["snapshot.file", "at least one machine"],
    );
    packing(
        "orlib-capacity",
        "orlib",
        b"1\n u1\n 7 3 1\n 3\n 2\n 2\n",
        &["snap:3", "capacity 7"],
    );
    packing(
        "triplet-zero",
        "triplet",
        b"3\n0\n1\n1\n1\n",
        &["snap:2", "capacity 0"],
    );
    packing(
        "orlib-huge",
        "orlib",
        b"1000000000000\n u1\n 100 99999999999 1\n 3\n",
        &["more than 10000000 items"],
    );
    packing(
        "orlib-short",
        "orlib",
        b"1\n u1\n 100 5 1\n 3\n 2\n",
        &["snap:5", "5 items announced, 2 found"],
    );
    // corrupt compressed data: said so, no raw bytes echoed
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(format!("{header}machine,0,1,1,,1\ntask,1,0.2,0.2,,1\n").as_bytes())
        .unwrap();
    let gz = gz.finish().unwrap();
    packing("corrupt-gz", "csv", &gz[..gz.len() - 12], &["gzip"]);
    packing(
        "binary",
        "csv",
        &[0u8, 1, 2, 200, 201, 0, 0],
        &["not UTF-8"],
    );
}

#[test]
fn numa_layouts_that_cannot_be_are_refused() {
    let snap = b"kind,job,cpu,memory,disk,count\nmachine,0,1,1,,2\ntask,1,0.2,0.2,,3\n";
    let d = tmp("numa");
    write(&d, "snap", snap);
    let base = PACKING.replace("SOURCE", "csv").replace(
        "scorer = \"firstfit-v1\"",
        "scorer = \"bestfit-v1\"\nnuma = \"machine\"",
    );
    for (numa, words) in [
        (
            "[numa]\nnodes = 0\n",
            &["numa.nodes", "1..=8", "p.toml"][..],
        ),
        ("[numa]\nnodes = 9\n", &["numa.nodes"][..]),
        (
            "[numa]\nshares = [0.5, 0.4]\n",
            &["numa.shares", "adding up to 1"][..],
        ),
        (
            "[numa]\nshares = [1.5, -0.5]\n",
            &["numa.shares", "positive"][..],
        ),
        (
            "[numa]\nnodes = 2\nshares = [0.5, 0.5]\n",
            &["numa.shares", "not both"][..],
        ),
        (
            "[numa]\n[[numa.machine]]\ncpu = 0.5\nmemory = 0.5\nnodes = 2\n",
            &["[[numa.machine]] #1", "no such machine"][..],
        ),
        (
            "[numa]\n[[numa.machine]]\ncpu = 1\nmemory = 1\n",
            &["key `nodes` of [[numa.machine]] #1"][..],
        ),
    ] {
        refused_in(&d, "p.toml", &format!("{base}{numa}"), &[], words);
    }
    refused_in(
        &d,
        "p.toml",
        &base.replace("numa = \"machine\"", "numa = \"socket\""),
        &[],
        &["key `numa` of [[scheduler]] #1", "machine+cluster"],
    );
    refused_in(
        &d,
        "p.toml",
        &(PACKING.replace("SOURCE", "csv") + "[numa]\nnodes = 2\n"),
        &[],
        &["numa", "no scheduler with `numa"],
    );
    refused_in(
        &d,
        "p.toml",
        &(PACKING.replace("SOURCE", "csv")
            + "[[claim]]\nkind = \"numa-fit-order\"\norder = [\"firstfit-v1-arrival\", \"firstfit-v1-arrival\"]\n"),
        &[],
        &["key `order` of [[claim]] #1", "numa layer"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_multi_member_gzip_snapshot_is_read_whole() {
    let d = tmp("multi-gz");
    let member = |s: &str| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(s.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    let snap = [
        member("kind,job,cpu,memory,disk,count\nmachine,0,1,1,,4\n"),
        member("task,1,0.5,0.5,,6\n"),
    ]
    .concat();
    write(&d, "snap", &snap);
    let exp = write(&d, "p.toml", PACKING.replace("SOURCE", "csv").as_bytes());
    let out = d.join("o");
    let o = bounded(&[exp.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    // six tasks of half a machine compact onto three machines: the second member was read
    let csv = std::fs::read_to_string(out.join("compaction.csv")).unwrap();
    assert!(csv.lines().nth(1).unwrap().contains(",3,"), "{csv}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn numa_queueing_files_that_cannot_run_are_refused() {
    let d = tmp("numa-queue");
    // sizes up to 0.6: larger than a node of 1/2
    let policy = "[[policy]]\nname = \"bf-js\"\nscore = \"bestfit-v1\"\nnuma = \"machine\"\n";
    let sized = |low: &str, high: &str| {
        QUEUE
            .replace(
                "low = 0.2, high = 0.6",
                &format!("low = {low}, high = {high}"),
            )
            .replace("[[policy]]\nname = \"bf-js\"\n", "")
    };
    for (text, words) in [
        (
            // a strict job larger than every node can never run
            format!(
                "{}[numa]\nnodes = 2\nstrict = 0.1\n{policy}",
                sized("0.2", "0.6")
            ),
            &[
                "hostile.toml",
                "workload.sizes",
                "smallest NUMA node (0.5)",
                "a job of 0.6",
            ][..],
        ),
        (
            format!("{}[numa]\nnodes = 0\n{policy}", sized("0.2", "0.4")),
            &["numa.nodes", "1..=8"][..],
        ),
        (
            format!(
                "{}[numa]\nshares = [0.7, 0.2]\n{policy}",
                sized("0.2", "0.4")
            ),
            &["numa.shares", "adding up to 1"][..],
        ),
        (
            format!("{}[numa]\nstrict = 1.5\n{policy}", sized("0.2", "0.4")),
            &["numa.strict", "[0, 1]"][..],
        ),
        (
            format!(
                "{}[numa]\nnodes = 2\n{}",
                sized("0.2", "0.4"),
                policy.replace("machine", "socket")
            ),
            &["key `numa` of [[policy]] #1", "machine+cluster"][..],
        ),
        (
            format!(
                "{}[numa]\nnodes = 2\n[[policy]]\nname = \"bf-js\"\nscore = \"bestfit-v1\"\n",
                sized("0.2", "0.4")
            ),
            &["key `numa` of [[policy]] #1", "every policy needs one"][..],
        ),
        (
            format!(
                "{}[numa]\nnodes = 2\n[[policy]]\nname = \"fifo-ff\"\nnuma = \"default\"\n",
                sized("0.2", "0.4")
            ),
            &["key `score` of [[policy]] #1", "multi-resource path"][..],
        ),
        (
            format!("{}{policy}", sized("0.2", "0.4")),
            &["key `numa` of [[policy]] #1", "a [numa] table"][..],
        ),
        (
            // ρ* with nodes needs finitely many sizes
            format!(
                "{}[numa]\nnodes = 2\n{policy}[[claim]]\nkind = \"threshold\"\npolicy = \"bf-js-bestfit-v1\"\nat_least = 0.5\n",
                sized("0.2", "0.4")
            ),
            &["sweep", "finitely many"][..],
        ),
        (
            format!(
                "{}{policy}[[policy]]\nname = \"fifo-ff\"\nscore = \"firstfit-v1\"\nnuma = \"default\"\n[numa]\nnodes = 2\n[[claim]]\nkind = \"limit-order\"\norder = [\"bf-js-bestfit-v1\"]\n",
                sized("0.2", "0.4").replace(
                    "{ dist = \"uniform\", low = 0.2, high = 0.4 }",
                    "{ dist = \"discrete\", values = [0.3], probs = [1.0] }"
                )
            ),
            &["key `order` of [[claim]] #1", "at least two"][..],
        ),
    ] {
        refused_in(&d, "hostile.toml", &text, &[], words);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn constraint_files_that_cannot_run_are_refused_naming_file_line_and_column() {
    let header = "kind,job,cpu,memory,disk,count,attributes,constraints\n";
    let machines = "machine,,1,1,,2,arch=x86;cores=8,\nmachine,,0.5,0.5,,1,arch=arm;cores=4,\n";
    let cases: [(&str, &str, &[&str]); 6] = [
        (
            "unknown",
            "task,1,0.2,0.2,,1,,disks >= 2\n",
            &[
                "snap:4",
                "column `constraints`",
                "unknown attribute `disks`",
            ],
        ),
        (
            "op-type",
            "task,1,0.2,0.2,,1,,arch >= x86\n",
            &[
                "snap:4",
                "column `constraints`",
                "operator `>=`",
                "categorical",
            ],
        ),
        (
            "not-number",
            "task,1,0.2,0.2,,1,,cores > eight\n",
            &["snap:4", "`cores` is numeric"],
        ),
        (
            "never",
            "task,1,0.2,0.2,,1,,\ntask,2,0.2,0.2,,1,,arch = arm; cores >= 8\n",
            &[
                "snap:5",
                "no machine satisfies every constraint",
                "could never run",
            ],
        ),
        (
            "no-room",
            "task,1,0.6,0.2,,1,,arch = arm\n",
            &[
                "snap:4",
                "fits on no machine its constraints allow",
                "arch = arm",
            ],
        ),
        (
            "syntax",
            "task,1,0.2,0.2,,1,,arch => x86\n",
            &["snap:4", "column `constraints`", "unknown operator"],
        ),
    ];
    for (name, tasks, words) in cases {
        let text = format!("{header}{machines}{tasks}");
        packing(&format!("cons-{name}"), "csv", text.as_bytes(), words);
    }
}

#[test]
fn constraint_characterisations_that_cannot_be_are_refused() {
    let snap = b"kind,job,cpu,memory,disk,count\nmachine,0,1,1,,4\ntask,1,0.2,0.2,,3\n";
    let d = tmp("characterisation");
    write(&d, "snap", snap);
    let base = PACKING.replace("SOURCE", "csv");
    let good = "[constraints]\nvocabulary = [\"cores >= 8\", \"arch = x86\"]\n[constraints.values]\ncores = [4, 8]\narch = [\"x86\", \"arm\"]\n[[constraints.machines]]\nshare = 1.0\nfrequency = [0.5, 1.0]\n[[constraints.tasks]]\nshare = 1.0\nfrequency = [0.5, 0.5]\n";
    for (from, to, words) in [
        (
            "\"cores >= 8\"",
            "\"disks >= 8\"",
            &["constraints.values.disks"][..],
        ),
        (
            "\"arch = x86\"",
            "\"arch > x86\"",
            &["element #2 of key `constraints.vocabulary`", "categorical"],
        ),
        (
            "\"arch = x86\"",
            "\"arch x86\"",
            &["element #2 of key `constraints.vocabulary`", "no operator"],
        ),
        (
            "\"arch = x86\"",
            "\"cores >= 8\"",
            &["element #2 of key `constraints.vocabulary`", "once"],
        ),
        (
            "frequency = [0.5, 1.0]",
            "frequency = [0.5]",
            &[
                "key `frequency` of [[constraints.machines]] #1",
                "one fraction per vocabulary item",
            ],
        ),
        (
            "frequency = [0.5, 0.5]",
            "frequency = [0.5, 1.5]",
            &["key `frequency` of [[constraints.tasks]] #1", "[0, 1]"],
        ),
        (
            "share = 1.0\nfrequency = [0.5, 1.0]",
            "share = 0.5\nfrequency = [0.5, 1.0]",
            &["constraints.machines", "adding up to 1"],
        ),
        (
            "arch = [\"x86\", \"arm\"]",
            "arch = [\"x86\", \"arm\"]\nzone = [\"a\"]",
            &["constraints.values.zone"],
        ),
        // every machine arm, every task needs x86: no task can ever run
        (
            "frequency = [0.5, 1.0]\n[[constraints.tasks]]\nshare = 1.0\nfrequency = [0.5, 0.5]",
            "frequency = [0.5, 0.0]\n[[constraints.tasks]]\nshare = 1.0\nfrequency = [0.5, 1.0]",
            &["constraints.tasks", "1000 draws"],
        ),
    ] {
        assert!(good.contains(from), "{from}");
        let text = base.clone() + &good.replace(from, to);
        let words: Vec<&str> = words.to_vec();
        refused_in(&d, "p.toml", &text, &[], &words);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A queueing file with placement constraints, each case changing one thing.
#[test]
fn queueing_constraints_that_cannot_run_are_refused() {
    let constraints = r#"
[constraints]
vocabulary = ["tier = gold", "cores >= 16"]
[constraints.values]
tier = ["gold", "silver"]
cores = [8, 16]
[[constraints.machines]]
share = 1.0
frequency = [0.3, 0.5]
[[constraints.tasks]]
share = 0.5
frequency = [0, 0]
[[constraints.tasks]]
share = 0.5
frequency = [0.5, 0.5]
"#;
    let scored = QUEUE.replace(
        "name = \"bf-js\"",
        "name = \"bf-js\"\nscore = \"bestfit-v1\"",
    );
    let d = tmp("queue-constraints");
    for (text, words) in [
        // a policy without a score: VQS-type policies have no constrained form
        (
            format!(
                "{}{constraints}",
                QUEUE.replace("\"bf-js\"", "\"vqs\"\nJ = 2")
            ),
            &[
                "key `score` of [[policy]] #1",
                "no constrained form",
                "q.toml",
            ][..],
        ),
        (
            format!("{QUEUE}{constraints}"),
            &["key `score` of [[policy]] #1", "multi-resource path"][..],
        ),
        // a constraint on an attribute without values
        (
            format!(
                "{scored}{}",
                constraints.replace("\"cores >= 16\"", "\"disks >= 2\"")
            ),
            &["constraints.values.disks", "the values attribute"][..],
        ),
        // an ordering operator on a categorical attribute
        (
            format!(
                "{scored}{}",
                constraints.replace("\"tier = gold\"", "\"tier >= gold\"")
            ),
            &["element #1 of key `constraints.vocabulary`"][..],
        ),
        // machine frequencies no population can have: one value of `tier` per server, so
        // `tier = gold` and `tier != gold` must add up to 1, `= gold` and `= silver` to at most 1
        (
            format!(
                "{scored}{}",
                constraints
                    .replace("\"cores >= 16\"", "\"tier != gold\"")
                    .replace("cores = [8, 16]\n", "")
            ),
            &[
                "key `frequency` of [[constraints.machines]] #1",
                "`tier != gold` 0.5",
            ][..],
        ),
        (
            format!(
                "{scored}{}",
                constraints
                    .replace("\"cores >= 16\"", "\"tier = silver\"")
                    .replace("cores = [8, 16]\n", "")
                    .replace("frequency = [0.3, 0.5]", "frequency = [1.0, 1.0]")
            ),
            &[
                "key `frequency` of [[constraints.machines]] #1",
                "contradictory",
            ][..],
        ),
        // a task cluster that always asks for what no server has
        (
            format!(
                "{scored}{}",
                constraints
                    .replace("frequency = [0.3, 0.5]", "frequency = [0, 0.5]")
                    .replace("frequency = [0.5, 0.5]", "frequency = [1, 0.5]")
            ),
            &[
                "key `frequency` of [[constraints.tasks]] #2",
                "could never run",
            ][..],
        ),
        // the synthesis validation: what to synthesise again, and quota only with servers to draw
        (
            format!(
                "{scored}{}",
                constraints.replace(
                    "[constraints.values]",
                    "resynthesise = \"servers\"\n[constraints.values]"
                )
            ),
            &["constraints.resynthesise", "\"machines\"", "servers"][..],
        ),
        (
            format!(
                "{scored}{}",
                constraints.replace(
                    "[constraints.values]",
                    "resynthesise = \"tasks\"\nquota = true\n[constraints.values]"
                )
            ),
            &["constraints.quota", "resynthesise = \"tasks\""][..],
        ),
        (
            format!(
                "{scored}{}",
                constraints.replace("[constraints.values]", "quota = true\n[constraints.values]")
            ),
            &["constraints.quota", "(absent)"][..],
        ),
        // a delay-trend claim without constraints
        (
            format!(
                "{scored}[[claim]]\nkind = \"delay-trend\"\npolicy = \"bf-js-bestfit-v1\"\nload = 0.5\nat_least = 0.5\n"
            ),
            &["key `kind` of [[claim]] #1", "[constraints]"][..],
        ),
        // a delay-trend claim on Sharma et al.'s quantity without the runs it needs, a
        // quantity that is neither, and a quantity on another kind of claim
        (
            format!(
                "{scored}[[claim]]\nkind = \"delay-trend\"\npolicy = \"bf-js-bestfit-v1\"\nload = 0.5\nat_least = 0.5\n{}",
                constraints.replace(
                    "[constraints.values]",
                    "compare_unconstrained = false\n[constraints.values]"
                )
            ),
            &[
                "key `quantity` of [[claim]] #1",
                "over-all-jobs",
                "compare_unconstrained",
            ][..],
        ),
        (
            format!(
                "{scored}[[claim]]\nkind = \"delay-trend\"\npolicy = \"bf-js-bestfit-v1\"\nload = 0.5\nat_least = 0.5\nquantity = \"mean\"\n{constraints}"
            ),
            &[
                "key `quantity` of [[claim]] #1",
                "\"normalised\"",
                "\"mean\"",
            ][..],
        ),
        (
            format!(
                "{scored}[[claim]]\npolicy = \"bf-js-bestfit-v1\"\nload = 0.5\nexpect = \"stable\"\nquantity = \"normalised\"\n{constraints}"
            ),
            &["key `quantity` of [[claim]] #1", "delay-trend"][..],
        ),
        // a synthesis-error claim with constraints but no synthesis validation, and with no bound
        (
            format!("{scored}[[claim]]\nkind = \"synthesis-error\"\nat_most = 0.13\n{constraints}"),
            &["key `kind` of [[claim]] #1", "resynthesise"][..],
        ),
        (
            format!("{scored}[[claim]]\nkind = \"synthesis-error\"\nat_most = -1\n{constraints}"),
            &["key `at_most` of [[claim]] #1", "-1"][..],
        ),
    ] {
        refused_in(&d, "q.toml", &text, &[], words);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_policy_table_key_of_the_wrong_type_or_for_another_policy_is_refused_by_name() {
    let vqs = |keys: &str| {
        QUEUE.replace(
            "[[policy]]\nname = \"bf-js\"\n",
            &format!("[[policy]]\nname = \"vqs\"\n{keys}"),
        )
    };
    for (text, words) in [
        (
            vqs("J = \"4\"\n"),
            &["key `J` of [[policy]] #1", "an integer", "string"][..],
        ),
        (
            vqs("J = 4\nstall = \"half\"\n"),
            &["key `stall` of [[policy]] #1", "a number"][..],
        ),
        (
            vqs("cuts = [0.5, \"x\"]\n"),
            &["key `cuts` of [[policy]] #1", "an array of numbers"][..],
        ),
        (
            vqs("J = 4\nscore = \"epvm\"\n"),
            &["key `score` of [[policy]] #1", "only bf-js and fifo-ff"][..],
        ),
        (
            vqs("J = 4\nlabl = \"x\"\n"),
            &[
                "key `labl` of [[policy]] #1",
                "no `labl` for policy \"vqs\"",
            ][..],
        ),
    ] {
        refused("policy-keys", "q.toml", &text, &[], words);
    }
}
