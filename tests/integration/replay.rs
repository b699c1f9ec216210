//! Trace replay in the simulator: slots, scaling and services as specified, the same result as
//! the sampled jobs the trace was written from, invariants on the real extract, and bad trace
//! keys exiting 2.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use packlab::model::{Job, Size};
use packlab::policy::PolicySpec;
use packlab::sim::{Cluster, RunConfig};
use packlab::workload::Source;
use packlab::workload::replay::{SizeMode, TraceSource, TraceSpec, TraceSummary};
use packlab::workload::trace::TraceFormat;
use packlab::workload::{ArrivalProcess, Arrivals, JobSource, ServiceLaw, SizeLaw};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("packlab-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn spec(file: &Path, slot: f64, size: SizeMode) -> TraceSpec {
    TraceSpec {
        file: file.to_path_buf(),
        format: TraceFormat::Csv,
        finished_only: true,
        slot,
        size,
        scale: 1.0,
        start: None,
        end: None,
        thin: 1,
    }
}

fn drain(src: &mut TraceSource, slots: u64) -> Vec<(u64, Job)> {
    let mut out = Vec::new();
    let mut batch = Vec::new();
    for t in 0..slots {
        batch.clear();
        src.batch(t, &mut batch);
        out.extend(batch.iter().map(|j| (t, *j)));
    }
    out
}

#[test]
fn slots_scaling_and_services_follow_the_spec() {
    let d = dir("spec");
    let f = d.join("t.csv");
    // arrival, duration, cpu, memory (seconds, fractions of a machine)
    std::fs::write(
        &f,
        "arrival,duration,cpu,memory\n10,0,0.2,0.1\n10.05,3,0.1,0.4\n10.25,0.31,0.5,0.5\n12,1,0.3,0\n",
    )
    .unwrap();
    let s = spec(&f, 0.1, SizeMode::Max);
    let sum = TraceSummary::read(&s).unwrap();
    assert_eq!((sum.tasks, sum.jobs), (4, 4));
    assert_eq!((sum.first, sum.last), (10.0, 12.0));
    // c = 1: slots ⌊(a − 10) / 0.1⌋ = 0, 0, 2, 20; services ⌈d / 0.1⌉ ≥ 1 = 1, 30, 4, 10
    let mut src = TraceSource::open(&s, 1.0, 10.0, f64::INFINITY).unwrap();
    let got: Vec<(u64, u64, u32, Size)> = drain(&mut src, 30)
        .into_iter()
        .map(|(t, j)| (t, j.id, j.service, j.size))
        .collect();
    let sz = |x: f64| Size::from_f64(x).unwrap();
    assert_eq!(
        got,
        vec![
            (0, 0, 1, sz(0.2)),
            (0, 1, 30, sz(0.4)),
            (2, 2, 4, sz(0.5)),
            (20, 3, 10, sz(0.3)),
        ]
    );
    assert_eq!(sum.slots(&s, 1.0, 1), 21);
    // c = 2: arrival times halved, durations not: slots 0, 0, 1, 10
    let mut src = TraceSource::open(&s, 2.0, 10.0, f64::INFINITY).unwrap();
    let slots: Vec<u64> = drain(&mut src, 30).iter().map(|x| x.0).collect();
    assert_eq!(slots, vec![0, 0, 1, 10]);
    assert_eq!(sum.slots(&s, 2.0, 1), 11);
    assert!((sum.rate(&s, 2.0) - 4.0 * 2.0 * 0.1 / 2.0).abs() < 1e-12);
    // two windows [10, 11) and [11, ∞)
    assert_eq!(sum.window(&s, 0, 2), (10.0, 11.0));
    let mut src = TraceSource::open(&s, 1.0, 11.0, f64::INFINITY).unwrap();
    assert_eq!(
        drain(&mut src, 30).iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![10]
    );
    // a size pushed above one server by `scale` is an error naming the line
    let mut big = s.clone();
    big.scale = 2.5;
    let e = TraceSummary::read(&big).unwrap_err().to_string();
    assert!(e.contains("t.csv:4") && e.contains("scale"), "{e}");
}

