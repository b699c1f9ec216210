//! Slurm batch scripts for a sharded run: a job array whose task k runs shard k+1 of N (each
//! resumable from its journal if Slurm requeues it), and a merge job that starts when every
//! shard succeeded (`--dependency=afterok`).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::ExperimentError;

/// What the scripts run and where.
#[derive(Clone, Debug)]
pub struct SlurmSpec {
    /// The packlab binary the nodes run (an absolute path on a shared filesystem).
    pub packlab: PathBuf,
    /// The folder the jobs run in (`--chdir`): where `packlab slurm` ran, so that the
    /// experiment file is named in the outputs as it was given, as in a one-machine run.
    pub workdir: PathBuf,
    /// The experiment file as given (relative to `workdir` or absolute).
    pub experiment: PathBuf,
    /// The output folder, absolute.
    pub out: PathBuf,
    /// The experiment's name (the jobs' names).
    pub name: String,
    /// Shards, one array task each.
    pub shards: u32,
    /// Run the `--quick` plan.
    pub quick: bool,
    /// `--partition` of every job.
    pub partition: Option<String>,
    /// `--time` of every job, Slurm's format (for example `2:00:00`).
    pub time: Option<String>,
    /// `--cpus-per-task` of every shard.
    pub cpus_per_task: u32,
    /// Further `#SBATCH` lines, as written after `#SBATCH ` (for example `--mem=4G`).
    pub extra: Vec<String>,
    /// `--max-memory` of every shard, bytes (`None`: packlab's default).
    pub max_memory: Option<u64>,
}

/// A word quoted for the shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn path(p: &Path) -> String {
    quote(&p.to_string_lossy())
}

/// A value quoted for an `#SBATCH` line: Slurm's parser of such lines splits at white space
/// outside quotes, ends the line at an unquoted `#`, and takes `\` as an escape, even
/// inside quotes.
fn sbatch_quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', r"\\").replace('"', "\\\""))
}

/// Options packlab writes itself; an `--sbatch` line may not set them again.
const OWN: [(&str, &str); 7] = [
    ("--array", "-a"),
    ("--output", "-o"),
    ("--chdir", "-D"),
    ("--job-name", "-J"),
    ("--dependency", "-d"),
    ("--cpus-per-task", "-c"),
    ("--requeue", "--no-requeue"),
];

/// sbatch's short options that take an argument (the rest of a group of short options is then
/// that argument: `-Ha0-99` is `-H -a 0-99`); `-k` takes one optionally, which also ends the
/// group. Any other letter is read as a flag, so a group is read on to its end: an unknown
/// letter can only make the check refuse more.
const SHORT_WITH_ARGUMENT: &str = "AaBbCcDdeFGiJkLMmNnopqStwx";

/// The option of packlab's own (its long name) that the word `word` of an `#SBATCH` line sets,
/// read as sbatch reads it: a long option by any prefix of its name (getopt takes unambiguous
/// abbreviations, and an ambiguous one is refused by sbatch anyway), short options one letter
/// at a time through a group.
fn sets_own(word: &str) -> Option<&'static str> {
    if let Some(name) = word.strip_prefix("--") {
        let name = name.split('=').next().unwrap_or("");
        if name.is_empty() {
            return None; // `--` ends the options
        }
        return OWN
            .iter()
            .flat_map(|(l, s)| [*l, *s])
            .filter(|o| o.starts_with("--"))
            .find(|o| o[2..].starts_with(name))
            .map(|o| {
                OWN.iter()
                    .find(|(l, s)| *l == o || *s == o)
                    .map_or(o, |(l, _)| *l)
            });
    }
    let group = word.strip_prefix('-')?;
    for c in group.chars() {
        let flag = format!("-{c}");
        if let Some((long, _)) = OWN.iter().find(|(_, s)| *s == flag) {
            return Some(long);
        }
        if SHORT_WITH_ARGUMENT.contains(c) {
            return None;
        }
    }
    None
}

