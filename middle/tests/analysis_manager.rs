//! The analysis manager and the pass manager around it: analyses are cached across passes
//! that preserve them and dropped after those that do not; `verify_each` catches a pass
//! that claims to preserve what it changed; pipeline groups run as many executions as they
//! should; a pass that changed nothing is not run again on the same input, nor a pass that
//! already ran on a huge function.

use backend::ir_costs::CortexA72;
use middle::analysis::{DomTree, Preserved};
use middle::ir::{parser::parse_module, BinaryOp, Function, InstKind, Type, Value};
use middle::pass_manager::{find, FunctionContext, Pass, PassKind, PassManager, Step};
use std::cell::RefCell;
use std::rc::Rc;

const BRANCHY: &str = "\
func @main() -> i32 {
bb0:
  condbr true, bb1, bb2
bb1:
  ret 1
bb2:
  ret 2
}
";

/// Asks for the dominator tree and changes nothing.
fn ask_dominators(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    cx.analyses.dom(f);
    Preserved::All
}

/// Folds constant branches, which changes the CFG, but claims the CFG is intact.
fn lying_fold(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    let mut changed = false;
    for b in f.blocks().collect::<Vec<_>>() {
        let Some(t) = f.terminator(b) else { continue };
        if let InstKind::CondBr {
            args: [Value::Bool(c)],
            targets: [yes, no],
        } = *f.kind(t)
        {
            let taken = if c { yes } else { no };
            f.replace_kind(t, InstKind::Br { targets: [taken] }, Type::Void);
            changed = true;
        }
    }
    Preserved::cfg_if(changed)
}

fn pass(name: &'static str, run: fn(&mut Function, &mut FunctionContext) -> Preserved) -> Step {
    Step::Run(Pass {
        name,
        description: "a pass of this test",
        kind: PassKind::Function(run),
        needs_facts: false,
    })
}

#[test]
fn verify_each_names_a_pass_that_breaks_what_it_claims_to_preserve() {
    let steps = vec![
        pass("ask-dominators", ask_dominators),
        pass("lying-fold", lying_fold),
    ];
    let mut pm = PassManager::new(steps, &CortexA72);
    pm.verify_each = true;
    let err = pm
        .run(&mut parse_module(BRANCHY).unwrap(), &mut std::io::sink())
        .unwrap_err();
    assert_eq!(
        err,
        "pass 'lying-fold' claims to preserve the control-flow graph and the dominator tree \
         of @main but changed it"
    );
    // Without the check the lie goes unnoticed.
    pm.verify_each = false;
    assert!(pm
        .run(&mut parse_module(BRANCHY).unwrap(), &mut std::io::sink())
        .is_ok());
}

#[test]
fn an_honest_pass_passes_the_check() {
    let mut pm = PassManager::new(
        vec![
            pass("ask-dominators", ask_dominators),
            Step::Run(find("simplify-cfg").unwrap()),
            pass("ask-dominators", ask_dominators),
            Step::Run(find("const-fold").unwrap()),
        ],
        &CortexA72,
    );
    pm.verify_each = true;
    let mut m = parse_module(BRANCHY).unwrap();
    let executions = pm.run(&mut m, &mut std::io::sink()).unwrap();
    let changed: Vec<bool> = executions.iter().map(|e| e.changed).collect();
    assert_eq!(changed, [false, true, false, false]);
}

thread_local! {
    static SEEN: RefCell<Vec<Rc<DomTree>>> = const { RefCell::new(Vec::new()) };
}

fn record_dominators(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let dom = cx.analyses.dom(f);
    SEEN.with(|s| s.borrow_mut().push(dom));
    Preserved::All
}

fn touch_instructions(_: &mut Function, _: &mut FunctionContext) -> Preserved {
    Preserved::Cfg
}

fn touch_everything(_: &mut Function, _: &mut FunctionContext) -> Preserved {
    Preserved::Nothing
}

#[test]
fn analyses_are_shared_until_a_pass_drops_them() {
    SEEN.with(|s| s.borrow_mut().clear());
    let pm = PassManager::new(
        vec![
            pass("record", record_dominators),
            pass("record-again", record_dominators),
            pass("keeps-cfg", touch_instructions),
            pass("record", record_dominators),
            pass("drops-all", touch_everything),
            pass("record", record_dominators),
        ],
        &CortexA72,
    );
    pm.run(&mut parse_module(BRANCHY).unwrap(), &mut std::io::sink())
        .unwrap();
    SEEN.with(|s| {
        let seen = s.borrow();
        assert_eq!(seen.len(), 4);
        assert!(Rc::ptr_eq(&seen[0], &seen[1]), "cached between passes");
        assert!(
            Rc::ptr_eq(&seen[1], &seen[2]),
            "kept by a CFG-preserving pass"
        );
        assert!(
            !Rc::ptr_eq(&seen[2], &seen[3]),
            "recomputed after `Nothing`"
        );
        assert_eq!(*seen[2], *seen[3]);
    });
}

