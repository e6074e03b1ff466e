//! What the graph profile (written by the compiler) and the execution
//! profile (written by the runtime) must count the same way, so that one
//! profile's indices resolve in the other and their figures agree:
//! - [`ProgramTree`]: the programs of an image flattened into Poplar's
//!   `programs` list (pre-order, so a root comes before its children), with
//!   the internal and host exchange lists the `DoExchange` and `StreamCopy`
//!   nodes index, and a mirror of each program's steps ([`StepIds`]) that
//!   the runtime walks beside the steps it runs to name each step's node;
//! - [`Exchange::bytes_by_tile`]: what each tile really sends and receives;
//!
//! The timing formulas both use are in [`crate::cost`].
//!
//! Pure: no I/O, no knowledge of the profiles' JSON.

use crate::image::{Exchange, Image, Program, Region, Step};

impl Exchange {
    /// `(tile, bytes sent, bytes received)` for every tile taking part, by
    /// tile. A tile sends each distinct source byte once (the exchange
    /// broadcasts one send to every tile that receives it), so bytes sent
    /// are the union of the tile's source ranges; bytes received are
    /// summed (no destination byte is written twice). A transfer within
    /// one tile counts as both sent and received by it.
    pub fn bytes_by_tile(&self) -> Vec<(u32, u64, u64)> {
        let mut by_tile = std::collections::BTreeMap::<u32, (u64, u64)>::new();
        let mut sources: Vec<(u32, u32, u32)> = Vec::with_capacity(self.transfers.len());
        for tr in &self.transfers {
            by_tile.entry(tr.dst_tile).or_default().1 += u64::from(tr.bytes);
            sources.push((tr.src_tile, tr.src_offset, tr.src_offset.saturating_add(tr.bytes)));
        }
        sources.sort_unstable();
        let mut i = 0;
        while i < sources.len() {
            let (tile, mut lo, mut hi) = sources[i];
            let mut total = 0u64;
            while i < sources.len() && sources[i].0 == tile {
                let (_, a, b) = sources[i];
                if a > hi {
                    total += u64::from(hi - lo);
                    (lo, hi) = (a, b);
                } else {
                    hi = hi.max(b);
                }
                i += 1;
            }
            total += u64::from(hi - lo);
            by_tile.entry(tile).or_default().0 += total;
        }
        by_tile.into_iter().map(|(t, (s, r))| (t, s, r)).collect()
    }
}

/// What a node of the flattened program list is.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Sequence,
    /// Index into [`ProgramTree::exchanges`].
    DoExchange(u32),
    /// Index of the compute set.
    OnTileExecute(u32),
    /// Index into [`ProgramTree::host_exchanges`].
    StreamCopy(u32),
    Repeat(u64),
    /// `RepeatWhileTrue`, or with `until` `RepeatWhileFalse`.
    RepeatWhile {
        until: bool,
    },
    IfElse,
    Switch,
    /// Index of the function (into `functionPrograms`).
    Call(u32),
    Sync,
    /// A cross-replica collective (named after its output and kind).
    GlobalExchange,
    /// `program::Block` (named after it); its child is its body.
    Block,
}

/// One program of the flattened list.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub name: Option<String>,
    /// Indices into [`ProgramTree::nodes`].
    pub children: Vec<u32>,
}

/// Where an internal exchange's transfers are in the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExchangeSource {
    /// The exchange before compute set `n` runs.
    Pre(u32),
    /// The exchange after compute set `n` runs.
    Post(u32),
    /// Tensor copy `n`.
    Copy(u32),
}

/// One exchange with the host: a stream copy, a remote buffer access or a
/// print. `to_device`: the tiles receive (else they send).
#[derive(Clone, Debug, PartialEq)]
pub struct HostExchange {
    pub name: String,
    pub to_device: bool,
    pub regions: Vec<Region>,
}

impl HostExchange {
    pub fn bytes(&self) -> u64 {
        self.regions.iter().map(|r| u64::from(r.bytes)).sum()
    }

    /// `(tile, bytes)` for every tile taking part, by tile.
    pub fn bytes_by_tile(&self) -> Vec<(u32, u64)> {
        let mut by_tile = std::collections::BTreeMap::<u32, u64>::new();
        for r in &self.regions {
            *by_tile.entry(r.tile).or_default() += u64::from(r.bytes);
        }
        by_tile.into_iter().collect()
    }
}

/// The nodes one step of a program became: `node` is the step's own node
/// (the `OnTileExecute` of an `Execute`, the `DoExchange` of a copy, the
/// `StreamCopy` of a host transfer, the loop or branch of control flow);
/// `pre`/`post` an `Execute`'s exchanges; `bodies` the mirrors of the
/// step's bodies (a loop's `[body]`, a while's `[cond, body]`, an if's
/// `[then, else]`, a switch's cases then its default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepIds {
    pub node: u32,
    pub pre: Option<u32>,
    pub post: Option<u32>,
    pub bodies: Vec<Vec<StepIds>>,
}

