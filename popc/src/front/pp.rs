//! The preprocessor: includes, macros and conditional compilation.
//!
//! It works on [`lex`](crate::front::lex) tokens. Directives are recognised by a `#`
//! that starts a line; a directive's tokens run to the next line start.
//! Macro expansion follows the classic rescanning rule with a "disabled"
//! list standing in for hide sets: a macro name met inside its own expansion
//! is painted `noexpand`. Includes are found through the caller's
//! [`IncludeResolver`](crate::IncludeResolver); the preprocessor itself never
//! touches the file system.

use std::rc::Rc;

use crate::diag::{err, Diagnostic, Result, SourceMap, Span};
use crate::front::headers::builtin_header;
use crate::front::lex::{invalid_token, lex, lex_lenient, Tok, Token};
use crate::hash::{HashMap, HashSet};
use crate::IncludeResolver;

#[derive(Clone, Debug)]
struct Macro {
    params: Option<Vec<String>>,
    variadic: bool,
    body: Vec<Token>,
}

const MAX_INCLUDE_DEPTH: usize = 64;
const MAX_EXPANSION_DEPTH: usize = 256;
/// The most tokens macro replacement may produce in one compilation, and
/// the most tokens the preprocessed source may have: far above any real
/// codelet, low enough that a macro doubling its argument thirty times
/// (`#define A1 (A0+A0)` …) stops in well under a second. Documented in
/// ARCHITECTURE.md (popc, limits).
pub const MAX_TOKENS: usize = 4_000_000;
/// The most tokens the expander may look at, counting each rescan.
const MAX_STEPS: u64 = 50_000_000;
/// The most files one compilation may include (a file that includes itself
/// twice would otherwise go on for 2^64 inclusions).
const MAX_INCLUDES: usize = 4096;

/// Preprocessor state for one compilation.
pub struct Preprocessor<'a> {
    pub sources: SourceMap,
    macros: HashMap<String, Macro>,
    include_dirs: Vec<String>,
    resolver: &'a dyn IncludeResolver,
    pragma_once: HashSet<String>,
    out: Vec<Token>,
    /// Expander steps left (see [`MAX_STEPS`]).
    budget: u64,
    /// Tokens produced by macro replacement so far (see [`MAX_TOKENS`]).
    produced: usize,
}

fn mk(kind: Tok, text: &str, span: Span) -> Token {
    Token { kind, text: Rc::from(text), span, bol: false, space_before: true, noexpand: false }
}

impl<'a> Preprocessor<'a> {
    pub fn new(
        defines: &[(String, String)],
        include_dirs: &[String],
        resolver: &'a dyn IncludeResolver,
    ) -> Self {
        let mut pp = Preprocessor {
            sources: SourceMap::default(),
            macros: HashMap::default(),
            include_dirs: include_dirs.to_vec(),
            resolver,
            pragma_once: HashSet::default(),
            out: Vec::new(),
            budget: MAX_STEPS,
            produced: 0,
        };
        let mut predefined = String::from("#define __POPC__ 1\n#define __cplusplus 201703L\n");
        for (k, v) in defines {
            predefined.push_str(&format!("#define {k} {v}\n"));
        }
        let id = pp.sources.add("<command line>", &predefined);
        if let Ok(toks) = lex(id, &predefined) {
            let _ = pp.run_file(toks, "<command line>", 0);
        }
        pp.out.clear();
        pp
    }

    /// Preprocesses the main file, returning its tokens.
    pub fn run(
        mut self,
        name: &str,
        text: &str,
    ) -> std::result::Result<(Vec<Token>, SourceMap), (Diagnostic, SourceMap)> {
        let id = self.sources.add(name, text);
        let r = lex_lenient(id, text).and_then(|toks| self.run_file(toks, name, 0));
        match r {
            Ok(()) => Ok((self.out, self.sources)),
            Err(d) => Err((d, self.sources)),
        }
    }

