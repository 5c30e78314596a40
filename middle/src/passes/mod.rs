//! Transformations of the IR, one per file, and the pass manager that runs them.
//!
//! A pass is a named function from a module to whether it changed anything. The manager
//! runs a list of passes, numbering each execution: it can stop after the first N
//! (`opt-bisect-limit`, to find the pass that breaks a program), verify the IR after each,
//! and print the IR after chosen passes.

pub mod bisect;
pub mod const_fold;
pub mod dce;
pub mod mem2reg;
pub mod simplify_cfg;
pub mod split_critical_edges;

use crate::ir::printer::print_module;
use crate::ir::verifier::verify_module;
use crate::ir::{Function, Module};
use std::io::Write;

/// A named transformation of a module.
#[derive(Clone, Copy)]
pub struct Pass {
    pub name: &'static str,
    pub description: &'static str,
    pub run: fn(&mut Module) -> bool,
}

/// Runs a per-function transformation on every function.
fn each_function(m: &mut Module, f: fn(&mut Function) -> bool) -> bool {
    m.functions
        .iter_mut()
        .fold(false, |changed, func| f(func) | changed)
}

/// Every pass the command line can name.
pub const REGISTRY: &[Pass] = &[
    Pass {
        name: "mem2reg",
        description: "promote scalar stack variables to SSA values",
        run: |m| each_function(m, mem2reg::run),
    },
    Pass {
        name: "const-fold",
        description: "fold constants and algebraic identities",
        run: |m| each_function(m, const_fold::run),
    },
    Pass {
        name: "dce",
        description: "remove unused side-effect-free instructions",
        run: |m| each_function(m, dce::run),
    },
    Pass {
        name: "simplify-cfg",
        description: "fold constant branches, delete unreachable blocks, merge blocks",
        run: |m| each_function(m, simplify_cfg::run),
    },
    Pass {
        name: "split-critical-edges",
        description: "give every critical edge a block of its own",
        run: |m| each_function(m, split_critical_edges::run),
    },
];

pub fn find(name: &str) -> Option<Pass> {
    REGISTRY.iter().copied().find(|p| p.name == name)
}

/// The passes of an optimisation level, by name.
pub fn pipeline(level: u8) -> &'static [&'static str] {
    match level {
        0 => &[],
        1 => &["mem2reg", "const-fold", "dce", "simplify-cfg"],
        _ => &[
            "mem2reg",
            "const-fold",
            "simplify-cfg",
            "const-fold",
            "dce",
            "simplify-cfg",
        ],
    }
}

/// Which passes to print the IR after.
#[derive(Clone, Debug, Default)]
pub enum PrintAfter {
    #[default]
    Nothing,
    All,
    Named(Vec<String>),
}

#[derive(Clone, Default)]
pub struct PassManager {
    passes: Vec<Pass>,
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
    pub fn new(passes: Vec<Pass>) -> PassManager {
        PassManager {
            passes,
            ..PassManager::default()
        }
    }

    /// The standard pipeline of an optimisation level.
    pub fn for_level(level: u8) -> PassManager {
        let passes = pipeline(level)
            .iter()
            .map(|n| find(n).expect("pipeline names registered passes"))
            .collect();
        PassManager::new(passes)
    }

    /// A pipeline from pass names; an unknown name is an error listing the known ones.
    pub fn from_names(names: &[String]) -> Result<PassManager, String> {
        let mut passes = Vec::new();
        for n in names {
            match find(n) {
                Some(p) => passes.push(p),
                None => {
                    let known: Vec<&str> = REGISTRY.iter().map(|p| p.name).collect();
                    return Err(format!("unknown pass '{n}' (known: {})", known.join(", ")));
                }
            }
        }
        Ok(PassManager::new(passes))
    }

    /// The number of pass executions a full run makes.
    pub fn len(&self) -> usize {
        self.passes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// The name of execution `n` (1-based).
    pub fn name(&self, n: usize) -> &'static str {
        self.passes[n - 1].name
    }

    /// Runs only the first `n` pass executions, logging and printing nothing: the module a
    /// bisection step judges.
    pub fn run_first(&self, n: usize, m: &mut Module) -> Result<(), String> {
        let mut limited = self.clone();
        limited.bisect_limit = Some(n);
        limited.print_after = PrintAfter::Nothing;
        limited.run(m, &mut std::io::sink()).map(|_| ())
    }

    /// Runs the passes; `log` receives a line per execution when bisecting and the printed
    /// IR. Fails if verification after a pass fails.
    pub fn run(&self, m: &mut Module, log: &mut dyn Write) -> Result<Vec<Execution>, String> {
        let mut executions = Vec::with_capacity(self.passes.len());
        for (number, pass) in self.passes.iter().enumerate() {
            let ran = self.bisect_limit.is_none_or(|limit| number < limit);
            if self.bisect_limit.is_some() {
                let verb = if ran { "running" } else { "NOT running" };
                let _ = writeln!(log, "BISECT: {verb} pass ({}) {}", number + 1, pass.name);
            }
            let start = std::time::Instant::now();
            let changed = ran && (pass.run)(m);
            if self.time_passes && ran {
                let ms = start.elapsed().as_secs_f64() * 1e3;
                let _ = writeln!(log, "time: pass ({}) {}: {ms:.3} ms", number + 1, pass.name);
            }
            executions.push(Execution {
                number: number + 1,
                name: pass.name,
                ran,
                changed,
            });
            if !ran {
                continue;
            }
            if self.verify_each {
                verify_module(m)
                    .map_err(|e| format!("IR invalid after pass '{}':\n{e}", pass.name))?;
            }
            let print = match &self.print_after {
                PrintAfter::Nothing => false,
                PrintAfter::All => true,
                PrintAfter::Named(names) => names.iter().any(|n| n == pass.name),
            };
            if print {
                let _ = writeln!(log, "; IR after {} (execution {})", pass.name, number + 1);
                let _ = write!(log, "{}", print_module(m));
            }
        }
        Ok(executions)
    }
}
