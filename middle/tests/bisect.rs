//! A wrong pass planted in a pipeline (through the pass manager's API; the command line
//! cannot name it) is found by bisection, which also shows the IR around it.

mod common;

use backend::ir_costs::CortexA72;
use common::interpret;
use frontend::SourceFile;
use middle::analysis::Preserved;
use middle::ir::{BinaryOp, Function, InstKind, Type};
use middle::pass_manager::bisect::{bisect, report, Outcome};
use middle::pass_manager::{find, FunctionContext, Pass, PassKind, PassManager};

/// Turns every integer multiplication into an addition: a miscompilation.
fn plant_bug(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    let mut changed = false;
    let muls: Vec<_> = f
        .all_insts()
        .filter(|&i| {
            matches!(
                f.kind(i),
                InstKind::Binary {
                    op: BinaryOp::Mul,
                    ..
                }
            )
        })
        .collect();
    for i in muls {
        let InstKind::Binary { args, .. } = f.kind(i).clone() else {
            continue;
        };
        f.replace_kind(
            i,
            InstKind::Binary {
                op: BinaryOp::Add,
                args,
            },
            Type::I32,
        );
        changed = true;
    }
    Preserved::cfg_if(changed)
}

const PROGRAM: &str = "\
int sum(int n) {
  int i = 0, s = 0;
  while (i < n) { s = s + i * 2; i = i + 1; }
  return s;
}
int main() {
  putint(sum(getint()));
  return 0;
}
";

#[test]
fn bisection_names_the_planted_pass() {
    let file = SourceFile::new("t.sy", PROGRAM);
    let program = frontend::compile(&file).unwrap();
    let lower = || middle::lower::lower_program(&program);
    let planted = Pass {
        name: "planted-bug",
        description: "turns multiplications into additions",
        kind: PassKind::Function(plant_bug),
        needs_facts: false,
    };
    let names = ["mem2reg", "const-fold", "simplify-cfg", "dce"];
    let mut passes: Vec<Pass> = names.iter().map(|n| find(n).unwrap()).collect();
    passes.insert(3, planted);
    let pm = PassManager::sequence(passes, &CortexA72);
    let input = b"10";
    let expected = interpret(&lower(), input);
    let after = |n: usize| {
        let mut m = lower();
        pm.run_first(n, &mut m).unwrap();
        m
    };
    let executions = pm.run(&mut lower(), &mut std::io::sink()).unwrap();
    let outcome = bisect(executions.len(), |n| {
        interpret(&after(n), input) == expected
    });
    assert_eq!(outcome, Outcome::FirstBad(4));
    let text = report(outcome, &executions, after);
    assert!(
        text.starts_with("first bad pass execution: (4) planted-bug\n; IR before\n"),
        "{text}"
    );
    let (before, after_ir) = text.split_once("; IR after\n").unwrap();
    assert!(
        before.contains(" = mul ") && !after_ir.contains(" = mul "),
        "{text}"
    );
}