    fn run_file(&mut self, toks: Vec<Token>, name: &str, depth: usize) -> Result<()> {
        // Split into lines of directives and runs of text.
        let mut i = 0;
        // Conditional stack: (this branch active, some branch taken, parent active)
        let mut conds: Vec<(bool, bool, bool)> = Vec::new();
        let mut text_run: Vec<Token> = Vec::new();
        let active = |c: &Vec<(bool, bool, bool)>| c.last().is_none_or(|x| x.0 && x.2);
        while i < toks.len() {
            let t = &toks[i];
            if t.is(Tok::Hash) && t.bol {
                let mut j = i + 1;
                while j < toks.len() && !toks[j].bol {
                    j += 1;
                }
                let line: Vec<Token> = toks[i + 1..j].to_vec();
                let hash_span = t.span;
                i = j;
                let Some(dname) = line.first() else { continue };
                let d = dname.text.to_string();
                let rest = &line[1..];
                // Skipped groups may hold text that is no token; a directive
                // that is carried out may not (`#error` takes any text).
                let carried = match d.as_str() {
                    "if" | "ifdef" | "ifndef" => active(&conds),
                    "elif" => conds.last().is_some_and(|c| !c.1 && c.2),
                    "else" | "endif" | "error" | "warning" => false,
                    _ => active(&conds),
                };
                if let Some(bad) = line.iter().find(|t| t.is(Tok::Invalid)).filter(|_| carried) {
                    return Err(invalid_token(bad));
                }
                match d.as_str() {
                    "if" | "ifdef" | "ifndef" => {
                        let parent = active(&conds);
                        let v = if !parent {
                            false
                        } else if d == "if" {
                            self.eval_if(rest, dname.span, name)?
                        } else {
                            let Some(n) = rest.first().filter(|t| t.is(Tok::Ident)) else {
                                return err(dname.span, format!("#{d} expects a macro name"));
                            };
                            self.macros.contains_key(&*n.text) == (d == "ifdef")
                        };
                        conds.push((v, v, parent));
                    }
                    "elif" => {
                        let Some(top) = conds.last().copied() else {
                            return err(dname.span, "#elif without #if");
                        };
                        let v = !top.1 && top.2 && self.eval_if(rest, dname.span, name)?;
                        *conds.last_mut().unwrap() = (v, top.1 || v, top.2);
                    }
                    "else" => {
                        let Some(top) = conds.last().copied() else {
                            return err(dname.span, "#else without #if");
                        };
                        *conds.last_mut().unwrap() = (!top.1, true, top.2);
                    }
                    "endif" => {
                        if conds.pop().is_none() {
                            return err(dname.span, "#endif without #if");
                        }
                    }
                    _ if !active(&conds) => {}
                    _ => {
                        let run = std::mem::take(&mut text_run);
                        self.emit_text(run)?;
                        self.directive(&d, dname.span, rest, name, depth)?;
                    }
                }
                let _ = hash_span;
                continue;
            }
            if active(&conds) {
                if t.is(Tok::Invalid) {
                    return Err(invalid_token(t));
                }
                text_run.push(t.clone());
            }
            i += 1;
        }
        if !conds.is_empty() {
            let span = toks.last().map(|t| t.span).unwrap_or_default();
            return err(span, "unterminated #if");
        }
        self.emit_text(text_run)
    }

    fn emit_text(&mut self, run: Vec<Token>) -> Result<()> {
        if run.is_empty() {
            return Ok(());
        }
        let mut disabled = Vec::new();
        let expanded = self.expand(run, &mut disabled, 0)?;
        if self.out.len() + expanded.len() > MAX_TOKENS {
            let span = expanded.first().map(|t| t.span).unwrap_or_default();
            return err(span, format!("preprocessed source is too large (more than {MAX_TOKENS} tokens)"));
        }
        self.out.extend(expanded);
        Ok(())
    }

