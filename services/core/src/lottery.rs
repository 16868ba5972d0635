//! Reproducible, verifiable lotteries (摇号 / 抽签): R-PAIR-3, and the random pairing of a knockout
//! round (R-ADV-3, R-ADV-6, "Reading for every knockout").
//!
//! R-PAIR-3 Reading: the seed is published before the draw and anyone can re-run the draw from the
//! seed and the ordered list of candidates. So the algorithm below is fixed for ever (a change would
//! make published draws unverifiable) and specified completely, byte for byte, so that anyone can
//! re-implement it in any language with a SHA-256 library. It uses no `rand` crate, no floating
//! point and no platform-dependent integer widths; SHA-256 itself is implemented here (FIPS 180-4) so
//! the result cannot change with a dependency.
//!
//! # The algorithm (version 1)
//!
//! * **Seed bytes.** `S` = the seed string's UTF-8 bytes, exactly as published (no trimming, no
//!   Unicode normalisation, no terminator).
//! * **Word stream.** For `k = 0, 1, 2, …`: `word(k)` = the first 8 bytes, read as a big-endian
//!   unsigned 64-bit integer, of `SHA-256(S ‖ BE64(k))`, where `BE64(k)` is `k` as 8 big-endian bytes.
//!   A draw reads words in order starting at `k = 0`; every word read (accepted or rejected) uses up
//!   its `k`.
//! * **Unbiased index** `uniform(n)` for `n ≥ 2`: let `r = 2^64 mod n`. Read the next word `w`; if
//!   `w ≥ 2^64 − r` (only possible when `r > 0`), reject it and read the next word; otherwise return
//!   `w mod n`. (Rejection sampling: every result in `0..n` is exactly equally likely.)
//! * **Shuffle** (Fisher–Yates, Durstenfeld's form): `a` = a copy of the ordered items; for
//!   `i = len−1` down to `1`: `j = uniform(i+1)`, swap `a[i]` and `a[j]`. The result is `a`.
//!   A list of 0 or 1 item reads no word.
//! * **Draw** of `p` places from an ordered candidate list: the first `min(p, len)` items of
//!   `shuffle(seed, candidates)`, in that order (the order of drawing).
//! * **Knockout pairing** of a round: `s = shuffle(seed, entrants)`; the pairs are `(s[0], s[1])`,
//!   `(s[2], s[3])`, …; if the number of entrants is odd, the last, `s[len−1]`, is the odd player out
//!   and gets the bye. The first-listed player of a pair takes the first move (Red in Xiangqi, Black
//!   in Go, White in Chess). Reading: each round is drawn with its own published seed; a
//!   conventional choice is the stage seed followed by `/round-<n>`.
//!
//! A reference implementation in Python is a dozen lines:
//!
//! ```text
//! import hashlib
//! def words(seed):
//!     k = 0
//!     while True:
//!         d = hashlib.sha256(seed.encode("utf-8") + k.to_bytes(8, "big")).digest()
//!         yield int.from_bytes(d[:8], "big"); k += 1
//! def shuffle(seed, items):
//!     a, w = list(items), words(seed)
//!     for i in range(len(a) - 1, 0, -1):
//!         n = i + 1; r = (1 << 64) % n
//!         while True:
//!             x = next(w)
//!             if x < (1 << 64) - r: break
//!         j = x % n; a[i], a[j] = a[j], a[i]
//!     return a
//! ```

use std::collections::BTreeSet;

/// The version of the algorithm described in the module documentation. Published with every draw.
pub const ALGORITHM_VERSION: u32 = 1;

/// Why a draw could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LotteryError {
    /// A draw whose seed is empty could be re-run by anyone *before* the draw; a published seed must
    /// be non-empty (R-PAIR-3).
    #[error("the seed must not be empty")]
    EmptySeed,
    /// The same candidate twice would double their chance.
    #[error("candidate {0:?} appears more than once")]
    DuplicateCandidate(String),
}

// ---------------------------------------------------------------------------------------------
// SHA-256 (FIPS 180-4)
// ---------------------------------------------------------------------------------------------

