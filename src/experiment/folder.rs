//! The output folder: created and probed before any work, locked against another packlab,
//! written through a private staging folder and renames, and tidied with a manifest of what
//! packlab wrote.
//!
//! packlab keeps its own files in `DIR/.packlab/`: the lock (`lock`; a shard also holds
//! `lock-I-of-N`), the journal (`journal`, or `journal-I-of-N`), the manifest of the outputs it
//! wrote last and, while outputs are written, a staging folder of an unpredictable name. Nothing
//! there is opened through a symbolic link: a `.packlab` that is a link, or an output name that
//! is one, is refused. A whole run and a merge hold the lock alone; shards share it with each
//! other (each holding its own shard lock), so no run, shard or merge can touch a journal or an
//! output another one is using. Only files named exactly are ever removed: the journal a
//! `--fresh` run replaces, and outputs of an earlier run that its manifest lists and this one
//! does not write; files packlab did not write are never touched.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::ExperimentError;
use crate::fsafe;

/// The folder packlab keeps its own files in, inside the output folder.
pub(crate) const INTERNAL: &str = ".packlab";

/// The file under [`INTERNAL`] naming the program that last ran in the folder.
const PROGRAM: &str = "program";

/// The program that last ran in `dir` ([`Folder::record_program`]), if one is recorded.
pub(crate) fn recorded_program(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(INTERNAL).join(PROGRAM)).ok()?;
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| line.to_string())
}

/// A locked output folder.
#[derive(Debug)]
pub(crate) struct Folder {
    dir: PathBuf,
    /// Held for as long as the folder is in use (the folder's lock, and a shard's own); the
    /// operating system releases them when the process ends, however it ends.
    _locks: Vec<File>,
}

fn bad(dir: &Path, what: impl Into<String>) -> ExperimentError {
    ExperimentError::Folder {
        dir: dir.to_path_buf(),
        what: what.into(),
    }
}

/// `lock`, or `lock-I-of-N` for shard I of N; the same for `journal`.
pub(crate) fn internal_name(base: &str, shard: Option<(u32, u32)>) -> String {
    match shard {
        None => base.to_string(),
        Some((i, n)) => format!("{base}-{i}-of-{n}"),
    }
}

/// This machine's name, for lock messages.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "an unknown host".into())
}

/// Opens (creating it if needed) the lock file `name` of `internal`, never through a link.
fn lock_file(dir: &Path, internal: &Path, name: &str) -> Result<File, ExperimentError> {
    fsafe::open_nofollow(
        &internal.join(name),
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
    .map_err(|e| bad(dir, format!("cannot open its lock {INTERNAL}/{name}: {e}")))
}

/// What the holder of `lock` wrote into it.
fn holder(lock: &mut File) -> String {
    let mut text = String::new();
    let _ = lock.take(200).read_to_string(&mut text);
    text.trim().to_string()
}

/// Writes this process into `lock`, which it holds alone.
fn claim(dir: &Path, lock: &mut File) -> Result<(), ExperimentError> {
    lock.set_len(0)
        .and_then(|_| writeln!(lock, "pid {} on {}", std::process::id(), host()))
        .map_err(|e| bad(dir, format!("cannot write its lock: {e}")))
}

/// Makes sure `dir/.packlab` is a folder of packlab's (not a link, not a file) and returns it.
fn internal_folder(dir: &Path) -> Result<PathBuf, ExperimentError> {
    let internal = dir.join(INTERNAL);
    match std::fs::symlink_metadata(&internal) {
        Ok(m) if m.file_type().is_symlink() => Err(bad(
            dir,
            format!(
                "{} is a symbolic link; packlab keeps its lock and journal there and does not \
                 follow links out of the output folder (remove the link)",
                internal.display()
            ),
        )),
        Ok(m) if !m.is_dir() => Err(bad(
            dir,
            format!(
                "{} is a file, not a folder; packlab keeps its lock and journal there (move \
                 the file away)",
                internal.display()
            ),
        )),
        Ok(_) => Ok(internal),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir(&internal)
                .map_err(|e| bad(dir, format!("cannot create {}: {e}", internal.display())))?;
            Ok(internal)
        }
        Err(e) => Err(bad(dir, format!("cannot read {}: {e}", internal.display()))),
    }
}

