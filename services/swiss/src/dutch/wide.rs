//! A fixed-width signed integer (512 bits, two's complement) for matching weights: the Dutch
//! criteria are encoded lexicographically into one edge weight, one "digit" per criterion, which
//! needs far more than 128 bits on large brackets.

use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// A two's-complement integer of `L` 64-bit limbs (512 bits by default). Arithmetic wraps; callers keep values far from the limits
/// (the weight builder checks its total width before use).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wide<const L: usize = 8>([u64; L]);

impl<const L: usize> std::fmt::Debug for Wide<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Wide(")?;
        for limb in self.0.iter().rev() {
            write!(f, "{limb:016x}")?;
        }
        write!(f, ")")
    }
}

impl<const L: usize> Wide<L> {
    /// Usable magnitude in bits (keeps sums of many weights and doubled duals in range).
    pub const BITS: u32 = 64 * L as u32 - 24;
    pub const ZERO: Wide<L> = Wide([0; L]);

    pub fn from_u64(v: u64) -> Wide<L> {
        let mut w = [0; L];
        w[0] = v;
        Wide(w)
    }

    /// The limbs, least significant first.
    pub fn limbs(&self) -> &[u64] {
        &self.0
    }

    /// From limbs, least significant first: sign-extended when fewer than `L`, truncated when
    /// more (the value must fit).
    pub fn from_limbs(limbs: &[u64]) -> Wide<L> {
        let negative = limbs.last().is_some_and(|&l| l >> 63 == 1);
        let mut w = [if negative { u64::MAX } else { 0 }; L];
        for (o, &l) in w.iter_mut().zip(limbs) {
            *o = l;
        }
        Wide(w)
    }

    /// Whether the value is odd.
    pub fn is_odd(&self) -> bool {
        self.0[0] & 1 == 1
    }

    fn is_negative(&self) -> bool {
        self.0[L - 1] >> 63 == 1
    }

    /// `self << bits` (bits < 64 * L).
    pub fn shl(self, bits: u32) -> Wide<L> {
        let limbs = (bits / 64) as usize;
        let rest = bits % 64;
        let mut out = [0u64; L];
        for i in (0..L).rev() {
            if i < limbs {
                continue;
            }
            let src = i - limbs;
            let mut v = self.0[src] << rest;
            if rest > 0 && src > 0 {
                v |= self.0[src - 1] >> (64 - rest);
            }
            out[i] = v;
        }
        Wide(out)
    }

    /// Logical `self >> bits` (for non-negative values).
    pub fn shr(self, bits: u32) -> Wide<L> {
        let limbs = (bits / 64) as usize;
        let rest = bits % 64;
        let mut out = [0u64; L];
        for (i, o) in out.iter_mut().enumerate() {
            let src = i + limbs;
            if src >= L {
                break;
            }
            let mut v = self.0[src] >> rest;
            if rest > 0 && src + 1 < L {
                v |= self.0[src + 1] << (64 - rest);
            }
            *o = v;
        }
        Wide(out)
    }

    /// Arithmetic shift right by one (halving, rounding toward minus infinity).
    pub fn half(self) -> Wide<L> {
        let mut out = [0u64; L];
        let sign = if self.is_negative() { 1u64 << 63 } else { 0 };
        for (i, o) in out.iter_mut().enumerate() {
            let high = if i + 1 < L { self.0[i + 1] << 63 } else { sign };
            *o = (self.0[i] >> 1) | high;
        }
        Wide(out)
    }
}

impl<const L: usize> Add for Wide<L> {
    type Output = Wide<L>;
    fn add(self, rhs: Wide<L>) -> Wide<L> {
        let mut out = [0u64; L];
        let mut carry = false;
        for (i, o) in out.iter_mut().enumerate() {
            let (s1, c1) = self.0[i].overflowing_add(rhs.0[i]);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            *o = s2;
            carry = c1 || c2;
        }
        Wide(out)
    }
}

impl<const L: usize> Sub for Wide<L> {
    type Output = Wide<L>;
    fn sub(self, rhs: Wide<L>) -> Wide<L> {
        let mut out = [0u64; L];
        let mut borrow = false;
        for (i, o) in out.iter_mut().enumerate() {
            let (s1, b1) = self.0[i].overflowing_sub(rhs.0[i]);
            let (s2, b2) = s1.overflowing_sub(u64::from(borrow));
            *o = s2;
            borrow = b1 || b2;
        }
        Wide(out)
    }
}

impl<const L: usize> AddAssign for Wide<L> {
    fn add_assign(&mut self, rhs: Wide<L>) {
        *self = *self + rhs;
    }
}

impl<const L: usize> SubAssign for Wide<L> {
    fn sub_assign(&mut self, rhs: Wide<L>) {
        *self = *self - rhs;
    }
}

impl<const L: usize> PartialOrd for Wide<L> {
    fn partial_cmp(&self, other: &Wide<L>) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const L: usize> Ord for Wide<L> {
    fn cmp(&self, other: &Wide<L>) -> Ordering {
        match (self.is_negative(), other.is_negative()) {
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        for i in (0..L).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_arithmetic() {
        let a: Wide = Wide::<8>::from_u64(5).shl(200);
        let b = Wide::<8>::from_u64(3).shl(200);
        assert!(a > b);
        assert_eq!(a - b, Wide::<8>::from_u64(2).shl(200));
        assert!(b - a < Wide::<8>::ZERO);
        assert_eq!((b - a) + a, b);
        assert_eq!(
            Wide::<8>::from_u64(7).shl(70).half(),
            Wide::<8>::from_u64(7).shl(69)
        );
        assert_eq!(a.shr(199), Wide::<8>::from_u64(10));
        assert_eq!(
            Wide::<8>::from_u64(5).shl(130).shr(129),
            Wide::<8>::from_u64(10)
        );
        assert_eq!(
            (Wide::<8>::ZERO - Wide::<8>::from_u64(4)).half(),
            Wide::<8>::ZERO - Wide::<8>::from_u64(2)
        );
        assert_eq!(
            Wide::<8>::from_u64(u64::MAX) + Wide::<8>::from_u64(1),
            Wide::<8>::from_u64(1).shl(64)
        );
    }
}
