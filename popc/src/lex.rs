//! The codelet lexer: C++ tokens, derived with `logos`.
//!
//! The preprocessor works on these tokens directly; a token knows whether it
//! starts a line (for directives) and carries its text, so tokens made by
//! macro pasting need no source of their own.

use std::rc::Rc;

use logos::Logos;

use crate::diag::{Diagnostic, Span};

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f\v]+")]
#[logos(skip r"//[^\n]*")]
#[logos(skip r"\\\r?\n")]
pub enum Tok {
    /// A block comment, skipped whole; an unterminated one is an error at its `/*`.
    #[token("/*", block_comment)]
    BlockComment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    #[regex(r"[0-9][0-9']*(\.[0-9]*)?([eE][+-]?[0-9]+)?[A-Za-z_]*")]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?[A-Za-z_]*")]
    #[regex(r"0[xX][0-9A-Fa-f']+[A-Za-z_]*")]
    Number,
    #[regex(r"(u8|u|U|L)?'([^'\\\n]|\\.)+'")]
    Char,
    #[regex(r#"(u8|u|U|L)?"([^"\\\n]|\\.)*""#)]
    Str,
    #[token("#")]
    Hash,
    #[token("##")]
    HashHash,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("...")]
    Ellipsis,
    #[token("->")]
    Arrow,
    #[token("::")]
    ColonColon,
    #[token(":")]
    Colon,
    #[token("?")]
    Question,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    #[token("=")]
    Assign,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("<<")]
    Shl,
    // `>>` is lexed as two `>` tokens so template argument lists close
    // naturally; the parser joins adjacent ones into a shift.
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,
    #[token("+=")]
    PlusEq,
    #[token("-=")]
    MinusEq,
    #[token("*=")]
    StarEq,
    #[token("/=")]
    SlashEq,
    #[token("%=")]
    PercentEq,
    #[token("&=")]
    AmpEq,
    #[token("|=")]
    PipeEq,
    #[token("^=")]
    CaretEq,
    #[token("<<=")]
    ShlEq,
    #[token(">>=")]
    ShrEq,
    /// End of input (made by the parser, never by the lexer).
    Eof,
}

/// One token with its text and position.
#[derive(Clone, Debug)]
pub struct Token {
    pub kind: Tok,
    pub text: Rc<str>,
    pub span: Span,
    /// First token on its source line (directives start with such a `#`).
    pub bol: bool,
    /// Preceded by whitespace (matters for `#define F(x)` vs `#define F (x)`).
    pub space_before: bool,
    /// A macro name met during its own expansion: never expanded again.
    pub noexpand: bool,
}

impl Token {
    pub fn is(&self, kind: Tok) -> bool {
        self.kind == kind
    }
    pub fn is_ident(&self, name: &str) -> bool {
        self.kind == Tok::Ident && &*self.text == name
    }
}

/// Lexes one file.
pub fn lex(file: u32, text: &str) -> Result<Vec<Token>, Diagnostic> {
    let mut out = Vec::new();
    let mut lexer = Tok::lexer(text);
    let mut prev_end = 0usize;
    while let Some(r) = lexer.next() {
        let range = lexer.span();
        let span = Span { file, lo: range.start as u32, hi: range.end as u32 };
        let kind = match r {
            Ok(k) => k,
            Err(()) => {
                let c = text[range.start..].chars().next().unwrap_or(' ');
                let what = match c {
                    '"' => "unterminated string literal".to_string(),
                    '\'' => "unterminated character literal".to_string(),
                    '/' => "unterminated comment".to_string(),
                    _ => format!("unexpected character '{}'", c.escape_default()),
                };
                return Err(Diagnostic::new(span, what));
            }
        };
        let gap = &text[prev_end..range.start];
        let bol = out.is_empty() || gap_has_newline(gap);
        let space_before = !gap.is_empty();
        prev_end = range.end;
        out.push(Token {
            kind,
            text: Rc::from(&text[range.clone()]),
            span,
            bol,
            space_before,
            noexpand: false,
        });
    }
    Ok(out)
}

/// A newline in the text between two tokens, not escaped by a backslash.
fn gap_has_newline(gap: &str) -> bool {
    let b = gap.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            let mut j = i;
            if j > 0 && b[j - 1] == b'\r' {
                j -= 1;
            }
            if j == 0 || b[j - 1] != b'\\' {
                return true;
            }
        }
    }
    false
}

/// Skips a block comment whose `/*` was just matched. (A regex for comments
/// mis-compiles in logos 0.15: `/* a */` was reported unterminated.)
fn block_comment<'s, T: Logos<'s, Source = str>>(lex: &mut logos::Lexer<'s, T>) -> logos::FilterResult<(), ()> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            logos::FilterResult::Skip
        }
        None => logos::FilterResult::Error(()),
    }
}
