//! The interpreter loop: an explicit frame stack (deep SysY recursion needs no native stack),
//! registers in one growing vector, memory as a byte array with 32-bit addresses.
//! Operations compute what `ir::semantics` defines.

use super::decode::{DecodedFn, DecodedModule, Op, Reg};
use super::io::Io;
use super::printf::Arg;
use super::RunError;
use crate::ir::semantics;
use sysy_runtime::RuntimeFn;

/// The most stack memory a run may use, in bytes.
const STACK_BYTES: u32 = 256 << 20;
/// The most nested calls a run may make.
const MAX_DEPTH: usize = 1 << 20;

struct Frame {
    func: u32,
    pc: u32,
    base: u32,
    sp: u32,
    ret: Option<Reg>,
}

pub struct Machine<'m, 'io> {
    m: &'m DecodedModule,
    mem: Vec<u8>,
    stack_start: u32,
    sp: u32,
    regs: Vec<u32>,
    pub io: Io<'io>,
    /// Instructions left to execute before giving up.
    fuel: u64,
}

impl<'m, 'io> Machine<'m, 'io> {
    pub fn new(m: &'m DecodedModule, io: Io<'io>, fuel: u64) -> Self {
        let mut mem = m.memory.clone();
        let stack_start = (mem.len() as u32).next_multiple_of(16);
        mem.resize(stack_start as usize, 0);
        Machine {
            m,
            mem,
            stack_start,
            sp: stack_start,
            regs: Vec::new(),
            io,
            fuel,
        }
    }

    fn load(&self, addr: u32) -> Result<u32, String> {
        let a = addr as usize;
        match self.mem.get(a..a + 4) {
            Some(b) if addr >= 16 => Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            _ => Err(format!("load from invalid address {addr:#x}")),
        }
    }

    fn store(&mut self, addr: u32, v: u32) -> Result<(), String> {
        let a = addr as usize;
        match self.mem.get_mut(a..a + 4) {
            Some(b) if addr >= 16 => {
                b.copy_from_slice(&v.to_le_bytes());
                Ok(())
            }
            _ => Err(format!("store to invalid address {addr:#x}")),
        }
    }

    /// `memcpy`: both ranges valid, and disjoint (libc's `memcpy` does not promise what an
    /// overlapping copy writes, so a pass that makes one is caught here).
    fn memcpy(&mut self, dst: usize, src: usize, n: usize) -> Result<(), String> {
        let valid = |a: usize| a >= 16 && a.checked_add(n).is_some_and(|e| e <= self.mem.len());
        if !valid(dst) || !valid(src) {
            return Err(format!("memcpy of invalid range {src:#x}+{n} to {dst:#x}"));
        }
        if n > 0 && dst < src + n && src < dst + n {
            return Err(format!(
                "memcpy of overlapping ranges {src:#x}+{n} to {dst:#x}"
            ));
        }
        self.mem.copy_within(src..src + n, dst);
        Ok(())
    }

    fn alloca(&mut self, bytes: u32) -> Result<u32, String> {
        let addr = self.sp;
        let end = addr as u64 + bytes.next_multiple_of(8) as u64;
        if end > (self.stack_start + STACK_BYTES) as u64 {
            return Err("stack overflow".into());
        }
        self.sp = end as u32;
        if self.mem.len() < end as usize {
            let grow = (end as usize).max(self.mem.len() * 2);
            self.mem
                .resize(grow.min((self.stack_start + STACK_BYTES) as usize), 0);
        }
        Ok(addr)
    }

    fn enter(&mut self, f: &DecodedFn, base: u32) {
        let top = (base + f.num_regs) as usize;
        if self.regs.len() < top {
            self.regs.resize(top, 0);
        }
        for &(r, bits) in &f.consts {
            self.regs[(base + r) as usize] = bits;
        }
    }

    /// Instructions left to execute.
    pub fn fuel(&self) -> u64 {
        self.fuel
    }

    pub fn refuel(&mut self, fuel: u64) {
        self.fuel = fuel;
    }

