//! Function summaries and constant globals on small handwritten modules.

use middle::analysis::{FunctionSummary, ModuleFacts};
use middle::ir::parser::parse_module;
use middle::ir::verifier::verify_module;
use middle::ir::Module;

fn facts(text: &str) -> (Module, ModuleFacts) {
    let m = parse_module(text).unwrap();
    verify_module(&m).unwrap();
    let facts = ModuleFacts::new(&m);
    (m, facts)
}

fn summary<'a>(m: &Module, facts: &'a ModuleFacts, name: &str) -> &'a FunctionSummary {
    facts.summary(m.find_function(name).unwrap())
}

fn constant(m: &Module, facts: &ModuleFacts, name: &str) -> bool {
    facts.is_constant_global(m.find_global(name).unwrap())
}

#[test]
fn arithmetic_and_local_arrays_are_pure() {
    let (m, f) = facts(
        "func @square(%a0: i32) -> i32 {
bb0:
  %0 = mul %a0, %a0
  ret %0
}

func @local(%a0: i32) -> i32 {
bb0:
  %0 = alloca i32 x 4
  %1 = gep %0, %a0, 4
  store 5, %1
  call void @memset(%0, 0, 16)
  %2 = load i32 %1
  %3 = call i32 @square(%2)
  ret %3
}
",
    );
    for name in ["square", "local"] {
        let s = summary(&m, &f, name);
        assert!(s.is_pure(), "{name}: {s:?}");
        assert!(s.is_read_only());
        assert!(!s.is_recursive && !s.may_not_return && !s.has_io);
        assert!(s.writes_only_through_args);
    }
    assert_eq!(f, ModuleFacts::new(&m));
}

const GLOBALS: &str = "@g = global i32 x 1
@h = global i32 x 4
@t = const i32 x 4 {0: 1, 2: 3}
@r = global i32 x 4

func @set_g() -> void {
bb0:
  store 1, @g
  ret
}

func @calls_set_g() -> void {
bb0:
  call void @set_g()
  ret
}

func @fill(%a0: ptr, %a1: ptr) -> void {
bb0:
  %0 = gep %a0, 1, 4
  %1 = gep %0, 1, 4
  %2 = load i32 %a1
  store %2, %1
  ret
}

func @fill_local() -> void {
bb0:
  %0 = alloca i32 x 4
  call void @fill(%0, @t)
  ret
}

func @fill_h() -> void {
bb0:
  %0 = gep @h, 2, 4
  call void @fill(%0, @r)
  ret
}

func @fill_param(%a0: i32, %a1: ptr) -> void {
bb0:
  call void @fill(%a1, %a1)
  ret
}

func @read_tables(%a0: i32) -> i32 {
bb0:
  %0 = gep @t, %a0, 4
  %1 = load i32 %0
  %2 = gep @r, %a0, 4
  %3 = load i32 %2
  %4 = add %1, %3
  ret %4
}
";

#[test]
fn writing_a_global_is_seen_in_the_function_and_its_callers() {
    let (m, f) = facts(GLOBALS);
    for name in ["set_g", "calls_set_g"] {
        let s = summary(&m, &f, name);
        assert!(s.writes_memory && s.writes_globals, "{name}");
        assert!(!s.writes_only_through_args && !s.reads_memory, "{name}");
        assert!(!s.is_pure() && !s.is_read_only(), "{name}");
    }
    assert!(!constant(&m, &f, "g"));
}

#[test]
fn writing_through_a_parameter_is_mapped_to_the_callers_argument() {
    let (m, f) = facts(GLOBALS);
    let fill = summary(&m, &f, "fill");
    assert_eq!(fill.writes_param, [true, false]);
    assert_eq!(fill.reads_param, [false, true]);
    assert!(fill.writes_memory && fill.reads_memory);
    assert!(fill.writes_only_through_args && !fill.writes_globals && !fill.reads_globals);

    // Into its own array: nothing visible, but it reads the table it passes.
    let local = summary(&m, &f, "fill_local");
    assert!(!local.writes_memory && local.reads_globals);
    assert!(local.is_read_only() && !local.is_pure());

    let fill_h = summary(&m, &f, "fill_h");
    assert!(fill_h.writes_globals && fill_h.reads_globals);

    let fill_param = summary(&m, &f, "fill_param");
    assert_eq!(fill_param.writes_param, [false, true]);
    assert_eq!(fill_param.reads_param, [false, true]);
    assert!(fill_param.writes_only_through_args);
}

#[test]
fn a_global_written_only_by_a_callee_through_its_parameter_is_not_constant() {
    let (m, f) = facts(GLOBALS);
    assert!(!constant(&m, &f, "h"));
    // Read through a parameter, read directly, declared const: constant.
    assert!(constant(&m, &f, "r"));
    assert!(constant(&m, &f, "t"));
    let read = summary(&m, &f, "read_tables");
    assert!(read.reads_globals && !read.writes_memory && read.is_read_only());
}

