//! The bracket-by-bracket pairing procedure of C.04.3 Art. 3, with every criterion of Art. 2
//! encoded as one "digit" of a matching weight (highest criterion in the highest digit), so a
//! maximum-weight matching over the players still to pair is the best pairing of the current
//! bracket that still lets every lower player be paired (C4).

use std::collections::HashSet;

use std::collections::HashMap;

use super::matching::{Edge, Solved, max_weight_matching, solve};
use super::state::{Float, PlayerState, Strength};
use super::wide::Wide;
use crate::colour::Mover;
use crate::points::HalfPoints;

/// Why the engine could not pair a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// No pairing satisfies the absolute criteria C1-C3 (with at most one eligible bye).
    NoValidPairing,
}

/// The players to pair, ranked (score, then TPN: Art. 1.2), and the fixed rules of the round.
pub struct Engine {
    pub players: Vec<PlayerState>,
    pub forbidden: HashSet<(u32, u32)>,
    pub initial: Mover,
    /// Distinct scores, descending.
    levels: Vec<HalfPoints>,
}

/// Result: pairs as (higher-ranked index, lower-ranked index), and the bye's index.
pub struct RawPairing {
    pub pairs: Vec<(usize, usize)>,
    pub bye: Option<usize>,
}

const BYE_SENTINEL: usize = usize::MAX;

/// A bracket's pairs and its unpaired players (downfloaters, or the bye in the last bracket).
type BracketResult = (Vec<(usize, usize)>, Vec<usize>);

/// Bounds at or above this mark a tier of powers of two: `POW_BOUND + k` bounds each edge's
/// value by `2^k`.
const POW_BOUND: u64 = 1 << 40;

/// The weight layout of one bracket: tier offsets (bit positions), highest criterion first.
struct Layout {
    offsets: Vec<Option<u32>>,
    /// Bits used.
    bits: u32,
    /// Width of the lowest tier when it is a hint (0 when dropped).
    hint_bits: u32,
}

impl Layout {
    /// `bounds[t]` is the largest value one edge contributes to tier `t` and the most edges of
    /// a matching that contribute to it. Tiers that do not fit into `max_bits` are dropped,
    /// lowest first.
    fn new(bounds: &[(u64, u64)], max_bits: u32) -> Layout {
        let widths: Vec<u32> = bounds
            .iter()
            .map(|&(b, edges)| {
                let edge_bits = 64 - (edges.max(1) + 1).leading_zeros();
                if b >= POW_BOUND {
                    // A tier of powers of two below 2^(b - POW_BOUND).
                    (b - POW_BOUND) as u32 + 1 + edge_bits
                } else {
                    let max = b.saturating_mul(edges.max(1)).saturating_add(1);
                    64 - max.leading_zeros()
                }
            })
            .collect();
        let mut offsets = vec![None; bounds.len()];
        let total: u32 = widths.iter().sum();
        // Drop lowest tiers until it fits.
        let mut keep = bounds.len();
        let mut used = total;
        while used > max_bits && keep > 0 {
            keep -= 1;
            used -= widths[keep];
        }
        let mut offset = 0u32;
        for t in (0..keep).rev() {
            offsets[t] = Some(offset);
            offset += widths[t];
        }
        Layout {
            hint_bits: if keep == bounds.len() {
                widths.last().copied().unwrap_or(0)
            } else {
                0
            },
            offsets,
            bits: offset,
        }
    }

    /// Adds `2^exp` in tier `tier`.
    fn add_pow<const L: usize>(&self, w: &mut Wide<L>, tier: usize, exp: u32) {
        if let Some(Some(off)) = self.offsets.get(tier)
            && off + exp < Wide::<L>::BITS
        {
            *w += Wide::<L>::from_u64(1).shl(*off + exp);
        }
    }

    fn add<const L: usize>(&self, w: &mut Wide<L>, tier: usize, value: u64) {
        if value == 0 {
            return;
        }
        if let Some(Some(off)) = self.offsets.get(tier) {
            *w += Wide::<L>::from_u64(value).shl(*off);
        }
    }
}