    fn directive(&mut self, d: &str, span: Span, rest: &[Token], name: &str, depth: usize) -> Result<()> {
        match d {
            "define" => {
                let Some(n) = rest.first().filter(|t| t.is(Tok::Ident)) else {
                    return err(span, "#define expects a macro name");
                };
                let mut k = 1;
                let mut params = None;
                let mut variadic = false;
                if rest.get(1).is_some_and(|t| t.is(Tok::LParen) && !t.space_before) {
                    let mut ps = Vec::new();
                    k = 2;
                    loop {
                        match rest.get(k) {
                            Some(t) if t.is(Tok::RParen) => {
                                k += 1;
                                break;
                            }
                            Some(t) if t.is(Tok::Ident) => ps.push(t.text.to_string()),
                            Some(t) if t.is(Tok::Ellipsis) => variadic = true,
                            Some(t) if t.is(Tok::Comma) => {}
                            Some(t) => return err(t.span, "bad macro parameter list"),
                            None => return err(n.span, "unterminated macro parameter list"),
                        }
                        k += 1;
                    }
                    if variadic {
                        ps.push("__VA_ARGS__".into());
                    }
                    params = Some(ps);
                }
                self.macros.insert(n.text.to_string(), Macro { params, variadic, body: rest[k..].to_vec() });
            }
            "undef" => {
                if let Some(n) = rest.first() {
                    self.macros.remove(&*n.text);
                }
            }
            "include" => {
                let (target, quoted) = match rest.first() {
                    Some(t) if t.is(Tok::Str) => (t.text.trim_matches('"').to_string(), true),
                    Some(t) if t.is(Tok::Lt) => {
                        let mut s = String::new();
                        for t in &rest[1..] {
                            if t.is(Tok::Gt) {
                                break;
                            }
                            s.push_str(&t.text);
                        }
                        (s, false)
                    }
                    _ => return err(span, "#include expects \"file\" or <file>"),
                };
                if depth >= MAX_INCLUDE_DEPTH {
                    return err(span, "#include nested too deeply");
                }
                let Some((path, text)) = self.find_include(&target, quoted, name) else {
                    // A file that exists but may not be included (a device,
                    // a pipe, a huge file) says why.
                    let why = self
                        .include_candidates(&target, quoted, name)
                        .iter()
                        .find_map(|c| self.resolver.refusal(c).map(|r| format!("cannot include '{c}': {r}")));
                    return err(
                        rest[0].span,
                        why.unwrap_or_else(|| format!("cannot find include file '{target}'")),
                    );
                };
                // One file, however the path to it is spelled
                // (`glm/./ext/../detail/setup.hpp`), for `#pragma once`
                // and for the names in messages.
                let path = normalize_path(&path);
                if self.pragma_once.contains(&path) {
                    return Ok(());
                }
                if self.sources.files.len() > MAX_INCLUDES {
                    return err(span, format!("too many #include operations (more than {MAX_INCLUDES})"));
                }
                let id = self.sources.add(&path, &text);
                let toks = lex_lenient(id, &text)?;
                self.run_file(toks, &path, depth + 1)?;
            }
            "pragma" => {
                if rest.first().is_some_and(|t| t.is_ident("once")) {
                    self.pragma_once.insert(name.to_string());
                }
            }
            "error" => {
                let msg: Vec<&str> = rest.iter().map(|t| &*t.text).collect();
                return err(span, format!("#error {}", msg.join(" ")));
            }
            "warning" | "line" => {}
            _ => return err(span, format!("unknown preprocessor directive '#{d}'")),
        }
        Ok(())
    }

    /// The path and text of the file `#include` names from file `name`:
    /// a quoted name is looked for beside `name` first; then the include
    /// directories; a built-in header wins over them for an angled name and
    /// comes after them for a quoted one.
    fn find_include(&self, target: &str, quoted: bool, name: &str) -> Option<(String, String)> {
        let builtin = || builtin_header(target).map(|t| (format!("<{target}>"), t.to_string()));
        if !quoted {
            if let Some(found) = builtin() {
                return Some(found);
            }
        }
        let candidates = self.include_candidates(target, quoted, name);
        candidates.iter().find_map(|c| self.resolver.read(c).map(|t| (c.clone(), t))).or_else(builtin)
    }

    /// The paths `#include` tries for `target`, in order.
    fn include_candidates(&self, target: &str, quoted: bool, name: &str) -> Vec<String> {
        if target.starts_with('/') {
            return vec![target.to_string()]; // an absolute path is itself
        }
        let dir = match name.rfind('/') {
            Some(i) => &name[..=i],
            None => "",
        };
        let mut candidates = Vec::new();
        if quoted {
            candidates.push(format!("{dir}{target}"));
        }
        for d in &self.include_dirs {
            let sep = if d.ends_with('/') { "" } else { "/" };
            candidates.push(format!("{d}{sep}{target}"));
        }
        candidates
    }

