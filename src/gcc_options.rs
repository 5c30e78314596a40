//! gcc's habits on the command line, turned into what the driver's own options take before
//! they are parsed: options that mean nothing here are dropped, and gcc's forms of `-O` are
//! mapped to one of our four levels.

use std::ffi::OsString;

/// The command line with the ignored gcc options dropped and every `-O` form written as
/// `-O0` to `-O3`.
pub fn normalise(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    args.filter(|a| !is_ignored(a))
        .map(|a| match a.to_str().and_then(level) {
            Some(level) => OsString::from(format!("-O{level}")),
            None => a,
        })
        .collect()
}

/// Whether `arg` is a gcc option that means nothing here (see the help's closing text).
fn is_ignored(arg: &OsString) -> bool {
    let Some(a) = arg.to_str() else {
        return false;
    };
    const PREFIXES: [&str; 9] = [
        "-W",
        "-std=",
        "-march=",
        "-mcpu=",
        "-mtune=",
        "-mfpu=",
        "-mfloat-abi=",
        "-g",
        "-f",
    ];
    matches!(a, "-w" | "-marm" | "-g")
        || PREFIXES
            .iter()
            .any(|p| a.starts_with(p) && a.len() > p.len())
}

/// Our level for a gcc `-O` option: bare `-O` is `-O1` (it takes no value, so the next
/// argument stays an argument), `-Og` `-O1`, `-Os` and `-Oz` `-O2`, `-Ofast` and `-O4` and
/// above `-O3`; `None` for anything else, which the parser then judges.
fn level(arg: &str) -> Option<u64> {
    match arg.strip_prefix("-O")? {
        "" | "g" => Some(1),
        "s" | "z" => Some(2),
        "fast" => Some(3),
        n if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            Some(n.parse::<u64>().map_or(3, |n| n.min(3)))
        }
        _ => None,
    }
}

/// What `--help` says of the mapping.
pub const LEVELS_HELP: &str = "Optimisation level: -O0 (none), -O1 (cheap clean-ups), -O2 and \
-O3 (everything). gcc's other forms are taken too: -O and -Og mean -O1, -Os and -Oz -O2, \
-Ofast and -O4 and above -O3";

#[cfg(test)]
mod tests {
    use super::*;

    fn normalised(args: &[&str]) -> Vec<String> {
        normalise(args.iter().map(OsString::from))
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn every_gcc_level_maps_to_one_of_ours() {
        let forms = [
            "-O", "-O0", "-O1", "-O2", "-O3", "-O4", "-O99", "-O00", "-Og", "-Os", "-Oz", "-Ofast",
        ];
        assert_eq!(
            normalised(&forms),
            ["-O1", "-O0", "-O1", "-O2", "-O3", "-O3", "-O3", "-O0", "-O1", "-O2", "-O2", "-O3"]
        );
        assert_eq!(normalised(&["-O99999999999999999999999"]), ["-O3"]);
        // Anything else is left for the parser to reject.
        assert_eq!(
            normalised(&["-Ox", "-O-1", "main.sy"]),
            ["-Ox", "-O-1", "main.sy"]
        );
    }

    #[test]
    fn options_that_mean_nothing_here_are_dropped() {
        assert_eq!(
            normalised(&["-Wall", "-g", "-g3", "-std=c99", "-S", "-f", "-W", "a.sy"]),
            ["-S", "-f", "-W", "a.sy"]
        );
    }
}
