//! The text form of machine IR read back: `parse_functions` turns what `mir::printer` writes
//! for functions (`--print-after` dumps, the back end's file tests) into machine functions,
//! each checked by the verifier before it is returned. Lines starting with `;` are comments;
//! every error names its line.

use super::parse_inst::Cursor;
use super::verifier::verify;
use super::*;
use middle::fast_hash::FastHashSet;

/// The most virtual registers a function may declare (so that a mistyped count cannot
/// exhaust memory).
const MAX_VREGS: usize = 1 << 24;

/// Parses the functions of `text`, in order.
pub fn parse_functions(text: &str) -> Result<Vec<MFunction>, String> {
    Ok(parse_with_lines(text)?
        .into_iter()
        .map(|(_, mf)| mf)
        .collect())
}

/// Parses a text holding exactly one function.
pub fn parse_function(text: &str) -> Result<MFunction, String> {
    let mut functions = parse_with_lines(text)?.into_iter();
    match (functions.next(), functions.next()) {
        (Some((_, mf)), None) => Ok(mf),
        (_, Some((line, _))) => Err(format!("line {line}: a second function")),
        (None, None) => Err(format!("line {}: no function", text.lines().count().max(1))),
    }
}

/// The functions of `text`, each with the line of its `function` header.
fn parse_with_lines(text: &str) -> Result<Vec<(usize, MFunction)>, String> {
    let mut functions = Vec::new();
    let mut current: Option<Builder> = None;
    for (n, line) in (1..).zip(text.lines()) {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') {
            continue;
        }
        if let Some(header) = line.strip_prefix("function ") {
            if let Some(done) = current.take() {
                functions.push(done.finish()?);
            }
            current = Some(Builder::new(header, n).map_err(|e| format!("line {n}: {e}"))?);
            continue;
        }
        let Some(builder) = current.as_mut() else {
            return Err(format!(
                "line {n}: expected 'function NAME', found `{line}`"
            ));
        };
        builder
            .line(line)
            .map_err(|e| format!("line {n}: {e}, in `{line}`"))?;
    }
    if let Some(done) = current {
        functions.push(done.finish()?);
    }
    Ok(functions)
}

/// A function as its lines are read.
struct Builder {
    mf: MFunction,
    /// The line of the `function` header, for the problems found at the function's end.
    line: usize,
    /// The blocks, in the order of the text.
    blocks: Vec<(MBlockId, MBlock)>,
    defined: FastHashSet<MBlockId>,
    declared_vregs: bool,
}

impl Builder {
    fn new(header: &str, line: usize) -> Result<Builder, String> {
        let (symbol, global) = match header.strip_suffix(" (global)") {
            Some(symbol) => (symbol, true),
            None => (header, false),
        };
        let symbol = symbol.trim();
        if symbol.is_empty() || symbol.contains(char::is_whitespace) {
            return Err(format!("'{symbol}' is not a function's symbol"));
        }
        Ok(Builder {
            mf: MFunction::new(symbol, global),
            line,
            blocks: Vec::new(),
            defined: FastHashSet::default(),
            declared_vregs: false,
        })
    }

    /// Reads one line of the function: a block header, an instruction of the last block,
    /// or, before the first block, a fact about the function.
    fn line(&mut self, line: &str) -> Result<(), String> {
        if let Some((label, rest)) = line.split_once(':') {
            if let Some(b) = block_id(label) {
                return self.block(b, rest);
            }
        }
        if self.blocks.is_empty() {
            return self.fact(line);
        }
        let inst = Cursor::new(line, &self.mf).inst()?;
        if let Some((_, block)) = self.blocks.last_mut() {
            block.insts.push(inst);
        }
        Ok(())
    }

    /// `virtual registers: 12 (float: 3, 7-9; vector: 10-11)`, `local0: 8 bytes` or
    /// `outgoing arguments: 8 bytes`.
    fn fact(&mut self, line: &str) -> Result<(), String> {
        let mut c = Cursor::plain(line);
        let word = c.token("a fact about the function or a block")?;
        if word == "virtual" {
            c.keyword("registers")?;
            c.expect(":")?;
            return self.vregs(&mut c);
        }
        if word == "outgoing" {
            c.keyword("arguments")?;
            c.expect(":")?;
            self.mf.outgoing_bytes = c.number("a byte count")?;
            c.keyword("bytes")?;
            return c.end();
        }
        let Some(n) = word
            .strip_prefix("local")
            .and_then(|n| n.parse::<usize>().ok())
        else {
            return Err(format!("unknown fact '{word}'"));
        };
        if n != self.mf.objects.len() {
            return Err(format!(
                "local{n} where local{} comes next",
                self.mf.objects.len()
            ));
        }
        c.expect(":")?;
        let size = c.number("a size in bytes")?;
        c.keyword("bytes")?;
        c.end()?;
        self.mf.new_object(size);
        Ok(())
    }