    /// Runs function `func` on arguments `args` (bit patterns) to completion, with the
    /// stack empty at the start; its return value.
    pub fn run(&mut self, func: u32, args: &[u32]) -> Result<u32, RunError> {
        let m = self.m;
        let mut frames: Vec<Frame> = Vec::new();
        let mut fid = func;
        let mut f = &m.functions[fid as usize];
        let mut base = 0u32;
        let mut pc = 0usize;
        self.sp = self.stack_start;
        self.enter(f, base);
        self.regs[..args.len()].copy_from_slice(args);
        macro_rules! r {
            ($reg:expr) => {
                self.regs[(base + $reg) as usize]
            };
        }
        loop {
            let op = &f.code[pc];
            pc += 1;
            if self.fuel == 0 {
                return Err(RunError::OutOfSteps);
            }
            self.fuel -= 1;
            match *op {
                Op::Alloca { dst, bytes } => r!(dst) = self.alloca(bytes)?,
                Op::Load { dst, addr } => r!(dst) = self.load(r!(addr))?,
                Op::Store { val, addr } => self.store(r!(addr), r!(val))?,
                Op::VLoad { dst, addr } => {
                    for k in 0..4 {
                        r!(dst + k) = self.load(r!(addr).wrapping_add(4 * k))?;
                    }
                }
                Op::VStore { val, addr } => {
                    for k in 0..4 {
                        self.store(r!(addr).wrapping_add(4 * k), r!(val + k))?;
                    }
                }
                Op::VBinary { op, dst, a, b } => {
                    for k in 0..4 {
                        r!(dst + k) = semantics::lane(op, r!(a + k), r!(b + k));
                    }
                }
                Op::Splat { dst, a } => {
                    for k in 0..4 {
                        r!(dst + k) = r!(a);
                    }
                }
                Op::Reduce { op, dst, a } => {
                    r!(dst) = semantics::reduce(op, [r!(a), r!(a + 1), r!(a + 2), r!(a + 3)])
                }
                Op::Copy { dst, src } => r!(dst) = r!(src),
                Op::Gep {
                    dst,
                    base: b,
                    index,
                    stride,
                } => r!(dst) = r!(b).wrapping_add(r!(index).wrapping_mul(stride)),
                Op::Binary { op, dst, a, b } => r!(dst) = semantics::binary(op, r!(a), r!(b)),
                Op::FNeg { dst, a } => r!(dst) = semantics::fneg(r!(a)),
                Op::Ctz { dst, a } => r!(dst) = semantics::ctz(r!(a)),
                Op::Select { dst, cond, a, b } => {
                    r!(dst) = if r!(cond) != 0 { r!(a) } else { r!(b) }
                }
                Op::Icmp { pred, dst, a, b } => {
                    r!(dst) = semantics::icmp(pred, r!(a), r!(b)) as u32
                }
                Op::Fcmp { pred, dst, a, b } => {
                    r!(dst) = semantics::fcmp(pred, r!(a), r!(b)) as u32
                }
                Op::Cast { op, dst, a } => r!(dst) = semantics::cast(op, r!(a)),
                Op::Call { dst, func, args } => {
                    if frames.len() >= MAX_DEPTH {
                        return Err(RunError::Fault("call stack overflow".into()));
                    }
                    let callee = &m.functions[func as usize];
                    let new_base = base + f.num_regs;
                    self.enter(callee, new_base);
                    for (k, &(arg, _)) in f.call_args[args.0 as usize..args.1 as usize]
                        .iter()
                        .enumerate()
                    {
                        self.regs[new_base as usize + k] = self.regs[(base + arg) as usize];
                    }
                    frames.push(Frame {
                        func: fid,
                        pc: pc as u32,
                        base,
                        sp: self.sp,
                        ret: dst,
                    });
                    fid = func;
                    f = callee;
                    base = new_base;
                    pc = 0;
                }
                Op::Runtime { dst, func, args } => {
                    let args: Vec<u32> = f.call_args[args.0 as usize..args.1 as usize]
                        .iter()
                        .map(|&(a, _)| r!(a))
                        .collect();
                    let v = self.runtime(func, &args)?;
                    if let Some(d) = dst {
                        r!(d) = v;
                    }
                }
                Op::Putf { format, args } => {
                    let args: Vec<Arg> = f.call_args[args.0 as usize..args.1 as usize]
                        .iter()
                        .map(|&(a, is_float)| {
                            let bits = r!(a);
                            if is_float {
                                Arg::Double(f32::from_bits(bits) as f64)
                            } else {
                                Arg::Int(bits as i32)
                            }
                        })
                        .collect();
                    self.io.putf(&m.strings[format as usize], &args);
                }
                Op::Memset { addr, byte, len } => {
                    let (a, n) = (r!(addr) as usize, r!(len) as usize);
                    let byte = r!(byte) as u8;
                    match self.mem.get_mut(a..a + n) {
                        Some(s) if a >= 16 => s.fill(byte),
                        _ => {
                            return Err(RunError::Fault(format!(
                                "memset of invalid range {a:#x}+{n}"
                            )))
                        }
                    }
                }
                Op::Memcpy { dst, src, len } => {
                    let (d, s, n) = (r!(dst) as usize, r!(src) as usize, r!(len) as usize);
                    self.memcpy(d, s, n)?;
                }
                Op::Jump { edge } => pc = self.take_edge(f, base, edge),
                Op::Branch {
                    cond,
                    then_edge,
                    else_edge,
                } => {
                    let edge = if r!(cond) != 0 { then_edge } else { else_edge };
                    pc = self.take_edge(f, base, edge);
                }
                Op::Ret { val } => {
                    let v = val.map_or(0, |v| r!(v));
                    let Some(frame) = frames.pop() else {
                        return Ok(v);
                    };
                    fid = frame.func;
                    f = &m.functions[fid as usize];
                    base = frame.base;
                    pc = frame.pc as usize;
                    self.sp = frame.sp;
                    if let Some(d) = frame.ret {
                        r!(d) = v;
                    }
                }
            }
        }
    }

