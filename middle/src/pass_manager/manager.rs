//! The pass manager: runs a pipeline over a module, keeping each function's analyses
//! between passes and dropping what a pass did not preserve. It numbers every pass
//! execution as it happens: it can stop after the first N (`opt-bisect-limit`, to find the
//! pass that breaks a program), time each, print the IR after chosen passes, and with
//! `verify_each` verify the IR and recompute every cached analysis after each pass, failing
//! with the pass's name when one it claimed to preserve has changed.

use super::budget::Budget;
use super::pipeline::{self, Step, FIXPOINT_ROUNDS};
use super::settled::Settled;
use super::{FunctionContext, Pass, PassKind};
use crate::analysis::{FunctionAnalyses, ModuleFacts, Preserved};
use crate::cost_model::CostModel;
use crate::ir::printer::print_module;
use crate::ir::verifier::verify_module;
use crate::ir::{FuncId, Function, Module};
use std::io::Write;
use std::rc::Rc;

/// Which passes to print the IR after.
#[derive(Clone, Debug, Default)]
pub enum PrintAfter {
    #[default]
    Nothing,
    All,
    Named(Vec<String>),
}

/// The analyses the manager keeps for a module: one cache per function, and the module's
/// facts, dropped whenever a pass changes anything; with them the target's cost model.
pub struct ModuleAnalyses {
    functions: Vec<FunctionAnalyses>,
    facts: Option<Rc<ModuleFacts>>,
    costs: &'static dyn CostModel,
}

impl ModuleAnalyses {
    fn new(costs: &'static dyn CostModel) -> ModuleAnalyses {
        ModuleAnalyses {
            functions: Vec::new(),
            facts: None,
            costs,
        }
    }

    /// The target's cost model.
    pub fn costs(&self) -> &'static dyn CostModel {
        self.costs
    }

    /// The facts of `m`, from the cache or computed now.
    pub fn facts(&mut self, m: &Module) -> Rc<ModuleFacts> {
        Rc::clone(
            self.facts
                .get_or_insert_with(|| Rc::new(ModuleFacts::new(m))),
        )
    }

    /// The cache of function `id`.
    pub fn function(&mut self, id: FuncId) -> &mut FunctionAnalyses {
        &mut self.functions[id.index()]
    }

    /// Makes room for every function of `m` (a module pass may have added some).
    fn fit(&mut self, m: &Module) {
        self.functions
            .resize_with(m.functions.len(), FunctionAnalyses::default);
    }

    fn clear(&mut self) {
        self.functions.clear();
        self.facts = None;
    }
}

#[derive(Clone)]
pub struct PassManager {
    steps: Vec<Step>,
    /// The target's costs, which passes ask through their context.
    costs: &'static dyn CostModel,
    pub verify_each: bool,
    pub print_after: PrintAfter,
    /// Run only the first this many pass executions.
    pub bisect_limit: Option<usize>,
    /// Report how long each pass execution takes.
    pub time_passes: bool,
}

/// One pass execution, as numbered by the manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Execution {
    pub number: usize,
    pub name: &'static str,
    pub ran: bool,
    pub changed: bool,
}

impl PassManager {
    /// Runs these steps, the passes asking `costs` what the target's instructions cost.
    pub fn new(steps: Vec<Step>, costs: &'static dyn CostModel) -> PassManager {
        PassManager {
            steps,
            costs,
            verify_each: false,
            print_after: PrintAfter::Nothing,
            bisect_limit: None,
            time_passes: false,
        }
    }

    /// Runs these passes once each, in order.
    pub fn sequence(passes: Vec<Pass>, costs: &'static dyn CostModel) -> PassManager {
        PassManager::new(passes.into_iter().map(Step::Run).collect(), costs)
    }

    /// The standard pipeline of an optimisation level.
    pub fn for_level(level: u8, costs: &'static dyn CostModel) -> PassManager {
        PassManager::parse(&super::pipeline(level), costs).expect("level pipelines parse")
    }

    /// A pipeline in the syntax of `--passes`; an unknown name is an error listing the
    /// known ones.
    pub fn parse(spec: &str, costs: &'static dyn CostModel) -> Result<PassManager, String> {
        Ok(PassManager::new(pipeline::parse(spec)?, costs))
    }

    /// Leaves every execution of the pass `name` out of the pipeline (inside groups too).
    pub fn disable(&mut self, name: &str) {
        fn without(steps: &mut Vec<Step>, name: &str) {
            steps.retain(|s| !matches!(s, Step::Run(p) if p.name == name));
            for s in steps {
                if let Step::Fixpoint(inner) | Step::Repeat(_, inner) = s {
                    without(inner, name);
                }
            }
        }
        without(&mut self.steps, name);
    }

    /// Runs only the first `n` pass executions, logging and printing nothing: the module a
    /// bisection step judges.
    pub fn run_first(&self, n: usize, m: &mut Module) -> Result<(), String> {
        let mut limited = self.clone();
        limited.bisect_limit = Some(n);
        limited.print_after = PrintAfter::Nothing;
        limited.time_passes = false;
        limited.run(m, &mut std::io::sink()).map(|_| ())
    }

    /// Runs the passes; `log` receives a line per execution when bisecting or timing, and
    /// the printed IR. Fails if verification after a pass fails.
    pub fn run(&self, m: &mut Module, log: &mut dyn Write) -> Result<Vec<Execution>, String> {
        let mut run = Run {
            pm: self,
            log,
            executions: Vec::new(),
            analyses: ModuleAnalyses::new(self.costs),
            settled: Settled::default(),
            budget: Budget::default(),
        };
        run.steps(&self.steps, m)?;
        Ok(run.executions)
    }
}