/// The variables of this process's environment through which sbatch would set an option of
/// packlab's own (`SBATCH_ARRAY_INX` sets `--array`, `SBATCH_JOB_NAME` `--job-name`, …): sbatch
/// lets its input environment outrank a script's `#SBATCH` lines. Each with the option it sets.
pub fn own_environment() -> Vec<(String, &'static str)> {
    std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter_map(|k| {
            let rest = k.strip_prefix("SBATCH_")?;
            let option = match rest {
                "ARRAY_INX" => "--array".to_string(),
                _ => format!("--{}", rest.to_ascii_lowercase().replace('_', "-")),
            };
            sets_own(&option).map(|own| (k.clone(), own))
        })
        .collect()
}

/// The words of an `#SBATCH` line as Slurm's parser reads them: split at white space
/// outside quotes (single or double), `\` escaping the next character, an unquoted `#`
/// ending the line (`#SBATCH ` first, if there, is not a word).
pub(crate) fn sbatch_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = line.strip_prefix("#SBATCH").unwrap_or(line).chars();
    let (mut word, mut quote, mut any) = (String::new(), None, false);
    while let Some(c) = chars.next() {
        match (c, quote) {
            ('\\', _) => {
                word.extend(chars.next());
                any = true;
            }
            (c, Some(q)) if c == q => quote = None,
            (c, Some(_)) => word.push(c),
            ('"' | '\'', None) => {
                quote = Some(c);
                any = true;
            }
            ('#', None) => break,
            (c, None) if c.is_ascii_whitespace() => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (c, None) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

/// Why `text`, the value of `what`, cannot go into a script: a control character (a new line
/// would become a line of its own) or nothing at all.
fn unprintable(what: &str, text: &str) -> Result<(), ExperimentError> {
    if text.trim().is_empty() {
        return Err(ExperimentError::Slurm(format!("{what} is empty")));
    }
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(ExperimentError::Slurm(format!(
            "{what} holds the control character {} (`{}`); a script line must stay one line",
            c.escape_default(),
            crate::input::shown(text)
        )));
    }
    Ok(())
}

/// A Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or UNLIMITED.
fn time_ok(t: &str) -> bool {
    if t.eq_ignore_ascii_case("unlimited") || t.eq_ignore_ascii_case("infinite") {
        return true;
    }
    let (days, rest) = match t.split_once('-') {
        Some((d, r)) => (Some(d), r),
        None => (None, t),
    };
    let digits = |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = rest.split(':').collect();
    days.is_none_or(digits) && parts.len() <= 3 && parts.iter().all(|p| digits(p))
}

impl SlurmSpec {
    /// Checks every value that goes into the scripts: no control character anywhere, paths
    /// as Slurm and the shell can read them back, a partition and a time limit in Slurm's
    /// forms, and no `--sbatch` line that sets what packlab sets itself.
    pub fn check(&self) -> Result<(), ExperimentError> {
        for (what, p) in [
            ("the packlab binary's path", &self.packlab),
            ("the working folder", &self.workdir),
            ("the experiment file's path", &self.experiment),
            ("the output folder", &self.out),
        ] {
            let Some(text) = p.to_str() else {
                return Err(ExperimentError::Slurm(format!(
                    "{what} {} is not UTF-8 text",
                    p.display()
                )));
            };
            unprintable(what, text)?;
        }
        if self.out.to_string_lossy().contains('%') || self.workdir.to_string_lossy().contains('%')
        {
            return Err(ExperimentError::Slurm(format!(
                "the output folder {} or the working folder {} holds `%`, which Slurm replaces in \
                 file names (%j, %a, …); choose a folder without it",
                self.out.display(),
                self.workdir.display()
            )));
        }
        if let Some(p) = &self.partition {
            unprintable("--partition", p)?;
            if !p
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.,-".contains(&b))
            {
                return Err(ExperimentError::Slurm(format!(
                    "--partition `{}`: expected partition names of [A-Za-z0-9_.-], separated by commas",
                    crate::input::shown(p)
                )));
            }
        }
        if let Some(t) = &self.time {
            unprintable("--time", t)?;
            if !time_ok(t) {
                return Err(ExperimentError::Slurm(format!(
                    "--time `{}`: expected Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, \
                     D-HH:MM, D-HH:MM:SS or UNLIMITED",
                    crate::input::shown(t)
                )));
            }
        }
        for e in &self.extra {
            unprintable("--sbatch", e)?;
            let words = sbatch_words(&format!("#SBATCH {e}"));
            if !words.first().is_some_and(|w| w.starts_with('-')) {
                return Err(ExperimentError::Slurm(format!(
                    "--sbatch `{}`: expected an sbatch option such as --mem=4G",
                    crate::input::shown(e)
                )));
            }
            for word in words.iter().filter(|w| w.starts_with('-')) {
                if let Some(long) = sets_own(word) {
                    return Err(ExperimentError::Slurm(format!(
                        "--sbatch `{}`: `{}` sets {long}, which packlab writes itself (the array \
                         of shards, their logs, the folder, the name, the merge's dependency, \
                         --cpus-per-task, requeueing); sbatch reads abbreviated long options and \
                         grouped short ones, so neither may name it",
                        crate::input::shown(e),
                        crate::input::shown(word)
                    )));
                }
            }
        }
        Ok(())
    }

    fn common(&self, lines: &mut Vec<String>) {
        lines.push(format!(
            "#SBATCH --chdir={}",
            sbatch_quote(&self.workdir.to_string_lossy())
        ));
        if let Some(p) = &self.partition {
            lines.push(format!("#SBATCH --partition={p}"));
        }
        if let Some(t) = &self.time {
            lines.push(format!("#SBATCH --time={t}"));
        }
        for e in &self.extra {
            lines.push(format!("#SBATCH {e}"));
        }
    }

    /// The options of packlab's own for sbatch's command line, which outranks sbatch's input
    /// environment (the same values as the script's `#SBATCH` lines): the shards' array, or the
    /// merge job's.
    fn own_options(&self, merge: bool) -> Vec<String> {
        let logs = self.out.join("slurm");
        let mut o = vec![format!("--chdir={}", self.workdir.display())];
        if merge {
            o.push(format!("--job-name=packlab-{}-merge", self.name));
            o.push("--cpus-per-task=1".into());
            o.push(format!("--output={}/merge.out", logs.display()));
        } else {
            o.push(format!("--job-name=packlab-{}", self.name));
            o.push(format!("--array=0-{}", self.shards.saturating_sub(1)));
            o.push(format!("--cpus-per-task={}", self.cpus_per_task));
            o.push(format!("--output={}/shard-%a.out", logs.display()));
            o.push("--requeue".into());
        }
        o
    }

    /// `--max-memory` as each job is given it (none for packlab's default).
    fn max_memory_flag(&self) -> String {
        self.max_memory.map_or(String::new(), |b| {
            format!(" --max-memory {}", b as f64 / (1u64 << 30) as f64)
        })
    }

    /// The job array's script.
    pub fn shards_script(&self) -> String {
        let logs = self.out.join("slurm");
        let mut l = vec![
            "#!/bin/sh".to_string(),
            format!("#SBATCH --job-name=packlab-{}", self.name),
            format!("#SBATCH --array=0-{}", self.shards.saturating_sub(1)),
            format!("#SBATCH --cpus-per-task={}", self.cpus_per_task),
            format!(
                "#SBATCH --output={}",
                sbatch_quote(&format!("{}/shard-%a.out", logs.display()))
            ),
            "#SBATCH --requeue".to_string(),
        ];
        self.common(&mut l);
        l.push(String::new());
        l.push("# shard k+1 of N; a requeued task resumes from its journal".into());
        l.push(format!(
            "exec {} {} --out {} --shard \"$((SLURM_ARRAY_TASK_ID + 1))/{}\" --threads \"${{SLURM_CPUS_PER_TASK:-1}}\"{}{}",
            path(&self.packlab),
            path(&self.experiment),
            path(&self.out),
            self.shards,
            if self.quick { " --quick" } else { "" },
            self.max_memory_flag(),
        ));
        l.join("\n") + "\n"
    }

    /// The merge job's script.
    pub fn merge_script(&self) -> String {
        let logs = self.out.join("slurm");
        let mut l = vec![
            "#!/bin/sh".to_string(),
            format!("#SBATCH --job-name=packlab-{}-merge", self.name),
            "#SBATCH --cpus-per-task=1".to_string(),
            format!(
                "#SBATCH --output={}",
                sbatch_quote(&format!("{}/merge.out", logs.display()))
            ),
        ];
        self.common(&mut l);
        l.push(String::new());
        l.push(format!(
            "exec {} merge {}{}",
            path(&self.packlab),
            path(&self.out),
            self.max_memory_flag(),
        ));
        l.join("\n") + "\n"
    }

    /// Writes both scripts into `<out>/slurm/` (after [`SlurmSpec::check`]); returns their
    /// paths (shards, merge).
    pub fn write(&self) -> Result<(PathBuf, PathBuf), ExperimentError> {
        self.check()?;
        let dir = self.out.join("slurm");
        if crate::fsafe::is_symlink(&dir) {
            return Err(ExperimentError::Folder {
                dir,
                what: "it is a symbolic link; packlab does not write through links".into(),
            });
        }
        std::fs::create_dir_all(&dir).map_err(|e| ExperimentError::Folder {
            dir: dir.clone(),
            what: format!("cannot create it: {e}"),
        })?;
        let shards = super::common::write(dir.join("shards.sbatch"), &self.shards_script())?;
        let merge = super::common::write(dir.join("merge.sbatch"), &self.merge_script())?;
        Ok((shards, merge))
    }
}

/// Bytes of sbatch's output (each stream) kept for its job id and messages; the rest is read
/// and dropped, so a runaway sbatch cannot fill packlab's memory.
const SBATCH_OUTPUT: u64 = 64 << 10;

/// Reads at most [`SBATCH_OUTPUT`] bytes of `from`, then drains the rest.
fn bounded(mut from: impl std::io::Read) -> Vec<u8> {
    use std::io::Read as _;
    let mut kept = Vec::new();
    let _ = (&mut from).take(SBATCH_OUTPUT).read_to_end(&mut kept);
    let _ = std::io::copy(&mut from, &mut std::io::sink());
    kept
}

/// Why one call of sbatch gave no job id.
enum Failed {
    /// sbatch ran and refused (or printed no id): nothing of this call is queued.
    Refused(String),
    /// A signal stopped packlab while sbatch ran; sbatch was killed, so whether it had queued
    /// the job is not known.
    Stopped(i32),
}

/// `sbatch --parsable [args] script`: the job id. sbatch's output is read to a bound; a
/// signal to packlab (SIGINT, SIGTERM, SIGHUP) kills sbatch at once. The `SBATCH_*` variables
/// that would set packlab's own options ([`own_environment`]) are removed from sbatch's
/// environment.
fn sbatch(args: &[String], script: &Path) -> Result<String, Failed> {
    use std::process::Stdio;
    let mut command = Command::new("sbatch");
    // an option of packlab's own set through sbatch's input environment would reach the merge
    // job too (an array of merges), where no command-line option can unset it
    for (var, _) in own_environment() {
        command.env_remove(var);
    }
    let mut child = command
        .arg("--parsable")
        .args(args)
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failed::Refused(format!("cannot run sbatch: {e}")))?;
    let out = child
        .stdout
        .take()
        .map(|o| std::thread::spawn(move || bounded(o)));
    let err = child
        .stderr
        .take()
        .map(|e| std::thread::spawn(move || bounded(e)));
    let status = loop {
        if let Some(signal) = crate::cancel::requested() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failed::Stopped(signal));
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(e) => return Err(Failed::Refused(format!("cannot wait for sbatch: {e}"))),
        }
    };
    let text = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
        h.and_then(|h| h.join().ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let (out, err) = (text(out), text(err));
    if !status.success() {
        return Err(Failed::Refused(format!(
            "sbatch {} failed: {}",
            script.display(),
            crate::input::shown(err.trim())
        )));
    }
    // `--parsable` prints `id` or `id;cluster`
    let id = out.trim().split(';').next().unwrap_or("");
    if id.is_empty() || id.len() > 20 || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Failed::Refused(format!(
            "sbatch {} printed no job id (expected a number), but `{}`",
            script.display(),
            crate::input::shown(out.trim())
        )));
    }
    Ok(id.to_string())
}

