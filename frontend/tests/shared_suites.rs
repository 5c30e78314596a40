//! Every program of the shared contest suites (`../shared/sysy-tests`) passes the front end.
//! Skipped, with a note, on machines without the shared suites.

use frontend::{compile, SourceFile};
use std::path::PathBuf;

#[test]
fn every_shared_program_is_accepted() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/sysy-tests");
    let mut files = Vec::new();
    for suite in ["functional", "functional2021", "performance"] {
        if let Ok(entries) = std::fs::read_dir(root.join(suite)) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "sy")),
            );
        }
    }
    if files.is_empty() {
        eprintln!("note: {} not found; shared suites skipped", root.display());
        return;
    }
    files.sort();
    let failures = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut failures = Vec::new();
            for f in &files {
                let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
                let file = SourceFile::new(f.display().to_string(), text);
                if let Err(ds) = compile(&file) {
                    failures.push(ds[0].render(&file));
                }
            }
            eprintln!("{} shared programs checked", files.len());
            failures
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
