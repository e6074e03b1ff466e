//! Declarations: a translation unit's items entered into the tables by
//! qualified name (namespaces, `using`, classes and their specialisations,
//! functions, globals, enumerations with their values evaluated).

use std::rc::Rc;

use super::types::Scalar;
use super::{ceval, qual, ClassDecl, EnumInfo, Env, FuncDecl, TVal, Ty, Unit, CV};
use crate::diag::{err, Result};
use crate::front::ast::*;

impl Unit {
    pub fn collect(&mut self, items: &[Item], ns: &str) -> Result<()> {
        for it in items {
            match it {
                Item::Namespace(n, inner) => {
                    let sub = if n.is_empty() { ns.to_string() } else { qual(ns, n) };
                    self.collect(inner, &sub)?;
                }
                Item::Class(c) => self.add_class(c, ns)?,
                Item::Function(f) => {
                    if f.quals.says_virtual() || f.quals.is_const {
                        let what = if f.quals.is_const { "'const'" } else { "'virtual'" };
                        return err(
                            f.span,
                            format!("'{}' is not a member function and cannot be {what}", f.name),
                        );
                    }
                    let same = self.funcs.entry(qual(ns, &f.name)).or_default();
                    let f = share_defaults(same, f);
                    same.push(Rc::new(FuncDecl { ast: f, ns: ns.to_string() }));
                }
                Item::Enum(e) => self.add_enum(e, ns, &Env { ns: ns.into(), ..Env::default() })?,
                Item::Alias(_, n, tp, ty) => {
                    self.aliases.insert(qual(ns, n), (tp.clone(), ty.clone(), ns.to_string()));
                }
                Item::UsingNamespace(p) => {
                    let name: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
                    self.using_dirs.push(name.join("::"));
                }
                Item::UsingDecl(p) => {
                    let target: Vec<&str> = p.segs.iter().map(|s| s.name.as_str()).collect();
                    let target = target.join("::");
                    if let Some(f) = self.funcs.get(&target).cloned() {
                        self.funcs.insert(qual(ns, p.last()), f);
                    }
                    if let Some(c) = self.classes.get(&target).cloned() {
                        self.classes.insert(qual(ns, p.last()), c);
                    }
                }
                Item::Var(v) => {
                    self.globals.insert(qual(ns, &v.name), (v.clone(), ns.to_string()));
                }
                Item::StaticAssert(s, e, m) => self.asserts.push((*s, e.clone(), m.clone(), ns.to_string())),
                Item::ExplicitInst(t) => self.insts.push((t.clone(), ns.to_string())),
                Item::StaticMember(c, v, tparams) => {
                    let q = qual(&qual(ns, c), &v.name);
                    if self.static_defs.insert(q.clone(), (v.clone(), tparams.clone())).is_some() {
                        return err(v.span, format!("redefinition of static data member '{q}'"));
                    }
                }
            }
        }
        Ok(())
    }

    fn add_class(&mut self, c: &Class, ns: &str) -> Result<()> {
        let q = qual(ns, &c.name);
        if !c.defined && c.tparams.is_none() && self.classes.contains_key(&q) {
            return Ok(());
        }
        // One definition per class (a specialisation is its own class).
        let defines = |d: &Class| d.defined && d.spec_args.is_none();
        if defines(c) && self.classes.get(&q).is_some_and(|v| v.iter().any(|d| defines(&d.ast))) {
            let what = if c.is_union { "union" } else { "class" };
            return err(
                c.span,
                format!("redefinition of {what} '{q}': a class has one definition (an earlier one is in this file or its includes)"),
            );
        }
        for m in &c.members {
            if let Member::Item(it) = m {
                match it {
                    Item::Class(inner) => self.add_class(inner, &q)?,
                    Item::Enum(e) => self.add_enum(e, &q, &Env { ns: ns.into(), ..Env::default() })?,
                    _ => {}
                }
            }
        }
        self.classes.entry(q.clone()).or_default().push(Rc::new(ClassDecl {
            ast: c.clone(),
            ns: ns.to_string(),
            qual: q,
        }));
        Ok(())
    }

    fn add_enum(&mut self, e: &EnumDecl, ns: &str, env: &Env) -> Result<()> {
        let underlying = match &e.underlying {
            Some(t) => match self.resolve_type(t, env)? {
                Ty::S(s) if !s.is_float() => s,
                _ => return err(t.span, "enum underlying type must be an integer type"),
            },
            None => Scalar::Int,
        };
        let mut values: Vec<(String, i128)> = Vec::new();
        let mut next = 0i128;
        let q = qual(ns, &e.name);
        for (n, _, v) in &e.variants {
            if let Some(v) = v {
                // Earlier enumerators are visible by name.
                let mut tb = (*env.tb).clone();
                for (pn, pv) in &values {
                    tb.insert(pn.clone(), TVal::Const(underlying, CV::I(*pv)));
                }
                let env2 = Env { tb: Rc::new(tb), ..env.clone() };
                next = match ceval::eval(self, v, &env2)? {
                    (_, CV::I(i)) => i,
                    (_, CV::F(f)) => f as i128,
                };
            }
            values.push((n.clone(), next));
            next += 1;
        }
        let info = Rc::new(EnumInfo { name: q.clone(), underlying, values: values.clone() });
        for (n, v) in values {
            self.enum_consts.insert(qual(&q, &n), (info.clone(), v));
            if !e.scoped {
                self.enum_consts.insert(qual(ns, &n), (info.clone(), v));
            }
        }
        self.enums.insert(q, info);
        Ok(())
    }
}

/// `f`, with the default arguments that other declarations of the same
/// function (same parameter types, one of `same`) give; theirs get `f`'s
/// in turn. C++ lets each declaration add defaults, and a call sees all
/// of them: PopLibs declares `reverseTransformedInStride(…, int x = 0)`
/// in a header and defines it, without defaults, in another file.
fn share_defaults(same: &mut [Rc<FuncDecl>], f: &Function) -> Function {
    let mut f = f.clone();
    let words = |g: &Function| -> Vec<String> { g.params.iter().map(|p| super::type_words(&p.ty)).collect() };
    let mine = words(&f);
    for g in same.iter_mut() {
        if g.ast.params.len() != f.params.len()
            || g.ast.tparams.is_some() != f.tparams.is_some()
            || words(&g.ast) != mine
        {
            continue;
        }
        for (a, b) in f.params.iter_mut().zip(&g.ast.params) {
            if a.default.is_none() {
                a.default.clone_from(&b.default);
            }
        }
        if g.ast.params.iter().zip(&f.params).any(|(b, a)| b.default.is_none() && a.default.is_some()) {
            let mut h = (**g).clone();
            for (b, a) in h.ast.params.iter_mut().zip(&f.params) {
                if b.default.is_none() {
                    b.default.clone_from(&a.default);
                }
            }
            *g = Rc::new(h);
        }
    }
    f
}
