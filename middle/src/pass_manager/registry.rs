//! Every pass the command line can name, with a line on what it does.

use super::{Pass, PassKind};
use crate::passes::*;

/// Every pass the command line can name.
pub const REGISTRY: &[Pass] = &[
    Pass {
        name: "mem2reg",
        description: "promote scalar stack variables to SSA values",
        kind: PassKind::Function(mem2reg::run),
        needs_facts: false,
    },
    Pass {
        name: "const-fold",
        description: "fold constants and algebraic identities",
        kind: PassKind::Function(const_fold::run),
        needs_facts: false,
    },
    Pass {
        name: "sccp",
        description: "sparse conditional constant propagation",
        kind: PassKind::Function(sccp::run),
        needs_facts: false,
    },
    Pass {
        name: "range-simplify",
        description: "simplify comparisons, quotients and remainders that value ranges decide",
        kind: PassKind::Function(range_simplify::run),
        needs_facts: false,
    },
    Pass {
        name: "power-of-two-divisors",
        description: "quotients and remainders by a power of two known at run time as bit operations",
        kind: PassKind::Function(power_of_two_divisors::run),
        needs_facts: false,
    },
    Pass {
        name: "divisibility-tests",
        description: "x % c == 0 for an odd constant c as a multiplication and an unsigned comparison",
        kind: PassKind::Function(divisibility_tests::run),
        needs_facts: false,
    },
    Pass {
        name: "gvn",
        description: "global value numbering over the dominator tree",
        kind: PassKind::Function(gvn::run),
        needs_facts: true,
    },
    Pass {
        name: "gcm",
        description: "global code motion: out of loops, down into the paths that use it",
        kind: PassKind::Function(gcm::run),
        needs_facts: false,
    },
    Pass {
        name: "lcm",
        description: "local code motion: sink instructions to their first user in the block",
        kind: PassKind::Function(lcm::run),
        needs_facts: false,
    },
    Pass {
        name: "instcombine",
        description: "combine instructions by the rule table, canonicalise, fold",
        kind: PassKind::Function(instcombine::run),
        needs_facts: false,
    },
    Pass {
        name: "reassociate",
        description: "rebuild sums of scaled terms as cheaper linear combinations",
        kind: PassKind::Function(reassociate::run),
        needs_facts: false,
    },
    Pass {
        name: "tail-recursion",
        description: "turn self-calls in tail position into loops, with an accumulator",
        kind: PassKind::Function(tail_recursion::run),
        needs_facts: true,
    },
    Pass {
        name: "trivial-phis",
        description: "remove phis whose incoming values are one value or the phi itself",
        kind: PassKind::Function(trivial_phis::run),
        needs_facts: false,
    },
    Pass {
        name: "dce",
        description: "remove unused side-effect-free instructions",
        kind: PassKind::Function(dce::run),
        needs_facts: false,
    },
    Pass {
        name: "adce",
        description: "remove code not proved live: dead cycles, dead loops, pure calls",
        kind: PassKind::Function(adce::run),
        needs_facts: true,
    },
    Pass {
        name: "loop-simplify",
        description: "give every loop a preheader and a single latch",
        kind: PassKind::Function(loop_simplify::run),
        needs_facts: false,
    },
    Pass {
        name: "invariant-bases",
        description: "split a loop's address `gep b, x + y` with `x` fixed for the loop into a base computed before it",
        kind: PassKind::Function(invariant_bases::run),
        needs_facts: false,
    },
    Pass {
        name: "loop-split",
        description: "split a loop where a test of its counter against an invariant changes",
        kind: PassKind::Function(loop_split::run),
        needs_facts: false,
    },
    Pass {
        name: "loop-vectorize",
        description: "run a counted loop's rounds four at a time in vectors, with a remainder loop",
        kind: PassKind::Function(loop_vectorize::run),
        needs_facts: true,
    },
    Pass {
        name: "loop-unswitch",
        description:
            "run a loop that branches on an invariant condition as two loops, one per value",
        kind: PassKind::Function(loop_unswitch::run),
        needs_facts: false,
    },
    Pass {
        name: "merge-counters",
        description: "keep one of a loop's counters that step alike; the others become it plus an offset",
        kind: PassKind::Function(merge_counters::run),
        needs_facts: false,
    },
    Pass {
        name: "strength-reduce",
        description: "carry products of a loop counter and an invariant as values stepped by adds",
        kind: PassKind::Function(strength_reduce::run),
        needs_facts: false,
    },
    Pass {
        name: "pointer-induction",
        description: "walk a loop's arrays with pointers, and test the loop's end on one of them",
        kind: PassKind::Function(pointer_induction::run),
        needs_facts: false,
    },
    Pass {
        name: "rebase-pointers",
        description: "start a stepped pointer in the middle of its accesses' constant offsets",
        kind: PassKind::Function(rebase_pointers::run),
        needs_facts: false,
    },
    Pass {
        name: "licm",
        description:
            "loop-invariant code motion: invariant code, loads and stores to the preheader",
        kind: PassKind::Function(licm::run),
        needs_facts: true,
    },
    Pass {
        name: "constant-loads",
        description: "fold loads at known offsets of globals nothing writes",
        kind: PassKind::Module(constant_loads::run),
        needs_facts: false,
    },
    Pass {
        name: "constant-local-arrays",
        description: "make local arrays filled with constants before any read constant globals",
        kind: PassKind::Module(constant_local_arrays::run),
        needs_facts: false,
    },
    Pass {
        name: "scalar-promotion",
        description: "keep memory a loop reads and writes in a register while it runs",
        kind: PassKind::Function(scalar_promotion::run),
        needs_facts: true,
    },
    Pass {
        name: "load-elimination",
        description: "replace loads of memory unchanged since a dominating load or store",
        kind: PassKind::Function(load_elimination::run),
        needs_facts: true,
    },
    Pass {
        name: "loop-closed-form",
        description: "compute a loop's sums and counters by formula after it",
        kind: PassKind::Function(loop_closed_form::run),
        needs_facts: true,
    },
    Pass {
        name: "modular-closed-form",
        description: "skip a loop that keeps sums modulo a constant where formulas give them",
        kind: PassKind::Function(modular_closed_form::run),
        needs_facts: true,
    },
    Pass {
        name: "loop-idioms",
        description: "turn loops that fill an array with one byte or copy one into memset or memcpy",
        kind: PassKind::Function(loop_idioms::run),
        needs_facts: true,
    },
    Pass {
        name: "dead-stores",
        description: "remove stores that a later store of the block overwrites unread",
        kind: PassKind::Function(dead_stores::run),
        needs_facts: true,
    },
    Pass {
        name: "loop-deletion",
        description: "delete loops without effects whose results nothing uses",
        kind: PassKind::Function(loop_deletion::run),
        needs_facts: true,
    },
    Pass {
        name: "merge-conditions",
        description: "a branch whose side only tests one more comparison for the same target as one branch on both (a chain of compares)",
        kind: PassKind::Function(merge_conditions::run),
        needs_facts: false,
    },
    Pass {
        name: "merge-bound-tests",
        description: "two tests of one value against loop-invariant bounds as one test against the tighter bound",
        kind: PassKind::Function(merge_bound_tests::run),
        needs_facts: false,
    },
    Pass {
        name: "bypass-phi-blocks",
        description: "predecessors of a block of phis and a jump go straight to its target",
        kind: PassKind::Function(bypass_phi_blocks::run),
        needs_facts: false,
    },
    Pass {
        name: "loop-rotate",
        description: "test while loops at the bottom, behind a guard: one branch per iteration",
        kind: PassKind::Function(loop_rotate::run),
        needs_facts: false,
    },
    Pass {
        name: "loop-unroll",
        description: "run a counted loop's body several times per test, with a remainder loop",
        kind: PassKind::Function(loop_unroll::run),
        needs_facts: true,
    },
    Pass {
        name: "predictive-commoning",
        description: "carry a load's value to the next iteration that would load it again",
        kind: PassKind::Function(predictive_commoning::run),
        needs_facts: true,
    },
    Pass {
        name: "loop-load-pre",
        description: "reuse a load's value in the next iteration on the paths that keep its address",
        kind: PassKind::Function(loop_load_pre::run),
        needs_facts: true,
    },
    Pass {
        name: "sink-common",
        description: "compute once in a block what every predecessor computes alike for a phi",
        kind: PassKind::Function(sink_common::run),
        needs_facts: false,
    },
    Pass {
        name: "simplify-cfg",
        description: "fold constant branches, delete unreachable blocks, merge blocks",
        kind: PassKind::Function(simplify_cfg::run),
        needs_facts: false,
    },
    Pass {
        name: "if-to-select",
        description: "turn small diamonds and triangles that pick values into selects",
        kind: PassKind::Function(if_to_select::run),
        needs_facts: true,
    },
    Pass {
        name: "dominating-conditions",
        description: "decide branches that a dominating branch on the same value decides",
        kind: PassKind::Function(dominating_conditions::run),
        needs_facts: false,
    },
    Pass {
        name: "sink-compares",
        description: "compute a comparison again beside the branches and selects of other blocks that test it",
        kind: PassKind::Function(sink_compares::run),
        needs_facts: false,
    },
    Pass {
        name: "jump-threading",
        description: "send edges on which a branch's condition is known straight to its target",
        kind: PassKind::Function(jump_threading::run),
        needs_facts: false,
    },
    Pass {
        name: "dead-functions",
        description: "remove functions that main cannot reach",
        kind: PassKind::Module(dead_functions::run),
        needs_facts: false,
    },
    Pass {
        name: "merge-functions",
        description: "merge functions equal up to names, pointing calls at one of them",
        kind: PassKind::Module(merge_functions::run),
        needs_facts: false,
    },
    Pass {
        name: "inline",
        description: "inline small functions and functions called once, bottom-up",
        kind: PassKind::Module(inline::run),
        needs_facts: false,
    },
    Pass {
        name: "ipcp",
        description: "propagate constant arguments and constant return values across calls",
        kind: PassKind::Module(ipcp::run),
        needs_facts: false,
    },
    Pass {
        name: "dead-arguments",
        description: "remove parameters that functions never use",
        kind: PassKind::Module(dead_arguments::run),
        needs_facts: false,
    },
    Pass {
        name: "evaluate-calls",
        description: "evaluate calls of pure functions on constant arguments at compile time",
        kind: PassKind::Module(evaluate_calls::run),
        needs_facts: false,
    },
    Pass {
        name: "memoize",
        description: "give recursions that revisit their arguments a table of results",
        kind: PassKind::Module(memoize::run),
        needs_facts: false,
    },
    Pass {
        name: "split-critical-edges",
        description: "give every critical edge a block of its own",
        kind: PassKind::Function(split_critical_edges::run),
        needs_facts: false,
    },
];

pub fn find(name: &str) -> Option<Pass> {
    REGISTRY.iter().copied().find(|p| p.name == name)
}
