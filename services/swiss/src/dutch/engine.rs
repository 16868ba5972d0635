//! The bracket-by-bracket pairing procedure of C.04.3 Art. 3, with every criterion of Art. 2
//! encoded as one "digit" of a matching weight (highest criterion in the highest digit), so a
//! maximum-weight matching over the players still to pair is the best pairing of the current
//! bracket that still lets every lower player be paired (C4).

use std::any::Any;
use std::collections::HashSet;

use super::dynamic::Dynamic;
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
    /// Art. 4: the MDPs in S1, then exchanges in the remainder.
    mdp_s1: usize,
    ex_keep: usize,
    ex_sum: usize,
    ex_out: usize,
    ex_in: usize,
    /// Not a criterion: a hint towards the natural pairing.
    hint: usize,
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
        // One matcher for the whole round: its graph is fixed (C1, C3, C2), its weights change
        // per bracket. C4 for the round as a whole: some complete pairing must exist.
        let mut dm = Dynamic::<2>::new(n, n % 2 == 1, &|a, b| self.compatible(a, b), &bye_eligible);
        if !dm.solve() {
            return Err(EngineError::NoValidPairing);
        }
        let mut store = Store::new(dm);
        let mut remaining: Vec<usize> = (0..n).collect();
        let mut is_mdp = vec![false; n];
        let mut mdps: Vec<usize> = Vec::new();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut bye = None;
        while !remaining.is_empty() {
            // The bracket: MDPs and the highest remaining scoregroup.
            let resident_score = remaining
                .iter()
                .filter(|&&i| !is_mdp[i])
                .map(|&i| self.players[i].score)
                .max();
            let Some(s0) = resident_score else {
                // Only MDPs are left (cannot happen with a complete pairing).
                break;
            };
            let mut in_bracket = vec![false; n];
            let bracket: Vec<usize> = remaining
                .iter()
                .copied()
                .filter(|&i| is_mdp[i] || self.players[i].score == s0)
                .collect();
            for &i in &bracket {
                in_bracket[i] = true;
            }
            let next: Vec<usize> = {
                let s1 = remaining
                    .iter()
                    .filter(|&&i| !in_bracket[i])
                    .map(|&i| self.players[i].score)
                    .max();
                remaining
                    .iter()
                    .copied()
                    .filter(|&i| Some(self.players[i].score) == s1 && !in_bracket[i])
                    .collect()
            };
            let rest_empty = remaining.len() == bracket.len();
            let ctx = Bracket {
                remaining: &remaining,
                bracket: &bracket,
                mdps: &mdps,
                next: &next,
                in_bracket: &in_bracket,
                is_mdp: &is_mdp,
                bye_eligible: &bye_eligible,
            };
            let (fixed, unpaired) = self.pair_bracket(&ctx, &mut store)?;
            let mut paired = vec![false; n];
            for &(a, b) in &fixed {
                pairs.push((a.min(b), a.max(b)));
                paired[a] = true;
                paired[b] = true;
            }
            remaining.retain(|&i| !paired[i]);
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
            for &m in &mdps {
                is_mdp[m] = false;
            }
            for &m in &unpaired {
                is_mdp[m] = true;
            }
            mdps = unpaired;
        }
        if !remaining.is_empty() {
            return Err(EngineError::NoValidPairing);
        }
        Ok(RawPairing { pairs, bye })
    }

    /// Pairs one bracket: returns its pairs and its unpaired players (downfloaters, or the
    /// bye when it is the last bracket). Works in the narrowest width that holds the bracket's
    /// weights (and the matcher's state).
    fn pair_bracket(&self, ctx: &Bracket, store: &mut Store) -> Result<BracketResult, EngineError> {
        let plan = self.plan(ctx);
        let needed = plan.layout.bits;
        let limbs = if needed <= Wide::<2>::BITS {
            2
        } else if needed <= Wide::<4>::BITS {
            4
        } else if needed <= Wide::<6>::BITS {
            6
        } else {
            8
        };
        match limbs.max(store.width) {
            2 => self.pair_bracket_in::<2>(ctx, &plan, store),
            4 => self.pair_bracket_in::<4>(ctx, &plan, store),
            6 => self.pair_bracket_in::<6>(ctx, &plan, store),
            _ => self.pair_bracket_in::<8>(ctx, &plan, store),
        }
    }

    /// The weight layout of a bracket: C.04.3 Art. 2's criteria and Art. 4's order as tiers.
    fn plan(&self, ctx: &Bracket) -> Plan {
        let Bracket {
            remaining,
            bracket,
            mdps,
            next,
            ..
        } = *ctx;
        let nrem = remaining.len();
        let odd = nrem % 2 == 1;
        let nv = nrem + usize::from(odd);
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
        // The cardinality tier (C4) keeps its place in the layout, but every matching the
        // matcher considers is complete, so it adds the same to all of them and is left out.
        push(1, all_e);
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
            mdp_s1,
            ex_keep,
            ex_sum,
            ex_out,
            ex_in,
            hint,
        };
        // The widest layout: tiers that do not fit into 512 bits are dropped, lowest first (a
        // narrower width is used only when nothing is dropped).
        let layout = Layout::new(&bounds, Wide::<8>::BITS);
        let mut mdp_rank = vec![0usize; self.players.len()];
        for (k, &m) in mdps.iter().enumerate() {
            mdp_rank[m] = k;
        }
        let mut in_next = vec![false; self.players.len()];
        for &i in next {
            in_next[i] = true;
        }
        let level_of: Vec<u64> = self
            .players
            .iter()
            .map(|p| self.level(p.score) as u64)
            .collect();
        Plan {
            layout,
            tiers,
            b_levels,
            n_levels,
            diffs,
            max_unplayed,
            mdp_rank,
            in_next,
            level_of,
        }
    }

    /// The weight of the pair (a, b) of players (b may be [`BYE_SENTINEL`]) in the bracket's
    /// layout, for a given remainder numbering (`rem[i]`: the BSN, 0-based, of player i in the
    /// remainder once the MDPs are paired; `s1_len`: the size of the remainder's S1); `None`
    /// when they may not meet. The cardinality tier is left out (see [`Engine::plan`]).
    #[allow(clippy::too_many_arguments)]
    fn weight<const L: usize>(
        &self,
        ctx: &Bracket,
        plan: &Plan,
        a: usize,
        b: usize,
        rem: &[Option<usize>],
        s1_len: usize,
        c9_on: bool,
    ) -> Option<Wide<L>> {
        let (layout, tiers) = (&plan.layout, &plan.tiers);
        let (in_bracket, is_mdp, in_next) = (ctx.in_bracket, ctx.is_mdp, &plan.in_next);
        let bracket_len = ctx.bracket.len();
        let mut w = Wide::<L>::ZERO;
        if b == BYE_SENTINEL {
            if !(ctx.bye_eligible)(a) {
                return None;
            }
            layout.add(&mut w, tiers.c5, plan.level_of[a] + 1);
            // C9 only for a bracket downfloating exactly one player, who gets the bye.
            if c9_on && in_bracket[a] {
                layout.add(
                    &mut w,
                    tiers.c9,
                    plan.max_unplayed - u64::from(self.players[a].unplayed),
                );
            }
            return Some(w);
        }
        let (a, b) = (a.min(b), a.max(b));
        if !self.compatible(a, b) {
            return None;
        }
        let (pa, pb) = (&self.players[a], &self.players[b]);
        if in_bracket[a] && in_bracket[b] {
            if let (Some(ra), Some(rb)) = (rem[a], rem[b]) {
                let low = ra.min(rb);
                if low < s1_len {
                    layout.add(&mut w, tiers.ex_keep, 1);
                    // Kept in S1: 2^s1_len - 2^low (fewer high BSNs kept is better).
                    layout.add_pow(&mut w, tiers.ex_out, s1_len as u32);
                    let mut sub = Wide::<L>::ZERO;
                    layout.add_pow(&mut sub, tiers.ex_out, low as u32);
                    w -= sub;
                } else {
                    layout.add_pow(&mut w, tiers.ex_in, (bracket_len - low) as u32);
                }
                layout.add(&mut w, tiers.ex_sum, (bracket_len - low) as u64);
                let high = ra.max(rb);
                let natural = low + s1_len;
                layout.add(
                    &mut w,
                    tiers.hint,
                    (bracket_len - high.abs_diff(natural).min(bracket_len)) as u64,
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
                let l = plan
                    .b_levels
                    .iter()
                    .position(|&s| s == p.score)
                    .unwrap_or(0);
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
            for (i, p) in [(a, pa), (b, pb)] {
                if !is_mdp[i] {
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
                let dl = plan.diffs.iter().position(|&x| x == d).unwrap_or(0);
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
            for i in [a, b] {
                if is_mdp[i] {
                    let k = plan.mdp_rank[i];
                    layout.add_pow(&mut w, tiers.mdp_s1, (ctx.mdps.len() - k) as u32);
                }
            }
            // C18/C20: MDPs with a downfloat 1 or 2 rounds ago, paired here.
            let bs = tiers.diff_levels + 1;
            for (i, p) in [(a, pa), (b, pb)] {
                if is_mdp[i] {
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
            let next_pair = (in_bracket[a] || in_next[a]) && (in_bracket[b] || in_next[b]);
            if next_pair {
                layout.add(&mut w, tiers.c8_pairs, 1);
                for p in [pa, pb] {
                    let l = plan
                        .n_levels
                        .iter()
                        .position(|&s| s == p.score)
                        .unwrap_or(0);
                    layout.add(&mut w, tiers.c8 + l, 1);
                }
            }
        }
        Some(w)
    }

    fn pair_bracket_in<const L: usize>(
        &self,
        ctx: &Bracket,
        plan: &Plan,
        store: &mut Store,
    ) -> Result<BracketResult, EngineError> {
        let dm = store.take::<L>().ok_or(EngineError::NoValidPairing)?;
        let mut search = Search {
            dm,
            best4: Wide::<L>::ZERO,
            hint_bits: plan.layout.hint_bits,
        };
        let result = self.pair_bracket_with(ctx, plan, &mut search);
        store.put(search.dm);
        result
    }

    fn pair_bracket_with<const L: usize>(
        &self,
        ctx: &Bracket,
        plan: &Plan,
        search: &mut Search<L>,
    ) -> Result<BracketResult, EngineError> {
        let n = self.players.len();
        let (remaining, bracket, mdps) = (ctx.remaining, ctx.bracket, ctx.mdps);
        let in_bracket = ctx.in_bracket;
        let odd = remaining.len() % 2 == 1;
        // The players whose edges weigh something: the bracket and the next one.
        let weighted: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|&i| in_bracket[i] || plan.in_next[i])
            .collect();
        let install = |search: &mut Search<L>,
                       rem: &[Option<usize>],
                       s1_len: usize,
                       c9_on: bool|
         -> Result<(), EngineError> {
            search.dm.set_weights(
                &weighted,
                &|x, y| {
                    self.weight::<L>(ctx, plan, weighted[x], weighted[y], rem, s1_len, c9_on)
                        .unwrap_or(Wide::<L>::ZERO)
                },
                &|v| {
                    self.weight::<L>(ctx, plan, v, BYE_SENTINEL, rem, s1_len, c9_on)
                        .unwrap_or(Wide::<L>::ZERO)
                },
            );
            if search.resolve() {
                Ok(())
            } else {
                Err(EngineError::NoValidPairing)
            }
        };
        let no_rem = vec![None; n];
        // A homogeneous bracket is its own remainder: guess that it pairs all but at most one
        // player (S1 = its first half) and solve once; solve again only when the guess is wrong.
        let mut bracket_rem: Vec<Option<usize>> = vec![None; n];
        for (k, &i) in bracket.iter().enumerate() {
            bracket_rem[i] = Some(k);
        }
        let guess = mdps.is_empty().then_some(bracket.len() / 2);
        let guess_c9 = odd && bracket.len() % 2 == 1;
        match guess {
            Some(p) => install(search, &bracket_rem, p, guess_c9)?,
            None => install(search, &no_rem, 0, false)?,
        }
        // C6 fixes how many players float down; when exactly one does and the round has a bye,
        // C9 applies to this bracket.
        let paired_here = bracket
            .iter()
            .filter(|&&i| search.dm.mate(i).is_some_and(|j| j < n && in_bracket[j]))
            .count();
        let c9_on = odd && bracket.len() - paired_here == 1;
        let guessed_right = guess == Some(paired_here / 2) && c9_on == guess_c9;
        if !guessed_right && (c9_on || guess.is_some()) {
            install(search, &no_rem, 0, c9_on)?;
        }

        let mut fixed: Vec<(usize, usize)> = Vec::new();
        let mut done: Vec<bool> = vec![false; n];

        // Heterogeneous bracket: S1 = the MDPs, S2 = the residents, in transposition order
        // (each MDP from the top takes the first resident that keeps the optimum).
        let resident_list: Vec<usize> = bracket
            .iter()
            .copied()
            .filter(|&i| !ctx.is_mdp[i])
            .collect();
        for &p in mdps {
            let cands = resident_list
                .iter()
                .copied()
                .chain(mdps.iter().copied().filter(|&q| q > p));
            for q in cands {
                if done[q] || done[p] {
                    continue;
                }
                if search.try_fix(p, q, self.compatible(p, q)) {
                    done[p] = true;
                    done[q] = true;
                    fixed.push((p, q));
                }
            }
        }
        // The remainder (Art. 3.3), paired as a homogeneous bracket: S1 its first P players.
        let rem_players: Vec<usize> = resident_list
            .iter()
            .copied()
            .filter(|&i| !done[i])
            .collect();
        let pairs_in_rem = rem_players
            .iter()
            .filter(|&&i| {
                search
                    .dm
                    .mate(i)
                    .is_some_and(|j| j < n && in_bracket[j] && !done[j])
            })
            .count()
            / 2;
        if !rem_players.is_empty() {
            if !guessed_right {
                let mut rem = vec![None; n];
                for (k, &i) in rem_players.iter().enumerate() {
                    rem[i] = Some(k);
                }
                install(search, &rem, pairs_in_rem, c9_on)?;
            }
            for (k, &p) in rem_players.iter().enumerate() {
                if done[p] {
                    continue;
                }
                for &q in &rem_players[k + 1..] {
                    if done[q] {
                        continue;
                    }
                    if search.try_fix(p, q, self.compatible(p, q)) {
                        done[p] = true;
                        done[q] = true;
                        fixed.push((p, q));
                        break;
                    }
                }
            }
        }
        let unpaired: Vec<usize> = bracket.iter().copied().filter(|&i| !done[i]).collect();
        Ok((fixed, unpaired))
    }
}

/// What one bracket is paired from.
struct Bracket<'a> {
    remaining: &'a [usize],
    bracket: &'a [usize],
    mdps: &'a [usize],
    next: &'a [usize],
    in_bracket: &'a [bool],
    is_mdp: &'a [bool],
    bye_eligible: &'a dyn Fn(usize) -> bool,
}

/// A bracket's weight layout and the lookups its weights need.
struct Plan {
    layout: Layout,
    tiers: Tiers,
    b_levels: Vec<HalfPoints>,
    n_levels: Vec<HalfPoints>,
    diffs: Vec<u32>,
    max_unplayed: u64,
    /// The position of each MDP among the MDPs.
    mdp_rank: Vec<usize>,
    in_next: Vec<bool>,
    /// Each player's score level (0 = highest).
    level_of: Vec<u64>,
}

/// The round's matcher between brackets, in the width the brackets so far needed (a bracket
/// that needs more widens it; it never narrows).
struct Store {
    width: usize,
    inner: Option<Box<dyn Any>>,
}

impl Store {
    fn new(dm: Dynamic<2>) -> Store {
        Store {
            width: 2,
            inner: Some(Box::new(dm)),
        }
    }

    fn take<const L: usize>(&mut self) -> Option<Dynamic<L>> {
        let b = self.inner.take()?;
        match self.width {
            2 => b.downcast::<Dynamic<2>>().ok().map(|d| d.convert::<L>()),
            4 => b.downcast::<Dynamic<4>>().ok().map(|d| d.convert::<L>()),
            6 => b.downcast::<Dynamic<6>>().ok().map(|d| d.convert::<L>()),
            _ => b.downcast::<Dynamic<8>>().ok().map(|d| d.convert::<L>()),
        }
    }

    fn put<const L: usize>(&mut self, dm: Dynamic<L>) {
        self.width = L;
        self.inner = Some(Box::new(dm));
    }
}

/// The optimum of the current bracket's weights with some pairs already fixed, and the checks
/// of Art. 4's order against it.
struct Search<const L: usize> {
    dm: Dynamic<L>,
    /// Four times the optimum's weight.
    best4: Wide<L>,
    /// The lowest bits of a weight that are a hint, not a criterion.
    hint_bits: u32,
}

impl<const L: usize> Search<L> {
    /// Re-solves after a change; false when no complete pairing is left.
    fn resolve(&mut self) -> bool {
        if !self.dm.solve() {
            return false;
        }
        // Keep the duals far from the width's limits: start again from scratch if they grew.
        if self.dm.max_dual().shr(Wide::<L>::BITS + 12) != Wide::<L>::ZERO {
            self.dm.restart();
            if !self.dm.solve() {
                return false;
            }
        }
        self.best4 = self.dm.total4();
        true
    }

    /// Fixes the pair (x, y) if an optimal matching contains it.
    fn try_fix(&mut self, x: usize, y: usize, compatible: bool) -> bool {
        if !compatible {
            return false;
        }
        let w4 = self.dm.pair_w4(x, y);
        let h = self.hint_bits + 2;
        if self.dm.mate(x) == Some(y) {
            self.dm.remove_pair(x, y);
            let before = self.best4;
            if self.resolve() {
                self.best4 = before - w4;
                return true;
            }
            return false;
        }
        // A positive reduced cost under the optimal duals proves the pair is in no optimal
        // matching (the duals stay feasible when fixed pairs are removed).
        let slack4 = self.best4 - self.best4.shr(h).shl(h);
        if self.dm.reduced_cost4(x, y) > slack4 {
            return false;
        }
        let saved = self.dm.save();
        let before = self.best4;
        self.dm.remove_pair(x, y);
        if self.resolve() && (self.best4 + w4).shr(h) == before.shr(h) {
            return true;
        }
        self.dm.restore(saved);
        self.best4 = before;
        false
    }
}
