//! Block structure of selected machine IR: stored successor lists match both the branches
//! and the IR's control flow, the verifier notices when they do not, reordering the
//! layout changes what is emitted but no branch target, loop depths agree with the IR's
//! loop analysis, and block frequencies follow loops and the tests of data before them.

use super::loops::loop_depths;
use super::verifier::verify;
use super::*;
use crate::emit::Emitter;
use crate::ir_costs::CortexA72;
use crate::isel;
use frontend::SourceFile;
use middle::analysis::{Cfg, DomTree, LoopInfo};
use middle::ir::parser::parse_module;
use middle::ir::Module;
use middle::lower::lower_program;
use middle::pass_manager::PassManager;
use middle::passes::split_critical_edges;

const PROGRAM: &str = "
int g;
int classify(int x) {
  if (x < 0 && g > 1) return -1;
  else if (x == 0) return 0;
  return 1;
}
int main() {
  int i = 0, s = 0;
  while (i < 20) {
    if (i % 3 == 0) { i = i + 1; continue; }
    if (s > 100) break;
    s = s + classify(i - 5) * i;
    i = i + 1;
  }
  putint(s);
  return 0;
}
";

fn optimised_module() -> Module {
    module_of(PROGRAM)
}

fn module_of(source: &str) -> Module {
    let file = SourceFile::new("blocks.sy", source);
    let program = frontend::compile(&file).expect("the test program is valid");
    let mut m = lower_program(&program);
    PassManager::for_level(2, &CortexA72)
        .run(&mut m, &mut std::io::sink())
        .expect("the passes succeed");
    m
}

/// Each function after the back end's critical-edge splitting, with its machine IR.
fn selected(m: &Module) -> Vec<(middle::ir::Function, MFunction)> {
    m.functions
        .iter()
        .map(|f| {
            let mut f = f.clone();
            split_critical_edges::split(&mut f);
            let mf = isel::select(m, &f);
            (f, mf)
        })
        .collect()
}

#[test]
fn successor_lists_after_selection_match_the_terminators_and_the_ir() {
    let m = optimised_module();
    let mut edges = 0;
    for (f, mf) in selected(&m) {
        assert_eq!(verify(&mf), Ok(()), "{mf}");
        let ir_blocks: Vec<_> = f.blocks().collect();
        assert_eq!(ir_blocks.len(), mf.blocks.len());
        let position = |b| ir_blocks.iter().position(|&x| x == b).unwrap() as u32;
        for (k, &b) in ir_blocks.iter().enumerate() {
            let id = MBlockId(k as u32);
            assert_eq!(mf.succs(id), mf.block(id).terminator_succs().as_slice());
            let ir_succs: Vec<MBlockId> = f
                .successors(b)
                .iter()
                .map(|&s| MBlockId(position(s)))
                .collect();
            assert_eq!(mf.succs(id), ir_succs.as_slice(), "{id} of {mf}");
            edges += ir_succs.len();
        }
        let preds = mf.preds();
        for b in mf.block_ids() {
            for &s in mf.succs(b) {
                assert!(preds[s.index()].contains(&b));
            }
        }
        assert_eq!(mf.postorder().last(), Some(&MBlockId::ENTRY));
    }
    assert!(edges > 10, "the program has branches and loops");
}

#[test]
fn the_verifier_notices_a_stale_successor_list() {
    let m = optimised_module();
    let (_, mut mf) = selected(&m).pop().expect("main is selected");
    let b = mf
        .block_ids()
        .find(|&b| mf.succs(b).len() == 2)
        .expect("main has a conditional branch");
    mf.block_mut(b).succs.pop();
    let error = verify(&mf).expect_err("the list lacks a successor");
    assert!(error.contains("successor list"), "{error}");
    mf.recompute_succs();
    assert_eq!(verify(&mf), Ok(()));
}

/// The unconditional branches `emit` writes: one per block whose `B` does not go to the
/// next block in the layout.
fn expected_branches(mf: &MFunction) -> usize {
    mf.layout
        .iter()
        .enumerate()
        .filter(|&(p, &b)| match mf.block(b).insts.last() {
            Some(MInst::B { target }) => mf.layout.get(p + 1) != Some(target),
            _ => false,
        })
        .count()
}

fn emitted(mf: &MFunction) -> String {
    let mut emitter = Emitter::new(false);
    emitter.function(0, mf);
    emitter.finish()
}

#[test]
fn reordering_the_layout_renumbers_no_branch() {
    let m = optimised_module();
    let (_, mut mf) = selected(&m).pop().expect("main is selected");
    let blocks_before: Vec<Vec<MInst>> = mf.blocks.iter().map(|b| b.insts.clone()).collect();
    let unconditional = |asm: &str| asm.lines().filter(|l| l.starts_with("\tb .L")).count();
    let before = unconditional(&emitted(&mf));
    assert_eq!(before, expected_branches(&mf));
    mf.layout[1..].reverse();
    assert_eq!(verify(&mf), Ok(()));
    let blocks_after: Vec<Vec<MInst>> = mf.blocks.iter().map(|b| b.insts.clone()).collect();
    assert_eq!(blocks_before, blocks_after);
    let asm = emitted(&mf);
    assert_eq!(unconditional(&asm), expected_branches(&mf));
    assert!(
        unconditional(&asm) > before,
        "fewer fall-throughs in the reversed layout"
    );
    // Labels come in layout order, and every branch names a label that exists.
    let labels: Vec<&str> = asm
        .lines()
        .filter_map(|l| l.strip_suffix(':'))
        .filter(|l| l.starts_with(".L"))
        .collect();
    let expected: Vec<String> = mf.layout.iter().map(|b| format!(".L0_{}", b.0)).collect();
    assert_eq!(labels, expected);
    for line in asm.lines().filter(|l| l.starts_with("\tb")) {
        if let Some(target) = line
            .split_whitespace()
            .nth(1)
            .filter(|t| t.starts_with(".L"))
        {
            assert!(labels.contains(&target), "{line}");
        }
    }
}