/// An image's programs as both profiles number them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProgramTree {
    pub nodes: Vec<Node>,
    /// The root `Sequence` of each user program (`controlPrograms`).
    pub control: Vec<u32>,
    /// The root of each function (`functionPrograms`).
    pub functions: Vec<u32>,
    /// Internal exchanges, in the order `DoExchange` nodes were made.
    pub exchanges: Vec<(String, ExchangeSource)>,
    pub host_exchanges: Vec<HostExchange>,
    /// Per user program: its steps' nodes.
    pub program_steps: Vec<Vec<StepIds>>,
    /// Per function: its steps' nodes.
    pub function_steps: Vec<Vec<StepIds>>,
}

/// The parts of an image (or of an unlinked one) the tree is built from.
pub struct TreeInput<'a> {
    pub programs: &'a [Program],
    pub functions: &'a [Program],
    /// Per compute set: its name and whether it has an exchange before
    /// and after it runs.
    pub compute_sets: Vec<(&'a str, bool, bool)>,
    /// Stream and remote buffer names, by index.
    pub streams: Vec<&'a str>,
    pub remote_buffers: Vec<&'a str>,
}

impl ProgramTree {
    /// The tree of a linked image.
    pub fn of_image(image: &Image) -> ProgramTree {
        ProgramTree::new(&TreeInput {
            programs: &image.programs,
            functions: &image.functions,
            compute_sets: image
                .compute_sets
                .iter()
                .map(|c| {
                    (
                        c.name.as_str(),
                        !c.exchange_in.transfers.is_empty(),
                        !c.exchange_out.transfers.is_empty(),
                    )
                })
                .collect(),
            streams: image.streams.iter().map(|s| s.name.as_str()).collect(),
            remote_buffers: image.remote_buffers.iter().map(|b| b.name.as_str()).collect(),
        })
    }

    pub fn new(input: &TreeInput<'_>) -> ProgramTree {
        let mut t = ProgramTree::default();
        for p in input.programs {
            let (root, steps) = t.sequence(input, &p.body, Some(p.name.clone()));
            t.control.push(root);
            t.program_steps.push(steps);
        }
        for f in input.functions {
            let (root, steps) = t.sequence(input, &f.body, Some(f.name.clone()));
            t.functions.push(root);
            t.function_steps.push(steps);
        }
        t
    }

    /// The name both profiles give internal exchange `x`.
    pub fn exchange_name(&self, x: u32) -> &str {
        &self.exchanges[x as usize].0
    }

    fn push(&mut self, kind: NodeKind, name: Option<String>) -> u32 {
        self.nodes.push(Node { kind, name, children: Vec::new() });
        (self.nodes.len() - 1) as u32
    }

    fn sequence(
        &mut self,
        input: &TreeInput<'_>,
        body: &[Step],
        name: Option<String>,
    ) -> (u32, Vec<StepIds>) {
        let root = self.push(NodeKind::Sequence, name);
        let mut children = Vec::new();
        let steps = body.iter().map(|s| self.step(input, s, &mut children)).collect();
        self.nodes[root as usize].children = children;
        (root, steps)
    }

    fn exchange(&mut self, name: String, source: ExchangeSource) -> u32 {
        self.exchanges.push((name.clone(), source));
        let x = (self.exchanges.len() - 1) as u32;
        self.push(NodeKind::DoExchange(x), Some(name))
    }

    fn host(&mut self, name: &str, to_device: bool, regions: &[Region]) -> u32 {
        self.host_exchanges.push(HostExchange {
            name: name.to_string(),
            to_device,
            regions: regions.to_vec(),
        });
        let x = (self.host_exchanges.len() - 1) as u32;
        self.push(NodeKind::StreamCopy(x), Some(name.to_string()))
    }

