//! Pass bisection (as LLVM's `-opt-bisect-limit` is used): the pass manager numbers its pass
//! executions, and running only the first N of them for varying N finds the first
//! execution after which a program misbehaves. `is_good(n)` says whether the program behaves
//! when only the first `n` executions run; it is assumed to turn bad once and stay bad.

use super::Execution;
use crate::ir::printer::print_module;
use crate::ir::Module;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The program behaves even with every pass.
    Good,
    /// It misbehaves even with no pass: the fault is before or after the passes.
    BadWithoutPasses,
    /// Execution `n` (1-based) is the first after which it misbehaves.
    FirstBad(usize),
}

/// Binary search over the number of executions, asking `is_good` O(log total) times.
pub fn bisect(total: usize, mut is_good: impl FnMut(usize) -> bool) -> Outcome {
    if is_good(total) {
        return Outcome::Good;
    }
    if !is_good(0) {
        return Outcome::BadWithoutPasses;
    }
    let (mut good, mut bad) = (0, total);
    while bad - good > 1 {
        let mid = (good + bad) / 2;
        if is_good(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Outcome::FirstBad(bad)
}

/// Describes an outcome for a person: for a bad pass, its number and name and the IR just
/// before and just after it. `executions` are those of a full run; `module(n)` gives the
/// module after the first `n` executions.
pub fn report(
    outcome: Outcome,
    executions: &[Execution],
    module: impl Fn(usize) -> Module,
) -> String {
    match outcome {
        Outcome::Good => format!(
            "the program behaves correctly with all {} pass executions\n",
            executions.len()
        ),
        Outcome::BadWithoutPasses => {
            "the program misbehaves with no IR pass: the fault is in lowering or the back end\n"
                .to_string()
        }
        Outcome::FirstBad(n) => format!(
            "first bad pass execution: ({n}) {}\n; IR before\n{}; IR after\n{}",
            executions[n - 1].name,
            print_module(&module(n - 1)),
            print_module(&module(n))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_bad_execution() {
        for first_bad in 1..=9 {
            let mut asked = 0;
            let outcome = bisect(9, |n| {
                asked += 1;
                n < first_bad
            });
            assert_eq!(outcome, Outcome::FirstBad(first_bad));
            assert!(asked <= 6, "{asked} questions");
        }
        assert_eq!(bisect(5, |_| true), Outcome::Good);
        assert_eq!(bisect(5, |_| false), Outcome::BadWithoutPasses);
    }
}
