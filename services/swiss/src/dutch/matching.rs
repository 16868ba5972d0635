//! Maximum-weight matching in a general graph: Edmonds' blossom algorithm in its O(n³)
//! primal-dual form (after Galil's survey, "Efficient algorithms for finding maximum matching
//! in graphs", 1986), on exact integer weights ([`Wide<L>`]).
//!
//! Weights are doubled internally so every dual variable stays an integer. Vertices are
//! `0..n`; blossoms are numbered `n..2n`.

use super::wide::Wide;

const NONE: usize = usize::MAX;

/// One edge `(i, j, weight)`; weights must be non-negative.
pub type Edge<const L: usize = 8> = (usize, usize, Wide<L>);

/// A maximum-weight matching of the graph on `n` vertices: `mate[v]` is v's partner, if any.
/// Add a large constant to every weight to make it a maximum-cardinality one.
pub fn max_weight_matching<const L: usize>(n: usize, edges: &[Edge<L>]) -> Vec<Option<usize>> {
    solve(n, edges).mate
}

/// A solved matching with its optimal dual solution.
pub struct Solved<const L: usize = 8> {
    pub mate: Vec<Option<usize>>,
    dual: Vec<Wide<L>>,
    parent: Vec<usize>,
}

impl<const L: usize> Solved<L> {
    /// The reduced cost of an edge (i, j, w) under the optimal duals, in quarters of a weight
    /// unit (the weights are doubled inside, and so are the duals): zero for the edges of some
    /// optimal matching; a matching containing the edge weighs at most the optimum minus a
    /// quarter of it.
    pub fn reduced_cost(&self, i: usize, j: usize, w: Wide<L>) -> Wide<L> {
        if self.dual.is_empty() {
            return Wide::<L>::ZERO;
        }
        let w2 = w + w;
        let mut s = self.dual[i] + self.dual[j] - w2 - w2;
        let chain = |v: usize| {
            let mut c = vec![v];
            while let Some(&last) = c.last() {
                let p = self.parent[last];
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
            s += self.dual[*bi] + self.dual[*bi];
        }
        s
    }
}

/// Solves and keeps the duals.
pub fn solve<const L: usize>(n: usize, edges: &[Edge<L>]) -> Solved<L> {
    if n == 0 || edges.is_empty() {
        return Solved {
            mate: vec![None; n],
            dual: Vec::new(),
            parent: Vec::new(),
        };
    }
    let mut m = Matcher::new(n, edges);
    m.solve();
    let mate = (0..n)
        .map(|v| {
            let p = m.mate[v];
            (p != NONE).then(|| m.endpoint[p])
        })
        .collect();
    Solved {
        mate,
        dual: m.dualvar,
        parent: m.blossomparent,
    }
}

struct Matcher<const L: usize> {
    n: usize,
    edges: Vec<(usize, usize, Wide<L>)>,
    endpoint: Vec<usize>,
    neighbend: Vec<Vec<usize>>,
    mate: Vec<usize>,
    label: Vec<i8>,
    labelend: Vec<usize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<usize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<usize>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<usize>,
    blossombestedges: Vec<Option<Vec<usize>>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<Wide<L>>,
    allowedge: Vec<bool>,
    queue: Vec<usize>,
}

fn wrap(j: isize, len: usize) -> usize {
    j.rem_euclid(len as isize) as usize
}

impl<const L: usize> Matcher<L> {
    fn new(n: usize, input: &[Edge<L>]) -> Matcher<L> {
        let edges: Vec<(usize, usize, Wide<L>)> =
            input.iter().map(|&(i, j, w)| (i, j, w + w)).collect();
        let maxweight = edges
            .iter()
            .map(|e| e.2)
            .max()
            .unwrap_or(Wide::<L>::ZERO)
            .max(Wide::<L>::ZERO);
        let mut endpoint = Vec::with_capacity(2 * edges.len());
        let mut neighbend = vec![Vec::new(); n];
        for (k, &(i, j, _)) in edges.iter().enumerate() {
            endpoint.push(i);
            endpoint.push(j);
            neighbend[i].push(2 * k + 1);
            neighbend[j].push(2 * k);
        }
        let nedge = edges.len();
        let mut dualvar = vec![maxweight; n];
        dualvar.extend(std::iter::repeat_n(Wide::<L>::ZERO, n));
        Matcher {
            n,
            edges,
            endpoint,
            neighbend,
            mate: vec![NONE; n],
            label: vec![0; 2 * n],
            labelend: vec![NONE; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![NONE; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase: (0..n).chain(std::iter::repeat_n(NONE, n)).collect(),
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![NONE; 2 * n],
            blossombestedges: vec![None; 2 * n],
            unusedblossoms: (n..2 * n).collect(),
            dualvar,
            allowedge: vec![false; nedge],
            queue: Vec::new(),
        }
    }

    fn slack(&self, k: usize) -> Wide<L> {
        let (i, j, w) = self.edges[k];
        self.dualvar[i] + self.dualvar[j] - w - w
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

    fn assign_label(&mut self, w: usize, t: i8, p: usize) {
        let mut w = w;
        let mut t = t;
        let mut p = p;
        loop {
            let b = self.inblossom[w];
            self.label[w] = t;
            self.label[b] = t;
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
            w = self.endpoint[mb];
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
                v = self.endpoint[self.labelend[b]];
                b = self.inblossom[v];
                v = self.endpoint[self.labelend[b]];
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
        let (mut v, mut w, _) = self.edges[k];
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
            v = self.endpoint[self.labelend[bv]];
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
            w = self.endpoint[self.labelend[bw]];
            bw = self.inblossom[w];
        }
        self.label[b] = 1;
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
                    .map(|v| self.neighbend[v].iter().map(|p| p / 2).collect())
                    .collect(),
            };
            for nblist in nblists {
                for k in nblist {
                    let (mut i, mut j, _) = self.edges[k];
                    if self.inblossom[j] == b {
                        std::mem::swap(&mut i, &mut j);
                    }
                    let _ = i;
                    let bj = self.inblossom[j];
                    if bj != b
                        && self.label[bj] == 1
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
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        let childs = self.blossomchilds[b].clone();
        for &s in &childs {
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
            let entrychild = self.inblossom[self.endpoint[self.labelend[b] ^ 1]];
            let mut j = childs.iter().position(|&c| c == entrychild).unwrap_or(0) as isize;
            let (jstep, endptrick): (isize, usize) = if j & 1 == 1 {
                j -= len as isize;
                (1, 0)
            } else {
                (-1, 1)
            };
            let mut p = self.labelend[b];
            while j != 0 {
                self.label[self.endpoint[p ^ 1]] = 0;
                let q = endps[wrap(j - endptrick as isize, len)] ^ endptrick ^ 1;
                self.label[self.endpoint[q]] = 0;
                self.assign_label(self.endpoint[p ^ 1], 2, p);
                self.allowedge[endps[wrap(j - endptrick as isize, len)] / 2] = true;
                j += jstep;
                p = endps[wrap(j - endptrick as isize, len)] ^ endptrick;
                self.allowedge[p / 2] = true;
                j += jstep;
            }
            let bv = childs[wrap(j, len)];
            let e = self.endpoint[p ^ 1];
            self.label[e] = 2;
            self.label[bv] = 2;
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
                    self.label[self.endpoint[m]] = 0;
                    self.assign_label(v, 2, self.labelend[v]);
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
                self.augment_blossom(t, self.endpoint[p]);
            }
            j += jstep;
            let t = self.blossomchilds[b][wrap(j, len)];
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p ^ 1]);
            }
            self.mate[self.endpoint[p]] = p ^ 1;
            self.mate[self.endpoint[p ^ 1]] = p;
        }
        self.blossomchilds[b].rotate_left(i);
        self.blossomendps[b].rotate_left(i);
        self.blossombase[b] = self.blossombase[self.blossomchilds[b][0]];
    }