#[test]
fn mutual_recursion_may_not_return_and_shares_parameter_effects() {
    let (m, f) = facts(
        "@g = global i32 x 4

func @a(%a0: ptr, %a1: i32) -> void {
bb0:
  call void @b(%a0, %a1)
  ret
}

func @b(%a0: ptr, %a1: i32) -> void {
bb0:
  %0 = icmp sgt %a1, 0
  condbr %0, bb1, bb2
bb1:
  %1 = sub %a1, 1
  call void @a(%a0, %1)
  br bb2
bb2:
  store %a1, %a0
  ret
}

func @main() -> i32 {
bb0:
  call void @a(@g, 3)
  ret 0
}

func @self(%a0: i32) -> i32 {
bb0:
  %0 = call i32 @self(%a0)
  ret %0
}
",
    );
    for name in ["a", "b", "self"] {
        let s = summary(&m, &f, name);
        assert!(s.is_recursive && s.may_not_return, "{name}");
        assert!(!s.is_pure(), "{name}");
    }
    assert_eq!(summary(&m, &f, "a").writes_param, [true, false]);
    let main = summary(&m, &f, "main");
    assert!(!main.is_recursive && main.may_not_return && main.writes_globals);
    assert!(!constant(&m, &f, "g"));
    assert!(!summary(&m, &f, "self").reads_memory);
}

#[test]
fn a_loop_may_not_return_and_neither_may_its_callers() {
    let (m, f) = facts(
        "func @spin(%a0: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [%a0, bb0], [%1, bb1]
  %1 = sub %0, 1
  %2 = icmp sgt %1, 0
  condbr %2, bb1, bb2
bb2:
  ret %1
}

func @caller() -> i32 {
bb0:
  %0 = call i32 @spin(5)
  ret %0
}
",
    );
    for name in ["spin", "caller"] {
        let s = summary(&m, &f, name);
        assert!(s.may_not_return && !s.is_recursive, "{name}");
        assert!(!s.reads_memory && !s.writes_memory && !s.has_io, "{name}");
        assert!(!s.is_pure() && s.is_read_only(), "{name}");
    }
}

#[test]
fn runtime_calls_are_io_and_access_their_arrays() {
    let (m, f) = facts(
        "@in = global i32 x 8
@out = global i32 x 8
@z = global i32 x 8

func @read() -> i32 {
bb0:
  %0 = call i32 @getarray(@in)
  ret %0
}

func @write() -> void {
bb0:
  call void @putarray(8, @out)
  ret
}

func @time() -> void {
bb0:
  call void @_sysy_starttime(3)
  ret
}

func @fill_arg(%a0: ptr) -> void {
bb0:
  %0 = call i32 @getarray(%a0)
  ret
}

func @clear() -> void {
bb0:
  call void @memset(@z, 0, 32)
  ret
}

func @uses_io() -> void {
bb0:
  call void @time()
  ret
}
",
    );
    for name in ["read", "write", "time", "fill_arg", "uses_io"] {
        assert!(summary(&m, &f, name).has_io, "{name}");
    }
    let read = summary(&m, &f, "read");
    assert!(read.writes_globals && !read.reads_memory);
    let write = summary(&m, &f, "write");
    assert!(write.reads_globals && !write.writes_memory);
    assert_eq!(summary(&m, &f, "fill_arg").writes_param, [true]);
    let clear = summary(&m, &f, "clear");
    assert!(clear.writes_globals && !clear.has_io && !clear.reads_memory);
    assert!(!constant(&m, &f, "in"));
    assert!(constant(&m, &f, "out"));
    assert!(!constant(&m, &f, "z"));
    let time = summary(&m, &f, "time");
    assert!(!time.reads_memory && !time.writes_memory && !time.is_pure());
}

#[test]
fn pointers_that_escape_are_read_and_written() {
    let (m, f) = facts(
        "@g = global i32 x 4
@k = global i32 x 4

func @pick(%a0: i1, %a1: ptr) -> i32 {
bb0:
  condbr %a0, bb1, bb2
bb1:
  br bb2
bb2:
  %0 = phi ptr [@g, bb0], [%a1, bb1]
  %1 = load i32 %0
  ret %1
}

func @pass_k() -> i32 {
bb0:
  %0 = call i32 @pick(true, @k)
  ret %0
}
",
    );
    assert!(!constant(&m, &f, "g"));
    assert!(!constant(&m, &f, "k"));
    let pick = summary(&m, &f, "pick");
    assert_eq!(pick.writes_param, [false, true]);
    assert!(pick.reads_globals && !pick.writes_globals);
    assert!(summary(&m, &f, "pass_k").writes_globals);
}

#[test]
fn a_write_reaches_round_a_cycle_of_five_thousand_functions() {
    // f0 passes its pointer to f1, ..., f4999 back to f0; only f4999 stores through it.
    let count = 5000;
    let mut text = String::from("@g = global i32 x 1\n");
    for i in 0..count {
        let next = (i + 1) % count;
        let store = if i == count - 1 {
            "  store 1, %a0\n"
        } else {
            ""
        };
        text += &format!(
            "func @f{i}(%a0: ptr, %a1: i32) -> void {{\nbb0:\n{store}  %0 = icmp sgt %a1, 0\n  condbr %0, bb1, bb2\nbb1:\n  %1 = sub %a1, 1\n  call void @f{next}(%a0, %1)\n  br bb2\nbb2:\n  ret\n}}\n"
        );
    }
    text += "func @main() -> i32 {\nbb0:\n  call void @f0(@g, 10)\n  ret 0\n}\n";
    let m = parse_module(&text).unwrap();
    let start = std::time::Instant::now();
    let f = ModuleFacts::new(&m);
    println!(
        "module facts, 5,000 functions in a cycle: {:?}",
        start.elapsed()
    );
    assert_eq!(f.call_graph.sccs().len(), 2);
    for i in [0, 1, 2500, count - 1] {
        let s = summary(&m, &f, &format!("f{i}"));
        assert_eq!(s.writes_param, [true, false], "f{i}");
        assert!(!s.reads_memory && s.is_recursive && s.writes_only_through_args);
    }
    assert!(!constant(&m, &f, "g"));
    assert!(summary(&m, &f, "main").writes_globals);
}