/// The tiers of one bracket (indices into the layout), highest first. Each is one criterion of
/// C.04.3 Art. 2 (the 2025 numbering).
struct Tiers {
    /// C4 (completion, Art. 2.3): every edge counts one, so a maximum-weight matching pairs
    /// every player still to pair (but one, who gets the bye).
    card: usize,
    /// C5: the pairing-allocated bye goes to the lowest possible score.
    c5: usize,
    /// C6: maximise the pairs of the bracket (minimise its downfloaters).
    c6: usize,
    /// C7: minimise the scores of the downfloaters, highest first: one tier per score level of
    /// the bracket, counting paired players.
    c7: usize,
    /// C8: the following bracket (this one's downfloaters and the next scoregroup) must make
    /// as many pairs as possible (C6 there) ...
    c8_pairs: usize,
    /// ... with the lowest downfloater scores (C7 there): one tier per score level.
    c8: usize,
    /// C9: minimise the unplayed games of the bye's assignee (only for a bracket that downfloats
    /// exactly one player, who gets the bye).
    c9: usize,
    /// C10: topscorers (or their opponents) whose colour difference would pass ±2.
    c10: usize,
    /// C11: topscorers (or their opponents) with the same colour three times in a row.
    c11: usize,
    /// C12: players who do not get their colour preference.
    c12: usize,
    /// C13: players who do not get their strong (or absolute) colour preference.
    c13: usize,
    /// C14: resident downfloaters who had a downfloat in the previous round.
    c14: usize,
    /// C15: MDP opponents who had an upfloat in the previous round.
    c15: usize,
    /// C16: resident downfloaters who had a downfloat two rounds before.
    c16: usize,
    /// C17: MDP opponents who had an upfloat two rounds before.
    c17: usize,
    /// C18-C21: four blocks (MDPs with a downfloat 1 round before, MDP opponents with an
    /// upfloat 1 round before, then the same 2 rounds before), each the score differences taken
    /// in descending order: a first tier for MDPs floating on (a larger difference than any
    /// here), then one tier per difference, largest first.
    c18: usize,
    diff_levels: usize,
    count: usize,
}

impl Engine {
    pub fn new(
        mut players: Vec<PlayerState>,
        forbidden: HashSet<(u32, u32)>,
        initial: Mover,
    ) -> Engine {
        players.sort_by(|a, b| b.score.cmp(&a.score).then(a.tpn.cmp(&b.tpn)));
        let mut levels: Vec<HalfPoints> = players.iter().map(|p| p.score).collect();
        levels.dedup();
        Engine {
            players,
            forbidden,
            initial,
            levels,
        }
    }

    /// C1 (no second game; forbidden pairs) and C3 (non-topscorers with the same absolute colour
    /// preference do not meet).
    pub fn compatible(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (&self.players[a], &self.players[b]);
        if pa.met.contains(&pb.tpn) {
            return false;
        }
        let key = (pa.tpn.min(pb.tpn), pa.tpn.max(pb.tpn));
        if self.forbidden.contains(&key) {
            return false;
        }
        if pa.strength == Strength::Absolute
            && pb.strength == Strength::Absolute
            && pa.preference == pb.preference
            && !(pa.topscorer || pb.topscorer)
        {
            return false;
        }
        true
    }

    /// The colour of `a` when `a` (higher ranked) meets `b`: C.04.3 Art. 5.2.
    pub fn colour_of_higher(&self, a: usize, b: usize) -> Mover {
        let (pa, pb) = (&self.players[a], &self.players[b]);
        match (pa.preference, pb.preference) {
            // 5.2.1: grant both preferences.
            (Some(x), Some(y)) if x != y => return x,
            (Some(x), None) => return x,
            (None, Some(y)) => return y.other(),
            (Some(x), Some(_)) => {
                // 5.2.2: the stronger preference; both absolute: the wider colour difference.
                if pa.strength != pb.strength {
                    return if pa.strength > pb.strength {
                        x
                    } else {
                        x.other()
                    };
                }
                if pa.strength == Strength::Absolute && pa.difference.abs() != pb.difference.abs() {
                    return if pa.difference.abs() > pb.difference.abs() {
                        x
                    } else {
                        x.other()
                    };
                }
                // 5.2.3: alternate to the most recent round in which they had different colours.
                if let Some(c) = self.alternate(a, b) {
                    return c;
                }
                // 5.2.4: the higher ranked player's preference.
                return x;
            }
            (None, None) => {}
        }
        if let Some(c) = self.alternate(a, b) {
            return c;
        }
        // 5.2.5: the higher ranked player gets the initial colour if its TPN is odd.
        if pa.pairing_number % 2 == 1 {
            self.initial
        } else {
            self.initial.other()
        }
    }

