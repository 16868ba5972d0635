//! A maximum-weight *perfect* matching that is kept alive for a whole round and re-solved from
//! where it stands when the graph changes: Edmonds' blossom algorithm in its primal-dual form
//! (the O(n³) implementation of [`super::matching`], after Galil's survey), warm-started.
//!
//! The graph (who may meet whom, and who may get the bye) is fixed for the round; what changes
//! is the weight of the edges among a few vertices (the current bracket and the next one, and
//! the bye vertex) and the set of vertices still to pair. Every change keeps the dual solution
//! feasible and the matched edges tight, so that re-solving only has to re-augment the few
//! vertices it freed:
//!
//! - a blossom containing a vertex that changes is dissolved, its dual spread onto its vertices
//!   (edges inside keep their slack, edges leaving it gain slack; its base's matched edge is
//!   given up unless the dual was zero);
//! - a vertex whose edge weights change is unmatched and its dual raised or lowered to the
//!   smallest value that keeps all its edges feasible;
//! - a vertex that leaves the graph (a pair fixed for good) is dissolved, unmatched and hidden.
//!
//! Since every vertex must be matched (the round is complete, C4), no dual is bound below by
//! zero: the stages stop only when the matching is perfect, or when no dual change can grow the
//! alternating forest any further, which proves that no perfect matching exists. Weights are
//! kept multiplied by four so that every dual stays an integer.

use super::wide::Wide;

const NONE: usize = usize::MAX;

const UNMAPPED: u32 = u32::MAX;

/// The part of the state that outlives a stage (labels and best edges are rebuilt by every
/// stage): what [`Dynamic::save`] keeps and [`Dynamic::restore`] puts back.
#[derive(Clone)]
pub struct Saved<const L: usize> {
    mate: Vec<usize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<usize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<usize>,
    blossomendps: Vec<Vec<usize>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<Wide<L>>,
    removed: Vec<bool>,
}

/// The weights: a dense matrix over the few vertices whose edges weigh something (all others
/// weigh zero), and one weight per vertex for its edge to the bye vertex. All times four.
#[derive(Clone)]
struct Weights<const L: usize> {
    map: Vec<u32>,
    len: usize,
    matrix: Vec<Wide<L>>,
    bye: Vec<Wide<L>>,
}

impl<const L: usize> Weights<L> {
    fn get(&self, i: usize, j: usize, bye_vertex: usize) -> Wide<L> {
        if j == bye_vertex {
            return self.bye[i];
        }
        if i == bye_vertex {
            return self.bye[j];
        }
        let (a, b) = (self.map[i], self.map[j]);
        if a == UNMAPPED || b == UNMAPPED {
            return Wide::<L>::ZERO;
        }
        self.matrix[a as usize * self.len + b as usize]
    }
}

/// The matcher: a fixed graph on `0..n` (the last vertex is the bye vertex when there is one),
/// changing weights, and the primal-dual state of the last solve.
#[derive(Clone)]
pub struct Dynamic<const L: usize> {
    n: usize,
    bye_vertex: usize,
    edges: Vec<(u32, u32)>,
    neighbend: Vec<Vec<u32>>,
    /// The vertex at the other end of each `neighbend` entry.
    nbv: Vec<Vec<u32>>,
    /// How many vertices had been taken out when the lists were last pruned.
    pruned: usize,
    weights: Weights<L>,
    removed: Vec<bool>,
    mate: Vec<usize>,
    label: Vec<i8>,
    labelend: Vec<usize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<usize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<usize>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<usize>,
    /// The slack of `bestedge`, valid while `bestepoch` is the current `epoch` (the duals
    /// change only between epochs).
    bestslack: Vec<Wide<L>>,
    bestepoch: Vec<u32>,
    epoch: u32,
    blossombestedges: Vec<Option<Vec<usize>>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<Wide<L>>,
    queue: Vec<usize>,
    /// The root of the alternating tree of each labelled top-level blossom or vertex, and the
    /// trees that augmented in the current stage.
    tree: Vec<usize>,
    dead: Vec<bool>,
    roots: Vec<usize>,
}

fn wrap(j: isize, len: usize) -> usize {
    j.rem_euclid(len as isize) as usize
}

fn convert<const L: usize, const M: usize>(w: Wide<L>) -> Wide<M> {
    Wide::<M>::from_limbs(w.limbs())
}

