//! Fuzzing as tests: mutated experiment files and random or mutated bytes fed to every reader
//! must give a value or an error, never a panic; whatever validation accepts stays within the
//! work limits. `PACKLAB_FUZZ_CASES` sets the number of cases per property (default 1,000 for
//! experiment files and 500 per reader; run for example `PACKLAB_FUZZ_CASES=100000 cargo test
//! --release fuzz` for a long local run). A failure prints the minimal input proptest found;
//! it then becomes a regression test in `hostile.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use packlab::experiment::ExperimentFile;
use packlab::limits::MAX_UNITS;
use packlab::packing::sources;
use packlab::workload::trace::{TraceFormat, TraceReader};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn cases(default: u32) -> u32 {
    std::env::var("PACKLAB_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("packlab-fuzz-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Small stand-ins for the large data files the shipped experiments read, so that each case is
/// fast; the experiment files are otherwise the shipped ones.
fn fixtures(d: &Path) {
    std::fs::write(
        d.join("snap.csv"),
        "kind,job,cpu,memory,disk,count\nmachine,0,1,1,,3\nmachine,0,0.5,0.5,,2\ntask,1,0.25,0.5,,4\ntask,2,0.5,0.125,,2\n",
    )
    .unwrap();
    std::fs::write(
        d.join("trace.csv"),
        "arrival,duration,cpu,memory\n0,30,0.01,0.02\n1,20,0.02,0.01\n5,100,0.005,0.005\n9,3,0.03,0.01\n",
    )
    .unwrap();
}

/// A shipped experiment with its data files swapped for the fixtures.
fn shipped(d: &Path) -> Vec<(String, toml::Table)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir("experiments")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for f in files {
        let mut t: toml::Table = toml::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let snap = d.join("snap.csv").display().to_string();
        if let Some(s) = t.get_mut("snapshot").and_then(|s| s.as_table_mut()) {
            s.insert("source".into(), "csv".into());
            s.insert("file".into(), snap.clone().into());
            s.remove("nodes");
        }
        if let Some(w) = t.get_mut("workload").and_then(|w| w.as_table_mut()) {
            if let Some(tr) = w.get_mut("trace").and_then(|x| x.as_table_mut()) {
                tr.insert("format".into(), "csv".into());
                tr.insert(
                    "file".into(),
                    d.join("trace.csv").display().to_string().into(),
                );
            }
            if let Some(s) = w.get_mut("sizes").and_then(|x| x.as_table_mut())
                && s.get("dist").and_then(|x| x.as_str()) == Some("tasks")
            {
                s.insert("source".into(), "csv".into());
                s.insert("file".into(), snap.into());
            }
        }
        out.push((f.file_name().unwrap().to_string_lossy().into_owned(), t));
    }
    out
}

/// Extreme and ill-typed values a mutation may put anywhere.
fn nasty() -> impl Strategy<Value = toml::Value> {
    prop_oneof![
        Just(toml::Value::Float(f64::NAN)),
        Just(toml::Value::Float(f64::INFINITY)),
        Just(toml::Value::Float(-1.0)),
        Just(toml::Value::Float(0.0)),
        Just(toml::Value::Float(1e300)),
        Just(toml::Value::Float(1e-300)),
        Just(toml::Value::Float(1e9)),
        Just(toml::Value::Integer(0)),
        Just(toml::Value::Integer(-1)),
        Just(toml::Value::Integer(i64::MAX)),
        Just(toml::Value::Integer(1_000_000_000)),
        Just(toml::Value::String("x".repeat(10_000))),
        Just(toml::Value::String(String::new())),
        Just(toml::Value::String("\0../../etc".into())),
        Just(toml::Value::Boolean(true)),
        Just(toml::Value::Array(Vec::new())),
        Just(toml::Value::Table(toml::Table::new())),
        any::<f64>().prop_map(toml::Value::Float),
        any::<i64>().prop_map(toml::Value::Integer),
        (0.0f64..2.0).prop_map(toml::Value::Float),
    ]
}

/// One mutation: (which key, counted over a walk of the table; what to do; a value).
type Mutation = (usize, u8, toml::Value);

/// Values in `v`, itself included.
fn count(v: &toml::Value) -> usize {
    1 + match v {
        toml::Value::Table(t) => t.values().map(count).sum(),
        toml::Value::Array(a) => a.iter().map(count).sum(),
        _ => 0,
    }
}

/// Applies a mutation to the `at`-th value of a walk of `root`: replace it, scale a number,
/// drop a key or an element, or duplicate an array element.
fn mutate(root: &mut toml::Value, (at, how, value): &Mutation) {
    let target = at % count(root);
    edit(root, target, &mut 0, *how, value);
}

fn edit(v: &mut toml::Value, target: usize, k: &mut usize, how: u8, value: &toml::Value) -> bool {
    if *k == target {
        match (how % 5, &mut *v) {
            (0, _) => *v = value.clone(),
            (1, toml::Value::Float(x)) => *x *= 1e9,
            (1, toml::Value::Integer(x)) => *x = x.saturating_mul(1_000_000),
            (2, toml::Value::Table(t)) if !t.is_empty() => {
                let key = t.keys().nth(target % t.len()).unwrap().clone();
                t.remove(&key);
            }
            (3, toml::Value::Array(a)) if !a.is_empty() => {
                a.remove(target % a.len());
            }
            (4, toml::Value::Array(a)) if !a.is_empty() => {
                let x = a[target % a.len()].clone();
                a.push(x);
            }
            _ => *v = value.clone(),
        }
        return true;
    }
    *k += 1;
    match v {
        toml::Value::Table(t) => t.iter_mut().any(|(_, x)| edit(x, target, k, how, value)),
        toml::Value::Array(a) => a.iter_mut().any(|x| edit(x, target, k, how, value)),
        _ => false,
    }
}

#[test]
fn fuzz_mutated_experiment_files_never_panic_and_stay_bounded() {
    let d = dir("experiments");
    fixtures(&d);
    let files = shipped(&d);
    let mut runner = TestRunner::new(Config {
        cases: cases(1_000),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..files.len(),
        prop::collection::vec((any::<usize>(), any::<u8>(), nasty()), 1..4),
    );
    runner
        .run(&strategy, |(f, mutations)| {
            let (name, table) = &files[f];
            let mut v = toml::Value::Table(table.clone());
            for m in &mutations {
                mutate(&mut v, m);
            }
            let text = toml::to_string(&v).unwrap_or_default();
            // relative paths resolve next to the real file, as for the shipped one
            let path = Path::new("experiments").join(name);
            let parsed = catch_unwind(AssertUnwindSafe(|| ExperimentFile::parse(&path, &text)));
            let parsed = parsed.map_err(|_| TestCaseError::fail(format!("panic on:\n{text}")))?;
            if let Ok(exp) = parsed {
                let units = exp.units();
                prop_assert!(units as u64 <= MAX_UNITS, "{units} units accepted:\n{text}");
            }
            Ok(())
        })
        .unwrap();
    std::fs::remove_dir_all(&d).unwrap();
}

/// Valid-looking inputs for each reader, to be cut, spliced and sprinkled with bytes.
const SEEDS: [(&str, &str); 8] = [
    ("orlib", "1\n u1\n 150 3 1\n 60\n 50\n 40\n"),
    ("triplet", "3\n1000\n300\n300\n400\n"),
    (
        "csv",
        "kind,job,cpu,memory,disk,count\nmachine,0,1,1,,2\ntask,1,0.5,0.5,,3\n",
    ),
    (
        "google",
        "0;1;2;0;5;0;u;0;0.1;0.2\n0;1;3;0;5;0;u;0;0.25;0.125\n",
    ),
    (
        "alibaba",
        "task_create_time,task_end_time,job_id,task_id,number_of_instances,status,plan_cpu,plan_mem\n0,10,1,1,2,Terminated,100,0.01\n5,20,1,2,1,Terminated,50,0.02\n",
    ),
    (
        "swf",
        "; MaxProcs: 64\n1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n",
    ),
    ("tracecsv", "arrival,duration,cpu\n0,10,0.5\n1,5,0.25\n"),
    ("numbers", "0.1 0.2, 0.3\n# comment\n0.45\n"),
];

/// Feeds `bytes` to reader `which`; returns whether it panicked.
fn read_with(which: &str, path: &Path) -> bool {
    catch_unwind(AssertUnwindSafe(|| match which {
        "orlib" => drop(sources::read_orlib(path)),
        "triplet" => drop(sources::read_triplet(path)),
        "csv" => drop(sources::read_snapshot_csv(path)),
        "google" => drop(sources::read_google_snapshot(path)),
        "alibaba" => {
            drop(sources::read_alibaba_gpu(path, path));
            drop(
                TraceReader::open(path, TraceFormat::Alibaba2017, true)
                    .map(|r| r.take(10_000).count()),
            );
        }
        "swf" => {
            drop(TraceReader::open(path, TraceFormat::Swf, true).map(|r| r.take(10_000).count()))
        }
        "tracecsv" => {
            drop(TraceReader::open(path, TraceFormat::Csv, false).map(|r| r.take(10_000).count()));
            drop(
                TraceReader::open(path, TraceFormat::GoogleTaskEvents, false)
                    .map(|r| r.take(10_000).count()),
            );
        }
        _ => {
            // a sizes file, read by the experiment file that names it
            let name = path.file_name().unwrap().to_string_lossy();
            let text = format!(
                "name = \"fuzz\"\n[cluster]\nservers = 2\n[workload]\nsizes = {{ dist = \"empirical\", file = {name:?} }}\nservice = {{ dist = \"geometric\", mean = 10.0 }}\n[run]\nslots = 1000\n[sweep]\nload = [0.5]\n[[policy]]\nname = \"bf-js\"\n"
            );
            drop(ExperimentFile::parse(&path.with_file_name("fuzz.toml"), &text));
        }
    }))
    .is_err()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn fuzz_every_reader_survives_random_and_mutated_bytes() {
    let d = dir("readers");
    let mut runner = TestRunner::new(Config {
        cases: cases(500) * SEEDS.len() as u32,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..SEEDS.len(),
        prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..6), 0..8),
        prop::collection::vec(any::<u8>(), 0..64),
        0u8..4,
    );
    runner
        .run(&strategy, |(k, edits, noise, wrap)| {
            let (which, seed) = SEEDS[k];
            let mut bytes = seed.as_bytes().to_vec();
            for (at, b, how) in edits {
                let i = if bytes.is_empty() {
                    0
                } else {
                    at % bytes.len()
                };
                match how {
                    0 => bytes.insert(i, b),
                    1 if !bytes.is_empty() => bytes[i] = b,
                    2 => bytes.truncate(i),
                    3 => {
                        // a digit run made huge
                        for c in "99999999999999999999".bytes() {
                            bytes.insert(i, c);
                        }
                    }
                    4 => {
                        let line = bytes[..i].to_vec();
                        bytes.extend_from_slice(&line);
                    }
                    _ => bytes.insert(i, b','),
                }
            }
            bytes.extend_from_slice(&noise);
            let bytes = match wrap {
                0 => bytes,
                1 => gzip(&bytes),
                2 => {
                    let g = gzip(&bytes);
                    g[..g.len() / 2].to_vec()
                }
                _ => [gzip(&bytes), gzip(seed.as_bytes())].concat(),
            };
            let path = d.join(format!("input-{which}"));
            std::fs::write(&path, &bytes).unwrap();
            prop_assert!(!read_with(which, &path), "{which} panicked on {bytes:?}");
            Ok(())
        })
        .unwrap();
    std::fs::remove_dir_all(&d).unwrap();
}