thread_local! {
    static BUDGET: RefCell<u32> = const { RefCell::new(0) };
}

/// Reports a change while its budget lasts.
fn change_three_times(_: &mut Function, _: &mut FunctionContext) -> Preserved {
    BUDGET.with(|b| {
        let mut b = b.borrow_mut();
        let changed = *b > 0;
        *b = b.saturating_sub(1);
        Preserved::cfg_if(changed)
    })
}

#[test]
fn fixpoint_and_repeat_run_the_right_number_of_executions() {
    let names = |spec: Vec<Step>| {
        BUDGET.with(|b| *b.borrow_mut() = 3);
        let executions = PassManager::new(spec, &CortexA72)
            .run(&mut parse_module(BRANCHY).unwrap(), &mut std::io::sink())
            .unwrap();
        executions.iter().map(|e| e.name).collect::<Vec<_>>()
    };
    let dce = || Step::Run(find("dce").unwrap());
    // Three changing rounds, then one that changes nothing.
    let fix = names(vec![Step::Fixpoint(vec![
        pass("changer", change_three_times),
        dce(),
    ])]);
    assert_eq!(fix.len(), 8, "{fix:?}");
    let rep = names(vec![Step::Repeat(5, vec![dce()])]);
    assert_eq!(rep, ["dce"; 5]);
    // A pass that always claims a change stops at the round limit.
    BUDGET.with(|b| *b.borrow_mut() = u32::MAX);
    let executions = PassManager::new(
        vec![Step::Fixpoint(vec![pass("changer", change_three_times)])],
        &CortexA72,
    )
    .run(&mut parse_module(BRANCHY).unwrap(), &mut std::io::sink())
    .unwrap();
    assert_eq!(
        executions.len(),
        middle::pass_manager::pipeline::FIXPOINT_ROUNDS
    );
}

#[test]
fn bisection_limit_counts_executions_inside_groups() {
    let mut pm = PassManager::parse("repeat(3,dce),fixpoint(const-fold,dce)", &CortexA72).unwrap();
    pm.bisect_limit = Some(2);
    let mut log = Vec::new();
    let executions = pm
        .run(&mut parse_module(BRANCHY).unwrap(), &mut log)
        .unwrap();
    let log = String::from_utf8(log).unwrap();
    assert_eq!(
        log,
        "BISECT: running pass (1) dce\nBISECT: running pass (2) dce\n\
         BISECT: NOT running pass (3) dce\nBISECT: NOT running pass (4) const-fold\n\
         BISECT: NOT running pass (5) dce\n"
    );
    assert_eq!(executions.iter().filter(|e| e.ran).count(), 2);
}

thread_local! {
    static PURE: RefCell<Vec<(String, bool)>> = const { RefCell::new(Vec::new()) };
}

/// Records whether the module facts call each function pure.
fn record_purity(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let pure = cx.facts().summary(cx.id).is_pure();
    PURE.with(|p| p.borrow_mut().push((f.name.clone(), pure)));
    Preserved::All
}

#[test]
fn function_passes_read_module_facts_current_at_their_start() {
    let input = "\
@g = global i32 x 1

func @bump() -> i32 {
bb0:
  %0 = load i32 @g
  %1 = add %0, 1
  ret %1
}

func @main() -> i32 {
bb0:
  %0 = call i32 @bump()
  ret %0
}
";
    let reader = || {
        Step::Run(Pass {
            name: "record-purity",
            description: "records what the facts say",
            kind: PassKind::Function(record_purity),
            needs_facts: true,
        })
    };
    PURE.with(|p| p.borrow_mut().clear());
    // @bump returns a constant, so dce deletes its read of @g: the facts must see that.
    let pm = PassManager::new(
        vec![reader(), Step::Run(find("dce").unwrap()), reader()],
        &CortexA72,
    );
    let mut m = parse_module(input).unwrap();
    let bump = m.find_function("bump").unwrap();
    let f = m.function_mut(bump);
    let add = f.all_insts().nth(1).unwrap();
    f.replace_all_uses(Value::Inst(add), Value::Int(5));
    pm.run(&mut m, &mut std::io::sink()).unwrap();
    PURE.with(|p| {
        let seen: Vec<(String, bool)> = p.borrow().clone();
        let expect = |name: &str, pure: bool| (name.to_string(), pure);
        assert_eq!(
            seen,
            [
                expect("bump", false),
                expect("main", false),
                expect("bump", true),
                expect("main", true),
            ]
        );
    });
}

