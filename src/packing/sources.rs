//! Snapshot sources: OR-Library bin-packing files (identical one-dimensional machines = bins)
//! and the real Google 2011 task snapshot on the machine mix of Reiss et al. (see
//! `data/README.md` for formats and citations). Errors name the file and line.

use std::io::Read;
use std::path::Path;

use super::snapshot::{Attributes, Resources, Snapshot, Task, amount};
use crate::model::Size;

/// A malformed source file.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}:{line}: {what}")]
    Format {
        file: String,
        line: usize,
        what: String,
    },
}

fn read_text(path: &Path) -> Result<String, SourceError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| SourceError::Io {
        file: file.clone(),
        source,
    })?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .map_err(|source| SourceError::Io { file, source })?;
        Ok(s)
    } else {
        String::from_utf8(bytes).map_err(|e| SourceError::Io {
            file,
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })
    }
}

/// One OR-Library instance: items and bin capacity as integers, with the known optimum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinPacking {
    pub name: String,
    pub capacity: u64,
    pub items: Vec<u64>,
    /// The optimum number of bins (known for these instances).
    pub optimum: usize,
}

impl BinPacking {
    /// As a snapshot: one task per item and one bin per item (every item fits alone), sizes
    /// exact fractions of the capacity.
    pub fn snapshot(&self) -> Snapshot {
        let scale = |x: u64| (x as u128 * Size::UNIT as u128 / self.capacity as u128) as u64;
        assert!(
            Size::UNIT.is_multiple_of(self.capacity),
            "capacity divides the fixed-point unit"
        );
        Snapshot {
            dims: 1,
            machines: vec![[Size::UNIT, 0, 0]; self.items.len()],
            attributes: vec![Vec::new(); self.items.len()],
            tasks: self
                .items
                .iter()
                .enumerate()
                .map(|(i, &x)| Task {
                    job: i as u32,
                    request: [scale(x), 0, 0],
                })
                .collect(),
        }
    }
}

fn numbers(text: &str, file: &str) -> Result<Vec<(usize, String)>, SourceError> {
    let _ = file;
    Ok(text
        .lines()
        .enumerate()
        .flat_map(|(n, l)| l.split_whitespace().map(move |t| (n + 1, t.to_string())))
        .collect())
}

fn parse<T: std::str::FromStr>(tok: &(usize, String), file: &str) -> Result<T, SourceError> {
    tok.1.parse().map_err(|_| SourceError::Format {
        file: file.into(),
        line: tok.0,
        what: format!("expected a number, got `{}`", tok.1),
    })
}

/// Reads an OR-Library `binpackN.txt` file (several instances).
pub fn read_orlib(path: &Path) -> Result<Vec<BinPacking>, SourceError> {
    let file = path.display().to_string();
    let toks = numbers(&read_text(path)?, &file)?;
    let mut it = toks.iter();
    let eof = |line| SourceError::Format {
        file: file.clone(),
        line,
        what: "unexpected end of file".into(),
    };
    let count: usize = parse(it.next().ok_or_else(|| eof(1))?, &file)?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let name = it.next().ok_or_else(|| eof(0))?.1.clone();
        let capacity: u64 = parse(it.next().ok_or_else(|| eof(0))?, &file)?;
        let n: usize = parse(it.next().ok_or_else(|| eof(0))?, &file)?;
        let optimum: usize = parse(it.next().ok_or_else(|| eof(0))?, &file)?;
        let items = (0..n)
            .map(|_| parse(it.next().ok_or_else(|| eof(0))?, &file))
            .collect::<Result<Vec<u64>, _>>()?;
        if let Some((i, _)) = items.iter().enumerate().find(|(_, x)| **x > capacity) {
            return Err(SourceError::Format {
                file: file.clone(),
                line: 0,
                what: format!("instance {name}: item {i} exceeds the capacity {capacity}"),
            });
        }
        out.push(BinPacking {
            name,
            capacity,
            items,
            optimum,
        });
    }
    Ok(out)
}

/// Reads a Falkenauer triplet file (`n`, `capacity`, then n sizes); the optimum is
/// sum/capacity exactly.
pub fn read_triplet(path: &Path) -> Result<BinPacking, SourceError> {
    let file = path.display().to_string();
    let toks = numbers(&read_text(path)?, &file)?;
    if toks.len() < 2 {
        return Err(SourceError::Format {
            file,
            line: 1,
            what: "expected n and capacity".into(),
        });
    }
    let n: usize = parse(&toks[0], &file)?;
    let capacity: u64 = parse(&toks[1], &file)?;
    let items = toks[2..]
        .iter()
        .map(|t| parse(t, &file))
        .collect::<Result<Vec<u64>, _>>()?;
    if items.len() != n {
        return Err(SourceError::Format {
            file,
            line: 0,
            what: format!("expected {n} sizes, found {}", items.len()),
        });
    }
    let sum: u64 = items.iter().sum();
    Ok(BinPacking {
        name: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        capacity,
        optimum: sum.div_ceil(capacity) as usize,
        items,
    })
}