    /// Adds the nodes of `s` (to `siblings`, the enclosing sequence's
    /// children) and returns their ids.
    fn step(&mut self, input: &TreeInput<'_>, s: &Step, siblings: &mut Vec<u32>) -> StepIds {
        let mut ids = StepIds::default();
        let mut bodies: Vec<&[Step]> = Vec::new();
        match s {
            Step::Execute(c) => {
                let (name, pre, post) = input.compute_sets[*c as usize];
                if pre {
                    let n = self.exchange(format!("{name}/ExchangePre"), ExchangeSource::Pre(*c));
                    siblings.push(n);
                    ids.pre = Some(n);
                }
                ids.node = self.push(NodeKind::OnTileExecute(*c), Some(name.to_string()));
                siblings.push(ids.node);
                if post {
                    let n = self.exchange(format!("{name}/ExchangePost"), ExchangeSource::Post(*c));
                    siblings.push(n);
                    ids.post = Some(n);
                }
                return ids;
            }
            Step::Copy(c) => ids.node = self.exchange(format!("copy{c}"), ExchangeSource::Copy(*c)),
            Step::StreamIn { stream, regions } => {
                ids.node = self.host(input.streams[*stream as usize], true, regions)
            }
            Step::StreamOut { stream, regions } => {
                ids.node = self.host(input.streams[*stream as usize], false, regions)
            }
            Step::RemoteRead { buffer, regions, .. } => {
                ids.node = self.host(input.remote_buffers[*buffer as usize], true, regions)
            }
            Step::RemoteWrite { buffer, regions, .. } => {
                ids.node = self.host(input.remote_buffers[*buffer as usize], false, regions)
            }
            Step::Print { label, regions, .. } => ids.node = self.host(label, false, regions),
            Step::Repeat { count, body } => {
                ids.node = self.push(NodeKind::Repeat(*count), None);
                bodies.push(body);
            }
            Step::While { cond, body, until, .. } => {
                ids.node = self.push(NodeKind::RepeatWhile { until: *until }, None);
                bodies.extend([&cond[..], &body[..]]);
            }
            Step::If { then, otherwise, .. } => {
                ids.node = self.push(NodeKind::IfElse, None);
                bodies.extend([&then[..], &otherwise[..]]);
            }
            Step::Switch { cases, default, .. } => {
                ids.node = self.push(NodeKind::Switch, None);
                bodies.extend(cases.iter().map(|c| &c.1[..]));
                bodies.push(default);
            }
            Step::Call(f) => ids.node = self.push(NodeKind::Call(*f), None),
            Step::Block { name, body } => {
                ids.node = self.push(NodeKind::Block, Some(name.clone()));
                bodies.push(body);
            }
            Step::Sync => ids.node = self.push(NodeKind::Sync, None),
            Step::Collective(c) => ids.node = self.push(NodeKind::GlobalExchange, Some(c.label.clone())),
        }
        siblings.push(ids.node);
        let mut children = Vec::new();
        for b in bodies {
            let (root, steps) = self.sequence(input, b, None);
            children.push(root);
            ids.bodies.push(steps);
        }
        self.nodes[ids.node as usize].children = children;
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::{Exchange, Transfer};

    fn tr(src_tile: u32, src_offset: u32, dst_tile: u32, dst_offset: u32, bytes: u32) -> Transfer {
        Transfer { src_tile, src_offset, dst_tile, dst_offset, bytes }
    }

    #[test]
    fn a_broadcast_is_sent_once() {
        // Tile 0 sends bytes 0..8 to tiles 1, 2 and 3, and 4..12 to tile 0.
        let x = Exchange {
            transfers: vec![tr(0, 4, 0, 100, 8), tr(0, 0, 1, 0, 8), tr(0, 0, 2, 0, 8), tr(0, 0, 3, 0, 8)],
        };
        assert_eq!(x.bytes_by_tile(), vec![(0, 12, 8), (1, 0, 8), (2, 0, 8), (3, 0, 8)]);
    }

    #[test]
    fn trees_number_roots_before_children() {
        let body = vec![
            Step::Execute(0),
            Step::Repeat { count: 2, body: vec![Step::Copy(0), Step::Sync] },
            Step::Call(0),
        ];
        let programs = [Program { name: "main".into(), body }];
        let functions = [Program { name: "f".into(), body: vec![Step::Execute(0)] }];
        let input = TreeInput {
            programs: &programs,
            functions: &functions,
            compute_sets: vec![("cs", true, false)],
            streams: vec![],
            remote_buffers: vec![],
        };
        let t = ProgramTree::new(&input);
        let kinds: Vec<&NodeKind> = t.nodes.iter().map(|n| &n.kind).collect();
        use NodeKind::*;
        assert_eq!(
            kinds,
            [
                &Sequence,
                &DoExchange(0),
                &OnTileExecute(0),
                &Repeat(2),
                &Sequence,
                &DoExchange(1),
                &Sync,
                &Call(0),
                &Sequence,
                &DoExchange(2),
                &OnTileExecute(0)
            ]
        );
        assert_eq!(t.nodes[0].children, [1, 2, 3, 7]);
        assert_eq!(t.nodes[3].children, [4]);
        assert_eq!((t.control.clone(), t.functions.clone()), (vec![0], vec![8]));
        assert_eq!(t.program_steps[0][0], StepIds { node: 2, pre: Some(1), post: None, bodies: vec![] });
        assert_eq!(t.program_steps[0][1].bodies[0][0].node, 5);
        assert_eq!(t.exchange_name(0), "cs/ExchangePre");
        assert_eq!(t.exchanges[1], ("copy0".to_string(), ExchangeSource::Copy(0)));
    }
}