#[test]
fn offered_load_counts_size_times_duration() {
    // larger tasks run longer: E[R S] ≠ E[R] E[S]
    let d = dir("load");
    let f = d.join("t.csv");
    // sizes 0.1 for 1 s, 0.5 for 9 s (slots of 1 s): E[R] = 0.3, E[S] = 5, E[R S] = 2.3
    std::fs::write(
        &f,
        "arrival,duration,cpu,memory\n0,1,0.1,0\n2,9,0.5,0\n4,1,0.1,0\n6,9,0.5,0\n8,1,0.1,0\n10,9,0.5,0\n",
    )
    .unwrap();
    let s = spec(&f, 1.0, SizeMode::Max);
    let sum = TraceSummary::read(&s).unwrap();
    assert!((sum.mean_work[0] - 2.3).abs() < 1e-9, "{:?}", sum.mean_work);
    // six jobs over a span of 10 s at c = 2: λ = 6 · 2 · 1 / 10 = 1.2 jobs per slot
    let servers = 4;
    let lambda = sum.rate(&s, 2.0);
    assert!((lambda - 1.2).abs() < 1e-12);
    let load = sum.load(&s, 2.0, servers);
    assert!((load - 1.2 * 2.3 / 4.0).abs() < 1e-9, "{load}");
    // the independent-product formula would say 1.2 · 0.3 · 5 / 4 = 0.45 < 0.69
    assert!(load > 1.2 * 0.3 * 5.0 / 4.0 + 0.2);
}

#[test]
fn a_trace_of_sampled_jobs_replays_to_the_same_run() {
    // jobs drawn by the sampled source, written as a trace, replayed: the same decisions
    let (slot, slots, servers) = (0.5, 20_000u64, 5usize);
    let law = SizeLaw::uniform(Size::from_f64(0.1).unwrap(), Size::from_f64(0.6).unwrap());
    let service = ServiceLaw::geometric(20.0);
    let rate = 0.8 * servers as f64 / (law.mean() * service.mean());
    let arrivals = Arrivals::new(ArrivalProcess::Poisson, rate).unwrap();
    let source = || JobSource::new(law.clone(), service.clone(), arrivals.clone(), 99);
    let mut csv = String::from("arrival,duration,cpu\n");
    let mut s = source();
    let mut batch = Vec::new();
    let mut first = None;
    for t in 0..slots {
        batch.clear();
        s.batch(t, &mut batch);
        for j in &batch {
            first.get_or_insert(t);
            writeln!(
                csv,
                "{:?},{:?},{:?}",
                t as f64 * slot,
                j.service as f64 * slot,
                j.size.as_f64()
            )
            .unwrap();
        }
    }
    let d = dir("same");
    let f = d.join("jobs.csv");
    std::fs::write(&f, csv).unwrap();
    let sp = spec(&f, slot, SizeMode::Cpu);
    let sum = TraceSummary::read(&sp).unwrap();
    let first = first.unwrap();
    let cfg = RunConfig {
        slots: slots - first,
        warmup: 1000,
        queue_cap: 100_000,
        samples: 100,
        check_every_slot: false,
        max_slots: 0,
        mean_service: 1.0,
        watch: packlab::sim::Watch::NONE,
        look: packlab::sim::Look::ALWAYS,
    };
    for name in ["bf-js", "fifo-ff"] {
        let p = PolicySpec::from_name(name).unwrap();
        let mut sampled = source();
        // skip the empty slots before the first job, so both runs see the same slot numbers
        let mut skip = Vec::new();
        for t in 0..first {
            sampled.batch(t, &mut skip);
        }
        struct Shifted(JobSource, u64);
        impl Source<Job> for Shifted {
            fn batch(&mut self, t: u64, out: &mut Vec<Job>) {
                let n = out.len();
                self.0.batch(t + self.1, out);
                for j in &mut out[n..] {
                    j.arrival -= self.1;
                }
            }
            fn arrived(&self) -> u64 {
                self.0.arrived()
            }
            fn arrived_work(&self) -> u128 {
                self.0.arrived_work()
            }
        }
        let mut a = Shifted(sampled, first);
        let mut b = TraceSource::open(&sp, 1.0, sum.first, f64::INFINITY).unwrap();
        let ra = packlab::policy::run(
            p.build(servers).as_mut(),
            &mut a,
            &mut Cluster::new(servers, 20.0),
            &cfg,
        )
        .unwrap();
        let rb = packlab::policy::run(
            p.build(servers).as_mut(),
            &mut b,
            &mut Cluster::new(servers, 20.0),
            &cfg,
        )
        .unwrap();
        assert!(ra.arrived > 10_000);
        assert_eq!(ra, rb, "{name}");
    }
}

#[test]
fn real_extract_keeps_every_invariant_every_slot() {
    let s = TraceSpec {
        format: TraceFormat::Alibaba2017,
        ..spec(
            Path::new("data/alibaba2017/batch_task_sorted.csv.gz"),
            0.1,
            SizeMode::Max,
        )
    };
    let sum = TraceSummary::read(&s).unwrap();
    assert_eq!((sum.tasks, sum.jobs), (67_003, 10_214_262));
    for name in ["bf-js", "fifo-ff"] {
        let p = PolicySpec::from_name(name).unwrap();
        // 200 servers over the first 2,000 s at c = 1: queues build up and drain
        let mut src = TraceSource::open(&s, 1.0, sum.first, sum.first + 2_000.0).unwrap();
        let cfg = RunConfig {
            slots: 20_000,
            warmup: 0,
            queue_cap: 10_000_000,
            samples: 100,
            check_every_slot: true,
            max_slots: 0,
            mean_service: 1.0,
            watch: packlab::sim::Watch::NONE,
            look: packlab::sim::Look::ALWAYS,
        };
        let r = packlab::policy::run(
            p.build(200).as_mut(),
            &mut src,
            &mut Cluster::new(200, 1000.0),
            &cfg,
        )
        .unwrap();
        assert!(r.arrived > 100_000 && r.max_queue > 0, "{name}: {r:?}");
        assert!(src.error().is_none());
    }
}