/// Round constants: the first 32 bits of the fractional parts of the cube roots of the first 64
/// primes.
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// Initial hash value: the first 32 bits of the fractional parts of the square roots of the first 8
/// primes.
const H0: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

fn compress(h: &mut [u32; 8], block: &[u8]) {
    let mut w = [0u32; 64];
    for (t, chunk) in block.chunks_exact(4).take(16).enumerate() {
        w[t] = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    for t in 16..64 {
        let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
        let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16]
            .wrapping_add(s0)
            .wrapping_add(w[t - 7])
            .wrapping_add(s1);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = *h;
    for t in 0..64 {
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = hh
            .wrapping_add(s1)
            .wrapping_add(ch)
            .wrapping_add(K[t])
            .wrapping_add(w[t]);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = s0.wrapping_add(maj);
        hh = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(t2);
    }
    for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
        *x = x.wrapping_add(y);
    }
}

/// SHA-256 of `data` (FIPS 180-4).
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h = H0;
    let bit_len = (data.len() as u64).wrapping_mul(8);
    let mut message = Vec::with_capacity(data.len() + 72);
    message.extend_from_slice(data);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bit_len.to_be_bytes());
    for block in message.chunks_exact(64) {
        compress(&mut h, block);
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// Lowercase hex of bytes (for publishing digests). Ingest hashes every reported game, so this
/// writes the digits into one string instead of formatting (and allocating) one per byte.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The word stream and the draws
// ---------------------------------------------------------------------------------------------

/// The stream of 64-bit words of a seed (see the module documentation).
#[derive(Debug, Clone)]
pub struct WordStream {
    seed: Vec<u8>,
    next: u64,
}

impl WordStream {
    pub fn new(seed: &str) -> Self {
        WordStream {
            seed: seed.as_bytes().to_vec(),
            next: 0,
        }
    }

    /// `word(k)` for the next `k`.
    pub fn next_word(&mut self) -> u64 {
        let mut input = Vec::with_capacity(self.seed.len() + 8);
        input.extend_from_slice(&self.seed);
        input.extend_from_slice(&self.next.to_be_bytes());
        self.next = self.next.wrapping_add(1);
        let d = sha256(&input);
        u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
    }

    /// An unbiased index in `0..n` by rejection sampling; `0` for `n ≤ 1` without reading a word.
    pub fn uniform(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        // r = 2^64 mod n, computed without 128-bit arithmetic.
        let r = (u64::MAX % n + 1) % n;
        loop {
            let w = self.next_word();
            // Accept w < 2^64 − r, i.e. w ≤ u64::MAX − r (all words when r == 0).
            if w <= u64::MAX - r {
                return w % n;
            }
        }
    }
}

/// The permutation of `0..n` that [`shuffle`] applies: `shuffle(seed, items)[i] == items[p[i]]`.
pub fn shuffle_indices(seed: &str, n: usize) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut words = WordStream::new(seed);
    for i in (1..n).rev() {
        let j = words.uniform(i as u64 + 1);
        // j ≤ i < n, so it fits in usize.
        a.swap(i, j as usize);
    }
    a
}

/// The items in the order drawn from `seed` (Fisher–Yates with unbiased indices; module docs).
pub fn shuffle<T: Clone>(seed: &str, items: &[T]) -> Vec<T> {
    shuffle_indices(seed, items.len())
        .into_iter()
        .filter_map(|i| items.get(i).cloned())
        .collect()
}

fn check_draw_input(seed: &str, candidates: &[String]) -> Result<(), LotteryError> {
    if seed.is_empty() {
        return Err(LotteryError::EmptySeed);
    }
    let mut seen = BTreeSet::new();
    for c in candidates {
        if !seen.insert(c.as_str()) {
            return Err(LotteryError::DuplicateCandidate(c.clone()));
        }
    }
    Ok(())
}