    fn alternate(&self, a: usize, b: usize) -> Option<Mover> {
        let (ca, cb) = (&self.players[a].colours, &self.players[b].colours);
        let (mut i, mut j) = (ca.len(), cb.len());
        while i > 0 && j > 0 {
            i -= 1;
            j -= 1;
            if ca[i].1 != cb[j].1 {
                return Some(ca[i].1.other());
            }
        }
        None
    }

    /// C10-C13 counts for the pair (a higher ranked): [c10, c11, c12, c13].
    fn colour_violations(&self, a: usize, b: usize) -> [u64; 4] {
        let ca = self.colour_of_higher(a, b);
        let mut v = [0u64; 4];
        let top = self.players[a].topscorer || self.players[b].topscorer;
        for (p, c) in [(a, ca), (b, ca.other())] {
            let ps = &self.players[p];
            if top && ps.difference_after(c).abs() > 2 {
                v[0] += 1;
            }
            if top && ps.third_in_row(c) {
                v[1] += 1;
            }
            if let Some(pref) = ps.preference
                && pref != c
            {
                v[2] += 1;
                if ps.strength >= Strength::Strong {
                    v[3] += 1;
                }
            }
        }
        v
    }

    fn level(&self, s: HalfPoints) -> usize {
        // 0 = highest score.
        self.levels.iter().position(|&l| l == s).unwrap_or(0)
    }

    /// Pairs the whole round.
    pub fn run(&self) -> Result<RawPairing, EngineError> {
        let n = self.players.len();
        let bye_eligible = |i: usize| !self.players[i].bye_ineligible;
        // C4 for the round as a whole: some complete pairing must exist.
        {
            let all: Vec<usize> = (0..n).collect();
            let (edges, nv) = self.plain_graph(&all, &bye_eligible);
            let m = max_weight_matching(nv, &edges);
            if m.iter().take(nv).any(|x| x.is_none()) {
                return Err(EngineError::NoValidPairing);
            }
        }
        let mut remaining: Vec<usize> = (0..n).collect();
        let mut mdps: Vec<usize> = Vec::new();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut bye = None;
        while !remaining.is_empty() {
            // The bracket: MDPs and the highest remaining scoregroup.
            let resident_score = remaining
                .iter()
                .filter(|i| !mdps.contains(i))
                .map(|&i| self.players[i].score)
                .max();
            let Some(s0) = resident_score else {
                // Only MDPs are left (cannot happen with a complete pairing); pair them as a bracket.
                break;
            };
            let residents: Vec<usize> = remaining
                .iter()
                .copied()
                .filter(|i| !mdps.contains(i) && self.players[*i].score == s0)
                .collect();
            let mut bracket: Vec<usize> = mdps.clone();
            bracket.extend(residents.iter().copied());
            bracket.sort_unstable();
            let next: Vec<usize> = {
                let s1 = remaining
                    .iter()
                    .filter(|i| !bracket.contains(i))
                    .map(|&i| self.players[i].score)
                    .max();
                remaining
                    .iter()
                    .copied()
                    .filter(|i| Some(self.players[*i].score) == s1 && !bracket.contains(i))
                    .collect()
            };
            let rest_empty = remaining.len() == bracket.len();
            let (fixed, unpaired) =
                self.pair_bracket::<8>(&remaining, &bracket, &mdps, s0, &next, &bye_eligible)?;
            for &(a, b) in &fixed {
                pairs.push((a.min(b), a.max(b)));
            }
            remaining.retain(|i| !fixed.iter().any(|&(a, b)| a == *i || b == *i));
            if rest_empty {
                match unpaired.as_slice() {
                    [] => {}
                    [one] => {
                        bye = Some(*one);
                        remaining.retain(|i| i != one);
                    }
                    _ => return Err(EngineError::NoValidPairing),
                }
                break;
            }
            mdps = unpaired;
        }
        if !remaining.is_empty() {
            return Err(EngineError::NoValidPairing);
        }
        Ok(RawPairing { pairs, bye })
    }