/// Submits the shards and the merge job after them, with packlab's own options of `spec` on
/// sbatch's command line (so that nothing in the submitter's environment re-sets them); returns
/// their job ids. When it fails, the error says exactly what is queued and how to finish without
/// queueing anything twice.
pub fn submit(
    spec: &SlurmSpec,
    shards: &Path,
    merge: &Path,
) -> Result<(String, String), ExperimentError> {
    crate::cancel::set_phase(crate::cancel::Phase::Submitting);
    let a = sbatch(&spec.own_options(false), shards).map_err(|f| match f {
        Failed::Refused(why) => ExperimentError::Slurm(format!(
            "{why}; nothing was queued, so submitting again is safe"
        )),
        Failed::Stopped(signal) => ExperimentError::Slurm(format!(
            "stopped by signal {signal} while sbatch was submitting the shards {}; sbatch was \
             killed, so the array may or may not be queued: check `squeue --me --name {}` \
             before submitting again",
            shards.display(),
            quote(&job_name(shards)),
        )),
    })?;
    let merge_alone = format!(
        "sbatch --dependency=afterok:{a} {}",
        quote(&merge.to_string_lossy())
    );
    let mut after = spec.own_options(true);
    after.push(format!("--dependency=afterok:{a}"));
    let b = sbatch(&after, merge).map_err(|f| {
        let why = match f {
            Failed::Refused(why) => format!("{why}; the merge job was not queued"),
            Failed::Stopped(signal) => format!(
                "stopped by signal {signal} while sbatch was submitting the merge job; sbatch \
                 was killed, so the merge job may or may not be queued (check `squeue --me`)"
            ),
        };
        ExperimentError::Slurm(format!(
            "the shards ARE queued, as job {a}; {why}. Do not run --submit again (it would \
             queue the shards twice): queue the merge alone with `{merge_alone}`"
        ))
    })?;
    Ok((a, b))
}

