//! A line diff for test failures: the lines two texts share (a longest common subsequence)
//! and, in hunks with a little context, those only one of them has, marked `-` (expected)
//! and `+` (actual) as `diff -u` marks them.

/// Lines shown around each change.
const CONTEXT: usize = 2;

/// Above this many cells the subsequence table is not built: the differing middle is shown
/// as all removed, then all added.
const MAX_TABLE: usize = 4_000_000;

#[derive(Clone, Copy, PartialEq)]
enum Edit {
    Same,
    Removed,
    Added,
}

/// The diff of `expected` against `actual`, headed `--- expected` / `+++ actual`; empty
/// when they are equal.
pub fn line_diff(expected: &str, actual: &str) -> String {
    if expected == actual {
        return String::new();
    }
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let edits = edits(&old, &new);
    let mut out = String::from("--- expected\n+++ actual\n");
    // Line numbers (1-based) in `old` and `new` of every edit.
    let mut lines = Vec::with_capacity(edits.len());
    let (mut o, mut n) = (0, 0);
    for &(edit, _) in &edits {
        lines.push((o + 1, n + 1));
        match edit {
            Edit::Same => {
                o += 1;
                n += 1;
            }
            Edit::Removed => o += 1,
            Edit::Added => n += 1,
        }
    }
    let changed: Vec<usize> = (0..edits.len())
        .filter(|&k| edits[k].0 != Edit::Same)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(edits.len());
        let (o, n) = lines[start];
        out.push_str(&format!("@@ expected line {o}, actual line {n} @@\n"));
        for &(edit, text) in &edits[start..end] {
            let mark = match edit {
                Edit::Same => ' ',
                Edit::Removed => '-',
                Edit::Added => '+',
            };
            out.push_str(&format!("{mark}{text}\n"));
        }
    }
    if expected.ends_with('\n') != actual.ends_with('\n') {
        out.push_str("(the texts differ in their final newline)\n");
    }
    out
}

/// The edit script turning `old` into `new`.
fn edits<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<(Edit, &'a str)> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let mut out: Vec<(Edit, &str)> = old[..prefix].iter().map(|&l| (Edit::Same, l)).collect();
    if (a.len() + 1) * (b.len() + 1) > MAX_TABLE {
        out.extend(a.iter().map(|&l| (Edit::Removed, l)));
        out.extend(b.iter().map(|&l| (Edit::Added, l)));
    } else {
        // common[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
        let w = b.len() + 1;
        let mut common = vec![0u32; (a.len() + 1) * w];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                common[i * w + j] = if a[i] == b[j] {
                    common[(i + 1) * w + j + 1] + 1
                } else {
                    common[(i + 1) * w + j].max(common[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                out.push((Edit::Same, a[i]));
                i += 1;
                j += 1;
            } else if j == b.len()
                || (i < a.len() && common[(i + 1) * w + j] >= common[i * w + j + 1])
            {
                out.push((Edit::Removed, a[i]));
                i += 1;
            } else {
                out.push((Edit::Added, b[j]));
                j += 1;
            }
        }
    }
    out.extend(old[old.len() - suffix..].iter().map(|&l| (Edit::Same, l)));
    out
}