    /// Cardinality-only graph over `set` (plus a bye vertex when odd).
    fn plain_graph(
        &self,
        set: &[usize],
        bye_eligible: &dyn Fn(usize) -> bool,
    ) -> (Vec<Edge<2>>, usize) {
        let mut edges = Vec::new();
        for (x, &a) in set.iter().enumerate() {
            for (y, &b) in set.iter().enumerate().skip(x + 1) {
                if self.compatible(a, b) {
                    edges.push((x, y, Wide::<2>::from_u64(1)));
                }
            }
        }
        let mut nv = set.len();
        if set.len() % 2 == 1 {
            for (x, &a) in set.iter().enumerate() {
                if bye_eligible(a) {
                    edges.push((x, nv, Wide::<2>::from_u64(1)));
                }
            }
            nv += 1;
        }
        (edges, nv)
    }

    /// Pairs one bracket: returns its pairs and its unpaired players (downfloaters, or the
    /// bye when it is the last bracket).
    #[allow(clippy::too_many_arguments)]
    fn pair_bracket<const L: usize>(
        &self,
        remaining: &[usize],
        bracket: &[usize],
        mdps: &[usize],
        s0: HalfPoints,
        next: &[usize],
        bye_eligible: &dyn Fn(usize) -> bool,
    ) -> Result<BracketResult, EngineError> {
        let nrem = remaining.len();
        let odd = nrem % 2 == 1;
        let nv = nrem + usize::from(odd);
        let bye_v = if odd { nrem } else { usize::MAX };
        let in_bracket: Vec<bool> = remaining.iter().map(|i| bracket.contains(i)).collect();
        let in_next: Vec<bool> = remaining.iter().map(|i| next.contains(i)).collect();
        let is_mdp: Vec<bool> = remaining.iter().map(|i| mdps.contains(i)).collect();

        // Score levels inside the bracket (for C7), and of the next bracket (for C8).
        let mut b_levels: Vec<HalfPoints> =
            bracket.iter().map(|&i| self.players[i].score).collect();
        b_levels.sort_unstable_by(|a, b| b.cmp(a));
        b_levels.dedup();
        let mut n_levels = b_levels.clone();
        if let Some(&f) = next.first() {
            n_levels.push(self.players[f].score);
        }
        let mut diffs: Vec<u32> = Vec::new();
        for &x in &b_levels {
            for &y in &b_levels {
                if x > y {
                    diffs.push(x.0 - y.0);
                }
            }
        }
        diffs.sort_unstable_by(|a, b| b.cmp(a));
        diffs.dedup();
        let max_unplayed = remaining
            .iter()
            .map(|&i| u64::from(self.players[i].unplayed))
            .max()
            .unwrap_or(0);

        // Tier layout.
        // Most edges of one matching that can contribute to a tier: any edge, the bye edge, edges
        // inside the bracket, edges inside the next bracket.
        let all_e = (nv / 2 + 1) as u64;
        let b_e = (bracket.len() / 2 + 1) as u64;
        let n_e = ((bracket.len() + next.len()) / 2 + 1) as u64;
        let mut bounds: Vec<(u64, u64)> = Vec::new();
        let mut push = |b: u64, e: u64| {
            bounds.push((b, e));
            bounds.len() - 1
        };
        let card = push(1, all_e);
        let c5 = push(self.levels.len() as u64, 1);
        let c6 = push(1, b_e);
        let c7 = push(2, b_e);
        for _ in 1..b_levels.len() {
            push(2, b_e);
        }
        let c8_pairs = push(1, n_e);
        let c8 = push(2, n_e);
        for _ in 1..n_levels.len() {
            push(2, n_e);
        }
        let c9 = push(max_unplayed, 1);
        let c10 = push(2, b_e);
        let c11 = push(2, b_e);
        let c12 = push(2, b_e);
        let c13 = push(2, b_e);
        let c14 = push(2, b_e);
        let c15 = push(2, b_e);
        let c16 = push(2, b_e);
        let c17 = push(2, b_e);
        // C18-C21: four blocks; each starts with a tier counting the MDPs concerned that are
        // paired here (an MDP that floats on gets a larger difference than any here), then one
        // tier per score difference, largest first.
        let c18 = push(2, b_e);
        for _ in 1..(4 * (diffs.len().max(1) + 1)) {
            push(2, b_e);
        }
        // Art. 4 (exchanges in the remainder): most S1 players kept in S1, then the smallest
        // sum of the BSNs of the new S1.
        // Art. 4 in a heterogeneous bracket: S1 holds the highest MDPs (exchanges with the
        // Limbo only when needed); a set compared lexicographically.
        let mdp_s1 = push(POW_BOUND + mdps.len() as u64, b_e);
        let ex_keep = push(1, b_e);
        let ex_sum = push(bracket.len() as u64 + 1, b_e);
        // Then the players moved from S1 to S2 with the highest BSNs, and those moved from S2 to
        // S1 with the lowest (each a set compared lexicographically: sums of powers of two).
        let ex_out = push(POW_BOUND + bracket.len() as u64, b_e);
        let ex_in = push(POW_BOUND + bracket.len() as u64, b_e);
        // Not a criterion: a hint towards the natural pairing (S1[i] with S2[i]) so that the
        // optimum found first is usually the one Art. 4 picks; comparisons ignore it.
        let hint = push(bracket.len() as u64 + 1, b_e);
        let tiers = Tiers {
            card,
            c5,
            c6,
            c7,
            c8_pairs,
            c8,
            c9,
            c10,
            c11,
            c12,
            c13,
            c14,
            c15,
            c16,
            c17,
            c18,
            diff_levels: diffs.len().max(1),
            count: bounds.len(),
        };
        let needed = Layout::new(&bounds, u32::MAX).bits;
        if L == 8 && needed <= Wide::<2>::BITS {
            return self.pair_bracket::<2>(remaining, bracket, mdps, s0, next, bye_eligible);
        }
        if L == 8 && needed <= Wide::<4>::BITS {
            return self.pair_bracket::<4>(remaining, bracket, mdps, s0, next, bye_eligible);
        }
        if L == 8 && needed <= Wide::<6>::BITS {
            return self.pair_bracket::<6>(remaining, bracket, mdps, s0, next, bye_eligible);
        }
        let layout = Layout::new(&bounds, Wide::<L>::BITS);
        let _ = tiers.count;

        // `rem[x]`: the BSN (0-based) of position x in the remainder once the MDPs are paired;
        // `s1_len`: the size of the remainder's S1.
        let weight = |x: usize,
                      y: usize,
                      rem: &[Option<usize>],
                      s1_len: usize,
                      c9_on: bool|
         -> Option<Wide<L>> {
            // x, y are positions in `remaining`; y may be the bye vertex.
            let mut w = Wide::<L>::ZERO;
            layout.add(&mut w, tiers.card, 1);
            if y == BYE_SENTINEL {
                let a = remaining[x];
                if !bye_eligible(a) {
                    return None;
                }
                let lv = self.level(self.players[a].score) as u64;
                layout.add(&mut w, tiers.c5, lv + 1);
                // C9 only for a bracket downfloating exactly one player, who gets the bye.
                if c9_on && in_bracket[x] {
                    layout.add(
                        &mut w,
                        tiers.c9,
                        max_unplayed - u64::from(self.players[a].unplayed),
                    );
                }
                return Some(w);
            }
            let (a, b) = (
                remaining[x].min(remaining[y]),
                remaining[x].max(remaining[y]),
            );
            if !self.compatible(a, b) {
                return None;
            }
            let (xa, xb) = if remaining[x] == a { (x, y) } else { (y, x) };
            let (pa, pb) = (&self.players[a], &self.players[b]);
            if in_bracket[xa] && in_bracket[xb] {
                if let (Some(ra), Some(rb)) = (rem[xa], rem[xb]) {
                    let low = ra.min(rb);
                    if low < s1_len {
                        layout.add(&mut w, ex_keep, 1);
                        // Kept in S1: 2^s1_len - 2^low (fewer high BSNs kept is better).
                        layout.add_pow(&mut w, ex_out, s1_len as u32);
                        let mut sub = Wide::<L>::ZERO;
                        layout.add_pow(&mut sub, ex_out, low as u32);
                        w -= sub;
                    } else {
                        layout.add_pow(&mut w, ex_in, (bracket.len() - low) as u32);
                    }
                    layout.add(&mut w, ex_sum, (bracket.len() - low) as u64);
                    let high = ra.max(rb);
                    let natural = low + s1_len;
                    layout.add(
                        &mut w,
                        hint,
                        (bracket.len() - high.abs_diff(natural).min(bracket.len())) as u64,
                    );
                }
                layout.add(&mut w, tiers.c6, 1);
                // Penalty tiers: a pair of the bracket starts from 2 and loses one per violation
                // (C6 above fixes how many such pairs there are).
                for t in [
                    tiers.c10, tiers.c11, tiers.c12, tiers.c13, tiers.c15, tiers.c17,
                ] {
                    layout.add(&mut w, t, 2);
                }
                for k in 0..(4 * (tiers.diff_levels + 1)) {
                    if k % (tiers.diff_levels + 1) != 0 {
                        layout.add(&mut w, tiers.c18 + k, 2);
                    }
                }
                for p in [pa, pb] {
                    let l = b_levels.iter().position(|&s| s == p.score).unwrap_or(0);
                    layout.add(&mut w, tiers.c7 + l, 1);
                }
                let v = self.colour_violations(a, b);
                let mut sub = Wide::<L>::ZERO;
                layout.add(&mut sub, tiers.c10, v[0]);
                layout.add(&mut sub, tiers.c11, v[1]);
                layout.add(&mut sub, tiers.c12, v[2]);
                layout.add(&mut sub, tiers.c13, v[3]);
                w -= sub;
                // C14/C16: resident downfloaters with a downfloat 1 or 2 rounds ago (reward
                // pairing them here).
                for (xp, p) in [(xa, pa), (xb, pb)] {
                    if !is_mdp[xp] {
                        if p.float_1 == Float::Down {
                            layout.add(&mut w, tiers.c14, 1);
                        }
                        if p.float_2 == Float::Down {
                            layout.add(&mut w, tiers.c16, 1);
                        }
                    }
                }
                if pa.score > pb.score {
                    let mut sub = Wide::<L>::ZERO;
                    // C15/C17: the MDP's opponent with an upfloat 1 or 2 rounds ago.
                    if pb.float_1 == Float::Up {
                        layout.add(&mut sub, tiers.c15, 1);
                    }
                    if pb.float_2 == Float::Up {
                        layout.add(&mut sub, tiers.c17, 1);
                    }
                    // C18-C21 by score difference, largest first.
                    let d = pa.score.0 - pb.score.0;
                    let dl = diffs.iter().position(|&x| x == d).unwrap_or(0);
                    let bs = tiers.diff_levels + 1;
                    if pa.float_1 == Float::Down {
                        layout.add(&mut sub, tiers.c18 + 1 + dl, 1);
                    }
                    if pb.float_1 == Float::Up {
                        layout.add(&mut sub, tiers.c18 + bs + 1 + dl, 1);
                    }
                    if pa.float_2 == Float::Down {
                        layout.add(&mut sub, tiers.c18 + 2 * bs + 1 + dl, 1);
                    }
                    if pb.float_2 == Float::Up {
                        layout.add(&mut sub, tiers.c18 + 3 * bs + 1 + dl, 1);
                    }
                    w -= sub;
                }
                for (xp, p) in [(xa, a), (xb, b)] {
                    if is_mdp[xp] {
                        let k = mdps.iter().position(|&m| m == p).unwrap_or(0);
                        layout.add_pow(&mut w, mdp_s1, (mdps.len() - k) as u32);
                    }
                }
                // C18/C20: MDPs with a downfloat 1 or 2 rounds ago, paired here.
                let bs = tiers.diff_levels + 1;
                for (xp, p) in [(xa, pa), (xb, pb)] {
                    if is_mdp[xp] {
                        if p.float_1 == Float::Down {
                            layout.add(&mut w, tiers.c18, 1);
                        }
                        if p.float_2 == Float::Down {
                            layout.add(&mut w, tiers.c18 + 2 * bs, 1);
                        }
                    }
                }
            } else {
                // C8: pairs of the next bracket (downfloaters of this one with its residents,
                // or its residents among themselves).
                let next_pair = (in_bracket[xa] || in_next[xa]) && (in_bracket[xb] || in_next[xb]);
                if next_pair {
                    layout.add(&mut w, tiers.c8_pairs, 1);
                    for p in [pa, pb] {
                        let l = n_levels.iter().position(|&s| s == p.score).unwrap_or(0);
                        layout.add(&mut w, tiers.c8 + l, 1);
                    }
                }
            }
            Some(w)
        };
        let _ = s0;

        // The graph over all remaining players, for a given remainder numbering.
        let build = |rem: &[Option<usize>], s1_len: usize, c9_on: bool| -> Vec<Edge<L>> {
            let mut edges: Vec<Edge<L>> = Vec::new();
            for x in 0..nrem {
                for y in x + 1..nrem {
                    if let Some(w) = weight(x, y, rem, s1_len, c9_on) {
                        edges.push((x, y, w));
                    }
                }
                if odd && let Some(w) = weight(x, BYE_SENTINEL, rem, s1_len, c9_on) {
                    edges.push((x, bye_v, w));
                }
            }
            edges
        };
        let no_rem = vec![None; nrem];
        // A homogeneous bracket is its own remainder: guess that it pairs all but at most one
        // player (S1 = its first half) and solve once; solve again only when the guess is wrong.
        let bracket_rem: Vec<Option<usize>> = (0..nrem)
            .map(|x| bracket.iter().position(|&b| b == remaining[x]))
            .collect();
        let guess = mdps.is_empty().then_some(bracket.len() / 2);
        let guess_c9 = odd && bracket.len() % 2 == 1;
        let mut search = Search {
            edges: match guess {
                Some(p) => build(&bracket_rem, p, guess_c9),
                None => build(&no_rem, 0, false),
            },
            index: HashMap::new(),
            nv,
            removed: vec![false; nv],
            mate: Vec::new(),
            best: Wide::<L>::ZERO,
            solved: None,
            hint_bits: layout.hint_bits,
        };
        search.resolve();
        // C6 fixes how many players float down; when exactly one does and the round has a bye,
        // C9 applies to this bracket.
        let paired_here = (0..nrem)
            .filter(|&x| in_bracket[x] && search.mate[x].is_some_and(|y| y < nrem && in_bracket[y]))
            .count();
        let c9_on = odd && bracket.len() - paired_here == 1;
        let guessed_right = guess == Some(paired_here / 2) && c9_on == guess_c9;
        if !guessed_right && (c9_on || guess.is_some()) {
            search.edges = build(&no_rem, 0, c9_on);
            search.resolve();
        }

        let pos = |p: usize| remaining.iter().position(|&r| r == p).unwrap_or(0);
        let mut fixed: Vec<(usize, usize)> = Vec::new();
        let mut done: Vec<bool> = vec![false; nrem];

        // Heterogeneous bracket: S1 = the MDPs, S2 = the residents, in transposition order
        // (each MDP from the top takes the first resident that keeps the optimum).
        let order: Vec<usize> = bracket.to_vec();
        let resident_list: Vec<usize> = order
            .iter()
            .copied()
            .filter(|i| !mdps.contains(i))
            .collect();
        for &p in order.iter().filter(|i| mdps.contains(i)) {
            let xp = pos(p);
            let mut cands: Vec<usize> = resident_list.clone();
            cands.extend(
                order
                    .iter()
                    .copied()
                    .filter(|&q| mdps.contains(&q) && q > p),
            );
            for q in cands {
                let xq = pos(q);
                if done[xq] || done[xp] {
                    continue;
                }
                if search.try_fix(xp, xq) {
                    done[xp] = true;
                    done[xq] = true;
                    fixed.push((p, q));
                }
            }
        }
        // The remainder (Art. 3.3), paired as a homogeneous bracket: S1 its first P players.
        let rem_players: Vec<usize> = resident_list
            .iter()
            .copied()
            .filter(|&i| !done[pos(i)])
            .collect();
        let pairs_in_rem = rem_players
            .iter()
            .filter(|&&i| {
                let xi = pos(i);
                search.mate[xi].is_some_and(|xj| xj < nrem && in_bracket[xj] && !done[xj])
            })
            .count()
            / 2;
        if !rem_players.is_empty() {
            if !guessed_right {
                let mut rem = vec![None; nrem];
                for (k, &i) in rem_players.iter().enumerate() {
                    rem[pos(i)] = Some(k);
                }
                search.edges = build(&rem, pairs_in_rem, c9_on);
                search.resolve();
            }
            for (k, &p) in rem_players.iter().enumerate() {
                let xp = pos(p);
                if done[xp] {
                    continue;
                }
                for &q in &rem_players[k + 1..] {
                    let xq = pos(q);
                    if done[xq] {
                        continue;
                    }
                    if search.try_fix(xp, xq) {
                        done[xp] = true;
                        done[xq] = true;
                        fixed.push((p, q));
                        break;
                    }
                }
            }
        }
        let unpaired: Vec<usize> = bracket.iter().copied().filter(|&i| !done[pos(i)]).collect();
        Ok((fixed, unpaired))
    }
}

