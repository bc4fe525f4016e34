//! Presets by inheritance: a drive file may start with `base = "NAME"` and give only what differs from
//! that base (a family file such as `families/bg4.toml`, or another preset). This is the one place the
//! chain is resolved; the result is a complete drive TOML for [`DriveConfig::from_toml_str`].
//!
//! Merging is by table: a child's table is merged key by key into the base's, recursively; any other
//! value (number, string, array) in the child replaces the base's. A base may have its own `base`.
//!
//! [`DriveConfig::from_toml_str`]: crate::DriveConfig::from_toml_str

use std::path::{Path, PathBuf};

use super::ConfigError;

/// Folder (under the presets folder) holding the family files that presets name as their `base`.
pub const FAMILIES: &str = "families";

/// Resolve `text` (a drive TOML read from `origin`, a file name used in messages) against the bases in
/// `presets_dir` (`families/NAME.toml` first, then `NAME.toml`), and return the complete TOML.
///
/// A text without `base` comes back as a table equal to its own. Errors name the file: an unknown base
/// (listing where it was looked for), a cycle (listing the chain), a TOML syntax error.
///
/// ```
/// # let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ssdlab/presets"));
/// use ssdlab_core::config::preset::resolve_toml;
/// use ssdlab_core::DriveConfig;
/// let text = "base = \"bg4-1tb\"\nname = \"mine\"\n[nand]\ntR_us = [60.0]\n";
/// let cfg = DriveConfig::from_toml_str(&resolve_toml(text, "mine.toml", dir).unwrap(), &[]).unwrap();
/// assert_eq!((cfg.name.as_str(), cfg.nand.tR_us[0], cfg.link.lanes), ("mine", 60.0, 4));
/// ```
pub fn resolve_toml(text: &str, origin: &str, presets_dir: &Path) -> Result<String, ConfigError> {
    resolve_with_chain(text, origin, presets_dir, Vec::new())
}

fn resolve_with_chain(
    text: &str,
    origin: &str,
    presets_dir: &Path,
    mut chain: Vec<PathBuf>,
) -> Result<String, ConfigError> {
    let table = resolve_table(text, origin, presets_dir, &mut chain)?;
    toml::to_string(&table).map_err(|e| ConfigError::single("base", &format!("{origin}: {e}"), ""))
}

/// The preset `name` (`presets_dir/NAME.toml`) with its `base` chain resolved: a complete drive TOML.
///
/// ```
/// # let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ssdlab/presets"));
/// use ssdlab_core::config::preset::resolve_preset;
/// let text = resolve_preset(dir, "bg4-256gb").unwrap();
/// assert!(text.contains("bg4-256gb") && !text.contains("base ="));
/// ```
pub fn resolve_preset(presets_dir: &Path, name: &str) -> Result<String, ConfigError> {
    let path = presets_dir.join(format!("{name}.toml"));
    let text = read(&path, name)?;
    // The preset itself starts the chain, so a base leading back to it is a cycle.
    resolve_with_chain(&text, &display(&path), presets_dir, vec![path.clone()])
}

fn display(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn read(path: &Path, value: &str) -> Result<String, ConfigError> {
    std::fs::read_to_string(path)
        .map_err(|e| ConfigError::single("base", &format!("cannot read {}: {e}", path.display()), value))
}

fn resolve_table(
    text: &str,
    origin: &str,
    dir: &Path,
    chain: &mut Vec<PathBuf>,
) -> Result<toml::Table, ConfigError> {
    let mut doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let place = format!("{origin}, {}", super::line_of(text, e.span()));
        ConfigError::single(place.trim(), e.message().trim(), "")
    })?;
    let base_name = match doc.remove("base") {
        None => return Ok(doc),
        Some(toml::Value::String(s)) => s,
        Some(other) => {
            return Err(ConfigError::single(
                "base",
                &format!("{origin}: must be the name of a family or preset (a string)"),
                &other.to_string(),
            ));
        }
    };
    let tried = [dir.join(FAMILIES).join(format!("{base_name}.toml")), dir.join(format!("{base_name}.toml"))];
    let Some(path) = tried.iter().find(|p| p.is_file()) else {
        return Err(ConfigError::single(
            "base",
            &format!(
                "{origin}: unknown base {base_name:?}; families: {}; presets: {}",
                toml_names(&dir.join(FAMILIES)),
                toml_names(dir)
            ),
            &base_name,
        ));
    };
    if chain.contains(path) {
        let names: Vec<String> = chain.iter().chain([path]).map(|p| display(p)).collect();
        return Err(ConfigError::single(
            "base",
            &format!("{origin}: base cycle {}", names.join(" -> ")),
            &base_name,
        ));
    }
    chain.push(path.clone());
    let base_text = read(path, &base_name)?;
    let mut merged = resolve_table(&base_text, &display(path), dir, chain)?;
    merge(&mut merged, doc);
    Ok(merged)
}

