//! The help of the options that name passes, and the check of the names `--print-after`
//! is given, made from the pass registries (the IR's `REGISTRY`, the back end's
//! `BACKEND_PASSES`) so that neither can drift from the code.

use backend::passes::BACKEND_PASSES;
use middle::pass_manager::REGISTRY;

fn joined<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

fn ir_passes() -> String {
    joined(REGISTRY.iter().map(|p| p.name))
}

fn back_end_passes() -> String {
    joined(BACKEND_PASSES.iter().map(|p| p.name))
}

/// The back-end passes that are `required` (or not), in pipeline order.
fn back_end(required: bool) -> String {
    joined(
        BACKEND_PASSES
            .iter()
            .filter(|p| p.required == required)
            .map(|p| p.name),
    )
}

pub fn disable_pass() -> String {
    format!(
        "Leave these passes out of the pipeline (the level's or --passes'), to measure what a \
         pass does: IR passes, and the back end's optional ones ({})",
        back_end(false)
    )
}

pub fn print_after() -> String {
    format!(
        "Print to stderr after each execution of the named passes what they produce: after an \
         IR pass the IR, after a back-end pass each function's IR, machine IR or the assembly. \
         IR passes: {}. Back-end passes, in their order: {}",
        ir_passes(),
        back_end_passes()
    )
}

pub fn opt_bisect_limit() -> String {
    format!(
        "Run only the first N pass executions; list on stderr which ran and which did not. The \
         back end's passes are numbered on after the IR passes; its required ones ({}) always \
         run, the others ({}) only within the N",
        back_end(true),
        back_end(false)
    )
}

/// Checks the names given to `--print-after`: each must name an IR or a back-end pass.
pub fn check_print_after(names: &[String]) -> Result<(), String> {
    let known = |name: &str| {
        REGISTRY.iter().any(|p| p.name == name) || BACKEND_PASSES.iter().any(|p| p.name == name)
    };
    match names.iter().find(|n| !known(n)) {
        Some(name) => Err(format!(
            "--print-after: unknown pass '{name}' (IR passes: {}; back-end passes: {}; \
             --print-after-all prints after every pass)",
            ir_passes(),
            back_end_passes()
        )),
        None => Ok(()),
    }
}
