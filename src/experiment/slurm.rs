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
    pub name: String,
    pub shards: u32,
    pub quick: bool,
    pub partition: Option<String>,
    /// `--time` of every job, Slurm's format (for example `2:00:00`).
    pub time: Option<String>,
    pub cpus_per_task: u32,
    /// Further `#SBATCH` lines, as written after `#SBATCH ` (for example `--mem=4G`).
    pub extra: Vec<String>,
}

/// A word quoted for the shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn path(p: &Path) -> String {
    quote(&p.to_string_lossy())
}

impl SlurmSpec {
    fn common(&self, lines: &mut Vec<String>) {
        lines.push(format!("#SBATCH --chdir={}", self.workdir.display()));
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

    /// The job array's script.
    pub fn shards_script(&self) -> String {
        let logs = self.out.join("slurm");
        let mut l = vec![
            "#!/bin/sh".to_string(),
            format!("#SBATCH --job-name=packlab-{}", self.name),
            format!("#SBATCH --array=0-{}", self.shards.saturating_sub(1)),
            format!("#SBATCH --cpus-per-task={}", self.cpus_per_task),
            format!("#SBATCH --output={}/shard-%a.out", logs.display()),
            "#SBATCH --requeue".to_string(),
        ];
        self.common(&mut l);
        l.push(String::new());
        l.push("# shard k+1 of N; a requeued task resumes from its journal".into());
        l.push(format!(
            "exec {} {} --out {} --shard \"$((SLURM_ARRAY_TASK_ID + 1))/{}\" --threads \"${{SLURM_CPUS_PER_TASK:-1}}\"{}",
            path(&self.packlab),
            path(&self.experiment),
            path(&self.out),
            self.shards,
            if self.quick { " --quick" } else { "" }
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
            format!("#SBATCH --output={}/merge.out", logs.display()),
        ];
        self.common(&mut l);
        l.push(String::new());
        l.push(format!(
            "exec {} merge {}",
            path(&self.packlab),
            path(&self.out)
        ));
        l.join("\n") + "\n"
    }

    /// Writes both scripts into `<out>/slurm/`; returns their paths (shards, merge).
    pub fn write(&self) -> Result<(PathBuf, PathBuf), ExperimentError> {
        let dir = self.out.join("slurm");
        std::fs::create_dir_all(&dir).map_err(|e| ExperimentError::Folder {
            dir: dir.clone(),
            what: format!("cannot create it: {e}"),
        })?;
        let shards = super::common::write(dir.join("shards.sbatch"), &self.shards_script())?;
        let merge = super::common::write(dir.join("merge.sbatch"), &self.merge_script())?;
        Ok((shards, merge))
    }
}

/// `sbatch --parsable [args] script`: the job id.
pub fn sbatch(args: &[&str], script: &Path) -> Result<String, ExperimentError> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .arg(script)
        .output()
        .map_err(|e| ExperimentError::Slurm(format!("cannot run sbatch: {e}")))?;
    if !out.status.success() {
        return Err(ExperimentError::Slurm(format!(
            "sbatch {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints `id` or `id;cluster`
    Ok(text.trim().split(';').next().unwrap_or("").to_string())
}

/// Submits the shards and the merge job after them; returns their job ids.
pub fn submit(shards: &Path, merge: &Path) -> Result<(String, String), ExperimentError> {
    let a = sbatch(&[], shards)?;
    let b = sbatch(&[&format!("--dependency=afterok:{a}")], merge)?;
    Ok((a, b))
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
        };
        let a = s.shards_script();
        assert!(a.contains("#SBATCH --array=0-3"), "{a}");
        assert!(a.contains("#SBATCH --partition=short"));
        assert!(a.contains("#SBATCH --mem=2G"));
        assert!(a.contains("'exp/it'\\''s.toml'"), "{a}");
        assert!(a.contains("#SBATCH --chdir=/home/me/lab"), "{a}");
        assert!(a.contains("--shard \"$((SLURM_ARRAY_TASK_ID + 1))/4\" --threads"));
        assert!(a.ends_with("--quick\n"));
        let m = s.merge_script();
        assert!(m.contains("exec '/opt/packlab' merge '/res/x'"), "{m}");
    }
}