/// The machine mix of the 2011 Google cluster (Reiss et al., SoCC 2012, Table 1): (count, CPU,
/// memory), normalised to the largest machine.
pub const GOOGLE_2011_MACHINES: [(usize, f64, f64); 10] = [
    (6732, 0.50, 0.50),
    (3863, 0.50, 0.25),
    (1001, 0.50, 0.75),
    (795, 1.00, 1.00),
    (126, 0.25, 0.25),
    (52, 0.50, 0.12),
    (5, 0.50, 0.03),
    (5, 0.50, 0.97),
    (3, 1.00, 0.50),
    (1, 0.50, 0.06),
];

/// The Google 2011 task snapshot (CPU and memory requests) on the 12,583 machines of
/// [`GOOGLE_2011_MACHINES`], machines in the table's order.
pub fn read_google_snapshot(path: &Path) -> Result<Snapshot, SourceError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let mut tasks = Vec::new();
    let mut jobs: std::collections::HashMap<u64, u32> = Default::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(';').collect();
        let bad = |what: String| SourceError::Format {
            file: file.clone(),
            line: n + 1,
            what,
        };
        if f.len() != 10 {
            return Err(bad(format!(
                "expected 10 `;`-separated fields, found {}",
                f.len()
            )));
        }
        let job: u64 = f[1]
            .parse()
            .map_err(|_| bad(format!("job id `{}` is not an integer", f[1])))?;
        let mut req: Resources = [0; 3];
        for (d, k) in [(0, 8), (1, 9)] {
            let x: f64 = f[k]
                .parse()
                .map_err(|_| bad(format!("field {} `{}` is not a number", k + 1, f[k])))?;
            req[d] = amount(x).ok_or_else(|| bad(format!("negative request {x}")))?;
        }
        let next = jobs.len() as u32;
        let j = *jobs.entry(job).or_insert(next);
        tasks.push(Task {
            job: j,
            request: req,
        });
    }
    let mut machines = Vec::new();
    for &(count, cpu, mem) in &GOOGLE_2011_MACHINES {
        let m = [amount(cpu).unwrap(), amount(mem).unwrap(), 0];
        machines.extend(std::iter::repeat_n(m, count));
    }
    Ok(Snapshot {
        dims: 2,
        attributes: vec![Vec::new(); machines.len()],
        machines,
        tasks,
    })
}

/// A header-led CSV table: the column index of each wanted name, or a format error.
fn columns(header: &str, want: &[&str], file: &str) -> Result<Vec<usize>, SourceError> {
    let cols: Vec<&str> = header.split(',').map(|c| c.trim()).collect();
    want.iter()
        .map(|w| {
            cols.iter()
                .position(|c| c == w)
                .ok_or_else(|| SourceError::Format {
                    file: file.into(),
                    line: 1,
                    what: format!("missing column `{w}` (header: {header})"),
                })
        })
        .collect()
}

fn field_f64(f: &[&str], k: usize, line: usize, file: &str) -> Result<f64, SourceError> {
    let v = f.get(k).map(|s| s.trim()).unwrap_or("");
    v.parse().map_err(|_| SourceError::Format {
        file: file.into(),
        line,
        what: format!("column {} `{v}` is not a number", k + 1),
    })
}