fn packlab_exit(text: &str, name: &str) -> (Option<i32>, String) {
    let d = dir(name);
    let f = d.join("exp.toml");
    std::fs::write(&f, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_packlab"))
        .args([f.to_str().unwrap(), "--out", d.join("o").to_str().unwrap()])
        .output()
        .unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into())
}

#[test]
fn bad_trace_keys_exit_2() {
    let data = std::env::current_dir()
        .unwrap()
        .join("data/alibaba2017/batch_task_sorted.csv.gz");
    let base = |workload: &str, sweep: &str| {
        format!(
            "name = \"t\"\n[cluster]\nservers = 10\n[workload]\n{workload}\n[run]\nreplications = 1\n\
             [sweep]\n{sweep}\n[[policy]]\nname = \"bf-js\"\n"
        )
    };
    let trace = |extra: &str| {
        format!(
            "trace = {{ format = \"alibaba2017\", file = \"{}\"{extra} }}",
            data.display()
        )
    };
    for (w, sweep, key) in [
        (trace(""), "load = [0.5]", "sweep"),
        (
            format!(
                "{}\nsizes = {{ dist = \"uniform\", low = 0.1, high = 0.2 }}",
                trace("")
            ),
            "scaling = [1.0]",
            "workload.sizes",
        ),
        (
            trace(", slot = 0.0"),
            "scaling = [1.0]",
            "workload.trace.slot",
        ),
        (
            trace(", size = \"disk\""),
            "scaling = [1.0]",
            "workload.trace.size",
        ),
        (
            trace(", scale = 20.0"),
            "scaling = [1.0]",
            "workload.trace.file",
        ),
        (
            "trace = { format = \"parquet\", file = \"x\" }".to_string(),
            "scaling = [1.0]",
            "workload.trace.format",
        ),
        (
            "trace = { format = \"csv\", file = \"nope.csv\" }".to_string(),
            "scaling = [1.0]",
            "workload.trace.file",
        ),
    ] {
        let (code, err) = packlab_exit(&base(&w, sweep), key.replace('.', "_").as_str());
        assert_eq!(code, Some(2), "{key}: {err}");
        assert!(
            err.contains(key) && !err.contains("panicked"),
            "{key}: {err}"
        );
    }
}

#[test]
fn a_two_resource_trace_runs_scored_policies() {
    let d = dir("both");
    let mut csv = String::from("arrival,duration,cpu,memory\n");
    for k in 0..4000 {
        // CPU-heavy and memory-heavy jobs alternate: they pack well only side by side
        let (c, m) = if k % 2 == 0 { (0.6, 0.1) } else { (0.1, 0.6) };
        writeln!(csv, "{},{},{c},{m}", k as f64 * 0.5, 20 + k % 7).unwrap();
    }
    std::fs::write(d.join("t.csv"), csv).unwrap();
    let exp = |policy: &str| {
        format!(
            "name = \"both\"\n[cluster]\nservers = 10\n[workload]\n\
             trace = {{ format = \"csv\", file = \"t.csv\", slot = 1.0, size = \"both\" }}\n\
             [run]\nreplications = 2\n[sweep]\nscaling = [1.0, 2.0]\n{policy}"
        )
    };
    let run = |text: String| {
        let f = d.join("exp.toml");
        std::fs::write(&f, text).unwrap();
        Command::new(env!("CARGO_BIN_EXE_packlab"))
            .args([f.to_str().unwrap(), "--out", d.join("o").to_str().unwrap()])
            .output()
            .unwrap()
    };
    let o = run(exp("[[policy]]\nname = \"bf-js\"\n"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("key `score` of [[policy]] #1"), "{err}");
    let o = run(exp(
        "[[policy]]\nname = \"bf-js\"\nscore = \"bestfit-v1\"\n\
         [[policy]]\nname = \"fifo-ff\"\nscore = \"firstfit-v1\"\n",
    ));
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let runs = std::fs::read_to_string(d.join("o/runs.csv")).unwrap();
    // 2 policies × 2 scalings × 2 windows, each window replaying half of the jobs
    assert_eq!(runs.lines().count(), 9);
    let report = std::fs::read_to_string(d.join("o/report.md")).unwrap();
    assert!(report.contains("Jobs request 2 resources"), "{report}");
}