/// The names of the `.toml` files in `dir`, sorted and comma-separated.
fn toml_names(dir: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".toml").map(str::to_string))
        .collect();
    names.sort();
    names.join(", ")
}

/// Merge `child` into `base`: tables key by key (recursively), anything else replaced.
fn merge(base: &mut toml::Table, child: toml::Table) {
    for (key, value) in child {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(c)) => merge(b, c),
            (_, v) => {
                base.insert(key, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &str)]) -> tempdir::Dir {
        let d = tempdir::Dir::new();
        for (name, text) in files {
            let p = d.0.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        d
    }

    mod tempdir {
        /// A scratch folder removed on drop (no dev-dependency for one test module).
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Self {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let p = std::env::temp_dir().join(format!(
                    "ssdlab-preset-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    #[test]
    fn child_wins_tables_merge_and_base_chains() {
        let d = dir_with(&[
            ("families/fam.toml", "[a]\nx = 1\ny = [1, 2]\n[a.deep]\nk = 1\nj = 2\n[b]\nz = \"fam\"\n"),
            ("families/sub.toml", "base = \"fam\"\n[a]\ny = [3]\n"),
        ]);
        let out = resolve_toml("base = \"sub\"\nname = \"d\"\n[a.deep]\nj = 5\n", "d.toml", &d.0).unwrap();
        assert_eq!(
            table(&out),
            table("name = \"d\"\n[a]\nx = 1\ny = [3]\n[a.deep]\nk = 1\nj = 5\n[b]\nz = \"fam\"\n")
        );
    }

    #[test]
    fn a_preset_can_be_a_base_and_families_come_first() {
        let d = dir_with(&[
            ("p.toml", "v = \"preset\"\n"),
            ("families/q.toml", "v = \"family\"\n"),
            ("q.toml", "v = \"x\"\n"),
        ]);
        assert_eq!(
            table(&resolve_toml("base = \"p\"", "c.toml", &d.0).unwrap())["v"].as_str(),
            Some("preset")
        );
        assert_eq!(
            table(&resolve_toml("base = \"q\"", "c.toml", &d.0).unwrap())["v"].as_str(),
            Some("family")
        );
    }

    #[test]
    fn unknown_base_cycle_and_syntax_errors_name_the_file() {
        let d = dir_with(&[
            ("families/a.toml", "base = \"b\"\n"),
            ("families/b.toml", "base = \"a\"\n"),
            ("families/bad.toml", "[x\n"),
        ]);
        let e = resolve_toml("base = \"nope\"", "mine.toml", &d.0).unwrap_err();
        assert_eq!(e.problems[0].path, "base");
        assert!(e.problems[0].message.contains("mine.toml: unknown base \"nope\""), "{e}");
        let e = resolve_toml("base = \"a\"", "mine.toml", &d.0).unwrap_err();
        assert!(e.problems[0].message.contains("cycle"), "{e}");
        assert!(e.problems[0].message.contains("a.toml -> b.toml -> a.toml"), "{e}");
        let e = resolve_toml("base = \"bad\"", "mine.toml", &d.0).unwrap_err();
        assert_eq!(e.problems[0].path, "bad.toml, line 1", "{e}");
        let e = resolve_toml("base = 3", "mine.toml", &d.0).unwrap_err();
        assert!(e.problems[0].message.contains("mine.toml"), "{e}");
    }

    #[test]
    fn a_preset_that_is_its_own_base_is_a_cycle() {
        let d = dir_with(&[("p.toml", "base = \"p\"\n")]);
        let e = resolve_preset(&d.0, "p").unwrap_err();
        assert!(e.problems[0].message.contains("p.toml: base cycle p.toml -> p.toml"), "{e}");
        let e = resolve_preset(&d.0, "missing").unwrap_err();
        assert!(e.problems[0].message.contains("missing.toml"), "{e}");
    }
}
