//! The machine IR parser on hand-built text: every instruction kind and every fact of a
//! function read back as built; errors name their line and never panic, on wrong text and
//! on every truncation of right text.

use super::{parse_function, parse_functions};
use crate::mir::test_build::{r, s, v};
use crate::mir::*;

/// A function with every instruction kind, float and int virtual registers, stack objects,
/// outgoing arguments and a block left out of the layout.
fn every_kind() -> MFunction {
    let mut mf = MFunction::new("every.sy", true);
    let ints: Vec<Reg> = (0..3).map(|_| mf.new_vreg(RegClass::Int)).collect();
    let floats: Vec<Reg> = (0..3).map(|_| mf.new_vreg(RegClass::Float)).collect();
    let last = mf.new_vreg(RegClass::Int);
    let (a, b, c) = (ints[0], ints[1], ints[2]);
    let (x, y, z) = (floats[0], floats[1], floats[2]);
    mf.new_object(8);
    mf.new_object(4);
    mf.outgoing_bytes = 8;
    let entry = mf.add_block(0);
    let table = mf.add_block(1);
    let exit = mf.add_block(0);
    let tail = mf.add_block(0);
    let dead = mf.add_block(2);
    mf.layout.retain(|&k| k != dead);
    mf.block_mut(table).frequency = 0.3;
    let shifted = |shift, k| Operand2::Shifted(b, shift, k);
    let alu = |cond, op, src| MInst::Alu {
        cond,
        op,
        rd: a,
        rn: b,
        src,
    };
    mf.block_mut(entry).insts = vec![
        MInst::Prologue,
        MInst::Mov {
            cond: None,
            rd: a,
            src: Operand2::Imm(4_294_967_295),
        },
        MInst::Mov {
            cond: Some(Cond::Hs),
            rd: a,
            src: Operand2::ShiftedBy(b, Shift::Asr, c),
        },
        MInst::Mvn {
            rd: a,
            src: shifted(Shift::Lsr, 0),
        },
        MInst::Movw { rd: a, imm: 65535 },
        MInst::Movt { rd: a, imm: 1 },
        MInst::LoadSym {
            rd: c,
            sym: ".Lstr0".into(),
        },
        alu(None, AluOp::Add, Operand2::Reg(c)),
        alu(Some(Cond::Ls), AluOp::Sub, shifted(Shift::Lsl, 3)),
        alu(None, AluOp::Rsb, Operand2::Imm(0)),
        alu(Some(Cond::Vs), AluOp::And, shifted(Shift::Lsl, 0)),
        alu(None, AluOp::Bic, Operand2::Imm(255)),
        alu(None, AluOp::Orr, Operand2::Reg(c)),
        alu(Some(Cond::Le), AluOp::Eor, Operand2::Reg(c)),
        MInst::AluS {
            op: AluOp::Sub,
            rd: a,
            rn: b,
            src: Operand2::Imm(1),
        },
        MInst::AluS {
            op: AluOp::Bic,
            rd: a,
            rn: b,
            src: shifted(Shift::Asr, 31),
        },
        MInst::Mul {
            rd: a,
            rn: b,
            rm: c,
        },
        MInst::Smmul {
            rd: a,
            rn: b,
            rm: c,
        },
        MInst::Mla {
            rd: a,
            rn: b,
            rm: c,
            ra: a,
        },
        MInst::Mls {
            rd: a,
            rn: b,
            rm: c,
            ra: a,
        },
        MInst::SDiv {
            rd: a,
            rn: b,
            rm: c,
        },
        MInst::Usat {
            rd: a,
            bits: 8,
            rn: b,
        },
        MInst::Rbit { rd: a, rm: b },
        MInst::Clz { rd: a, rm: b },
        MInst::Cmn {
            cond: None,
            rn: a,
            src: Operand2::Imm(5),
        },
        MInst::Tst {
            cond: Some(Cond::Ne),
            rn: a,
            src: Operand2::Reg(b),
        },
        MInst::Ldr {
            cond: None,
            rd: a,
            addr: Addr::Imm(b, 0),
        },
        MInst::Ldr {
            cond: None,
            rd: a,
            addr: Addr::Imm(b, -4),
        },
        MInst::Ldr {
            cond: None,
            rd: a,
            addr: Addr::Index(b, c, 2),
        },
        MInst::Ldr {
            cond: None,
            rd: a,
            addr: Addr::IndexDown(b, c, 0),
        },
        MInst::Ldr {
            cond: None,
            rd: a,
            addr: Addr::Slot(Slot::Incoming(8), 0),
        },
        MInst::Ldr {
            cond: None,
            rd: r(1),
            addr: Addr::PostIndex(r(2), 4),
        },
        MInst::Str {
            cond: Some(Cond::Gt),
            rs: a,
            addr: Addr::IndexDown(b, c, 3),
        },
        MInst::Str {
            cond: None,
            rs: a,
            addr: Addr::Slot(Slot::Outgoing(4), 0),
        },
        MInst::Str {
            cond: None,
            rs: r(1),
            addr: Addr::PreIndex(r(2), -8),
        },
        MInst::SlotAddr {
            rd: a,
            slot: Slot::Local(1),
            offset: 4,
        },
        MInst::VBin {
            op: VOp::Add,
            sd: x,
            sn: y,
            sm: z,
        },
        MInst::VBin {
            op: VOp::Sub,
            sd: x,
            sn: y,
            sm: z,
        },
        MInst::VBin {
            op: VOp::Mul,
            sd: x,
            sn: y,
            sm: z,
        },
        MInst::VBin {
            op: VOp::Div,
            sd: x,
            sn: y,
            sm: z,
        },
        MInst::VMla {
            sd: x,
            sn: y,
            sm: z,
        },
        MInst::VNeg { sd: x, sm: y },
        MInst::VMovIf {
            cond: Cond::Mi,
            sd: x,
            sm: y,
        },
        MInst::VMovImm {
            sd: x,
            bits: (-0.125f32).to_bits(),
        },
        MInst::VMovFromCore { sd: x, rn: a },
        MInst::VMovToCore { rd: a, sn: x },
        MInst::VCvtToFloat { sd: x, sm: y },
        MInst::VCvtToInt { sd: x, sm: y },
        MInst::VLdr {
            sd: x,
            addr: Addr::Slot(Slot::Local(0), 4),
        },
        MInst::VStr {
            ss: x,
            addr: Addr::Imm(a, 8),
        },
        MInst::Ldm {
            mode: BlockMode::Ia,
            base: r(0),
            writeback: true,
            regs: vec![r(1), r(2), r(12)],
        },
        MInst::Stm {
            mode: BlockMode::Db,
            base: r(0),
            writeback: false,
            regs: vec![r(0), r(3)],
        },
        MInst::VLdm {
            mode: BlockMode::Ia,
            base: r(0),
            writeback: false,
            regs: vec![s(2), s(3)],
        },
        MInst::VStm {
            mode: BlockMode::Db,
            base: r(0),
            writeback: true,
            regs: vec![s(16)],
        },
        MInst::VToDoubleCore {
            lo: r(2),
            hi: r(3),
            sm: x,
        },
        MInst::Copy { dst: last, src: a },
        MInst::Bl {
            sym: "f".into(),
            uses: vec![r(0), r(1)],
            defs: vec![r(0)],
        },
        MInst::Bl {
            sym: "g".into(),
            uses: vec![],
            defs: vec![s(0)],
        },
        MInst::Bl {
            sym: "h".into(),
            uses: vec![],
            defs: vec![],
        },
        MInst::VCmp { sn: x, sm: y },
        MInst::VCmpZero { sn: x },
        MInst::Cmp {
            cond: None,
            rn: a,
            src: Operand2::Imm(0),
        },
        MInst::Cmp {
            cond: Some(Cond::Eq),
            rn: a,
            src: Operand2::Reg(b),
        },
        MInst::BCond {
            cond: Cond::Lt,
            target: table,
        },
        MInst::B { target: exit },
    ];
    mf.block_mut(table).insts = vec![MInst::JumpTable {
        index: a,
        table: c,
        label: ".Ljt_every_1".into(),
        targets: vec![exit, tail, exit],
        default: tail,
    }];
    mf.block_mut(exit).insts = vec![MInst::Ret { uses: vec![r(0)] }];
    mf.block_mut(tail).insts = vec![MInst::TailCall {
        sym: "f".into(),
        uses: vec![r(0)],
    }];
    mf.block_mut(dead).insts = vec![MInst::Ret { uses: vec![] }];
    mf.recompute_succs();
    mf
}