    /// Performs an edge's phi copies in parallel and returns its target pc.
    fn take_edge(&mut self, f: &DecodedFn, base: u32, edge: u32) -> usize {
        let e = &f.edges[edge as usize];
        let copies = &f.copies[e.copies.0 as usize..e.copies.1 as usize];
        match copies {
            [] => {}
            [(dst, src)] => self.regs[(base + dst) as usize] = self.regs[(base + src) as usize],
            _ => {
                let values: Vec<u32> = copies
                    .iter()
                    .map(|&(_, src)| self.regs[(base + src) as usize])
                    .collect();
                for (&(dst, _), v) in copies.iter().zip(values) {
                    self.regs[(base + dst) as usize] = v;
                }
            }
        }
        e.pc as usize
    }

    fn runtime(&mut self, func: RuntimeFn, args: &[u32]) -> Result<u32, String> {
        let arg = |k: usize| args.get(k).copied().unwrap_or(0);
        Ok(match func {
            RuntimeFn::GetInt => self.io.get_int() as u32,
            RuntimeFn::GetCh => self.io.get_ch() as u32,
            RuntimeFn::GetFloat => self.io.get_float().to_bits(),
            RuntimeFn::GetArray | RuntimeFn::GetFArray => {
                let n = self.io.get_int();
                for k in 0..n.max(0) as u32 {
                    let v = if func == RuntimeFn::GetArray {
                        self.io.get_int() as u32
                    } else {
                        self.io.get_float().to_bits()
                    };
                    self.store(arg(0).wrapping_add(4 * k), v)?;
                }
                n as u32
            }
            RuntimeFn::PutInt => {
                self.io.put_int(arg(0) as i32);
                0
            }
            RuntimeFn::PutCh => {
                self.io.put_ch(arg(0) as i32);
                0
            }
            RuntimeFn::PutFloat => {
                self.io.put_float(f32::from_bits(arg(0)));
                0
            }
            RuntimeFn::PutArray | RuntimeFn::PutFArray => {
                let n = arg(0) as i32;
                let mut line = format!("{n}:").into_bytes();
                for k in 0..n.max(0) as u32 {
                    let v = self.load(arg(1).wrapping_add(4 * k))?;
                    line.push(b' ');
                    if func == RuntimeFn::PutArray {
                        line.extend((v as i32).to_string().bytes());
                    } else {
                        line.extend(super::printf::sprintf(
                            b"%a",
                            &[Arg::Double(f32::from_bits(v) as f64)],
                        ));
                    }
                }
                line.push(b'\n');
                let _ = self.io.out.write_all(&line);
                0
            }
            RuntimeFn::StartTime => {
                self.io.start_timer(arg(0) as i32);
                0
            }
            RuntimeFn::StopTime => {
                self.io.stop_timer(arg(0) as i32);
                0
            }
            RuntimeFn::Putf => 0,
        })
    }
}
