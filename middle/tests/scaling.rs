//! The analyses and passes on large or deep functions: dominators agree with their
//! definition on random control flow, and programs nested thousands deep (loops, if/else
//! chains, loops with thousands of `continue`s) go through the -O2 pipeline, verify, and
//! still compute the right result.

mod common;

use backend::ir_costs::CortexA72;
use common::{judge_output, with_big_stack};
use middle::analysis::{Cfg, DomTree};
use middle::ir::verifier::verify_module;
use middle::ir::{parser::parse_module, Block, Function};
use middle::pass_manager::PassManager;

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A function of `n` blocks with random jumps (never back to the entry), some returns,
/// self-loops and unreachable blocks.
fn random_cfg(rng: &mut Rng, n: usize) -> String {
    let mut text = String::from("func @f(%a0: i1) -> void {\n");
    for b in 0..n {
        text.push_str(&format!("bb{b}:\n"));
        let target = |rng: &mut Rng| 1 + rng.below(n - 1);
        match rng.below(10) {
            0 => text.push_str("  ret\n"),
            1..=3 => text.push_str(&format!("  br bb{}\n", target(rng))),
            _ => {
                let (x, y) = (target(rng), target(rng));
                text.push_str(&format!("  condbr %a0, bb{x}, bb{y}\n"));
            }
        }
    }
    text.push_str("}\n");
    text
}

/// Whether `b` can be reached from the entry without passing `avoid`.
fn reachable_avoiding(f: &Function, b: Block, avoid: Option<Block>) -> bool {
    let entry = f.entry().unwrap();
    if Some(entry) == avoid {
        return false;
    }
    let mut seen = vec![false; f.block_capacity()];
    let mut stack = vec![entry];
    seen[entry.index()] = true;
    while let Some(x) = stack.pop() {
        if x == b {
            return true;
        }
        for &s in f.successors(x) {
            if Some(s) != avoid && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    false
}

#[test]
fn dominators_match_their_definition_on_random_graphs() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let n = 2 + rng.below(30);
        let m = parse_module(&random_cfg(&mut rng, n)).unwrap();
        let f = &m.functions[0];
        let dom = DomTree::new(&Cfg::new(f));
        let blocks: Vec<Block> = f.blocks().collect();
        for &b in &blocks {
            let reachable = reachable_avoiding(f, b, None);
            assert_eq!(dom.is_reachable(b), reachable, "{b:?}");
            if !reachable {
                continue;
            }
            let strict: Vec<Block> = blocks
                .iter()
                .copied()
                .filter(|&a| a != b && !reachable_avoiding(f, b, Some(a)))
                .collect();
            for &a in &blocks {
                let expected = a == b || strict.contains(&a);
                assert_eq!(dom.dominates(a, b), expected, "{a:?} dominates {b:?}");
            }
            // The immediate dominator is the strict dominator every other one dominates.
            match dom.idom(b) {
                None => assert!(strict.is_empty()),
                Some(i) => {
                    assert!(strict.contains(&i));
                    assert!(strict.iter().all(|&a| dom.dominates(a, i)));
                }
            }
        }
    }
}

/// Compiles a program through the -O2 pipeline, verifying after every pass, and runs it.
fn run_o2(source: &str, input: &str) -> Vec<u8> {
    let file = frontend::SourceFile::new("stress.sy".to_string(), source.to_string());
    let program = frontend::compile(&file).unwrap_or_else(|ds| panic!("{}", ds[0].render(&file)));
    let mut m = middle::lower::lower_program(&program);
    let mut pm = PassManager::for_level(2, &CortexA72);
    pm.verify_each = true;
    pm.run(&mut m, &mut std::io::sink()).unwrap();
    verify_module(&m).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = middle::interp::run(&m, input.as_bytes(), &mut out, &mut err, u64::MAX).unwrap();
    judge_output(&out, code)
}

#[test]
fn deeply_nested_loops() {
    with_big_stack(|| {
        let depth = 1500;
        let mut src = String::from("int main() {\n  int n = getint();\n  int s = 0;\n");
        for k in 0..depth {
            src.push_str(&format!("  int i{k} = 0;\n  while (i{k} < n) {{\n"));
        }
        src.push_str("  s = s + 1;\n");
        for k in (0..depth).rev() {
            src.push_str(&format!("  i{k} = i{k} + 1;\n  }}\n"));
        }
        src.push_str("  return s;\n}\n");
        // With n = 1 every loop runs once.
        assert_eq!(run_o2(&src, "1"), b"1\n");
    });
}

#[test]
fn deeply_nested_if_else() {
    with_big_stack(|| {
        let depth = 1500;
        let mut src = String::from("int main() {\n  int n = getint();\n  int s = 0;\n");
        for k in 0..depth {
            src.push_str(&format!("  if (n > {k}) {{\n  s = s + 1;\n"));
        }
        for k in (0..depth).rev() {
            src.push_str(&format!("  }} else {{\n  s = s + {};\n  }}\n", k % 5 + 2));
        }
        src.push_str("  return s;\n}\n");
        // n = 10 passes ten tests, then fails the one at depth 10 (adding 10 % 5 + 2).
        assert_eq!(run_o2(&src, "10"), b"12\n");
    });
}

#[test]
fn a_loop_with_thousands_of_continues() {
    with_big_stack(|| {
        let count = 2000;
        let mut src = String::from(
            "int main() {\n  int n = getint();\n  int s = 0;\n  int i = 0;\n  while (i < n) {\n    i = i + 1;\n",
        );
        for k in 0..count {
            src.push_str(&format!("    if (i == {k}) continue;\n    s = s + 1;\n"));
        }
        src.push_str("  }\n  return s;\n}\n");
        // Iteration i (1 to 5) adds one per test before `i == k` holds: i additions.
        assert_eq!(run_o2(&src, "5"), b"15\n");
    });
}

#[test]
fn a_long_else_if_chain() {
    with_big_stack(|| {
        let count = 2000;
        let mut src = String::from("int main() {\n  int n = getint();\n  int s = 0;\n");
        src.push_str("  if (n == 0) { s = 1; }\n");
        for k in 1..count {
            src.push_str(&format!("  else if (n == {k}) {{ s = {}; }}\n", k % 100));
        }
        src.push_str("  else { s = 7; }\n  return s;\n}\n");
        assert_eq!(run_o2(&src, "1234"), b"34\n");
        assert_eq!(run_o2(&src, "5000"), b"7\n");
    });
}