    /// The virtual registers' count and their float and vector runs, after `virtual
    /// registers:`.
    fn vregs(&mut self, c: &mut Cursor) -> Result<(), String> {
        if self.declared_vregs {
            return Err("the virtual registers are declared twice".to_string());
        }
        self.declared_vregs = true;
        let count: usize = c.number("a count of virtual registers")?;
        if count > MAX_VREGS {
            return Err(format!("more than {MAX_VREGS} virtual registers"));
        }
        let mut classes = vec![RegClass::Int; count];
        if c.eat("(") {
            loop {
                let class = match c.token("`float` or `vector`")? {
                    "float" => RegClass::Float,
                    "vector" => RegClass::Vector,
                    other => return Err(format!("'{other}' is not `float` or `vector`")),
                };
                c.expect(":")?;
                loop {
                    let run = c.token("a register number or a run `a-b`")?;
                    let (first, last) = run.split_once('-').unwrap_or((run, run));
                    let (Ok(first), Ok(last)) = (first.parse::<usize>(), last.parse::<usize>())
                    else {
                        return Err(format!("'{run}' is not a register number or a run `a-b`"));
                    };
                    if first > last || last >= count {
                        return Err(format!("registers {run} beyond {count} registers"));
                    }
                    classes[first..=last].fill(class);
                    if !c.eat(",") {
                        break;
                    }
                }
                if !c.eat(";") {
                    break;
                }
            }
            c.expect(")")?;
        }
        c.end()?;
        self.mf.vreg_classes = classes;
        Ok(())
    }

    /// A block header's facts, after `bbN:`: `; [not in layout; ]loop depth D; frequency
    /// F[; succs bbA bbB]`.
    fn block(&mut self, b: MBlockId, facts: &str) -> Result<(), String> {
        if !self.defined.insert(b) {
            return Err(format!("{b} is defined twice"));
        }
        let facts = facts
            .trim()
            .strip_prefix(';')
            .ok_or("expected '; loop depth N; frequency F' after the block's label")?;
        let mut facts = facts.split(';').map(str::trim).peekable();
        let placed = facts.next_if_eq(&"not in layout").is_none();
        let depth = facts
            .next()
            .and_then(|f| f.strip_prefix("loop depth "))
            .ok_or("expected 'loop depth N'")?;
        let loop_depth = depth
            .parse()
            .map_err(|_| format!("'{depth}' is not a loop depth"))?;
        let frequency = facts
            .next()
            .and_then(|f| f.strip_prefix("frequency "))
            .ok_or("expected 'frequency F'")?;
        let frequency = frequency
            .parse()
            .map_err(|_| format!("'{frequency}' is not a frequency"))?;
        let mut succs = Vec::new();
        if let Some(list) = facts.next() {
            let list = list
                .strip_prefix("succs ")
                .ok_or_else(|| format!("expected 'succs bbN ...', found '{list}'"))?;
            for name in list.split_whitespace() {
                succs.push(block_id(name).ok_or_else(|| format!("'{name}' is not a block"))?);
            }
        }
        if let Some(extra) = facts.next() {
            return Err(format!("unexpected '{extra}'"));
        }
        if placed {
            self.mf.layout.push(b);
        }
        self.blocks.push((
            b,
            MBlock {
                insts: Vec::new(),
                succs,
                loop_depth,
                frequency,
            },
        ));
        Ok(())
    }

    /// The function, its blocks numbered `bb0` up without gaps, if it verifies.
    fn finish(mut self) -> Result<(usize, MFunction), String> {
        let line = self.line;
        let symbol = self.mf.symbol.clone();
        self.blocks.sort_by_key(|&(b, _)| b);
        let n = self.blocks.len();
        if let Some(k) = (0..n).find(|&k| self.blocks[k].0.index() != k) {
            return Err(format!("line {line}: function {symbol} has no block bb{k}"));
        }
        let mut successors = self.blocks.iter().flat_map(|(_, block)| &block.succs);
        if let Some(s) = successors.find(|s| s.index() >= n) {
            return Err(format!(
                "line {line}: function {symbol} names missing block {s} as a successor"
            ));
        }
        self.mf.blocks = self.blocks.into_iter().map(|(_, block)| block).collect();
        verify(&self.mf).map_err(|e| format!("line {line}: function does not verify: {e}"))?;
        Ok((line, self.mf))
    }
}

/// The block named `bbN`.
pub(super) fn block_id(name: &str) -> Option<MBlockId> {
    let digits = name.strip_prefix("bb")?;
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(MBlockId)
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