    fn eval_if(&mut self, rest: &[Token], span: Span, name: &str) -> Result<bool> {
        // Replace defined(X) / defined X and __has_include(...) first.
        let mut toks = Vec::new();
        let mut i = 0;
        while i < rest.len() {
            if rest[i].is_ident("__has_include") {
                let open = rest.get(i + 1).filter(|t| t.is(Tok::LParen));
                let Some(close) = open.and_then(|_| rest[i..].iter().position(|t| t.is(Tok::RParen))) else {
                    return err(rest[i].span, "__has_include expects (<file>) or (\"file\")");
                };
                let inner = &rest[i + 2..i + close];
                let found = match inner {
                    [t] if t.is(Tok::Str) => self.find_include(t.text.trim_matches('"'), true, name),
                    [lt, .., gt] if lt.is(Tok::Lt) && gt.is(Tok::Gt) => {
                        let s: String = inner[1..inner.len() - 1].iter().map(|t| &*t.text).collect();
                        self.find_include(&s, false, name)
                    }
                    _ => return err(rest[i].span, "__has_include expects (<file>) or (\"file\")"),
                };
                toks.push(mk(Tok::Number, if found.is_some() { "1" } else { "0" }, rest[i].span));
                i += close + 1;
                continue;
            }
            if rest[i].is_ident("defined") {
                let (n, skip) = if rest.get(i + 1).is_some_and(|t| t.is(Tok::LParen)) {
                    (rest.get(i + 2), 4)
                } else {
                    (rest.get(i + 1), 2)
                };
                let Some(n) = n else { return err(rest[i].span, "defined expects a macro name") };
                let v =
                    if self.macros.contains_key(&*n.text) || &*n.text == "__has_include" { "1" } else { "0" };
                toks.push(mk(Tok::Number, v, n.span));
                i += skip;
                continue;
            }
            toks.push(rest[i].clone());
            i += 1;
        }
        let toks = self.expand(toks, &mut Vec::new(), 0)?;
        let mut e = IfEval { toks: &toks, pos: 0, span };
        let v = e.expr(0)?;
        if e.pos < toks.len() {
            return err(toks[e.pos].span, "unexpected token in #if expression");
        }
        Ok(v != 0)
    }