/// The state of one run of a pipeline.
struct Run<'a> {
    pm: &'a PassManager,
    log: &'a mut dyn Write,
    executions: Vec<Execution>,
    analyses: ModuleAnalyses,
    settled: Settled,
    budget: Budget,
}

impl Run<'_> {
    /// Runs a list of steps; returns whether any pass changed anything.
    fn steps(&mut self, steps: &[Step], m: &mut Module) -> Result<bool, String> {
        let mut changed = false;
        for step in steps {
            changed |= match step {
                Step::Run(pass) => self.pass(pass, m)?,
                Step::Fixpoint(inner) => {
                    let mut any = false;
                    for _ in 0..FIXPOINT_ROUNDS {
                        if !self.steps(inner, m)? {
                            break;
                        }
                        any = true;
                    }
                    any
                }
                Step::Repeat(n, inner) => {
                    let mut any = false;
                    for _ in 0..*n {
                        any |= self.steps(inner, m)?;
                    }
                    any
                }
            };
        }
        Ok(changed)
    }

    fn pass(&mut self, pass: &Pass, m: &mut Module) -> Result<bool, String> {
        let pm = self.pm;
        let number = self.executions.len() + 1;
        let ran = pm.bisect_limit.is_none_or(|limit| number <= limit);
        if pm.bisect_limit.is_some() {
            let verb = if ran { "running" } else { "NOT running" };
            let _ = writeln!(self.log, "BISECT: {verb} pass ({number}) {}", pass.name);
        }
        let mut changed = false;
        if ran {
            let start = std::time::Instant::now();
            changed = self.execute(pass, m)?.changed();
            if pm.time_passes {
                let ms = start.elapsed().as_secs_f64() * 1e3;
                let _ = writeln!(self.log, "time: pass ({number}) {}: {ms:.3} ms", pass.name);
            }
            if pm.verify_each {
                verify_module(m)
                    .map_err(|e| format!("IR invalid after pass '{}':\n{e}", pass.name))?;
            }
            let print = match &pm.print_after {
                PrintAfter::Nothing => false,
                PrintAfter::All => true,
                PrintAfter::Named(names) => names.iter().any(|n| n == pass.name),
            };
            if print {
                let _ = writeln!(self.log, "; IR after {} (execution {number})", pass.name);
                let _ = write!(self.log, "{}", print_module(m));
            }
        }
        self.executions.push(Execution {
            number,
            name: pass.name,
            ran,
            changed,
        });
        Ok(changed)
    }

    /// Runs one pass and drops the analyses it did not preserve; with `verify_each`,
    /// checks that those it kept are still right. A function pass skips the functions it is
    /// settled on; with `verify_each` it runs there too and must change nothing. It also
    /// skips a huge function it has already run on (see `budget`).
    fn execute(&mut self, pass: &Pass, m: &mut Module) -> Result<Preserved, String> {
        self.analyses.fit(m);
        self.settled.fit(m.functions.len());
        self.budget.fit(m.functions.len());
        match pass.kind {
            PassKind::Function(run) => {
                let facts = pass.needs_facts.then(|| self.analyses.facts(m));
                let module = pass.needs_facts.then(|| self.settled.module());
                let mut all = Preserved::All;
                for (index, f) in m.functions.iter_mut().enumerate() {
                    let id = FuncId(index as u32);
                    if !self.budget.allows(pass.name, id, f) {
                        continue;
                    }
                    let settled = self.settled.is_settled(pass.name, id, module);
                    if settled && !self.pm.verify_each {
                        continue;
                    }
                    let analyses = self.analyses.function(id);
                    let mut cx = FunctionContext {
                        id,
                        analyses,
                        facts: facts.clone(),
                        costs: self.pm.costs,
                    };
                    let preserved = run(f, &mut cx);
                    if settled && preserved.changed() {
                        return Err(format!(
                            "pass '{}' changed @{} although it changed nothing when it last \
                             ran on the same input",
                            pass.name, f.name
                        ));
                    }
                    self.settled.ran(pass.name, id, module, preserved.changed());
                    analyses.invalidate(preserved);
                    Self::check_fresh(self.pm, pass, f, analyses)?;
                    all = all.meet(preserved);
                }
                if all.changed() {
                    self.analyses.facts = None;
                }
                Ok(all)
            }
            PassKind::Module(run) => {
                let count = m.functions.len();
                let preserved = run(m, &mut self.analyses);
                if m.functions.len() != count {
                    self.analyses.clear();
                    self.settled.clear();
                    self.budget.clear();
                    return Ok(Preserved::Nothing);
                }
                if preserved.changed() {
                    self.settled.changed_module();
                }
                for (index, f) in m.functions.iter().enumerate() {
                    let analyses = self.analyses.function(FuncId(index as u32));
                    analyses.invalidate(preserved);
                    Self::check_fresh(self.pm, pass, f, analyses)?;
                }
                if preserved.changed() {
                    self.analyses.facts = None;
                }
                Ok(preserved)
            }
        }
    }

    /// With `verify_each`, fails if an analysis kept after `pass` differs from a fresh one.
    fn check_fresh(
        pm: &PassManager,
        pass: &Pass,
        f: &Function,
        analyses: &FunctionAnalyses,
    ) -> Result<(), String> {
        if !pm.verify_each {
            return Ok(());
        }
        let stale = analyses.stale(f);
        if stale.is_empty() {
            return Ok(());
        }
        Err(format!(
            "pass '{}' claims to preserve the {} of @{} but changed it",
            pass.name,
            stale.join(" and the "),
            f.name
        ))
    }
}