thread_local! {
    static RUNS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Notes which function it saw, and changes nothing.
fn note_run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    RUNS.with(|r| r.borrow_mut().push(f.name.clone()));
    Preserved::All
}

/// Notes which function it saw, and claims to change it on every run but the first.
fn fickle(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    RUNS.with(|r| {
        let mut runs = r.borrow_mut();
        runs.push(f.name.clone());
        Preserved::cfg_if(runs.len() > 1)
    })
}

/// Changes `@main` only.
fn touch_main(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    Preserved::cfg_if(f.name == "main")
}

const TWO_FUNCTIONS: &str = "\
func @helper() -> i32 {
bb0:
  ret 7
}

func @main() -> i32 {
bb0:
  ret 0
}
";

fn runs_of(steps: Vec<Step>, verify_each: bool) -> Result<Vec<String>, String> {
    RUNS.with(|r| r.borrow_mut().clear());
    let mut pm = PassManager::new(steps, &CortexA72);
    pm.verify_each = verify_each;
    pm.run(
        &mut parse_module(TWO_FUNCTIONS).unwrap(),
        &mut std::io::sink(),
    )?;
    Ok(RUNS.with(|r| r.borrow().clone()))
}

#[test]
fn a_pass_that_changed_nothing_skips_the_functions_unchanged_since() {
    let steps = vec![
        pass("note", note_run),
        pass("note", note_run),
        pass("touch-main", touch_main),
        pass("note", note_run),
    ];
    // The second run finds both functions as the first left them; the third finds @main
    // changed.
    assert_eq!(
        runs_of(steps.clone(), false).unwrap(),
        ["helper", "main", "main"]
    );
    // With `verify_each` every run happens, to check the skipped ones change nothing.
    assert_eq!(runs_of(steps, true).unwrap().len(), 6);
}

#[test]
fn a_pass_reading_module_facts_runs_again_after_any_function_changed() {
    let reads_facts = Step::Run(Pass {
        name: "note-with-facts",
        description: "a pass of this test",
        kind: PassKind::Function(note_run),
        needs_facts: true,
    });
    let steps = vec![
        reads_facts.clone(),
        pass("touch-main", touch_main),
        reads_facts,
    ];
    assert_eq!(
        runs_of(steps, false).unwrap(),
        ["helper", "main", "helper", "main"]
    );
}

#[test]
fn verify_each_names_a_pass_that_changes_what_it_left_alone_before() {
    let steps = vec![pass("fickle", fickle), pass("fickle", fickle)];
    // Run 1 (@helper) changes nothing, run 2 (@main) changes it, run 3 (@helper again,
    // unchanged since run 1) changes it.
    assert_eq!(
        runs_of(steps.clone(), true).unwrap_err(),
        "pass 'fickle' changed @helper although it changed nothing when it last ran on the \
         same input"
    );
    assert_eq!(runs_of(steps, false).unwrap(), ["helper", "main", "main"]);
}

#[test]
fn a_huge_function_gets_one_run_of_each_pass() {
    let mut m = parse_module(TWO_FUNCTIONS).unwrap();
    let huge = &mut m.functions[0];
    let entry = huge.entry().unwrap();
    let ret = huge.terminator(entry).unwrap();
    for _ in 0..500_000 {
        let add = InstKind::Binary {
            op: BinaryOp::Add,
            args: [Value::Int(1), Value::Int(2)],
        };
        huge.insert_inst_before(ret, add, Type::I32);
    }
    let steps = vec![
        pass("note", note_run),
        pass("touch-everything", touch_everything),
        pass("note", note_run),
        pass("touch-everything", touch_everything),
    ];
    RUNS.with(|r| r.borrow_mut().clear());
    PassManager::new(steps, &CortexA72)
        .run(&mut m, &mut std::io::sink())
        .unwrap();
    // @helper, grown past 500,000 instructions, sees each pass once; @main sees every run.
    assert_eq!(
        RUNS.with(|r| r.borrow().clone()),
        ["helper", "main", "main"]
    );
}