    /// Macro-expands `toks`. The input is a stack (its next token last), so
    /// a function-like macro name that ends an expansion can be pushed back
    /// and take its arguments from the tokens after the expansion, as C++'s
    /// rescanning requires (`#define PICK(...) F` then `PICK(x)(args)`).
    fn expand(&mut self, toks: Vec<Token>, disabled: &mut Vec<String>, depth: usize) -> Result<Vec<Token>> {
        if depth > MAX_EXPANSION_DEPTH {
            let span = toks.first().map(|t| t.span).unwrap_or_default();
            return err(span, "macro expansion nested too deeply");
        }
        let mut out = Vec::with_capacity(toks.len());
        let mut input = toks;
        input.reverse();
        while let Some(t) = input.pop() {
            self.budget = self.budget.saturating_sub(1);
            if self.budget == 0 {
                let name = disabled.first().map_or(&*t.text, |n| n.as_str());
                return err(
                    t.span,
                    format!("expansion of macro '{name}' is too large (more than {MAX_STEPS} steps)"),
                );
            }
            if t.kind != Tok::Ident || t.noexpand {
                out.push(t);
                continue;
            }
            if disabled.iter().any(|d| **d == *t.text) {
                let mut t = t;
                t.noexpand = true;
                out.push(t);
                continue;
            }
            if matches!(&*t.text, "__LINE__" | "__FILE__") && !self.macros.contains_key(&*t.text) {
                out.push(self.position_macro(&t));
                continue;
            }
            let Some(m) = self.macros.get(&*t.text).cloned() else {
                out.push(t);
                continue;
            };
            let site = t.span;
            let name = t.text.to_string();
            let body = match &m.params {
                None => m.body.iter().map(|b| Token { span: site, ..b.clone() }).collect::<Vec<_>>(),
                Some(params) => {
                    if !input.last().is_some_and(|t| t.is(Tok::LParen)) {
                        out.push(t);
                        continue;
                    }
                    input.pop();
                    // Collect arguments.
                    let mut args: Vec<Vec<Token>> = vec![Vec::new()];
                    let mut level = 0;
                    loop {
                        let Some(a) = input.pop() else {
                            return err(site, format!("unterminated call of macro '{name}'"));
                        };
                        match a.kind {
                            Tok::LParen => level += 1,
                            Tok::RParen if level == 0 => break,
                            Tok::RParen => level -= 1,
                            Tok::Comma if level == 0 && !(m.variadic && args.len() == params.len()) => {
                                args.push(Vec::new());
                                continue;
                            }
                            _ => {}
                        }
                        args.last_mut().unwrap().push(a);
                    }
                    if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                        args.clear();
                    }
                    if m.variadic && args.len() == params.len() - 1 {
                        args.push(Vec::new());
                    }
                    if args.len() != params.len() {
                        return err(
                            site,
                            format!("macro '{name}' takes {} arguments, {} given", params.len(), args.len()),
                        );
                    }
                    self.substitute(&m, params, &args, site, disabled, depth)?
                }
            };
            self.produced += body.len();
            if self.produced > MAX_TOKENS {
                let outer = disabled.first().unwrap_or(&name);
                return err(
                    site,
                    format!("expansion of macro '{outer}' is too large (more than {MAX_TOKENS} tokens)"),
                );
            }
            disabled.push(name);
            let mut expanded = self.expand(body, disabled, depth + 1)?;
            disabled.pop();
            // A function-like macro's name ending the expansion, with `(`
            // after it: rescan it together with what follows.
            let takes_args = |t: &Token| {
                t.kind == Tok::Ident
                    && !t.noexpand
                    && self.macros.get(&*t.text).is_some_and(|m| m.params.is_some())
            };
            if input.last().is_some_and(|t| t.is(Tok::LParen)) && expanded.last().is_some_and(takes_args) {
                input.extend(expanded.pop());
            }
            out.extend(expanded);
        }
        Ok(out)
    }

    /// `__LINE__` or `__FILE__` at `t`: the line or the file of the place
    /// it is written (for a macro's body, the place the macro is used).
    fn position_macro(&self, t: &Token) -> Token {
        let tok = if &*t.text == "__LINE__" {
            mk(Tok::Number, &self.sources.line(t.span).to_string(), t.span)
        } else {
            let name = self.sources.files.get(t.span.file as usize).map_or("", |f| f.0.as_str());
            mk(Tok::Str, &format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\"")), t.span)
        };
        Token { bol: t.bol, space_before: t.space_before, ..tok }
    }

    fn substitute(
        &mut self,
        m: &Macro,
        params: &[String],
        args: &[Vec<Token>],
        site: Span,
        disabled: &mut Vec<String>,
        depth: usize,
    ) -> Result<Vec<Token>> {
        let index =
            |t: &Token| if t.kind == Tok::Ident { params.iter().position(|p| **p == *t.text) } else { None };
        let mut out: Vec<Token> = Vec::new();
        let body = &m.body;
        let mut k = 0;
        while k < body.len() {
            let b = &body[k];
            if b.is(Tok::Hash) {
                if let Some(p) = body.get(k + 1).and_then(index) {
                    let s: Vec<String> = args[p].iter().map(|t| t.text.to_string()).collect();
                    let lit = format!("\"{}\"", s.join(" ").replace('\\', "\\\\").replace('"', "\\\""));
                    out.push(mk(Tok::Str, &lit, site));
                    k += 2;
                    continue;
                }
            }
            if b.is(Tok::HashHash) {
                let Some(next) = body.get(k + 1) else { return err(site, "'##' at the end of a macro") };
                let rhs: Vec<Token> = match index(next) {
                    Some(p) => args[p].clone(),
                    None => vec![next.clone()],
                };
                k += 2;
                let lhs = out.pop();
                let mut rhs_iter = rhs.into_iter();
                match (lhs, rhs_iter.next()) {
                    (Some(l), Some(r)) => {
                        let text = format!("{}{}", l.text, r.text);
                        let toks = lex(site.file, &text).ok().filter(|v| v.len() == 1);
                        let Some(mut t) = toks.and_then(|v| v.into_iter().next()) else {
                            return err(
                                site,
                                format!("pasting '{}' and '{}' does not give a token", l.text, r.text),
                            );
                        };
                        t.span = site;
                        t.bol = false;
                        out.push(t);
                    }
                    (Some(l), None) => out.push(l),
                    (None, Some(r)) => out.push(r),
                    (None, None) => {}
                }
                out.extend(rhs_iter);
                continue;
            }
            if let Some(p) = index(b) {
                let pasted = body.get(k + 1).is_some_and(|t| t.is(Tok::HashHash));
                if pasted {
                    out.extend(args[p].iter().cloned());
                } else {
                    let e = self.expand(args[p].clone(), disabled, depth + 1)?;
                    out.extend(e);
                }
                k += 1;
                continue;
            }
            out.push(Token { span: site, ..b.clone() });
            k += 1;
        }
        Ok(out)
    }
}

/// Evaluates a `#if` expression (integers only).
struct IfEval<'t> {
    toks: &'t [Token],
    pos: usize,
    span: Span,
}