/// The optimum of the current bracket's graph with some players already fixed, and the checks
/// of Art. 4's order against it.
struct Search<const L: usize> {
    edges: Vec<Edge<L>>,
    index: HashMap<(usize, usize), Wide<L>>,
    nv: usize,
    removed: Vec<bool>,
    mate: Vec<Option<usize>>,
    best: Wide<L>,
    solved: Option<Solved<L>>,
    /// The lowest bits of a weight that are a hint, not a criterion.
    hint_bits: u32,
}

impl<const L: usize> Search<L> {
    fn solve(&self) -> (Solved<L>, Wide<L>) {
        let sub: Vec<Edge<L>> = self
            .edges
            .iter()
            .copied()
            .filter(|&(i, j, _)| !self.removed[i] && !self.removed[j])
            .collect();
        let solved = solve(self.nv, &sub);
        let mut sum = Wide::<L>::ZERO;
        for &(i, j, w) in &sub {
            if solved.mate[i] == Some(j) {
                sum += w;
            }
        }
        (solved, sum)
    }

    fn resolve(&mut self) {
        self.index = self
            .edges
            .iter()
            .map(|&(i, j, w)| ((i.min(j), i.max(j)), w))
            .collect();
        let (solved, best) = self.solve();
        self.mate = solved.mate.clone();
        self.best = best;
        self.solved = Some(solved);
    }