/// Draws `places` of the ordered candidates (R-PAIR-1, R-PAIR-3: the remaining pairs places drawn
/// among 入围 pairs): the selected candidates in the order they were drawn. All candidates are
/// selected, in drawn order, when there are no more than `places`.
pub fn draw(
    seed: &str,
    ordered_candidates: &[String],
    places: usize,
) -> Result<Vec<String>, LotteryError> {
    check_draw_input(seed, ordered_candidates)?;
    let mut drawn = shuffle(seed, ordered_candidates);
    drawn.truncate(places);
    Ok(drawn)
}

/// One drawn pair of a knockout round; `first` takes the first move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnPair {
    pub first: String,
    pub second: String,
}

/// A knockout round drawn by lot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundPairing {
    pub pairs: Vec<DrawnPair>,
    /// The odd player out, who advances without playing ("Reading for every knockout").
    pub bye: Option<String>,
}

/// Pairs a knockout round at random from a published seed (R-ADV-3 "随机匹配"; module docs).
pub fn pair_knockout_round(
    seed: &str,
    ordered_entrants: &[String],
) -> Result<RoundPairing, LotteryError> {
    check_draw_input(seed, ordered_entrants)?;
    let mut s = shuffle(seed, ordered_entrants).into_iter();
    let mut pairs = Vec::new();
    let mut bye = None;
    while let Some(first) = s.next() {
        match s.next() {
            Some(second) => pairs.push(DrawnPair { first, second }),
            None => bye = Some(first),
        }
    }
    Ok(RoundPairing { pairs, bye })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn names(prefix: &str, n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("{prefix}{i}")).collect()
    }

    #[test]
    fn hex_writes_two_lowercase_digits_per_byte_as_formatting_does() {
        let all: Vec<u8> = (0..=255).collect();
        let formatted: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&all), formatted);
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn r_pair_3_sha256_standard_vectors() {
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&sha256(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        let long = vec![b'a'; 1_000_000];
        assert_eq!(
            hex(&sha256(&long)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
        // Lengths around the padding boundary (55, 56, 64 bytes), checked against Python's hashlib and `sha256sum`.
        assert_eq!(
            hex(&sha256(&[b'x'; 55])),
            "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"
        );
        assert_eq!(
            hex(&sha256(&[b'x'; 56])),
            "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"
        );
        assert_eq!(
            hex(&sha256(&[b'x'; 64])),
            "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"
        );
        assert_eq!(
            hex(&sha256("棋王".as_bytes())),
            "44ea99dc937f228eae012b8ec6ed3dfbede0da3e6633547ddc8769775309e43a"
        );
    }

    #[test]
    fn r_pair_3_word_stream_fixed_vectors() {
        let mut w = WordStream::new("qiwang");
        assert_eq!(
            [w.next_word(), w.next_word(), w.next_word()],
            [0x2f6726b45d99cf2d, 0xbb03889f193f1adc, 0x42d27f104bff9083]
        );
    }

    #[test]
    fn r_pair_3_shuffle_fixed_vectors() {
        assert_eq!(
            shuffle_indices("qiwang", 10),
            [2, 0, 7, 9, 4, 8, 5, 3, 6, 1]
        );
        assert_eq!(
            shuffle("2022象棋双人赛摇号", &names("p", 12)),
            [
                "p12", "p6", "p11", "p8", "p4", "p2", "p1", "p9", "p3", "p10", "p5", "p7"
            ]
        );
        assert!(shuffle::<String>("x", &[]).is_empty());
        assert_eq!(shuffle("x", &["only".to_owned()]), ["only"]);
    }

    #[test]
    fn r_pair_3_draw_fixed_vector_and_order_of_drawing() {
        let candidates = names("pair-", 20);
        let drawn = draw("R-PAIR-3 test seed", &candidates, 5).expect("draw");
        assert_eq!(drawn, ["pair-6", "pair-19", "pair-17", "pair-14", "pair-2"]);
        // The draw is the prefix of the shuffle: drawing more places keeps the earlier ones.
        let more = draw("R-PAIR-3 test seed", &candidates, 8).expect("draw");
        assert_eq!(&more[..5], &drawn[..]);
        // More places than candidates: everyone, in drawn order.
        assert_eq!(
            draw("R-PAIR-3 test seed", &candidates, 99).expect("draw"),
            shuffle("R-PAIR-3 test seed", &candidates)
        );
    }

    #[test]
    fn r_pair_3_a_seed_is_required_and_candidates_are_distinct() {
        let c = names("c", 3);
        assert_eq!(draw("", &c, 1), Err(LotteryError::EmptySeed));
        let dup = vec!["a".to_owned(), "b".to_owned(), "a".to_owned()];
        assert_eq!(
            draw("s", &dup, 1),
            Err(LotteryError::DuplicateCandidate("a".into()))
        );
        assert_eq!(pair_knockout_round("", &c), Err(LotteryError::EmptySeed));
    }

    #[test]
    fn r_adv_3_knockout_pairing_fixed_vector_with_bye() {
        let entrants = names("e", 7);
        let p = pair_knockout_round("go-2015/ruwei/round-1", &entrants).expect("pairing");
        let flat: Vec<(String, String)> = p
            .pairs
            .iter()
            .map(|d| (d.first.clone(), d.second.clone()))
            .collect();
        assert_eq!(
            flat,
            [("e6", "e4"), ("e5", "e3"), ("e2", "e7")].map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
        assert_eq!(p.bye.as_deref(), Some("e1"));
        // The pairing is the shuffle read two by two.
        let s = shuffle("go-2015/ruwei/round-1", &entrants);
        assert_eq!(p.pairs[0].first, s[0]);
        assert_eq!(p.bye.as_deref(), s.last().map(String::as_str));
        let even = pair_knockout_round("s", &names("e", 8)).expect("pairing");
        assert_eq!((even.pairs.len(), even.bye), (4, None));
    }

    #[test]
    fn r_pair_3_uniform_rejects_the_biased_tail() {
        // n = 3: 2^64 mod 3 = 1, so exactly u64::MAX is rejected; the stream is otherwise used as is.
        let mut a = WordStream::new("qiwang");
        let mut b = WordStream::new("qiwang");
        for _ in 0..50 {
            let w = b.next_word();
            assert!(w != u64::MAX);
            assert_eq!(a.uniform(3), w % 3);
        }
        // Powers of two never reject.
        let mut a = WordStream::new("z");
        let mut b = WordStream::new("z");
        assert_eq!(a.uniform(1 << 20), b.next_word() % (1 << 20));
    }

    proptest! {
        #[test]
        fn r_pair_3_draw_is_a_reproducible_subset(
            seed in "[a-z0-9]{1,12}",
            n in 0usize..40,
            places in 0usize..50,
        ) {
            let candidates = names("c", n);
            let a = draw(&seed, &candidates, places).expect("draw");
            let b = draw(&seed, &candidates, places).expect("draw");
            prop_assert_eq!(&a, &b);
            prop_assert_eq!(a.len(), places.min(n));
            let distinct: BTreeSet<&String> = a.iter().collect();
            prop_assert_eq!(distinct.len(), a.len());
            prop_assert!(a.iter().all(|x| candidates.contains(x)));
        }

        #[test]
        fn r_pair_3_shuffle_is_a_permutation(seed in ".{0,16}", n in 0usize..60) {
            let items = names("i", n);
            let mut s = shuffle(&seed, &items);
            prop_assert_eq!(&s, &shuffle(&seed, &items));
            s.sort();
            let mut sorted = items.clone();
            sorted.sort();
            prop_assert_eq!(s, sorted);
        }

        #[test]
        fn r_adv_3_knockout_pairing_covers_every_entrant_once(seed in "[a-z]{1,8}", n in 0usize..40) {
            let entrants = names("e", n);
            let p = pair_knockout_round(&seed, &entrants).expect("pairing");
            let mut all: Vec<String> = p.pairs.iter().flat_map(|d| [d.first.clone(), d.second.clone()]).collect();
            all.extend(p.bye.clone());
            all.sort();
            let mut sorted = entrants.clone();
            sorted.sort();
            prop_assert_eq!(all, sorted);
            prop_assert_eq!(p.bye.is_some(), n % 2 == 1);
        }
    }
}