    fn augment_matching(&mut self, k: usize) {
        let (v, w, _) = self.edges[k];
        for (s0, p0) in [(v, 2 * k + 1), (w, 2 * k)] {
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
                let t = self.endpoint[self.labelend[bs]];
                let bt = self.inblossom[t];
                s = self.endpoint[self.labelend[bt]];
                let j = self.endpoint[self.labelend[bt] ^ 1];
                if bt >= self.n {
                    self.augment_blossom(bt, j);
                }
                self.mate[j] = self.labelend[bt];
                p = self.labelend[bt] ^ 1;
            }
        }
    }

    fn solve(&mut self) {
        let n = self.n;
        for _ in 0..n {
            self.label.iter_mut().for_each(|l| *l = 0);
            self.bestedge.iter_mut().for_each(|e| *e = NONE);
            for b in n..2 * n {
                self.blossombestedges[b] = None;
            }
            self.allowedge.iter_mut().for_each(|a| *a = false);
            self.queue.clear();
            for v in 0..n {
                if self.mate[v] == NONE && self.label[self.inblossom[v]] == 0 {
                    self.assign_label(v, 1, NONE);
                }
            }
            let mut augmented = false;
            loop {
                while !augmented {
                    let Some(v) = self.queue.pop() else { break };
                    for idx in 0..self.neighbend[v].len() {
                        let p = self.neighbend[v][idx];
                        let k = p / 2;
                        let w = self.endpoint[p];
                        if self.inblossom[v] == self.inblossom[w] {
                            continue;
                        }
                        let mut kslack = Wide::<L>::ZERO;
                        if !self.allowedge[k] {
                            kslack = self.slack(k);
                            if kslack <= Wide::<L>::ZERO {
                                self.allowedge[k] = true;
                            }
                        }
                        if self.allowedge[k] {
                            if self.label[self.inblossom[w]] == 0 {
                                self.assign_label(w, 2, p ^ 1);
                            } else if self.label[self.inblossom[w]] == 1 {
                                let base = self.scan_blossom(v, w);
                                if base != NONE {
                                    self.add_blossom(base, k);
                                } else {
                                    self.augment_matching(k);
                                    augmented = true;
                                    break;
                                }
                            } else if self.label[w] == 0 {
                                self.label[w] = 2;
                                self.labelend[w] = p ^ 1;
                            }
                        } else if self.label[self.inblossom[w]] == 1 {
                            let b = self.inblossom[v];
                            if self.bestedge[b] == NONE || kslack < self.slack(self.bestedge[b]) {
                                self.bestedge[b] = k;
                            }
                        } else if self.label[w] == 0
                            && (self.bestedge[w] == NONE || kslack < self.slack(self.bestedge[w]))
                        {
                            self.bestedge[w] = k;
                        }
                    }
                }
                if augmented {
                    break;
                }
                // Dual adjustment.
                let mut deltatype = 1;
                let mut delta = self.dualvar[..n]
                    .iter()
                    .copied()
                    .min()
                    .unwrap_or(Wide::<L>::ZERO);
                let mut deltaedge = NONE;
                let mut deltablossom = NONE;
                for v in 0..n {
                    if self.label[self.inblossom[v]] == 0 && self.bestedge[v] != NONE {
                        let d = self.slack(self.bestedge[v]);
                        if d < delta {
                            delta = d;
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
                        if d < delta {
                            delta = d;
                            deltatype = 3;
                            deltaedge = self.bestedge[b];
                        }
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE
                        && self.blossomparent[b] == NONE
                        && self.label[b] == 2
                        && self.dualvar[b] < delta
                    {
                        delta = self.dualvar[b];
                        deltatype = 4;
                        deltablossom = b;
                    }
                }
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
                match deltatype {
                    2 => {
                        self.allowedge[deltaedge] = true;
                        let (mut i, j, _) = self.edges[deltaedge];
                        if self.label[self.inblossom[i]] == 0 {
                            i = j;
                        }
                        self.queue.push(i);
                    }
                    3 => {
                        self.allowedge[deltaedge] = true;
                        let (i, _, _) = self.edges[deltaedge];
                        self.queue.push(i);
                    }
                    4 => self.expand_blossom(deltablossom, false),
                    _ => break,
                }
            }
            if !augmented {
                break;
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
mod tests {
    use super::*;

    fn w(v: u64) -> Wide {
        Wide::<8>::from_u64(v)
    }

    fn brute(n: usize, edges: &[Edge]) -> Wide {
        fn go(v: usize, used: &mut Vec<bool>, n: usize, adj: &[Vec<Option<Wide>>]) -> Wide {
            if v == n {
                return Wide::<8>::ZERO;
            }
            if used[v] {
                return go(v + 1, used, n, adj);
            }
            used[v] = true;
            let mut best = go(v + 1, used, n, adj);
            for u in v + 1..n {
                if let (false, Some(wt)) = (used[u], adj[v][u]) {
                    used[u] = true;
                    let r = go(v + 1, used, n, adj) + wt;
                    if r > best {
                        best = r;
                    }
                    used[u] = false;
                }
            }
            used[v] = false;
            best
        }
        let mut adj = vec![vec![None; n]; n];
        for &(i, j, wt) in edges {
            adj[i][j] = Some(wt);
            adj[j][i] = Some(wt);
        }
        go(0, &mut vec![false; n], n, &adj)
    }

    #[test]
    fn matching_small_cases() {
        assert_eq!(
            max_weight_matching(2, &[(0, 1, w(1))]),
            vec![Some(1), Some(0)]
        );
        let m = max_weight_matching(4, &[(0, 1, w(2)), (1, 2, w(3)), (2, 3, w(2))]);
        assert_eq!(m, vec![Some(1), Some(0), Some(3), Some(2)]);
        // A blossom that must be expanded.
        let e = [
            (0, 1, w(8)),
            (0, 2, w(9)),
            (1, 2, w(10)),
            (2, 3, w(7)),
            (0, 5, w(5)),
            (3, 4, w(6)),
        ];
        let m = max_weight_matching(6, &e);
        let total: Wide = (0..6)
            .filter_map(|v| m[v].filter(|&u| u > v).map(|u| (v, u)))
            .map(|(a, b)| {
                e.iter()
                    .find(|x| (x.0, x.1) == (a, b) || (x.1, x.0) == (a, b))
                    .map_or(Wide::<8>::ZERO, |x| x.2)
            })
            .fold(Wide::<8>::ZERO, |s, x| s + x);
        assert_eq!(total, brute(6, &e));
    }

    #[test]
    fn matching_agrees_with_brute_force_on_random_graphs() {
        let mut seed: u64 = 12345;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        for _ in 0..400 {
            let n = (next() % 9 + 2) as usize;
            let mut edges = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    if next() % 3 != 0 {
                        edges.push((i, j, w(next() % 20)));
                    }
                }
            }
            let m = max_weight_matching(n, &edges);
            let mut total = Wide::<8>::ZERO;
            for v in 0..n {
                if let Some(u) = m[v] {
                    assert_eq!(m[u], Some(v));
                    if u > v {
                        let e = edges.iter().find(|x| (x.0, x.1) == (v, u)).map(|x| x.2);
                        assert!(e.is_some());
                        total += e.unwrap_or(Wide::<8>::ZERO);
                    }
                }
            }
            assert_eq!(total, brute(n, &edges), "n={n} edges={edges:?}");
        }
    }
}