#[test]
fn every_instruction_kind_and_fact_reads_back_as_built() {
    let built = every_kind();
    assert_eq!(verifier::verify(&built), Ok(()));
    let text = built.to_string();
    let parsed = parse_function(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed.to_string(), text);
    assert_eq!((parsed.symbol.as_str(), parsed.global), ("every.sy", true));
    assert_eq!(parsed.vreg_classes, built.vreg_classes);
    let sizes = |mf: &MFunction| mf.objects.iter().map(|o| o.size).collect::<Vec<_>>();
    assert_eq!(sizes(&parsed), sizes(&built));
    assert_eq!(parsed.outgoing_bytes, 8);
    assert_eq!(parsed.layout, built.layout);
    assert_eq!(parsed.blocks.len(), built.blocks.len());
    for (p, b) in parsed.blocks.iter().zip(&built.blocks) {
        assert_eq!(p.insts, b.insts);
        assert_eq!(p.succs, b.succs);
        assert_eq!(p.loop_depth, b.loop_depth);
        assert_eq!(p.frequency.to_bits(), b.frequency.to_bits());
    }
}

#[test]
fn the_text_says_what_it_holds() {
    let text = every_kind().to_string();
    for line in [
        "function every.sy (global)",
        "  virtual registers: 7 (float: 3-5)",
        "  local1: 4 bytes",
        "  outgoing arguments: 8 bytes",
        "bb1:\t; loop depth 1; frequency 0.3; succs bb3 bb2",
        "bb4:\t; not in layout; loop depth 2; frequency 100",
        "\tmvn %v0, %v1, lsr #0",
        "\tvmov.f32 %v3, #-0.125",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in\n{text}");
    }
}