/// The job name written in a script (`#SBATCH --job-name=…`), for the message of a stop.
fn job_name(script: &Path) -> String {
    std::fs::read_to_string(script)
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("#SBATCH --job-name="))
                .map(|n| n.trim_matches('"').to_string())
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_run_every_shard_and_merge_after() {
        let s = SlurmSpec {
            packlab: "/opt/packlab".into(),
            workdir: "/home/me/lab".into(),
            experiment: "exp/it's.toml".into(),
            out: "/res/x".into(),
            name: "x".into(),
            shards: 4,
            quick: true,
            partition: Some("short".into()),
            time: Some("1:00:00".into()),
            cpus_per_task: 2,
            extra: vec!["--mem=2G".into()],
            max_memory: Some(3 << 29),
        };
        let a = s.shards_script();
        assert!(a.contains("#SBATCH --array=0-3"), "{a}");
        assert!(a.contains("#SBATCH --partition=short"));
        assert!(a.contains("#SBATCH --mem=2G"));
        assert!(a.contains("'exp/it'\\''s.toml'"), "{a}");
        assert!(a.contains("#SBATCH --chdir=\"/home/me/lab\""), "{a}");
        assert!(a.contains("--shard \"$((SLURM_ARRAY_TASK_ID + 1))/4\" --threads"));
        assert!(a.contains(" --quick --max-memory 1.5\n"), "{a}");
        assert!(a.ends_with("--quick --max-memory 1.5\n"));
        let m = s.merge_script();
        assert!(m.contains("exec '/opt/packlab' merge '/res/x'"), "{m}");
    }

    /// The words of a shell line whose only quoting is single quotes (as `quote` writes).
    fn shell_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let (mut word, mut quoted, mut any) = (String::new(), false, false);
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' if !quoted => {
                    word.extend(chars.next());
                    any = true;
                }
                '\'' => {
                    quoted = !quoted;
                    any = true;
                }
                c if c.is_ascii_whitespace() && !quoted => {
                    if any {
                        words.push(std::mem::take(&mut word));
                    }
                    any = false;
                }
                c => {
                    word.push(c);
                    any = true;
                }
            }
        }
        if any {
            words.push(word);
        }
        words
    }

    fn spec(
        paths: [String; 4],
        partition: Option<String>,
        time: Option<String>,
        extra: Vec<String>,
    ) -> SlurmSpec {
        let [packlab, workdir, experiment, out] = paths;
        SlurmSpec {
            packlab: packlab.into(),
            workdir: workdir.into(),
            experiment: experiment.into(),
            out: out.into(),
            name: "x".into(),
            shards: 3,
            quick: false,
            partition,
            time,
            cpus_per_task: 2,
            extra,
            max_memory: None,
        }
    }

    use proptest::prelude::*;

    /// Characters a hostile user might put into a value that is not refused outright: quotes,
    /// `#`, backslashes, spaces, shell syntax, letters beyond ASCII, a Unicode line separator.
    fn printable() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                3 => prop::sample::select(vec![
                    '"', '\'', '#', '\\', ' ', '$', '`', ';', '-', '=', '/', '*', '&', '|',
                    '(', ')', '<', '>', 'é', '\u{2028}', '\u{a0}',
                ]),
                5 => prop::char::range('a', 'z'),
            ],
            1..12,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    /// Any string, new lines, carriage returns, NUL, escape and tabs made likely.
    fn hostile() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                2 => prop::sample::select(vec!['\n', '\r', '\0', '\u{1b}', '\t', '%']),
                5 => prop::char::range('a', 'z'),
                1 => any::<char>(),
            ],
            0..8,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    /// Mostly values that pass the checks (so the scripts are looked at), some that do not.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![6 => printable(), 1 => hostile()]
    }

    proptest! {
        // a fixed seed: the same 2000 cases on every run, so CI is repeatable
        #![proptest_config(ProptestConfig {
            cases: 2000,
            rng_seed: proptest::test_runner::RngSeed::Fixed(2026),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        /// No value given to `packlab slurm` adds a line to a script or changes another one:
        /// either it is refused, or every line is the one expected, and each value reads back
        /// whole, as one word, through Slurm's parser of `#SBATCH` lines and the shell.
        #[test]
        fn no_value_adds_or_changes_a_line(
            paths in prop::array::uniform4(value()),
            partition in prop::option::of(prop_oneof![
                3 => "[a-z0-9_.,-]{1,8}",
                1 => value(),
            ]),
            time in prop::option::of(prop_oneof![
                3 => "[0-9]{1,3}(-[0-9]{1,2})?(:[0-9]{2}){0,2}",
                1 => value(),
            ]),
            extra in prop::collection::vec(
                prop_oneof![4 => value().prop_map(|s| format!("--comment={s}")), 1 => value()],
                0..3,
            ),
        ) {
            let s = spec(paths.clone(), partition.clone(), time.clone(), extra.clone());
            if s.check().is_err() {
                return Ok(());
            }
            let opt = |o: &Option<String>| o.iter().count();
            for (script, fixed) in [(s.shards_script(), 6), (s.merge_script(), 4)] {
                let lines: Vec<&str> = script.lines().collect();
                let sbatch = fixed + 1 + opt(&partition) + opt(&time) + extra.len();
                prop_assert_eq!(lines.len(), sbatch + 1 + usize::from(fixed == 6) + 1, "{}", script);
                prop_assert_eq!(lines[0], "#!/bin/sh");
                for l in &lines[1..sbatch] {
                    prop_assert!(l.starts_with("#SBATCH "), "{}", script);
                }
                let words = |l: &str| sbatch_words(l);
                let chdir = lines.iter().find(|l| l.starts_with("#SBATCH --chdir=")).unwrap();
                prop_assert_eq!(words(chdir), vec![format!("--chdir={}", paths[1])]);
                let output = lines.iter().find(|l| l.starts_with("#SBATCH --output=")).unwrap();
                prop_assert_eq!(words(output).len(), 1);
                let want = format!("--output={}/", Path::new(&paths[3]).join("slurm").display());
                prop_assert!(words(output)[0].starts_with(&want), "{}", script);
                if let Some(p) = &partition {
                    let want = format!("#SBATCH --partition={p}");
                    prop_assert!(lines.contains(&want.as_str()), "{}", script);
                }
                for e in &extra {
                    let want = format!("#SBATCH {e}");
                    prop_assert!(lines.contains(&want.as_str()), "{}", script);
                }
                let exec = shell_words(lines.last().unwrap());
                prop_assert_eq!(&exec[0], "exec");
                prop_assert_eq!(&exec[1], &paths[0]);
                if fixed == 6 {
                    prop_assert_eq!(&exec[2], &paths[2]);
                    prop_assert_eq!(&exec[3..5], &["--out".to_string(), paths[3].clone()]);
                } else {
                    prop_assert_eq!(&exec[2..4], &["merge".to_string(), paths[3].clone()]);
                }
            }
        }
    }

    #[test]
    fn injected_lines_and_packlabs_own_options_are_refused() {
        let paths = || {
            [
                "/opt/packlab".to_string(),
                "/home/me/lab with space".into(),
                "exp.toml".into(),
                "/res/x y".into(),
            ]
        };
        assert!(
            spec(paths(), Some("short".into()), None, vec![])
                .check()
                .is_ok()
        );
        for (partition, time, extra, word) in [
            (Some("short\nrm -rf ~"), None, vec![], "control character"),
            (Some(""), None, vec![], "empty"),
            (Some("a b"), None, vec![], "partition names"),
            (None, Some("1:00:00\necho"), vec![], "control character"),
            (None, Some(""), vec![], "empty"),
            (None, Some("soon"), vec![], "Slurm's forms"),
            (None, None, vec!["--array=0-99"], "--array"),
            (None, None, vec!["-o /tmp/x"], "--output"),
            (None, None, vec!["--dependency=afterok:1"], "--dependency"),
            (
                None,
                None,
                vec!["--mem=1G\n#SBATCH --array=1"],
                "control character",
            ),
            (None, None, vec!["mem=1G"], "an sbatch option"),
            // sbatch takes abbreviated long options and grouped short ones
            (None, None, vec!["--arr=0-99"], "sets --array"),
            (None, None, vec!["--dep=afterany:1"], "sets --dependency"),
            (
                None,
                None,
                vec!["--outp=/elsewhere/x-%a.out"],
                "sets --output",
            ),
            (None, None, vec!["-Ha0-99"], "sets --array"),
            (None, None, vec!["-vvo/tmp/x"], "sets --output"),
            (None, None, vec!["--no-req"], "sets --requeue"),
            // every option of a line, not only its first
            (None, None, vec!["--mem=1G --array=1"], "sets --array"),
        ] {
            let e = spec(
                paths(),
                partition.map(String::from),
                time.map(String::from),
                extra.into_iter().map(String::from).collect(),
            )
            .check()
            .unwrap_err()
            .to_string();
            assert!(e.contains(word), "{word}: {e}");
        }
        // an option's argument is not read as options, and options of sbatch's own pass
        for fine in [
            "--mem=4G",
            "-pshort-a",
            "--open-mode=append",
            "--reservation=r1",
            "-H",
            "--nice=-5",
        ] {
            spec(paths(), None, None, vec![fine.into()])
                .check()
                .unwrap_or_else(|e| panic!("{fine}: {e}"));
        }
        let mut p = paths();
        p[3] = "/res/%j".into();
        let e = spec(p, None, None, vec![]).check().unwrap_err().to_string();
        assert!(e.contains('%'), "{e}");
        // a folder with a space is one word to Slurm
        let s = spec(paths(), None, Some("2-00:00:00".into()), vec![]);
        s.check().unwrap();
        let chdir = s.shards_script();
        let line = chdir
            .lines()
            .find(|l| l.starts_with("#SBATCH --chdir"))
            .unwrap();
        assert_eq!(sbatch_words(line), ["--chdir=/home/me/lab with space"]);
    }
}