impl IfEval<'_> {
    fn peek(&self) -> Option<Tok> {
        self.toks.get(self.pos).map(|t| t.kind)
    }

    fn primary(&mut self) -> Result<i64> {
        let Some(t) = self.toks.get(self.pos) else { return err(self.span, "missing expression in #if") };
        self.pos += 1;
        match t.kind {
            Tok::Number => {
                let s = t.text.trim_end_matches(['u', 'U', 'l', 'L']).replace('\'', "");
                let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                    i64::from_str_radix(h, 16).ok()
                } else if s.len() > 1 && s.starts_with('0') {
                    i64::from_str_radix(&s[1..], 8).ok()
                } else {
                    s.parse().ok()
                };
                v.map_or_else(|| err(t.span, "bad number in #if"), Ok)
            }
            Tok::Ident => Ok(if &*t.text == "true" { 1 } else { 0 }),
            Tok::LParen => {
                let v = self.expr(0)?;
                if self.peek() != Some(Tok::RParen) {
                    return err(t.span, "missing ')' in #if");
                }
                self.pos += 1;
                Ok(v)
            }
            Tok::Bang => Ok((self.primary()? == 0) as i64),
            Tok::Minus => Ok(self.primary()?.wrapping_neg()),
            Tok::Plus => self.primary(),
            Tok::Tilde => Ok(!self.primary()?),
            _ => err(t.span, format!("unexpected '{}' in #if", t.text)),
        }
    }

    fn expr(&mut self, min: u8) -> Result<i64> {
        let mut lhs = self.primary()?;
        while let Some(k) = self.peek() {
            // `>>` arrives as two `>` tokens.
            let shr = k == Tok::Gt && self.toks.get(self.pos + 1).is_some_and(|t| t.is(Tok::Gt));
            let prec = if shr {
                9
            } else {
                match k {
                    Tok::Question => 1,
                    Tok::OrOr => 2,
                    Tok::AndAnd => 3,
                    Tok::Pipe => 4,
                    Tok::Caret => 5,
                    Tok::Amp => 6,
                    Tok::EqEq | Tok::Ne => 7,
                    Tok::Lt | Tok::Gt | Tok::Le | Tok::Ge => 8,
                    Tok::Shl => 9,
                    Tok::Plus | Tok::Minus => 10,
                    Tok::Star | Tok::Slash | Tok::Percent => 11,
                    _ => break,
                }
            };
            if prec < min {
                break;
            }
            self.pos += if shr { 2 } else { 1 };
            if k == Tok::Question {
                let a = self.expr(0)?;
                if self.peek() != Some(Tok::Colon) {
                    return err(self.span, "missing ':' in #if");
                }
                self.pos += 1;
                let b = self.expr(1)?;
                lhs = if lhs != 0 { a } else { b };
                continue;
            }
            let rhs = self.expr(prec + 1)?;
            lhs = match k {
                _ if shr => lhs.wrapping_shr(rhs as u32),
                Tok::OrOr => (lhs != 0 || rhs != 0) as i64,
                Tok::AndAnd => (lhs != 0 && rhs != 0) as i64,
                Tok::Pipe => lhs | rhs,
                Tok::Caret => lhs ^ rhs,
                Tok::Amp => lhs & rhs,
                Tok::EqEq => (lhs == rhs) as i64,
                Tok::Ne => (lhs != rhs) as i64,
                Tok::Lt => (lhs < rhs) as i64,
                Tok::Gt => (lhs > rhs) as i64,
                Tok::Le => (lhs <= rhs) as i64,
                Tok::Ge => (lhs >= rhs) as i64,
                Tok::Shl => lhs.wrapping_shl(rhs as u32),
                Tok::Plus => lhs.wrapping_add(rhs),
                Tok::Minus => lhs.wrapping_sub(rhs),
                Tok::Star => lhs.wrapping_mul(rhs),
                Tok::Slash | Tok::Percent if rhs == 0 => return err(self.span, "division by zero in #if"),
                Tok::Slash => lhs.wrapping_div(rhs),
                Tok::Percent => lhs.wrapping_rem(rhs),
                _ => unreachable!(),
            };
        }
        Ok(lhs)
    }
}

/// `path` with its `.` components dropped and each `dir/..` collapsed,
/// lexically (the library reads no file system, so links are not
/// followed); a leading `..` stays.
pub(crate) fn normalize_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            c => parts.push(c),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".into()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_path;

    #[test]
    fn include_paths_are_normalised() {
        assert_eq!(normalize_path("glm/./ext/../detail/setup.hpp"), "glm/detail/setup.hpp");
        assert_eq!(normalize_path("a/b/../../c.h"), "c.h");
        assert_eq!(normalize_path("../x/./y.h"), "../x/y.h");
        assert_eq!(normalize_path("/usr/./include/../lib/z.h"), "/usr/lib/z.h");
        assert_eq!(normalize_path("/../z.h"), "/z.h");
    }
}
