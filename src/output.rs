//! Where the driver's output goes: `-o`, standard output for `-o -`, or next to the input;
//! never over the input itself.

use std::process::ExitCode;

/// Where the output goes: `output` (`-o`), or the input's file name with extension `ext` in
/// the current folder; `None` for standard output.
pub fn path(output: Option<&str>, input: Option<&str>, ext: &str) -> Option<String> {
    match output {
        Some("-") => None,
        Some(p) => Some(p.to_string()),
        None => Some(
            std::path::Path::new(input.unwrap_or("out"))
                .with_extension(ext)
                .file_name()
                .map_or_else(
                    || format!("out.{ext}"),
                    |n| n.to_string_lossy().into_owned(),
                ),
        ),
    }
}

/// Whether writing `output` would write over the regular file `input` (by any path or
/// link to it), as gcc refuses to.
pub fn is_input(output: &str, input: &str) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(output), std::fs::metadata(input)) {
        (Ok(o), Ok(i)) => o.is_file() && o.dev() == i.dev() && o.ino() == i.ino(),
        _ => false,
    }
}

/// Writes `text` to `path`, or to standard output for `None`.
pub fn write(path: Option<&str>, text: &str) -> ExitCode {
    let Some(path) = path else {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => crate::fail(1, format!("error: cannot write to standard output: {e}")),
        };
    };
    match std::fs::write(path, text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::fail(1, format!("error: cannot write '{path}': {e}")),
    }
}
