//! The codelet lexer: C++ tokens, derived with `logos`.
//!
//! The preprocessor works on these tokens directly; a token knows whether it
//! starts a line (for directives) and carries its text, so tokens made by
//! macro pasting need no source of their own. Text that does not lex (a
//! stray quote, say) becomes an [`Tok::Invalid`] token rather than an error
//! at once: C++ lets groups skipped by `#if` hold such text, so the
//! preprocessor reports it only where it is kept.

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
    #[regex(r"0[xX][0-9A-Fa-f']*(\.[0-9A-Fa-f']*)?[pP][+-]?[0-9]+[A-Za-z_]*")]
    Number,
    #[regex(r"(u8|u|U|L)?'([^'\\\n]|\\.)+'")]
    Char,
    #[regex(r#"(u8|u|U|L)?"([^"\\\n]|\\.)*""#)]
    #[regex(r#"(u8|u|U|L)?R""#, raw_string)]
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
    /// Text that is no token (an unterminated literal, a stray character);
    /// an error wherever the preprocessor keeps it (see [`invalid_message`]).
    Invalid,
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

/// Lexes one file, failing at the first text that is no token.
pub fn lex(file: u32, text: &str) -> Result<Vec<Token>, Diagnostic> {
    let toks = lex_lenient(file, text)?;
    if let Some(bad) = toks.iter().find(|t| t.is(Tok::Invalid)) {
        return Err(invalid_token(bad));
    }
    Ok(toks)
}

/// Lexes one file, turning text that is no token into [`Tok::Invalid`]
/// tokens; only an unterminated block comment fails here, as it hides the
/// rest of the file.
pub fn lex_lenient(file: u32, text: &str) -> Result<Vec<Token>, Diagnostic> {
    let mut out = Vec::new();
    let mut lexer = Tok::lexer(text);
    let mut prev_end = 0usize;
    while let Some(r) = lexer.next() {
        let range = lexer.span();
        let span = Span { file, lo: range.start as u32, hi: range.end as u32 };
        let kind = match r {
            Ok(k) => k,
            Err(()) if text[range.start..].starts_with("/*") => {
                return Err(Diagnostic::new(span, "unterminated comment"));
            }
            Err(()) => Tok::Invalid,
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

/// The error for a kept [`Tok::Invalid`] token.
pub fn invalid_token(t: &Token) -> Diagnostic {
    Diagnostic::new(t.span, invalid_message(&t.text))
}

fn invalid_message(text: &str) -> String {
    let c = text.chars().next().unwrap_or(' ');
    match c {
        '"' => "unterminated string literal".to_string(),
        '\'' => "unterminated character literal".to_string(),
        _ if text.contains("R\"") => "unterminated raw string literal".to_string(),
        _ if text.contains('"') => "unterminated string literal".to_string(),
        _ => format!("unexpected character '{}'", c.escape_default()),
    }
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
fn block_comment<'s, T: Logos<'s, Source = str>>(
    lex: &mut logos::Lexer<'s, T>,
) -> logos::FilterResult<(), ()> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            logos::FilterResult::Skip
        }
        None => logos::FilterResult::Error(()),
    }
}

/// Skips a raw string literal whose `R"` was just matched: the delimiter
/// runs to `(`, the literal to the first `)delimiter"`.
fn raw_string<'s, T: Logos<'s, Source = str>>(lex: &mut logos::Lexer<'s, T>) -> logos::FilterResult<(), ()> {
    let rest = lex.remainder();
    let Some(open) = rest.find('(') else { return logos::FilterResult::Error(()) };
    let delim = &rest[..open];
    if delim.len() > 16 || delim.contains(|c: char| c.is_whitespace() || c == ')' || c == '\\' || c == '"') {
        return logos::FilterResult::Error(());
    }
    let close = format!("){delim}\"");
    match rest[open + 1..].find(&close) {
        Some(end) => {
            lex.bump(open + 1 + end + close.len());
            logos::FilterResult::Emit(())
        }
        None => logos::FilterResult::Error(()),
    }
}
