//! mem2reg: promotes every `alloca` of one scalar whose only uses are loads from it and
//! stores to it into SSA values, with phis where control flow merges (`transform::promote`
//! says how).
//!
//! Needs: the CFG and the dominator tree. Preserves: behaviour and the CFG; removes the
//! promoted allocas, their loads and stores; adds phis.

use crate::analysis::Preserved;
use crate::ir::Function;
use crate::passes::FunctionContext;
use crate::transform::promote;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let allocas = promote::promotable(f);
    if allocas.is_empty() {
        return Preserved::All;
    }
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    promote::promote(f, &cfg, &dom, allocas);
    Preserved::Cfg
}

#[cfg(test)]
mod tests {
    use crate::cost_model::Unasked;
    use crate::ir::{parser::parse_module, printer::print_module};
    use crate::pass_manager::PassManager;

    /// 20,000 blocks in a chain, each storing and loading the variable: renaming must not
    /// recurse natively (too large for a file test in `tests/ir/mem2reg/`).
    #[test]
    fn deep_cfg_renames_without_native_recursion() {
        let mut text = String::from(
            "func @f() -> i32 {\nbb0:\n  %v = alloca i32 x 1\n  store 0, %v\n  br bb1\n",
        );
        for b in 1..20_000 {
            text.push_str(&format!(
                "bb{b}:\n  %l{b} = load i32 %v\n  %s{b} = add %l{b}, 1\n  store %s{b}, %v\n  %c{b} = icmp slt %s{b}, 5\n  condbr %c{b}, bb{b}, bb{}\n",
                b + 1
            ));
        }
        text.push_str("bb20000:\n  %r = load i32 %v\n  ret %r\n}\n");
        let mut m = parse_module(&text).unwrap();
        let mut pm = PassManager::parse("mem2reg", &Unasked).unwrap();
        pm.verify_each = true;
        pm.run(&mut m, &mut std::io::sink()).unwrap();
        let out = print_module(&m);
        assert!(!out.contains("alloca"));
        assert_eq!(out.matches("phi").count(), 19_999);
    }
}