#[test]
fn machine_ir_prints_blocks_in_layout_order_with_virtual_registers() {
    let m = optimised_module();
    let (_, mut mf) = selected(&m).pop().expect("main is selected");
    mf.layout[1..].reverse();
    let text = mf.to_string();
    assert!(text.starts_with("function main (global)\n"), "{text}");
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("bb"))
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    let layout: Vec<String> = mf.layout.iter().map(MBlockId::to_string).collect();
    assert_eq!(headers, layout);
    assert!(text.contains("%v"), "{text}");
    assert!(text.contains("\tbl putint ; uses r0\n"), "{text}");
}

/// Two loops around a region entered at two blocks (irreducible, so no loop of its own),
/// the inner loop with two latches.
const IRREDUCIBLE: &str = "
func @main() -> i32 {
bb0:
  %0 = call i32 @getint()
  br bb1
bb1:
  %1 = icmp sgt %0, 2
  condbr %1, bb2, bb9
bb2:
  %2 = icmp sgt %0, 3
  condbr %2, bb3, bb7
bb3:
  %3 = icmp sgt %0, 4
  condbr %3, bb4, bb5
bb4:
  %4 = icmp sgt %0, 5
  condbr %4, bb5, bb6
bb5:
  %5 = icmp sgt %0, 6
  condbr %5, bb4, bb6
bb6:
  %6 = icmp sgt %0, 7
  condbr %6, bb2, bb8
bb7:
  br bb2
bb8:
  br bb1
bb9:
  ret 0
}
";

/// Nested whiles, `depth` deep, with a `break` and a `continue` at each level.
fn nested_loops(depth: usize) -> String {
    let mut text = String::from("int main() {\n  int x = getint(), s = 0;\n");
    for k in 0..depth {
        text.push_str(&format!(
            "  int i{k} = 0;\n  while (i{k} < x) {{\n    i{k} = i{k} + 1;\n    \
             if (s > {k}) break;\n    if (s < -{k}) continue;\n    s = s + 1;\n"
        ));
    }
    text.push_str(&"  }\n".repeat(depth));
    text.push_str("  return s;\n}\n");
    text
}

#[test]
fn loop_depths_agree_with_the_ir_loop_analysis() {
    let irreducible = parse_module(IRREDUCIBLE).expect("the IR parses");
    let modules = [
        optimised_module(),
        module_of(&nested_loops(40)),
        irreducible,
    ];
    let mut deepest = 0;
    for m in &modules {
        for (f, mf) in selected(m) {
            let cfg = Cfg::new(&f);
            let loops = LoopInfo::new(&cfg, &DomTree::new(&cfg));
            let expected: Vec<u32> = f.blocks().map(|b| loops.depth(b)).collect();
            assert_eq!(loop_depths(&mf), expected, "{mf}");
            let stored: Vec<u32> = mf.blocks.iter().map(|b| b.loop_depth).collect();
            assert_eq!(stored, expected);
            deepest = deepest.max(expected.iter().copied().max().unwrap_or(0));
        }
    }
    assert_eq!(deepest, 40);
}

#[test]
fn inner_loops_behind_tests_of_data_run_for_the_rounds_that_pass_them() {
    use super::loops::{block_frequencies, LoopNest};
    use super::test_build::{add, b, bcond, func, ldr, mov, r, ret, v};
    let compare = |x: Reg| MInst::Cmp {
        cond: None,
        rn: x,
        src: Operand2::Imm(0),
    };
    // 0 -> outer loop 1..6 (header 1 exits to 7); in it, two tests (2, 3) before the inner
    // loop 4..5, each skipping it (to 6) on one arm. `tested` makes the two tests: of a
    // loaded value, or of a value computed otherwise.
    let nest = |tested: [MInst; 2]| {
        let [first, second] = tested;
        let mf = func(
            &[RegClass::Int; 2],
            vec![
                vec![b(1)],
                vec![bcond(Cond::Eq, 7), b(2)],
                vec![first, compare(v(0)), bcond(Cond::Eq, 3), b(6)],
                vec![second, compare(v(1)), bcond(Cond::Eq, 4), b(6)],
                vec![bcond(Cond::Eq, 6), b(5)],
                vec![b(4)],
                vec![b(1)],
                vec![ret()],
            ],
        );
        block_frequencies(&mf, &LoopNest::new(&mf))
    };
    // Cells of a board: each test passes half of the outer loop's rounds, so the inner loop
    // runs 10 rounds on a quarter of the outer loop's 10.
    assert_eq!(
        nest([ldr(v(0), r(4), 0), ldr(v(1), r(4), 4)]),
        vec![1.0, 10.0, 10.0, 10.0, 25.0, 25.0, 10.0, 1.0]
    );
    // Counters and bounds (a loop's guard): the way into the inner loop is the usual one,
    // 10 rounds on each of the outer loop's.
    assert_eq!(
        nest([mov(v(0), 1), add(v(1), v(0), v(0))]),
        vec![1.0, 10.0, 10.0, 10.0, 100.0, 100.0, 10.0, 1.0]
    );
}