    fn weight(&self, x: usize, y: usize) -> Option<Wide<L>> {
        self.index.get(&(x.min(y), x.max(y))).copied()
    }

    /// Fixes the pair (x, y) if an optimal matching contains it.
    fn try_fix(&mut self, x: usize, y: usize) -> bool {
        let Some(w) = self.weight(x, y) else {
            return false;
        };
        if self.mate[x] == Some(y) {
            self.removed[x] = true;
            self.removed[y] = true;
            self.best -= w;
            return true;
        }
        // A positive reduced cost under the last optimal duals proves the pair is in no
        // optimal matching (the duals stay feasible when fixed pairs are removed).
        let slack = self.best - self.best.shr(self.hint_bits).shl(self.hint_bits);
        if let Some(s) = &self.solved
            && s.reduced_cost(x, y, w) > slack.shl(2)
        {
            return false;
        }
        self.removed[x] = true;
        self.removed[y] = true;
        let (solved, rest) = self.solve();
        if (rest + w).shr(self.hint_bits) == self.best.shr(self.hint_bits) {
            self.mate = solved.mate.clone();
            self.mate[x] = Some(y);
            self.mate[y] = Some(x);
            self.best = rest;
            self.solved = Some(solved);
            true
        } else {
            self.removed[x] = false;
            self.removed[y] = false;
            false
        }
    }
}