impl Folder {
    /// Creates `dir` if needed, checks that packlab can write in it, and takes its lock: alone
    /// for a whole run or a merge (`shard` `None`), shared with other shards for shard I of N
    /// (which also holds its own). Fails at once, before any work, naming the folder.
    pub fn open(dir: &Path, shard: Option<(u32, u32)>) -> Result<Folder, ExperimentError> {
        if dir.exists() && !dir.is_dir() {
            return Err(bad(dir, "it exists and is not a folder"));
        }
        check_path_length(dir)?;
        std::fs::create_dir_all(dir).map_err(|e| bad(dir, format!("cannot create it: {e}")))?;
        let internal = internal_folder(dir)?;
        let probe = internal.join(format!("probe-{}", fsafe::unpredictable()));
        fsafe::create_new(&probe)
            .and_then(|mut f| f.write_all(b"packlab"))
            .and_then(|_| std::fs::remove_file(&probe))
            .map_err(|e| bad(dir, format!("cannot write in it: {e}")))?;
        let mut main = lock_file(dir, &internal, "lock")?;
        let locked = match shard {
            None => main.try_lock(),
            Some(_) => main.try_lock_shared(),
        };
        if locked.is_err() {
            // a folder shards hold gives a shared lock to a shard, never to a whole run
            let shards = shard.is_none() && main.try_lock_shared().is_ok();
            let holder = if shards {
                let _ = main.unlock();
                "shards of a run are using it".to_string()
            } else {
                holder(&mut main)
            };
            return Err(ExperimentError::Locked {
                dir: dir.to_path_buf(),
                holder,
            });
        }
        let mut locks = Vec::new();
        if shard.is_none() {
            claim(dir, &mut main)?;
        }
        locks.push(main);
        if let Some(s) = shard {
            let mut own = lock_file(dir, &internal, &internal_name("lock", Some(s)))?;
            if own.try_lock().is_err() {
                return Err(ExperimentError::Locked {
                    dir: dir.to_path_buf(),
                    holder: holder(&mut own),
                });
            }
            claim(dir, &mut own)?;
            locks.push(own);
        }
        let folder = Folder {
            dir: dir.to_path_buf(),
            _locks: locks,
        };
        if shard.is_none() {
            folder.remove_stale_staging();
        }
        Ok(folder)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records the program running in this folder (`.packlab/program`: its path), so that a
    /// merge by another program can name the one whose policies the shards used. Best effort:
    /// a folder that cannot take it runs all the same.
    pub fn record_program(&self) {
        if let Ok(exe) = std::env::current_exe() {
            let _ = std::fs::write(
                self.dir.join(INTERNAL).join(PROGRAM),
                format!("{}\n", exe.display()),
            );
        }
    }

    /// The journal of the whole run or of shard I of N; a `--quick` run keeps its own
    /// (`journal-quick…`), so a quick run and the full one share a folder without `--fresh`.
    pub fn journal(&self, shard: Option<(u32, u32)>, quick: bool) -> PathBuf {
        let base = if quick { "journal-quick" } else { "journal" };
        self.dir.join(INTERNAL).join(internal_name(base, shard))
    }

    /// Removes the journal of the whole run or of shard I of N (`--fresh`): that one file,
    /// whose lock this folder holds, and nothing else.
    pub fn remove_journal(
        &self,
        shard: Option<(u32, u32)>,
        quick: bool,
    ) -> Result<(), ExperimentError> {
        let path = self.journal(shard, quick);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(bad(
                &self.dir,
                format!("cannot remove {}: {e}", path.display()),
            )),
        }
    }

    /// The names of the outputs the last run wrote here (plain names only).
    fn manifest(&self) -> Vec<String> {
        let path = self.dir.join(INTERNAL).join("manifest");
        let Ok(f) = fsafe::open_nofollow(&path, OpenOptions::new().read(true)) else {
            return Vec::new();
        };
        let mut text = String::new();
        let _ = f.take(1 << 20).read_to_string(&mut text);
        text.lines()
            // only plain names: a manifest never reaches outside the folder
            .filter(|l| !l.is_empty() && !l.contains(['/', '\\']) && !l.starts_with('.'))
            .map(str::to_string)
            .collect()
    }