impl<const L: usize> Dynamic<L> {
    /// The graph on `players` vertices, plus a bye vertex (the last) when `with_bye`: an edge
    /// for every `compatible` pair, and from every `bye_ok` player to the bye vertex. All
    /// weights are zero; a maximal matching is taken greedily (call [`Dynamic::solve`] next).
    pub fn new(
        players: usize,
        with_bye: bool,
        compatible: &dyn Fn(usize, usize) -> bool,
        bye_ok: &dyn Fn(usize) -> bool,
    ) -> Dynamic<L> {
        let n = players + usize::from(with_bye);
        let bye_vertex = if with_bye { players } else { NONE };
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut neighbend: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut nbv: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut push = |i: usize, j: usize, edges: &mut Vec<(u32, u32)>| {
            let k = edges.len();
            edges.push((i as u32, j as u32));
            neighbend[i].push((2 * k + 1) as u32);
            neighbend[j].push((2 * k) as u32);
            nbv[i].push(j as u32);
            nbv[j].push(i as u32);
        };
        for i in 0..players {
            for j in i + 1..players {
                if compatible(i, j) {
                    push(i, j, &mut edges);
                }
            }
            if with_bye && bye_ok(i) {
                push(i, players, &mut edges);
            }
        }
        let mut d = Dynamic {
            n,
            bye_vertex,
            edges,
            neighbend,
            nbv,
            pruned: 0,
            weights: Weights {
                map: vec![UNMAPPED; n],
                len: 0,
                matrix: Vec::new(),
                bye: vec![Wide::<L>::ZERO; n],
            },
            removed: vec![false; n],
            mate: vec![NONE; n],
            label: vec![0; 2 * n],
            labelend: vec![NONE; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![NONE; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase: (0..n).chain(std::iter::repeat_n(NONE, n)).collect(),
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![NONE; 2 * n],
            bestslack: vec![Wide::<L>::ZERO; 2 * n],
            bestepoch: vec![u32::MAX; 2 * n],
            epoch: 0,
            blossombestedges: vec![None; 2 * n],
            unusedblossoms: (n..2 * n).collect(),
            dualvar: vec![Wide::<L>::ZERO; 2 * n],
            queue: Vec::new(),
            tree: vec![NONE; 2 * n],
            dead: vec![false; n],
            roots: Vec::new(),
        };
        // Every edge weighs zero and every dual is zero: any matching is tight.
        for v in 0..n {
            if d.mate[v] != NONE {
                continue;
            }
            let found = d.neighbend[v]
                .iter()
                .map(|&p| p as usize)
                .find(|&p| d.mate[d.endpoint(p)] == NONE);
            if let Some(p) = found {
                let u = d.endpoint(p);
                d.mate[v] = p;
                d.mate[u] = p ^ 1;
            }
        }
        d
    }

    /// The same state in another width (values must fit: widening always does).
    pub fn convert<const M: usize>(self) -> Dynamic<M> {
        let cw = |v: Vec<Wide<L>>| v.into_iter().map(convert::<L, M>).collect::<Vec<_>>();
        Dynamic {
            n: self.n,
            bye_vertex: self.bye_vertex,
            edges: self.edges,
            neighbend: self.neighbend,
            nbv: self.nbv,
            pruned: self.pruned,
            weights: Weights {
                map: self.weights.map,
                len: self.weights.len,
                matrix: cw(self.weights.matrix),
                bye: cw(self.weights.bye),
            },
            removed: self.removed,
            mate: self.mate,
            label: self.label,
            labelend: self.labelend,
            inblossom: self.inblossom,
            blossomparent: self.blossomparent,
            blossomchilds: self.blossomchilds,
            blossombase: self.blossombase,
            blossomendps: self.blossomendps,
            bestedge: self.bestedge,
            bestslack: cw(self.bestslack),
            bestepoch: vec![u32::MAX; 2 * self.n],
            epoch: 0,
            blossombestedges: self.blossombestedges,
            unusedblossoms: self.unusedblossoms,
            dualvar: cw(self.dualvar),
            queue: self.queue,
            tree: self.tree,
            dead: self.dead,
            roots: self.roots,
        }
    }

    fn endpoint(&self, p: usize) -> usize {
        let (i, j) = self.edges[p / 2];
        if p.is_multiple_of(2) {
            i as usize
        } else {
            j as usize
        }
    }

    /// Four times the weight of edge `k`.
    fn w4(&self, k: usize) -> Wide<L> {
        let (i, j) = self.edges[k];
        self.weights.get(i as usize, j as usize, self.bye_vertex)
    }

    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == u32::MAX {
            self.epoch = 0;
            self.bestepoch.fill(u32::MAX);
        }
    }

    fn best_slack(&mut self, x: usize) -> Wide<L> {
        if self.bestepoch[x] != self.epoch {
            self.bestslack[x] = self.slack(self.bestedge[x]);
            self.bestepoch[x] = self.epoch;
        }
        self.bestslack[x]
    }

    fn set_best(&mut self, x: usize, k: usize, slack: Wide<L>) {
        self.bestedge[x] = k;
        self.bestslack[x] = slack;
        self.bestepoch[x] = self.epoch;
    }

    fn slack(&self, k: usize) -> Wide<L> {
        let (i, j) = self.edges[k];
        self.dualvar[i as usize] + self.dualvar[j as usize] - self.w4(k)
    }

    /// The partner of `v` in the current matching.
    pub fn mate(&self, v: usize) -> Option<usize> {
        let p = self.mate[v];
        (p != NONE).then(|| self.endpoint(p))
    }

    /// Four times the weight of the current matching.
    pub fn total4(&self) -> Wide<L> {
        let mut sum = Wide::<L>::ZERO;
        for v in 0..self.n {
            let p = self.mate[v];
            if p != NONE && !self.removed[v] && v < self.endpoint(p) {
                sum += self.w4(p / 2);
            }
        }
        sum
    }

    /// Four times the weight the current weights give the pair (i, j) (no matter whether they
    /// may meet).
    pub fn pair_w4(&self, i: usize, j: usize) -> Wide<L> {
        self.weights.get(i.min(j), i.max(j), self.bye_vertex)
    }

    /// How much below the optimum a matching containing (i, j) must be, times four, at least
    /// (zero for the edges of some optimal matching): the reduced cost under the current duals,
    /// which are optimal after a successful [`Dynamic::solve`].
    pub fn reduced_cost4(&self, i: usize, j: usize) -> Wide<L> {
        let mut s = self.dualvar[i] + self.dualvar[j] - self.pair_w4(i, j);
        let chain = |v: usize| {
            let mut c = vec![v];
            while let Some(&last) = c.last() {
                let p = self.blossomparent[last];
                if p == NONE {
                    break;
                }
                c.push(p);
            }
            c.reverse();
            c
        };
        let (ci, cj) = (chain(i), chain(j));
        for (bi, bj) in ci.iter().zip(cj.iter()) {
            if bi != bj {
                break;
            }
            s += self.dualvar[*bi] + self.dualvar[*bi];
        }
        s
    }

    /// The largest magnitude of a dual variable (to keep away from the width's limits).
    pub fn max_dual(&self) -> Wide<L> {
        self.dualvar
            .iter()
            .map(|&d| {
                if d < Wide::<L>::ZERO {
                    Wide::<L>::ZERO - d
                } else {
                    d
                }
            })
            .max()
            .unwrap_or(Wide::<L>::ZERO)
    }

    pub fn save(&self) -> Saved<L> {
        Saved {
            mate: self.mate.clone(),
            inblossom: self.inblossom.clone(),
            blossomparent: self.blossomparent.clone(),
            blossomchilds: self.blossomchilds.clone(),
            blossombase: self.blossombase.clone(),
            blossomendps: self.blossomendps.clone(),
            unusedblossoms: self.unusedblossoms.clone(),
            dualvar: self.dualvar.clone(),
            removed: self.removed.clone(),
        }
    }

    pub fn restore(&mut self, s: Saved<L>) {
        self.mate = s.mate;
        self.inblossom = s.inblossom;
        self.blossomparent = s.blossomparent;
        self.blossomchilds = s.blossomchilds;
        self.blossombase = s.blossombase;
        self.blossomendps = s.blossomendps;
        self.unusedblossoms = s.unusedblossoms;
        self.dualvar = s.dualvar;
        self.removed = s.removed;
    }

    /// Dissolves every blossom containing `v`, top down, spreading each blossom's dual onto
    /// its vertices: the duals stay feasible, the edges inside keep their slack, and the base's
    /// matched edge (which gains slack when the dual was positive) is given up.
    fn dissolve(&mut self, v: usize) {
        loop {
            let top = self.inblossom[v];
            if top < self.n {
                return;
            }
            let d = self.dualvar[top];
            let leaves = self.leaves(top);
            if d != Wide::<L>::ZERO {
                for &u in &leaves {
                    self.dualvar[u] += d;
                }
                let base = self.blossombase[top];
                let p = self.mate[base];
                if p != NONE {
                    let m = self.endpoint(p);
                    self.mate[base] = NONE;
                    self.mate[m] = NONE;
                }
            }
            let childs = std::mem::take(&mut self.blossomchilds[top]);
            for &s in &childs {
                self.blossomparent[s] = NONE;
                if s < self.n {
                    self.inblossom[s] = s;
                } else {
                    for u in self.leaves(s) {
                        self.inblossom[u] = s;
                    }
                }
            }
            self.dualvar[top] = Wide::<L>::ZERO;
            self.blossomendps[top] = Vec::new();
            self.blossombase[top] = NONE;
            self.blossombestedges[top] = None;
            self.bestedge[top] = NONE;
            self.label[top] = 0;
            self.unusedblossoms.push(top);
        }
    }

    fn unmatch(&mut self, v: usize) {
        let p = self.mate[v];
        if p != NONE {
            let m = self.endpoint(p);
            self.mate[m] = NONE;
            self.mate[v] = NONE;
        }
    }

    /// Takes the pair (x, y) out of the graph for good (their partners become free).
    pub fn remove_pair(&mut self, x: usize, y: usize) {
        self.dissolve(x);
        self.dissolve(y);
        self.unmatch(x);
        self.unmatch(y);
        self.removed[x] = true;
        self.removed[y] = true;
    }

    /// Gives the vertices of `set` (whose edges changed weight), one after the other, the
    /// smallest duals that keep their edges feasible; a vertex stays matched when its matched
    /// edge is then tight, and is unmatched otherwise.
    fn reset(&mut self, set: &[usize]) {
        for &v in set {
            self.dissolve(v);
            let mut best: Option<Wide<L>> = None;
            for &p in &self.neighbend[v] {
                let p = p as usize;
                let u = self.endpoint(p);
                if self.removed[u] {
                    continue;
                }
                let need = self.w4(p / 2) - self.dualvar[u];
                if best.is_none_or(|b| need > b) {
                    best = Some(need);
                }
            }
            self.dualvar[v] = best.unwrap_or(Wide::<L>::ZERO);
        }
        // A later vertex may have lowered the dual of an earlier one's partner.
        for &v in set {
            let p = self.mate[v];
            if p != NONE && self.slack(p / 2) != Wide::<L>::ZERO {
                self.unmatch(v);
            }
        }
    }

    /// New weights: `set[a]` and `set[b]` weigh `weight(a, b)` (0 <= a < b < set.len()), every
    /// player's edge to the bye vertex `bye(v)`, every other edge zero. Only the vertices whose
    /// edges change are reset; call [`Dynamic::solve`] next.
    pub fn set_weights(
        &mut self,
        set: &[usize],
        weight: &dyn Fn(usize, usize) -> Wide<L>,
        bye: &dyn Fn(usize) -> Wide<L>,
    ) {
        let n = self.n;
        self.prune();
        let mut map = vec![UNMAPPED; n];
        for (a, &v) in set.iter().enumerate() {
            map[v] = a as u32;
        }
        let len = set.len();
        let mut matrix = vec![Wide::<L>::ZERO; len * len];
        for a in 0..len {
            for b in a + 1..len {
                let w = weight(a, b).shl(2);
                matrix[a * len + b] = w;
                matrix[b * len + a] = w;
            }
        }
        let mut byew = vec![Wide::<L>::ZERO; n];
        if self.bye_vertex != NONE {
            for (v, slot) in byew.iter_mut().enumerate().take(self.bye_vertex) {
                *slot = bye(v).shl(2);
            }
        }
        let new = Weights {
            map,
            len,
            matrix,
            bye: byew,
        };
        // Vertices touched by a changed edge.
        let mut touched: Vec<usize> = (0..n)
            .filter(|&v| {
                !self.removed[v]
                    && (self.weights.map[v] != UNMAPPED || new.map[v] != UNMAPPED)
                    && v != self.bye_vertex
            })
            .collect();
        touched.sort_unstable();
        let mut reset = vec![false; n];
        for &v in &touched {
            for &p in &self.neighbend[v] {
                let u = self.endpoint(p as usize);
                if u == self.bye_vertex || self.removed[u] {
                    continue;
                }
                let (i, j) = (v.min(u), v.max(u));
                if !reset[u]
                    && self.weights.get(i, j, self.bye_vertex) != new.get(i, j, self.bye_vertex)
                {
                    reset[v] = true;
                }
            }
        }
        let bye_changed = self.bye_vertex != NONE
            && (0..self.bye_vertex).any(|v| !self.removed[v] && self.weights.bye[v] != new.bye[v]);
        self.weights = new;
        let mut set: Vec<usize> = (0..n).filter(|&v| reset[v]).collect();
        if bye_changed {
            set.push(self.bye_vertex);
        }
        self.reset(&set);
    }

    /// Drops the vertices taken out of the graph from the neighbour lists once enough of them
    /// have gone (they are only skipped otherwise). Only between brackets: no saved state may
    /// bring them back.
    fn prune(&mut self) {
        let gone = self.removed.iter().filter(|&&r| r).count();
        if gone < self.pruned + self.n / 16 + 1 {
            return;
        }
        self.pruned = gone;
        for v in 0..self.n {
            if self.removed[v] {
                self.neighbend[v] = Vec::new();
                self.nbv[v] = Vec::new();
                continue;
            }
            let (ends, others) = (&mut self.neighbend[v], &mut self.nbv[v]);
            let mut keep = 0;
            for i in 0..others.len() {
                if !self.removed[others[i] as usize] {
                    ends[keep] = ends[i];
                    others[keep] = others[i];
                    keep += 1;
                }
            }
            ends.truncate(keep);
            others.truncate(keep);
        }
    }

    /// Starts again from scratch (after the duals have grown too large).
    pub fn restart(&mut self) {
        let n = self.n;
        let maxw = (0..self.edges.len())
            .map(|k| self.w4(k))
            .max()
            .unwrap_or(Wide::<L>::ZERO)
            .max(Wide::<L>::ZERO);
        for v in 0..n {
            self.dissolve(v);
        }
        for v in 0..n {
            self.mate[v] = NONE;
            self.dualvar[v] = maxw;
        }
    }

    fn leaves(&self, b: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![b];
        while let Some(t) = stack.pop() {
            if t < self.n {
                out.push(t);
            } else {
                stack.extend(self.blossomchilds[t].iter().rev().copied());
            }
        }
        out
    }

    fn assign_label(&mut self, w: usize, t: i8, p: usize, tree: usize) {
        let mut w = w;
        let mut t = t;
        let mut p = p;
        loop {
            let b = self.inblossom[w];
            self.label[w] = t;
            self.label[b] = t;
            self.tree[w] = tree;
            self.tree[b] = tree;
            self.labelend[w] = p;
            self.labelend[b] = p;
            self.bestedge[w] = NONE;
            self.bestedge[b] = NONE;
            if t == 1 {
                let leaves = self.leaves(b);
                self.queue.extend(leaves);
                return;
            }
            let base = self.blossombase[b];
            let mb = self.mate[base];
            w = self.endpoint(mb);
            t = 1;
            p = mb ^ 1;
        }
    }

    fn scan_blossom(&mut self, v: usize, w: usize) -> usize {
        let mut path = Vec::new();
        let mut base = NONE;
        let (mut v, mut w) = (v, w);
        while v != NONE || w != NONE {
            let mut b = self.inblossom[v];
            if self.label[b] & 4 != 0 {
                base = self.blossombase[b];
                break;
            }
            path.push(b);
            self.label[b] = 5;
            if self.labelend[b] == NONE {
                v = NONE;
            } else {
                v = self.endpoint(self.labelend[b]);
                b = self.inblossom[v];
                v = self.endpoint(self.labelend[b]);
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = 1;
        }
        base
    }

    fn add_blossom(&mut self, base: usize, k: usize) {
        let (v, w) = self.edges[k];
        let (mut v, mut w) = (v as usize, w as usize);
        let bb = self.inblossom[base];
        let mut bv = self.inblossom[v];
        let mut bw = self.inblossom[w];
        let Some(b) = self.unusedblossoms.pop() else {
            return;
        };
        self.blossombase[b] = base;
        self.blossomparent[b] = NONE;
        self.blossomparent[bb] = b;
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.blossomparent[bv] = b;
            path.push(bv);
            endps.push(self.labelend[bv]);
            v = self.endpoint(self.labelend[bv]);
            bv = self.inblossom[v];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(2 * k);
        while bw != bb {
            self.blossomparent[bw] = b;
            path.push(bw);
            endps.push(self.labelend[bw] ^ 1);
            w = self.endpoint(self.labelend[bw]);
            bw = self.inblossom[w];
        }
        self.label[b] = 1;
        self.tree[b] = self.tree[bb];
        self.labelend[b] = self.labelend[bb];
        self.dualvar[b] = Wide::<L>::ZERO;
        self.blossomchilds[b] = path.clone();
        self.blossomendps[b] = endps;
        for v in self.leaves(b) {
            if self.label[self.inblossom[v]] == 2 {
                self.queue.push(v);
            }
            self.inblossom[v] = b;
        }
        let mut bestedgeto = vec![NONE; 2 * self.n];
        for &bv in &path {
            let nblists: Vec<Vec<usize>> = match self.blossombestedges[bv].take() {
                Some(list) => vec![list],
                None => self
                    .leaves(bv)
                    .into_iter()
                    .map(|v| self.neighbend[v].iter().map(|&p| p as usize / 2).collect())
                    .collect(),
            };
            for nblist in nblists {
                for k in nblist {
                    let (i, j) = self.edges[k];
                    let (i, j) = (i as usize, j as usize);
                    let j = if self.inblossom[j] == b { i } else { j };
                    let bj = self.inblossom[j];
                    if bj != b
                        && self.label[bj] == 1
                        && !self.removed[j]
                        && (bestedgeto[bj] == NONE || self.slack(k) < self.slack(bestedgeto[bj]))
                    {
                        bestedgeto[bj] = k;
                    }
                }
            }
            self.bestedge[bv] = NONE;
        }
        let list: Vec<usize> = bestedgeto.into_iter().filter(|&k| k != NONE).collect();
        let mut best = NONE;
        for &k in &list {
            if best == NONE || self.slack(k) < self.slack(best) {
                best = k;
            }
        }
        self.blossombestedges[b] = Some(list);
        self.bestedge[b] = best;
        self.bestepoch[b] = u32::MAX;
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        let childs = self.blossomchilds[b].clone();
        for &s in &childs {
            self.tree[s] = self.tree[b];
            self.blossomparent[s] = NONE;
            if s < self.n {
                self.inblossom[s] = s;
            } else if endstage && self.dualvar[s] == Wide::<L>::ZERO {
                self.expand_blossom(s, endstage);
            } else {
                for v in self.leaves(s) {
                    self.inblossom[v] = s;
                }
            }
        }
        if !endstage && self.label[b] == 2 {
            let len = childs.len();
            let endps = self.blossomendps[b].clone();
            let entrychild = self.inblossom[self.endpoint(self.labelend[b] ^ 1)];
            let mut j = childs.iter().position(|&c| c == entrychild).unwrap_or(0) as isize;
            let (jstep, endptrick): (isize, usize) = if j & 1 == 1 {
                j -= len as isize;
                (1, 0)
            } else {
                (-1, 1)
            };
            let mut p = self.labelend[b];
            while j != 0 {
                let e = self.endpoint(p ^ 1);
                self.label[e] = 0;
                let q = endps[wrap(j - endptrick as isize, len)] ^ endptrick ^ 1;
                let e = self.endpoint(q);
                self.label[e] = 0;
                self.assign_label(self.endpoint(p ^ 1), 2, p, self.tree[b]);
                j += jstep;
                p = endps[wrap(j - endptrick as isize, len)] ^ endptrick;
                j += jstep;
            }
            let bv = childs[wrap(j, len)];
            let e = self.endpoint(p ^ 1);
            self.label[e] = 2;
            self.label[bv] = 2;
            self.tree[e] = self.tree[b];
            self.labelend[e] = p;
            self.labelend[bv] = p;
            self.bestedge[bv] = NONE;
            j += jstep;
            while childs[wrap(j, len)] != entrychild {
                let bv = childs[wrap(j, len)];
                if self.label[bv] == 1 {
                    j += jstep;
                    continue;
                }
                let found = self.leaves(bv).into_iter().find(|&v| self.label[v] != 0);
                if let Some(v) = found {
                    self.label[v] = 0;
                    let m = self.mate[self.blossombase[bv]];
                    let e = self.endpoint(m);
                    self.label[e] = 0;
                    self.assign_label(v, 2, self.labelend[v], self.tree[b]);
                }
                j += jstep;
            }
        }
        self.label[b] = -1;
        self.labelend[b] = NONE;
        self.blossomchilds[b] = Vec::new();
        self.blossomendps[b] = Vec::new();
        self.blossombase[b] = NONE;
        self.blossombestedges[b] = None;
        self.bestedge[b] = NONE;
        self.dualvar[b] = Wide::<L>::ZERO;
        self.unusedblossoms.push(b);
    }

    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.blossomparent[t] != b {
            t = self.blossomparent[t];
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.blossomchilds[b].len();
        let i = self.blossomchilds[b]
            .iter()
            .position(|&c| c == t)
            .unwrap_or(0);
        let mut j = i as isize;
        let (jstep, endptrick): (isize, usize) = if i & 1 == 1 {
            j -= len as isize;
            (1, 0)
        } else {
            (-1, 1)
        };
        while j != 0 {
            j += jstep;
            let t = self.blossomchilds[b][wrap(j, len)];
            let p = self.blossomendps[b][wrap(j - endptrick as isize, len)] ^ endptrick;
            if t >= self.n {
                self.augment_blossom(t, self.endpoint(p));
            }
            j += jstep;
            let t = self.blossomchilds[b][wrap(j, len)];
            if t >= self.n {
                self.augment_blossom(t, self.endpoint(p ^ 1));
            }
            let (e, f) = (self.endpoint(p), self.endpoint(p ^ 1));
            self.mate[e] = p ^ 1;
            self.mate[f] = p;
        }
        self.blossomchilds[b].rotate_left(i);
        self.blossomendps[b].rotate_left(i);
        self.blossombase[b] = self.blossombase[self.blossomchilds[b][0]];
    }

    fn augment_matching(&mut self, k: usize) {
        let (v, w) = self.edges[k];
        for (s0, p0) in [(v as usize, 2 * k + 1), (w as usize, 2 * k)] {
            let (mut s, mut p) = (s0, p0);
            loop {
                let bs = self.inblossom[s];
                if bs >= self.n {
                    self.augment_blossom(bs, s);
                }
                self.mate[s] = p;
                if self.labelend[bs] == NONE {
                    break;
                }
                let t = self.endpoint(self.labelend[bs]);
                let bt = self.inblossom[t];
                s = self.endpoint(self.labelend[bt]);
                let j = self.endpoint(self.labelend[bt] ^ 1);
                if bt >= self.n {
                    self.augment_blossom(bt, j);
                }
                self.mate[j] = self.labelend[bt];
                p = self.labelend[bt] ^ 1;
            }
        }
    }

    /// Re-solves from the current state: true when every vertex still in the graph is matched
    /// (the matching is then a maximum-weight perfect one and the duals prove it), false when
    /// no perfect matching exists (the state is then to be restored or dropped).
    pub fn solve(&mut self) -> bool {
        let n = self.n;
        // First match free vertices joined by a tight edge (duals unchanged).
        for v in 0..n {
            if self.removed[v] || self.mate[v] != NONE || self.inblossom[v] != v {
                continue;
            }
            for idx in 0..self.neighbend[v].len() {
                let p = self.neighbend[v][idx] as usize;
                let u = self.endpoint(p);
                if self.removed[u] || self.mate[u] != NONE || self.inblossom[u] != u {
                    continue;
                }
                if self.slack(p / 2) == Wide::<L>::ZERO {
                    self.mate[v] = p;
                    self.mate[u] = p ^ 1;
                    break;
                }
            }
        }
        'stages: loop {
            // Every free vertex roots an alternating tree. Their duals must all have the same
            // parity (weights are multiples of four) for every dual change to be an integer: a
            // free vertex with an odd dual is raised by one, which keeps the duals feasible
            // once its blossoms are dissolved (their bases are itself, so nothing else is
            // freed).
            let mut any_free = false;
            for v in 0..n {
                if self.removed[v] || self.mate[v] != NONE {
                    continue;
                }
                any_free = true;
                if self.dualvar[v].is_odd() {
                    // Dissolving spreads the blossoms' duals onto v first.
                    self.dissolve(v);
                    if self.dualvar[v].is_odd() {
                        self.dualvar[v] += Wide::<L>::from_u64(1);
                    }
                }
            }
            if !any_free {
                return true;
            }
            self.label.fill(0);
            self.bestedge.fill(NONE);
            self.next_epoch();
            for b in n..2 * n {
                self.blossombestedges[b] = None;
            }
            self.queue.clear();
            self.roots.clear();
            for v in 0..n {
                if !self.removed[v] && self.mate[v] == NONE && self.label[self.inblossom[v]] == 0 {
                    self.assign_label(v, 1, NONE, v);
                    self.roots.push(v);
                }
            }
            // After an augmentation the stage goes on with the trees that did not take part
            // (their labels are still valid) as long as tight edges let them grow; it ends
            // before any dual change, which would need the labels of every tree.
            let mut augmented = false;
            for &r in &self.roots {
                self.dead[r] = false;
            }
            loop {
                while let Some(v) = self.queue.pop() {
                    if self.dead[self.tree[self.inblossom[v]]] {
                        continue;
                    }
                    for idx in 0..self.neighbend[v].len() {
                        let p = self.neighbend[v][idx] as usize;
                        let k = p / 2;
                        let w = self.nbv[v][idx] as usize;
                        let bw = self.inblossom[w];
                        if self.removed[w] || self.inblossom[v] == bw {
                            continue;
                        }
                        if self.label[bw] != 0 && self.dead[self.tree[bw]] {
                            continue;
                        }
                        // Edges inside blossoms are skipped above, so the vertex duals give
                        // the slack; tight edges are the ones the forest may use.
                        let kslack = self.dualvar[v] + self.dualvar[w]
                            - self.weights.get(v.min(w), v.max(w), self.bye_vertex);
                        if kslack <= Wide::<L>::ZERO {
                            if self.label[bw] == 0 {
                                if self.mate[self.blossombase[bw]] == NONE {
                                    // Another free vertex: an augmenting path.
                                    self.dead[self.tree[self.inblossom[v]]] = true;
                                    self.labelend[bw] = NONE;
                                    self.labelend[w] = NONE;
                                    self.augment_matching(k);
                                    augmented = true;
                                    break;
                                }
                                let tr = self.tree[self.inblossom[v]];
                                self.assign_label(w, 2, p ^ 1, tr);
                            } else if self.label[bw] == 1 {
                                let base = self.scan_blossom(v, w);
                                if base != NONE {
                                    self.add_blossom(base, k);
                                } else {
                                    self.dead[self.tree[self.inblossom[v]]] = true;
                                    self.dead[self.tree[bw]] = true;
                                    self.augment_matching(k);
                                    augmented = true;
                                    break;
                                }
                            } else if self.label[w] == 0 {
                                self.label[w] = 2;
                                self.labelend[w] = p ^ 1;
                            }
                        } else if self.label[bw] == 1 {
                            let b = self.inblossom[v];
                            if self.bestedge[b] == NONE || kslack < self.best_slack(b) {
                                self.set_best(b, k, kslack);
                            }
                        } else if self.label[w] == 0
                            && (self.bestedge[w] == NONE || kslack < self.best_slack(w))
                        {
                            self.set_best(w, k, kslack);
                        }
                    }
                }
                if augmented {
                    break;
                }
                // Dual adjustment (no vertex dual is bound by zero: the matching is perfect).
                let mut delta: Option<Wide<L>> = None;
                let mut deltatype = 0;
                let mut deltaedge = NONE;
                let mut deltablossom = NONE;
                for v in 0..n {
                    if !self.removed[v]
                        && self.label[self.inblossom[v]] == 0
                        && self.bestedge[v] != NONE
                    {
                        let d = self.slack(self.bestedge[v]);
                        if delta.is_none_or(|x| d < x) {
                            delta = Some(d);
                            deltatype = 2;
                            deltaedge = self.bestedge[v];
                        }
                    }
                }
                for b in 0..2 * n {
                    if self.blossomparent[b] == NONE
                        && self.label[b] == 1
                        && self.bestedge[b] != NONE
                    {
                        let d = self.slack(self.bestedge[b]).half();
                        if delta.is_none_or(|x| d < x) {
                            delta = Some(d);
                            deltatype = 3;
                            deltaedge = self.bestedge[b];
                        }
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE
                        && self.blossomparent[b] == NONE
                        && self.label[b] == 2
                        && delta.is_none_or(|x| self.dualvar[b] < x)
                    {
                        delta = Some(self.dualvar[b]);
                        deltatype = 4;
                        deltablossom = b;
                    }
                }
                let Some(delta) = delta else {
                    // The forest cannot grow: no perfect matching.
                    return false;
                };
                self.next_epoch();
                for v in 0..n {
                    match self.label[self.inblossom[v]] {
                        1 => self.dualvar[v] -= delta,
                        2 => self.dualvar[v] += delta,
                        _ => {}
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE && self.blossomparent[b] == NONE {
                        match self.label[b] {
                            1 => self.dualvar[b] += delta,
                            2 => self.dualvar[b] -= delta,
                            _ => {}
                        }
                    }
                }
                if deltatype != 4 && self.slack(deltaedge) != Wide::<L>::ZERO {
                    // Cannot happen while the roots' duals share their parity; should it,
                    // start again from scratch rather than use an edge that is not tight.
                    self.restart();
                    continue 'stages;
                }
                match deltatype {
                    2 => {
                        let (i, j) = self.edges[deltaedge];
                        let (mut i, j) = (i as usize, j as usize);
                        if self.label[self.inblossom[i]] == 0 {
                            i = j;
                        }
                        self.queue.push(i);
                    }
                    3 => {
                        let (i, _) = self.edges[deltaedge];
                        self.queue.push(i as usize);
                    }
                    _ => self.expand_blossom(deltablossom, false),
                }
            }
            for b in n..2 * n {
                if self.blossomparent[b] == NONE
                    && self.blossombase[b] != NONE
                    && self.label[b] == 1
                    && self.dualvar[b] == Wide::<L>::ZERO
                {
                    self.expand_blossom(b, true);
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }

        fn below(&mut self, k: u64) -> u64 {
            self.next() % k
        }
    }

    /// The best perfect matching of the live vertices, by brute force (None: there is none).
    fn brute(live: &[usize], w: &dyn Fn(usize, usize) -> Option<u64>) -> Option<u64> {
        let Some((&first, rest)) = live.split_first() else {
            return Some(0);
        };
        let mut best = None;
        for (k, &u) in rest.iter().enumerate() {
            if let Some(x) = w(first, u) {
                let others: Vec<usize> = rest
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != k)
                    .map(|(_, &v)| v)
                    .collect();
                if let Some(r) = brute(&others, w) {
                    best = Some(best.map_or(x + r, |b: u64| b.max(x + r)));
                }
            }
        }
        best
    }

    /// A random round: players, who may meet, who may get the bye.
    struct Case {
        players: usize,
        with_bye: bool,
        adj: Vec<Vec<bool>>,
        bye_ok: Vec<bool>,
    }

    impl Case {
        fn new(rng: &mut Rng) -> Case {
            let players = (rng.below(9) + 2) as usize;
            let with_bye = players % 2 == 1;
            let mut adj = vec![vec![false; players]; players];
            for i in 0..players {
                for j in i + 1..players {
                    let ok = rng.below(5) != 0;
                    adj[i][j] = ok;
                    adj[j][i] = ok;
                }
            }
            let bye_ok = (0..players).map(|_| rng.below(3) != 0).collect();
            Case {
                players,
                with_bye,
                adj,
                bye_ok,
            }
        }

        fn matcher<const L: usize>(&self) -> Dynamic<L> {
            Dynamic::new(self.players, self.with_bye, &|a, b| self.adj[a][b], &|a| {
                self.bye_ok[a]
            })
        }
    }

    /// Random weights on a random subset (and the bye edges); returns the weight function.
    fn reweigh<const L: usize>(
        d: &mut Dynamic<L>,
        case: &Case,
        rng: &mut Rng,
    ) -> impl Fn(usize, usize) -> u64 + use<L> {
        let n = case.players + usize::from(case.with_bye);
        let set: Vec<usize> = (0..case.players).filter(|_| rng.below(3) != 0).collect();
        let mut m = vec![vec![0u64; n]; n];
        for (x, &a) in set.iter().enumerate() {
            for &b in &set[x + 1..] {
                let w = rng.below(50);
                m[a][b] = w;
                m[b][a] = w;
            }
        }
        if case.with_bye {
            for a in 0..case.players {
                let w = rng.below(7);
                m[a][case.players] = w;
                m[case.players][a] = w;
            }
        }
        d.set_weights(&set, &|x, y| Wide::<L>::from_u64(m[set[x]][set[y]]), &|v| {
            Wide::<L>::from_u64(m[v][case.players.min(n - 1)])
        });
        move |a, b| m[a][b]
    }

    fn check<const L: usize>(
        d: &mut Dynamic<L>,
        case: &Case,
        weight: &dyn Fn(usize, usize) -> u64,
        removed: &[bool],
    ) {
        let n = case.players + usize::from(case.with_bye);
        let live: Vec<usize> = (0..n).filter(|&v| !removed[v]).collect();
        let edge = |a: usize, b: usize| -> Option<u64> {
            let (a, b) = (a.min(b), a.max(b));
            let ok = if b == case.players {
                case.bye_ok[a]
            } else {
                case.adj[a][b]
            };
            ok.then(|| weight(a, b))
        };
        let expected = brute(&live, &edge);
        let solved = d.solve();
        assert_eq!(solved, expected.is_some());
        let Some(best) = expected else {
            return;
        };
        assert_eq!(d.total4(), Wide::<L>::from_u64(4 * best));
        for &v in &live {
            let m = d.mate(v).expect("perfect");
            assert_eq!(d.mate(m), Some(v));
            assert!(edge(v, m).is_some());
        }
        // The reduced cost bounds what forcing an edge costs.
        for (x, &a) in live.iter().enumerate() {
            for &b in &live[x + 1..] {
                let Some(w) = edge(a, b) else { continue };
                let rest: Vec<usize> = live.iter().copied().filter(|&v| v != a && v != b).collect();
                if let Some(r) = brute(&rest, &edge) {
                    let with = Wide::<L>::from_u64(4 * (r + w));
                    assert!(
                        with + d.reduced_cost4(a, b) <= Wide::<L>::from_u64(4 * best),
                        "a={a} b={b} r={r} w={w} best={best} rc={:?} duals={:?} parents={:?} mates={:?}",
                        d.reduced_cost4(a, b),
                        d.dualvar,
                        d.blossomparent,
                        (0..n).map(|v| d.mate(v)).collect::<Vec<_>>()
                    );
                }
            }
        }
    }

    /// Dual feasibility and tight matched edges (with the blossom terms).
    fn invariants<const L: usize>(d: &Dynamic<L>) -> Result<(), String> {
        for k in 0..d.edges.len() {
            let (i, j) = d.edges[k];
            let (i, j) = (i as usize, j as usize);
            if d.removed[i] || d.removed[j] {
                continue;
            }
            let rc = d.reduced_cost4(i, j);
            if rc < Wide::<L>::ZERO {
                return Err(format!("edge {i}-{j} infeasible"));
            }
            if d.mate(i) == Some(j) && rc != Wide::<L>::ZERO {
                return Err(format!("matched edge {i}-{j} not tight"));
            }
        }
        Ok(())
    }

    #[test]
    fn warm_started_matching_agrees_with_brute_force() {
        let mut rng = Rng(7);
        for _ in 0..150 {
            let case = Case::new(&mut rng);
            let n = case.players + usize::from(case.with_bye);
            let mut d = case.matcher::<2>();
            let mut removed = vec![false; n];
            if !d.solve() {
                check(&mut d, &case, &|_, _| 0, &removed);
                continue;
            }
            let mut weight: Box<dyn Fn(usize, usize) -> u64> = Box::new(|_, _| 0);
            for _ in 0..6 {
                match rng.below(3) {
                    0 => weight = Box::new(reweigh(&mut d, &case, &mut rng)),
                    1 => {
                        // Fix a pair of the current optimum, or try another and undo it.
                        let live: Vec<usize> = (0..case.players).filter(|&v| !removed[v]).collect();
                        if live.len() < 2 {
                            continue;
                        }
                        let a = live[(rng.next() as usize) % live.len()];
                        let matched = d.mate(a).filter(|&m| m < case.players);
                        let b = match matched {
                            Some(m) if rng.below(2) == 0 => m,
                            _ => live[(rng.next() as usize) % live.len()],
                        };
                        if a == b || !case.adj[a][b] {
                            continue;
                        }
                        let saved = d.save();
                        let total = d.total4();
                        d.remove_pair(a, b);
                        if d.mate(a).is_none() && matched == Some(b) {
                            removed[a] = true;
                            removed[b] = true;
                        } else {
                            d.restore(saved);
                            assert_eq!(d.total4(), total);
                        }
                    }
                    _ => {
                        let w = d.convert::<4>();
                        d = w.convert::<2>();
                    }
                }
                let before = format!(
                    "{:?} duals={:?} parents={:?} mates={:?} w={:?}",
                    invariants(&d),
                    d.dualvar,
                    d.blossomparent,
                    (0..d.n).map(|v| d.mate(v)).collect::<Vec<_>>(),
                    (0..d.edges.len())
                        .map(|k| (d.edges[k], d.w4(k)))
                        .collect::<Vec<_>>()
                );
                let solved = d.solve();
                if solved {
                    assert_eq!(
                        invariants(&d),
                        Ok(()),
                        "op broke it; before solve: {before:?}"
                    );
                }
                check(&mut d, &case, &*weight, &removed);
            }
        }
    }

    #[test]
    fn repro() {
        let e: Vec<((usize, usize), u64)> = vec![
            ((0, 1), 4),
            ((0, 2), 0x90),
            ((0, 3), 0),
            ((0, 4), 0),
            ((0, 5), 0x3c),
            ((0, 6), 0),
            ((0, 7), 0x24),
            ((1, 2), 0xac),
            ((1, 3), 0),
            ((1, 4), 0),
            ((1, 6), 0),
            ((2, 3), 0),
            ((2, 4), 0),
            ((2, 5), 0),
            ((2, 6), 0),
            ((2, 7), 0x70),
            ((3, 4), 0),
            ((3, 5), 0),
            ((3, 6), 0),
            ((3, 7), 0),
            ((4, 5), 0),
            ((4, 6), 0),
            ((5, 6), 0),
            ((5, 7), 0x44),
        ];
        let adj = |a: usize, b: usize| e.iter().any(|x| x.0 == (a, b));
        let mut d = Dynamic::<2>::new(8, false, &adj, &|_| false);
        let set: Vec<usize> = (0..8).collect();
        d.set_weights(
            &set,
            &|x, y| Wide::<2>::from_u64(e.iter().find(|q| q.0 == (x, y)).map_or(0, |q| q.1 / 4)),
            &|_| Wide::<2>::ZERO,
        );
        for v in 0..8 {
            d.mate[v] = NONE;
        }
        let duals: [i64; 8] = [0x75, 0x91, 0x8b, 0x1b, -0x1b, 0x5f, 0x2c, -0x1b];
        for v in 0..8 {
            d.dualvar[v] = if duals[v] < 0 {
                Wide::<2>::ZERO - Wide::<2>::from_u64((-duals[v]) as u64)
            } else {
                Wide::<2>::from_u64(duals[v] as u64)
            };
        }
        assert_eq!(invariants(&d), Ok(()));
        assert!(d.solve());
        assert_eq!(
            invariants(&d),
            Ok(()),
            "{:?} {:?}",
            d.dualvar,
            (0..8).map(|v| d.mate(v)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn no_perfect_matching_is_reported() {
        // A star: the centre can meet only one of three.
        let adj = |a: usize, b: usize| a == 0 && b > 0;
        let mut d = Dynamic::<2>::new(4, false, &adj, &|_| false);
        assert!(!d.solve());
        let mut d = Dynamic::<2>::new(2, false, &|_, _| true, &|_| false);
        assert!(d.solve());
        assert_eq!(d.mate(0), Some(1));
    }

    #[test]
    fn wide_values_convert_between_widths() {
        let x = Wide::<2>::ZERO - Wide::<2>::from_u64(5);
        assert_eq!(convert::<2, 8>(x), Wide::<8>::ZERO - Wide::<8>::from_u64(5));
        let y = Wide::<8>::from_u64(3).shl(100);
        assert_eq!(convert::<8, 2>(y), Wide::<2>::from_u64(3).shl(100));
    }
}
