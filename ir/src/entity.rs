//! Typed arenas keyed by newtyped `u32` ids.
//!
//! Every entity of the graph (tensor, vertex, compute set, …) is identified by
//! a small `Copy` id that indexes a [`PrimaryMap`], which owns the entities in
//! creation order. Passes that compute facts about entities keep them in a
//! [`SecondaryMap`] beside the graph instead of inside it. Modelled on
//! `cranelift-entity`, kept small on purpose.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A newtyped `u32` index into a typed arena.
pub trait EntityRef: Copy + Eq + Ord + fmt::Debug {
    /// The id for arena slot `index`.
    fn new(index: usize) -> Self;
    /// The arena slot of this id.
    fn index(self) -> usize;
}

/// Declares a newtyped `u32` entity id that prints as `prefix` + number
/// (exported so that passes of other crates type their own tables' keys
/// the same way: `ir::entity_id!(TileId, "tile")`).
#[macro_export]
macro_rules! entity_id {
    ($(#[$attr:meta])* $name:ident, $prefix:expr) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $crate::entity::EntityRef for $name {
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).unwrap_or(u32::MAX))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
    };
}
pub use crate::entity_id;

/// An arena owning values of type `V`, indexed by ids of type `K`.
#[derive(Clone, PartialEq, Eq)]
pub struct PrimaryMap<K: EntityRef, V> {
    elems: Vec<V>,
    unused: PhantomData<K>,
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        PrimaryMap { elems: Vec::new(), unused: PhantomData }
    }
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }
    /// Makes room for `n` more values, exactly (a large arena grown by
    /// doubling holds up to twice what it needs).
    pub fn reserve_exact(&mut self, n: usize) {
        self.elems.reserve_exact(n);
    }
    /// Adds a value and returns its id.
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.elems.len());
        self.elems.push(v);
        k
    }
    /// The value of `k`, if `k` belongs to this arena.
    pub fn get(&self, k: K) -> Option<&V> {
        self.elems.get(k.index())
    }
    /// The value of `k`, mutably.
    pub fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.elems.get_mut(k.index())
    }
    /// Number of entities.
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    /// Whether the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }
    /// All ids, in creation order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = K> + '_ {
        (0..self.elems.len()).map(K::new)
    }
    /// All values, in creation order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.elems.iter()
    }
    /// All values, in creation order, to change them.
    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, V> {
        self.elems.iter_mut()
    }
    /// All `(id, value)` pairs, in creation order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (K, &V)> + '_ {
        self.elems.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// The id the next `push` will return.
    pub fn next_key(&self) -> K {
        K::new(self.elems.len())
    }
}

impl<K: EntityRef, V> FromIterator<V> for PrimaryMap<K, V> {
    /// An arena of the values, given ids in order.
    fn from_iter<I: IntoIterator<Item = V>>(values: I) -> Self {
        PrimaryMap { elems: values.into_iter().collect(), unused: PhantomData }
    }
}

impl<K: EntityRef, V> Index<K> for PrimaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.elems[k.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for PrimaryMap<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.elems[k.index()]
    }
}

impl<K: EntityRef, V: fmt::Debug> fmt::Debug for PrimaryMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A side table giving every id a value, `default` until set.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    elems: Vec<V>,
    default: V,
    unused: PhantomData<K>,
}

impl<K: EntityRef, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::with_default(V::default())
    }
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// An empty table whose unset entries read as `default`.
    pub fn with_default(default: V) -> Self {
        SecondaryMap { elems: Vec::new(), default, unused: PhantomData }
    }
    /// The value for `k` (the default when unset).
    pub fn get(&self, k: K) -> &V {
        self.elems.get(k.index()).unwrap_or(&self.default)
    }
    /// Makes room for `n` more entries, exactly.
    pub fn reserve_exact(&mut self, n: usize) {
        self.elems.reserve_exact(n);
    }
    /// Sets the value for `k`, growing the table as needed.
    pub fn set(&mut self, k: K, v: V) {
        let i = k.index();
        if i >= self.elems.len() {
            self.elems.resize(i + 1, self.default.clone());
        }
        self.elems[i] = v;
    }
    /// The value for `k`, mutably, growing the table as needed.
    pub fn get_mut(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.elems.len() {
            self.elems.resize(i + 1, self.default.clone());
        }
        &mut self.elems[i]
    }
}

impl<K: EntityRef, V: Clone> Index<K> for SecondaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        self.get(k)
    }
}