/// The Alibaba GPU 2023 trace as a snapshot of three resources (CPU, memory, GPUs), each
/// normalised by the largest node; see `data/README.md`.
pub fn read_alibaba_gpu(pods: &Path, nodes: &Path) -> Result<Snapshot, SourceError> {
    let nfile = nodes.display().to_string();
    let ntext = read_text(nodes)?;
    let mut lines = ntext.lines();
    let header = lines.next().unwrap_or("");
    let c = columns(header, &["cpu_milli", "memory_mib", "gpu", "model"], &nfile)?;
    let mut raw_nodes = Vec::new();
    let mut attributes = Vec::new();
    for (n, l) in lines.enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split(',').collect();
        let v: Vec<f64> = c[..3]
            .iter()
            .map(|&k| field_f64(&f, k, n + 2, &nfile))
            .collect::<Result<_, _>>()?;
        raw_nodes.push([v[0], v[1], v[2]]);
        let model = f.get(c[3]).map(|s| s.trim()).unwrap_or("");
        attributes.push(if model.is_empty() {
            Vec::new()
        } else {
            vec![("gpu_model".to_string(), model.to_string())]
        });
    }
    let largest: [f64; 3] =
        std::array::from_fn(|d| raw_nodes.iter().map(|m| m[d]).fold(0.0, f64::max));
    let norm = |x: [f64; 3], file: &str, line: usize| -> Result<Resources, SourceError> {
        let mut r = [0u64; 3];
        for d in 0..3 {
            let v = if largest[d] > 0.0 {
                x[d] / largest[d]
            } else {
                0.0
            };
            r[d] = amount(v).ok_or_else(|| SourceError::Format {
                file: file.into(),
                line,
                what: format!("negative amount {}", x[d]),
            })?;
        }
        Ok(r)
    };
    let machines = raw_nodes
        .iter()
        .enumerate()
        .map(|(i, m)| norm(*m, &nfile, i + 2))
        .collect::<Result<Vec<_>, _>>()?;
    let pfile = pods.display().to_string();
    let ptext = read_text(pods)?;
    let mut lines = ptext.lines();
    let header = lines.next().unwrap_or("");
    let c = columns(
        header,
        &["cpu_milli", "memory_mib", "num_gpu", "gpu_milli"],
        &pfile,
    )?;
    let mut tasks = Vec::new();
    for (n, l) in lines.enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split(',').collect();
        let v: Vec<f64> = c
            .iter()
            .map(|&k| field_f64(&f, k, n + 2, &pfile))
            .collect::<Result<_, _>>()?;
        let req = norm([v[0], v[1], v[2] * v[3] / 1000.0], &pfile, n + 2)?;
        tasks.push(Task {
            job: tasks.len() as u32,
            request: req,
        });
    }
    Ok(Snapshot {
        dims: 3,
        machines,
        attributes,
        tasks,
    })
}

/// packlab's own snapshot CSV (`kind,job,cpu,memory,disk,count`; see `data/README.md`).
pub fn read_snapshot_csv(path: &Path) -> Result<Snapshot, SourceError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let header = lines.next().map(|(_, l)| l).unwrap_or("");
    let c = columns(
        header,
        &["kind", "job", "cpu", "memory", "disk", "count"],
        &file,
    )?;
    let attr_col = header.split(',').position(|c| c.trim() == "attributes");
    let mut machines = Vec::new();
    let mut attributes: Vec<Attributes> = Vec::new();
    let mut tasks = Vec::new();
    let mut disk = false;
    let mut jobs: std::collections::HashMap<u64, u32> = Default::default();
    for (n, l) in lines {
        let f: Vec<&str> = l.split(',').map(|s| s.trim()).collect();
        let bad = |what: String| SourceError::Format {
            file: file.clone(),
            line: n + 1,
            what,
        };
        let get = |k: usize| f.get(c[k]).copied().unwrap_or("");
        let amt = |k: usize| -> Result<u64, SourceError> {
            let v = get(k);
            if v.is_empty() && k == 4 {
                return Ok(0);
            }
            let x: f64 = v
                .parse()
                .map_err(|_| bad(format!("`{v}` is not a number")))?;
            amount(x).ok_or_else(|| bad(format!("negative amount {x}")))
        };
        let r = [amt(2)?, amt(3)?, amt(4)?];
        disk |= r[2] > 0;
        let count: usize = match get(5) {
            "" => 1,
            v => v
                .parse()
                .map_err(|_| bad(format!("count `{v}` is not an integer")))?,
        };
        match get(0) {
            "machine" => {
                let mut attrs = Attributes::new();
                let text = attr_col.and_then(|k| f.get(k)).copied().unwrap_or("");
                for kv in text.split(';').filter(|kv| !kv.is_empty()) {
                    let (k, v) = kv
                        .split_once('=')
                        .ok_or_else(|| bad(format!("attribute `{kv}` is not name=value")))?;
                    attrs.push((k.trim().to_string(), v.trim().to_string()));
                }
                machines.extend(std::iter::repeat_n(r, count));
                attributes.extend(std::iter::repeat_n(attrs, count));
            }
            "task" => {
                let id: u64 = get(1)
                    .parse()
                    .map_err(|_| bad(format!("job `{}` is not an integer", get(1))))?;
                let next = jobs.len() as u32;
                let job = *jobs.entry(id).or_insert(next);
                tasks.extend(std::iter::repeat_n(Task { job, request: r }, count));
            }
            other => return Err(bad(format!("kind `{other}` is neither machine nor task"))),
        }
    }
    Ok(Snapshot {
        dims: if disk { 3 } else { 2 },
        machines,
        attributes,
        tasks,
    })
}
