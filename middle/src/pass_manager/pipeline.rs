//! The pipeline syntax of `--passes`: pass names separated by commas, and two groups:
//! `fixpoint(a,b,...)` repeats its list until a round changes nothing (at most
//! `FIXPOINT_ROUNDS` rounds, so compile time stays bounded), and `repeat(N,a,b,...)` runs
//! its list N times. Groups nest: `mem2reg,fixpoint(const-fold,repeat(2,dce),simplify-cfg)`.

use super::{find, Pass, REGISTRY};

/// The most rounds a `fixpoint` group runs.
pub const FIXPOINT_ROUNDS: usize = 8;

/// One element of a pipeline.
#[derive(Clone)]
pub enum Step {
    Run(Pass),
    Fixpoint(Vec<Step>),
    Repeat(usize, Vec<Step>),
}

/// Parses a pipeline; an unknown pass or a malformed group is an error saying what and
/// where.
pub fn parse(spec: &str) -> Result<Vec<Step>, String> {
    let mut p = Parser { text: spec, pos: 0 };
    p.skip_space();
    if p.pos == spec.len() {
        return Ok(Vec::new());
    }
    let steps = p.list()?;
    p.skip_space();
    if p.pos < spec.len() {
        return Err(p.error("expected ',' or the end of the pipeline"));
    }
    Ok(steps)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn error(&self, what: &str) -> String {
        format!(
            "pipeline '{}': {what} at column {}",
            self.text,
            self.pos + 1
        )
    }

    fn word(&mut self) -> &str {
        self.skip_space();
        let start = self.pos;
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(self.rest().len());
        self.pos += len;
        &self.text[start..start + len]
    }

    fn list(&mut self) -> Result<Vec<Step>, String> {
        let mut steps = vec![self.step()?];
        while self.eat(',') {
            steps.push(self.step()?);
        }
        Ok(steps)
    }

    /// The list of a group, after its '(' and any count, up to and including the ')'.
    fn group_body(&mut self) -> Result<Vec<Step>, String> {
        let steps = self.list()?;
        if !self.eat(')') {
            return Err(self.error("expected ')'"));
        }
        Ok(steps)
    }

    fn step(&mut self) -> Result<Step, String> {
        let name = self.word().to_string();
        if name.is_empty() {
            return Err(self.error("expected a pass name"));
        }
        let group = self.eat('(');
        match (name.as_str(), group) {
            ("fixpoint", true) => Ok(Step::Fixpoint(self.group_body()?)),
            ("repeat", true) => {
                let count = self.word().to_string();
                let n = count
                    .parse::<usize>()
                    .map_err(|_| self.error("expected a repeat count"))?;
                if !self.eat(',') {
                    return Err(self.error("expected ',' after the repeat count"));
                }
                Ok(Step::Repeat(n, self.group_body()?))
            }
            (_, true) => Err(self.error(&format!("'{name}' is not a group"))),
            (_, false) => find(&name).map(Step::Run).ok_or_else(|| {
                let known: Vec<&str> = REGISTRY.iter().map(|p| p.name).collect();
                format!(
                    "unknown pass '{name}' (known: {}; groups: fixpoint(...), repeat(N, ...))",
                    known.join(", ")
                )
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(steps: &[Step]) -> String {
        let parts: Vec<String> = steps
            .iter()
            .map(|s| match s {
                Step::Run(p) => p.name.to_string(),
                Step::Fixpoint(inner) => format!("fixpoint({})", shape(inner)),
                Step::Repeat(n, inner) => format!("repeat({n},{})", shape(inner)),
            })
            .collect();
        parts.join(",")
    }

    #[test]
    fn nested_groups_parse() {
        let spec = " mem2reg , fixpoint( const-fold,repeat(2, dce), simplify-cfg ),dce";
        assert_eq!(
            shape(&parse(spec).unwrap()),
            "mem2reg,fixpoint(const-fold,repeat(2,dce),simplify-cfg),dce"
        );
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let unknown = parse("mem2reg,no-such-pass").err().unwrap();
        assert!(
            unknown.starts_with("unknown pass 'no-such-pass' (known: mem2reg,"),
            "{unknown}"
        );
        assert!(parse("fixpoint(dce")
            .err()
            .unwrap()
            .contains("expected ')'"));
        assert!(parse("repeat(x,dce)")
            .err()
            .unwrap()
            .contains("repeat count"));
        assert!(parse("dce(mem2reg)").err().unwrap().contains("not a group"));
        assert!(parse("dce,,dce")
            .err()
            .unwrap()
            .contains("expected a pass name"));
        assert!(parse("dce)").err().unwrap().contains("column 4"));
    }
}
