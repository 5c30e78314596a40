//! The pipelines of the optimisation levels, built from named phases, each with what it is
//! there for. `pipeline` joins a level's phases in the syntax of `--passes`; the driver's
//! `--print-pipeline` lists them phase by phase.
//!
//! Clean-ups (`instcombine`, `gvn`, `simplify-cfg`, `trivial-phis`) recur because each phase
//! leaves work for them; `loop-simplify` comes before every phase whose passes need
//! preheaders, one latch and exits of their own, since the phase before may have changed
//! the loops' shape.

/// A run of passes with one purpose.
pub struct Phase {
    pub name: &'static str,
    /// What the phase does, and why at this point.
    pub why: &'static str,
    /// Its passes, in the syntax of `--passes`.
    pub passes: &'static str,
}

/// -O1: cheap clean-ups only.
const O1: [Phase; 1] = [Phase {
    name: "clean-up",
    why: "SSA form, constants folded, dead code and empty blocks gone",
    passes: "mem2reg,const-fold,trivial-phis,dce,simplify-cfg",
}];

/// -O2 and -O3.
const O2: [Phase; 13] = [
    Phase {
        name: "entry",
        why: "SSA form and the first simplifications, so that functions are measured at the \
              size they will have when inlining decides",
        passes: "dead-functions,mem2reg,constant-loads,sccp,range-simplify,instcombine,\
                 tail-recursion,trivial-phis,gvn,simplify-cfg",
    },
    Phase {
        name: "interprocedural",
        why: "identical functions merged, small and single-use ones inlined (recursive ones \
              into themselves), constant arguments propagated, calls on constants evaluated, \
              recursions given result tables",
        passes: "merge-functions,inline,dead-functions,ipcp,dead-arguments,evaluate-calls,\
                 memoize,constant-loads",
    },
    Phase {
        name: "after-inlining",
        why: "the constants, ranges and conditions that inlined bodies meet, folded",
        passes: "sccp,range-simplify,instcombine,trivial-phis,gvn,dominating-conditions,\
                 simplify-cfg,jump-threading,simplify-cfg",
    },
    Phase {
        name: "loop-form",
        why: "sums regrouped, dead loops gone, and the rest rotated into the form every loop \
              pass reads: a preheader, one latch, exits of their own",
        passes: "reassociate,instcombine,trivial-phis,loop-deletion,adce,simplify-cfg,gvn,\
                 loop-simplify,merge-bound-tests,loop-rotate,loop-simplify",
    },
    Phase {
        name: "loop-invariants",
        why: "what a loop does not change moved out of it (values, tests by unswitching, \
              memory kept in registers), loads answered by the stores before them, and local \
              arrays left unread dropped",
        passes: "licm,loop-unswitch,simplify-cfg,loop-simplify,scalar-promotion,\
                 load-elimination,dead-stores,gvn",
    },
    Phase {
        name: "loop-formulas",
        why: "loops that fill or copy memory, compute polynomials or keep sums modulo a \
              constant replaced by calls and formulas; loops left without effect deleted",
        passes: "loop-idioms,loop-closed-form,modular-closed-form,loop-deletion,\
                 dominating-conditions,jump-threading",
    },
    Phase {
        name: "selects",
        why: "small arms of branches made selects (twice, as each round exposes more), so \
              that loop bodies become one block",
        passes: "range-simplify,instcombine,repeat(2,sink-common,merge-conditions,\
                 if-to-select,instcombine,simplify-cfg),loop-simplify,trivial-phis",
    },
    Phase {
        name: "loop-split",
        why: "loops split where a test or a range changes within them, each part then \
              simplified by its own ranges, and the sums made exact there given formulas",
        passes: "loop-split,simplify-cfg,loop-deletion,loop-simplify,range-simplify,\
                 modular-closed-form",
    },
    Phase {
        name: "loop-strength",
        why: "cheaper work per round (divisions by powers of two, merged counters, four rounds \
              at once in NEON vectors, products stepped by additions, loads carried between \
              rounds), then unrolling",
        passes: "power-of-two-divisors,merge-counters,loop-vectorize,strength-reduce,\
                 predictive-commoning,loop-load-pre,loop-unroll",
    },
    Phase {
        name: "after-unrolling",
        why: "the unrolled copies folded into each other",
        passes: "instcombine,gvn,load-elimination,constant-loads,instcombine,trivial-phis",
    },
    Phase {
        name: "addresses",
        why: "array addresses as the machine takes them: bases out of loops, pointers \
              stepped by each round",
        passes: "invariant-bases,gvn,pointer-induction,rebase-pointers",
    },
    Phase {
        name: "memory",
        why: "stores nothing reads gone (with them the tables of unrolled loops, whose sums \
              then take formulas), constant local arrays read as constants, divisibility \
              tests cheapened",
        passes: "dead-stores,modular-closed-form,constant-local-arrays,divisibility-tests",
    },
    Phase {
        name: "placement",
        why: "each instruction placed where it runs least often, and compares next to their \
              branches, for the back end",
        passes: "gcm,bypass-phi-blocks,sink-compares",
    },
];

/// The phases of an optimisation level.
pub fn phases(level: u8) -> &'static [Phase] {
    match level {
        0 => &[],
        1 => &O1,
        _ => &O2,
    }
}

/// The pipeline of an optimisation level, in the syntax of `--passes`.
pub fn pipeline(level: u8) -> String {
    let passes: Vec<&str> = phases(level).iter().map(|p| p.passes).collect();
    passes.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass_manager::pipeline::parse;

    #[test]
    fn every_level_parses_and_phases_have_distinct_names() {
        for level in 0..=3 {
            assert!(parse(&pipeline(level)).is_ok(), "-O{level}");
            let names: Vec<&str> = phases(level).iter().map(|p| p.name).collect();
            let repeated = (0..names.len()).any(|i| names[..i].contains(&names[i]));
            assert!(!repeated, "-O{level}: {names:?}");
        }
    }
}