#[test]
fn several_functions_and_comments_read_in_order() {
    let one = "function f\n  virtual registers: 1\nbb0:\t; loop depth 0; frequency 1\n\tmov %v0, #1\n\tret\n";
    let text = format!("; a comment\n{one}\n; machine IR after isel\nfunction g (global)\n; inside\nbb0:\t; loop depth 0; frequency 1\n\tret ; uses r0\n");
    let functions = parse_functions(&text).unwrap();
    let names: Vec<&str> = functions.iter().map(|f| f.symbol.as_str()).collect();
    assert_eq!(names, ["f", "g"]);
    assert_eq!(functions[0].to_string(), one);
    assert!(!functions[0].global && functions[1].global);
    assert_eq!(parse_functions("; nothing\n").map(|f| f.len()), Ok(0));
}

/// A function around `body`, the instructions of its one block.
fn with_body(body: &str) -> String {
    format!("function f\n  virtual registers: 2 (float: 1)\n  local0: 4 bytes\nbb0:\t; loop depth 0; frequency 1\n{body}")
}

#[test]
fn errors_name_their_line_and_what_is_wrong() {
    let cases = [
        (
            with_body("\tfoo r0\n\tret\n"),
            "line 5: unknown instruction 'foo'",
        ),
        (
            with_body("\tmov r16, #1\n\tret\n"),
            "line 5: 'r16' is not a register",
        ),
        (
            with_body("\tmov %v2, #1\n\tret\n"),
            "line 5: %v2 beyond the function's 2 virtual registers",
        ),
        (
            with_body("\tmov r0, #-1\n\tret\n"),
            "line 5: '-1' is not an immediate",
        ),
        (
            with_body("\tmov r0, r1 r2\n\tret\n"),
            "line 5: unexpected 'r2'",
        ),
        (
            with_body("\tldr r0, [local1]\n\tret\n"),
            "line 5: local1 is not a stack object",
        ),
        (
            with_body("\tldr r0, [r1, #4\n\tret\n"),
            "line 5: expected ']'",
        ),
        (
            with_body("\tslotaddr r0, [r1]\n\tret\n"),
            "line 5: slotaddr takes a stack slot",
        ),
        (
            with_body("\tbl f ; defs r0 ; uses r1\n\tret\n"),
            "line 5: unexpected '; uses'",
        ),
        (
            with_body("\tb bb1\n"),
            "line 1: function does not verify: f: bb0 branches to missing block bb1",
        ),
        (
            with_body("\tmov r0, #1\n"),
            "line 1: function does not verify: f: bb0 does not end in b",
        ),
        (
            with_body("\tret\nbb2:\t; loop depth 0; frequency 1\n\tret\n"),
            "line 1: function f has no block bb1",
        ),
        (
            with_body("\tret\nbb0:\t; loop depth 0; frequency 1\n\tret\n"),
            "line 6: bb0 is defined twice",
        ),
        (
            with_body("\tret\n").replace("frequency 1", "frequency 1; succs bb7"),
            "line 1: function f names missing block bb7 as a successor",
        ),
        (
            with_body("\tret\n").replace("frequency 1", "frequency one"),
            "line 4: 'one' is not a frequency",
        ),
        (
            with_body("\tret\n").replace("; loop depth 0", ""),
            "line 4: expected 'loop depth N'",
        ),
        (
            with_body("\tret\n").replace("local0", "local1"),
            "line 3: local1 where local0 comes next",
        ),
        (
            with_body("\tret\n").replace("(float: 1)", "(float: 1-2)"),
            "line 2: registers 1-2 beyond 2 registers",
        ),
        (
            with_body("\tret\n").replace("2 (float: 1)", "99999999999"),
            "line 2: more than 16777216 virtual registers",
        ),
        ("\tret\n".to_string(), "line 1: expected 'function NAME'"),
    ];
    for (text, wanted) in cases {
        match parse_functions(&text) {
            Err(e) if e.contains(wanted) => {}
            other => panic!("{text}\nexpected an error with {wanted:?}, got {other:?}"),
        }
    }
    let two = format!("{}{}", with_body("\tret\n"), with_body("\tret\n"));
    assert_eq!(
        parse_function(&two).unwrap_err(),
        "line 6: a second function"
    );
    assert_eq!(parse_function("").unwrap_err(), "line 1: no function");
}

#[test]
fn a_virtual_register_moved_into_a_float_is_from_core() {
    let parsed = parse_function(&with_body("\tvmov %v1, %v0\n\tvmov %v0, s3\n\tret\n")).unwrap();
    assert_eq!(
        parsed.blocks[0].insts[..2],
        [
            MInst::VMovFromCore { sd: v(1), rn: v(0) },
            MInst::VMovToCore { rd: v(0), sn: s(3) }
        ]
    );
}

#[test]
fn every_truncation_and_deletion_is_an_error_or_a_function_never_a_panic() {
    let text = every_kind().to_string();
    for (k, _) in text.char_indices() {
        let _ = parse_functions(&text[..k]);
        let _ = parse_functions(&format!("{}{}", &text[..k], &text[k + 1..]));
    }
}