    /// Refuses, before any work, an input (the experiment file or a data file) that lives in
    /// this folder under a name packlab writes there (`experiment.toml`, or an output of the
    /// last run): the run would overwrite what it reads.
    pub fn check_inputs(&self, inputs: &[PathBuf]) -> Result<(), ExperimentError> {
        let mut names = self.manifest();
        names.push("experiment.toml".into());
        self.not_inputs(&names, inputs)
    }

    /// Refuses writing the outputs `names` if that would replace one of `inputs` (each input
    /// resolved once).
    fn not_inputs(&self, names: &[String], inputs: &[PathBuf]) -> Result<(), ExperimentError> {
        let resolved: Vec<(PathBuf, &PathBuf)> = inputs
            .iter()
            .filter_map(|i| std::fs::canonicalize(i).ok().map(|c| (c, i)))
            .collect();
        for name in names {
            let Ok(target) = std::fs::canonicalize(self.dir.join(name)) else {
                continue;
            };
            if let Some((_, input)) = resolved.iter().find(|(c, _)| *c == target) {
                return Err(bad(
                    &self.dir,
                    format!(
                        "the input {} is the output `{name}` of this folder, which the run would \
                         overwrite; move the input out of the output folder, or choose another --out",
                        input.display()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A new staging folder inside `.packlab/` (its name unpredictable, created exclusively):
    /// outputs are written there, then moved into place by [`Folder::finish`].
    pub fn staging(&self) -> Result<PathBuf, ExperimentError> {
        let path = internal_folder(&self.dir)?.join(format!("staging-{}", fsafe::unpredictable()));
        std::fs::create_dir(&path)
            .map_err(|e| bad(&self.dir, format!("cannot create {}: {e}", path.display())))?;
        Ok(path)
    }

    /// Moves the outputs `written` (files of `staging`) into the folder, all or nothing:
    /// every destination is checked first (a symbolic link, a folder or one of `inputs` in an
    /// output's place is refused before anything moves); the earlier outputs, and those of an
    /// earlier run that this one does not write, are moved aside into the staging folder, the
    /// new ones into place and the manifest rewritten; if any step fails, what moved is moved
    /// back, so the folder keeps its previous outputs whole. Returns the outputs' paths.
    pub fn finish(
        &self,
        staging: &Path,
        written: &[PathBuf],
        inputs: &[PathBuf],
    ) -> Result<Vec<PathBuf>, ExperimentError> {
        let names: Vec<String> = written
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        for name in &names {
            let target = self.dir.join(name);
            let Ok(m) = std::fs::symlink_metadata(&target) else {
                continue;
            };
            let what = if m.file_type().is_symlink() {
                "a symbolic link; packlab does not write through links"
            } else if m.is_dir() {
                "a folder; packlab writes a file there"
            } else {
                continue;
            };
            return Err(bad(
                &self.dir,
                format!(
                    "the output {} is {what} (move it away; nothing was replaced, and the \
                     finished work is kept in the journal)",
                    target.display()
                ),
            ));
        }
        self.not_inputs(&names, inputs)?;
        // outputs of the last run that this one does not write: moved aside with the rest
        let stale: Vec<String> = self
            .manifest()
            .into_iter()
            .filter(|n| !names.contains(n))
            .filter(|n| std::fs::symlink_metadata(self.dir.join(n)).is_ok_and(|m| !m.is_dir()))
            .collect();
        let aside = staging.join(".previous");
        let mut moved: Vec<&str> = Vec::new();
        let mut placed: Vec<&str> = Vec::new();
        let mut step = || -> Result<(), ExperimentError> {
            let io = |path: PathBuf| move |source| ExperimentError::Write { path, source };
            std::fs::create_dir(&aside).map_err(io(aside.clone()))?;
            for name in names.iter().chain(&stale) {
                let target = self.dir.join(name);
                if std::fs::symlink_metadata(&target).is_ok() {
                    std::fs::rename(&target, aside.join(name)).map_err(io(target))?;
                    moved.push(name);
                }
            }
            for name in &names {
                let to = self.dir.join(name);
                std::fs::rename(staging.join(name), &to).map_err(io(to))?;
                placed.push(name);
            }
            let mut text = names.join("\n");
            text.push('\n');
            super::common::write(self.dir.join(INTERNAL).join("manifest"), &text)?;
            Ok(())
        };
        if let Err(e) = step() {
            // back as it was: the new outputs out, the earlier ones in
            for name in &placed {
                let _ = std::fs::rename(self.dir.join(name), staging.join(name));
            }
            for name in &moved {
                let _ = std::fs::rename(aside.join(name), self.dir.join(name));
            }
            return Err(e);
        }
        let _ = std::fs::remove_dir_all(staging);
        Ok(names.iter().map(|n| self.dir.join(n)).collect())
    }

    /// Removes the staging folders of runs that died before they finished writing (`kill
    /// -9`, a crash): called while this process holds the folder's lock alone, so no live
    /// run is writing one. Only `staging-…` folders inside `.packlab/` are touched.
    fn remove_stale_staging(&self) {
        let Ok(entries) = std::fs::read_dir(self.dir.join(INTERNAL)) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && name.starts_with("staging-") {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// The longest name of an output packlab writes, with the temporary prefix it is written under
/// (a figure's `file` is at most 100 bytes, then its extension).
const LONGEST_OUTPUT: usize = 128 + ".tmp-0123456789abcdef-".len();

/// The most bytes of a path the operating system takes (Linux's `PATH_MAX`, less its NUL).
const PATH_MAX: usize = 4095;

/// Refuses, before any work, an output folder whose staging paths would be too long for the
/// operating system (the outputs are written below `DIR/.packlab/staging-…/`).
fn check_path_length(dir: &Path) -> Result<(), ExperimentError> {
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let below = format!("/{INTERNAL}/staging-0123456789abcdef/").len() + LONGEST_OUTPUT;
    let len = abs.as_os_str().len();
    if len + below > PATH_MAX {
        return Err(bad(
            dir,
            format!(
                "its path is {len} bytes long; packlab writes files up to {below} bytes below \
                 it, and a path may have at most {PATH_MAX} bytes (choose a shorter --out)"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_run_holds_the_folder_alone_and_shards_share_it() {
        let dir = std::env::temp_dir().join(format!("packlab-folder-{}", std::process::id()));
        let a = Folder::open(&dir, None).unwrap();
        let pid = format!("pid {}", std::process::id());
        for shard in [None, Some((1, 2))] {
            match Folder::open(&dir, shard) {
                Err(ExperimentError::Locked { holder, .. }) => {
                    assert!(holder.contains(&pid), "{holder}")
                }
                other => panic!("expected a lock error, got {other:?}"),
            }
        }
        drop(a);
        // shards share the folder, each holding its own lock
        let b = Folder::open(&dir, Some((1, 2))).unwrap();
        let c = Folder::open(&dir, Some((2, 2))).unwrap();
        assert!(matches!(
            Folder::open(&dir, Some((2, 2))),
            Err(ExperimentError::Locked { .. })
        ));
        match Folder::open(&dir, None) {
            Err(ExperimentError::Locked { holder, .. }) => {
                assert!(holder.contains("shards"), "{holder}")
            }
            other => panic!("expected a lock error, got {other:?}"),
        }
        drop((b, c));
        // released when dropped
        Folder::open(&dir, None).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failure_while_moving_outputs_puts_the_earlier_ones_back() {
        let dir = std::env::temp_dir().join(format!("packlab-rollback-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let f = Folder::open(&dir, None).unwrap();
        let first = f.staging().unwrap();
        for (name, text) in [("a.csv", "old a"), ("b.csv", "old b"), ("gone.csv", "old")] {
            std::fs::write(first.join(name), text).unwrap();
        }
        let names = |st: &Path, n: &[&str]| n.iter().map(|x| st.join(x)).collect::<Vec<_>>();
        f.finish(&first, &names(&first, &["a.csv", "b.csv", "gone.csv"]), &[])
            .unwrap();
        // the second run's b.csv was never staged: its move fails after a.csv moved
        let second = f.staging().unwrap();
        std::fs::write(second.join("a.csv"), "new a").unwrap();
        let e = f.finish(&second, &names(&second, &["a.csv", "b.csv"]), &[]);
        assert!(e.is_err());
        for (name, text) in [("a.csv", "old a"), ("b.csv", "old b"), ("gone.csv", "old")] {
            assert_eq!(
                std::fs::read_to_string(dir.join(name)).unwrap(),
                text,
                "{name}"
            );
        }
        assert_eq!(f.manifest(), ["a.csv", "b.csv", "gone.csv"]);
        // a staging folder left behind is removed when the folder is next held alone
        drop(f);
        let f = Folder::open(&dir, None).unwrap();
        assert!(!second.exists());
        drop(f);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn links_in_place_of_packlabs_files_are_refused_and_nothing_outside_is_touched() {
        let root = std::env::temp_dir().join(format!("packlab-links-{}", std::process::id()));
        let outside = root.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("journal"), "mine").unwrap();
        std::fs::write(outside.join("victim"), "mine").unwrap();
        // `.packlab` a link to a folder outside
        let dir = root.join("out");
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join(INTERNAL)).unwrap();
        let e = Folder::open(&dir, None).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        std::fs::remove_file(dir.join(INTERNAL)).unwrap();
        // `.packlab` a file
        std::fs::write(dir.join(INTERNAL), "x").unwrap();
        let e = Folder::open(&dir, None).unwrap_err().to_string();
        assert!(e.contains(".packlab is a file"), "{e}");
        std::fs::remove_file(dir.join(INTERNAL)).unwrap();
        // the lock a link to a file outside
        std::fs::create_dir(dir.join(INTERNAL)).unwrap();
        let lock = dir.join(INTERNAL).join("lock");
        std::os::unix::fs::symlink(outside.join("victim"), &lock).unwrap();
        let e = Folder::open(&dir, None).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        std::fs::remove_file(&lock).unwrap();
        // --fresh removes its own journal and nothing else
        let f = Folder::open(&dir, None).unwrap();
        std::fs::write(dir.join(INTERNAL).join("journal.bak"), "mine").unwrap();
        std::fs::write(dir.join(INTERNAL).join("journal-1-of-2"), "a shard's").unwrap();
        std::fs::write(f.journal(None, false), "old").unwrap();
        std::fs::write(f.journal(None, true), "quick").unwrap();
        f.remove_journal(None, false).unwrap();
        assert!(!f.journal(None, false).exists());
        assert!(
            f.journal(None, true).exists(),
            "the quick run's journal stays"
        );
        assert!(dir.join(INTERNAL).join("journal.bak").exists());
        assert!(dir.join(INTERNAL).join("journal-1-of-2").exists());
        // an output that is a link is refused; its target is untouched
        let staging = f.staging().unwrap();
        std::fs::write(staging.join("report.md"), "new").unwrap();
        std::os::unix::fs::symlink(outside.join("victim"), dir.join("report.md")).unwrap();
        let e = f
            .finish(&staging, &[staging.join("report.md")], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("symbolic link"), "{e}");
        std::fs::remove_file(dir.join("report.md")).unwrap();
        // an input under an output's name is refused
        std::fs::write(dir.join("report.md"), "an input").unwrap();
        let e = f
            .finish(
                &staging,
                &[staging.join("report.md")],
                &[dir.join("report.md")],
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("the input"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.join("report.md")).unwrap(),
            "an input"
        );
        let moved = f
            .finish(&staging, &[staging.join("report.md")], &[])
            .unwrap();
        assert_eq!(std::fs::read_to_string(&moved[0]).unwrap(), "new");
        assert!(!staging.exists());
        for name in ["journal", "victim"] {
            assert_eq!(std::fs::read_to_string(outside.join(name)).unwrap(), "mine");
        }
        drop(f);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
