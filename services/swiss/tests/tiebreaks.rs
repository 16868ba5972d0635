//! Tie-breaks on the sample final (`data/final-2026.trf`), every value computed by hand below.
//!
//! ## The tournament (7 players, 5 rounds; FIDE points, kept as half-points)
//!
//! | # | player | sex | rating | R1 | R2 | R3 | R4 | R5 | pts |
//! |---|---|---|---|---|---|---|---|---|---|
//! | 1 | Wang | m | 2700 | 4w 1 | 3b 1 | 7w = | 2b 1 | 6w 1 | 4.5 (9) |
//! | 2 | Li | w | 2500 | 5b = | 6w + | 4b 0 | 1w 0 | 3w 0 | 1.5 (3) |
//! | 3 | Zhang | m | 2400 | 6w 1 | 1w 0 | H | 5w 0 | 2b 1 | 2.5 (5) |
//! | 4 | Chen | w | 2300 | 1b 0 | U | 2w 1 | 6b = | 5w = | 3.0 (6) |
//! | 5 | Liu | m | 2200 | 2w = | 7b 0 | 6w 0 | 3b 1 | 4b = | 2.0 (4) |
//! | 6 | Zhao | w | 2100 | 3b 0 | 2b - | 5b 1 | 4w = | 1b 0 | 1.5 (3) |
//! | 7 | Sun | m | 2000 | U | 5w 1 | 1b = | Z | Z | 2.5 (5) |
//!
//! Pairing-allocated byes: 7 (R1), 4 (R2). Half-point bye: 3 (R3). Forfeit: 2 beats 6 (R2).
//! Withdrawal: 7 after round 3 (absent, Z, in R4 and R5).
//!
//! Voluntary unplayed rounds (VUR): 3 R3 (H), 6 R2 (-), 7 R4 and R5 (Z).
//! Adjusted scores (each VUR counts as a draw, 1): A1 9, A2 3, A3 5 (H is already 1), A4 6,
//! A5 4, A6 0+1+2+1+0 = 4, A7 2+2+1+1+1 = 7.
//!
//! ## Buchholz, C.07 (played opponents' adjusted scores; unplayed rounds: own score, * = VUR)
//! - 1: 6 + 5 + 7 + 3 + 4 = 25
//! - 2: 4 + 3 (forfeit win: own 3) + 6 + 9 + 5 = 27
//! - 3: 4 + 9 + 5* + 4 + 3 = 25
//! - 4: 9 + 6 (PAB: own 6) + 3 + 4 + 4 = 26
//! - 5: 3 + 7 + 4 + 5 + 6 = 25
//! - 6: 5 + 3* + 4 + 6 + 9 = 27
//! - 7: 5 (PAB) + 4 + 9 + 5* + 5* = 28
//!
//! Cut-1 (a VUR first, else the lowest): 1: 25-3 = 22; 2: 27-3 = 24; 3: 25-5* = 20 (not 25-3);
//! 4: 26-3 = 23; 5: 25-3 = 22; 6: 27-3* = 24; 7: 28-5* = 23.
//! Median-1 (then the highest too): 1: 22-7 = 15; 2: 24-9 = 15; 3: 20-9 = 11; 4: 23-9 = 14;
//! 5: 22-7 = 15; 6: 24-9 = 15; 7: 23-9 = 14.
//!
//! ## SOSOS, C.07 (opponents' Buchholz; unplayed rounds: own Buchholz)
//! - 1: 26 + 25 + 28 + 27 + 27 = 133
//! - 2: 25 + 27 + 26 + 25 + 25 = 128
//! - 3: 27 + 25 + 25 + 25 + 27 = 129
//! - 4: 25 + 26 + 27 + 27 + 25 = 130
//! - 5: 27 + 28 + 27 + 25 + 26 = 133
//! - 6: 25 + 27 + 25 + 26 + 25 = 128
//! - 7: 28 + 25 + 25 + 28 + 28 = 134
//!
//! ## Sonneborn-Berger, C.07 (adjusted score × points of the round; unplayed: own score × points)
//! - 1: 6·2 + 5·2 + 7·1 + 3·2 + 4·2 = 43 (10.75)
//! - 2: 4·1 + 3·2 (forfeit) + 0 + 0 + 0 = 10 (2.5)
//! - 3: 4·2 + 0 + 5·1 (H) + 0 + 3·2 = 19 (4.75)
//! - 4: 0 + 6·2 (PAB) + 3·2 + 4·1 + 4·1 = 26 (6.5)
//! - 5: 3·1 + 0 + 0 + 5·2 + 6·1 = 19 (4.75)
//! - 6: 0 + 3·0 + 4·2 + 6·1 + 0 = 14 (3.5)
//! - 7: 5·2 (PAB) + 4·2 + 9·1 + 0 + 0 = 27 (6.75)
//!
//! ## Progressive score (running totals)
//! 1: 2+4+5+7+9 = 27; 2: 1+3+3+3+3 = 13; 3: 2+2+3+3+5 = 15; 4: 0+2+4+5+6 = 17;
//! 5: 1+1+1+3+4 = 10; 6: 0+0+2+3+3 = 8; 7: 2+4+5+5+5 = 21.
//!
//! ## Counts
//! WIN (rounds worth a win): 1: 4; 2: 1 (+); 3: 2; 4: 2 (U, R3); 5: 1; 6: 1; 7: 2 (U, R2).
//! WON (games won): 4, 0, 2, 1, 1, 1, 1. BPG (played as second mover): 2, 2, 1, 2, 3, 3, 1.
//! BWG (won as second mover): 2, 0, 1, 0, 1, 1, 0.
//!
//! ## ARO and TPR (rated games only; forfeits and byes excluded)
//! - 1: (2300+2400+2000+2500+2100)/5 = 2260; 4.5/5 = .90 → dp 366 → 2626
//! - 2: (2200+2300+2700+2400)/4 = 2400; .5/4 = .125 → .13 → dp -322 → 2078
//! - 3: (2100+2700+2200+2500)/4 = 2375; 2/4 → 0 → 2375
//! - 4: (2700+2500+2100+2200)/4 = 2375; 2/4 → 2375
//! - 5: (2500+2000+2100+2400+2300)/5 = 2260; 2/5 = .40 → -72 → 2188
//! - 6: (2400+2200+2300+2700)/4 = 2400; 1.5/4 = .375 → .38 → -87 → 2313
//! - 7: (2200+2700)/2 = 2450; 1.5/2 = .75 → 193 → 2643
//!
//! ## Plain 对手分 (opponents only, actual scores, forfeits count, byes nothing)
//! 1: 6+5+5+3+3 = 22; 2: 4+3+6+9+5 = 27; 3: 3+9+4+3 = 19; 4: 9+3+3+4 = 19;
//! 5: 3+5+3+5+6 = 22; 6: 5+3+4+6+9 = 27; 7: 4+9 = 13.

use std::collections::BTreeMap;

use qiwang_swiss::points::{HalfPoints, PointSystem};
use qiwang_swiss::tiebreak::{
    self, Ranking, Standings, TieBreak, UnplayedRounds, direct_encounter, format_value, rank,
};
use qiwang_swiss::tournament::{Tournament, TournamentError};
use qiwang_swiss::trf::{self, Record};

const SAMPLE: &str = include_str!("data/final-2026.trf");

fn sample() -> Tournament {
    let parsed = trf::parse(SAMPLE).map_err(|e| e.to_string());
    let t =
        parsed.and_then(|t| Tournament::from_trf(&t, t.point_system()).map_err(|e| e.to_string()));
    match t {
        Ok(t) => t,
        Err(e) => panic!("sample: {e}"),
    }
}

/// The values of one tie-break for players 1..=7.
fn values(t: &Tournament, unplayed: UnplayedRounds, tb: TieBreak) -> Vec<i64> {
    let fouls = BTreeMap::from([(2, 1)]);
    (1..=7)
        .map(|p| tiebreak::value(t, unplayed, tb, p, &fouls).unwrap_or(i64::MIN))
        .collect()
}

fn order_of(s: &Standings) -> Vec<(u32, u32)> {
    s.rows.iter().map(|r| (r.place, r.start_number)).collect()
}

const C07: UnplayedRounds = UnplayedRounds::FideC07;
const PLAIN: UnplayedRounds = UnplayedRounds::OpponentsOnly;

#[test]
fn c07_scores_of_the_sample() {
    let t = sample();
    let scores: Vec<u32> = (1..=7).map(|p| t.score(p).0).collect();
    assert_eq!(scores, [9, 3, 5, 6, 4, 3, 5]);
    assert_eq!(t.rounds(), 5);
}

#[test]
fn c07_buchholz_counts_unplayed_rounds_as_a_dummy_with_own_score() {
    assert_eq!(
        values(&sample(), C07, TieBreak::Buchholz),
        [25, 27, 25, 26, 25, 27, 28]
    );
}

#[test]
fn c07_buchholz_cut_1_cuts_voluntary_unplayed_rounds_first() {
    assert_eq!(
        values(&sample(), C07, TieBreak::BuchholzCut(1)),
        [22, 24, 20, 23, 22, 24, 23]
    );
}

#[test]
fn c07_median_buchholz_cuts_lowest_and_highest() {
    assert_eq!(
        values(&sample(), C07, TieBreak::BuchholzMedian(1)),
        [15, 15, 11, 14, 15, 15, 14]
    );
}

#[test]
fn c07_sosos_sums_opponents_buchholz() {
    assert_eq!(
        values(&sample(), C07, TieBreak::Sosos),
        [133, 128, 129, 130, 133, 128, 134]
    );
}

#[test]
fn c07_sonneborn_berger_in_quarter_points() {
    let sb = values(&sample(), C07, TieBreak::SonnebornBerger);
    assert_eq!(sb, [43, 10, 19, 26, 19, 14, 27]);
    assert_eq!(format_value(TieBreak::SonnebornBerger, sb[0]), "10.75");
    assert_eq!(format_value(TieBreak::SonnebornBerger, sb[3]), "6.5");
}

#[test]
fn c07_progressive_score_sums_running_totals() {
    let ps = values(&sample(), C07, TieBreak::Progressive);
    assert_eq!(ps, [27, 13, 15, 17, 10, 8, 21]);
    assert_eq!(format_value(TieBreak::Progressive, ps[0]), "13.5");
}

#[test]
fn c07_wins_count_rounds_worth_a_win_and_games_won_only_games() {
    let t = sample();
    assert_eq!(values(&t, C07, TieBreak::Wins), [4, 1, 2, 2, 1, 1, 2]);
    assert_eq!(values(&t, C07, TieBreak::GamesWon), [4, 0, 2, 1, 1, 1, 1]);
}

#[test]
fn c07_games_and_wins_with_black_are_second_mover_counts() {
    let t = sample();
    assert_eq!(
        values(&t, C07, TieBreak::SecondMoverGames),
        [2, 2, 1, 2, 3, 3, 1]
    );
    assert_eq!(
        values(&t, C07, TieBreak::SecondMoverWins),
        [2, 0, 1, 0, 1, 1, 0]
    );
}

#[test]
fn c07_aro_and_tpr_use_rated_games_only() {
    let t = sample();
    assert_eq!(
        values(&t, C07, TieBreak::Aro),
        [2260, 2400, 2375, 2375, 2260, 2400, 2450]
    );
    assert_eq!(
        values(&t, C07, TieBreak::Tpr),
        [2626, 2078, 2375, 2375, 2188, 2313, 2643]
    );
    assert_eq!(tiebreak::rating_difference(100), 800);
    assert_eq!(tiebreak::rating_difference(0), -800);
    assert_eq!(tiebreak::rating_difference(50), 0);
}

#[test]
fn c07_direct_encounter_needs_all_tied_players_to_have_met() {
    let t = sample();
    // 1, 2 and 4 all met: 1 beat 2 and 4 (4), 4 beat 2 (2), 2 nothing.
    assert_eq!(
        direct_encounter(&t, &[1, 2, 4]),
        BTreeMap::from([(1, 4), (2, 0), (4, 2)])
    );
    // 3 and 4 never met; 1 beat both (4) and stays ahead whatever 3-4 gives (at most 2).
    assert_eq!(
        direct_encounter(&t, &[1, 3, 4]),
        BTreeMap::from([(1, 4), (3, 0), (4, 0)])
    );
    // 3 and 7 never met: no separation.
    assert_eq!(
        direct_encounter(&t, &[3, 7]),
        BTreeMap::from([(3, 0), (7, 0)])
    );
    // A forfeit is an encounter: 2 beat 6 by forfeit.
    assert_eq!(
        direct_encounter(&t, &[2, 6]),
        BTreeMap::from([(2, 2), (6, 0)])
    );
}

#[test]
fn r_ind_4_chess_order_ranks_the_sample() {
    // Points, BH-C1, BH, SB, DE, WIN, BPG. 3 and 7 (2.5): BH-C1 20 < 23, so 7 first.
    // 2 and 6 (1.5): BH-C1 24 = 24, BH 27 = 27, SB 10 < 14, so 6 first.
    let ranking = Ranking {
        order: vec![
            TieBreak::BuchholzCut(1),
            TieBreak::Buchholz,
            TieBreak::SonnebornBerger,
            TieBreak::DirectEncounter,
            TieBreak::Wins,
            TieBreak::SecondMoverGames,
        ],
        unplayed: C07,
    };
    let t = sample();
    let s = rank(&t, &ranking, &BTreeMap::new());
    assert_eq!(
        order_of(&s),
        [(1, 1), (2, 4), (3, 7), (4, 3), (5, 5), (6, 6), (7, 2)]
    );
    assert_eq!(
        s.row(7).map(|r| r.values.clone()),
        Some(vec![23, 28, 27, 0, 2, 1])
    );
    assert_eq!(s.row(1).map(|r| r.points), Some(HalfPoints(9)));
    // R-IND-2: the women's ranking is the open order of the women, renumbered.
    let women = s.women(&t);
    assert_eq!(order_of(&women), [(1, 4), (2, 6), (3, 2)]);
}

#[test]
fn r_ind_2_shared_places_stay_shared_in_the_womens_ranking() {
    // Buchholz alone: 2 and 6 are equal (27) and share 6th place; they are the women's 2nd.
    let ranking = Ranking {
        order: vec![TieBreak::Buchholz],
        unplayed: C07,
    };
    let t = sample();
    let s = rank(&t, &ranking, &BTreeMap::new());
    assert_eq!(
        order_of(&s),
        [(1, 1), (2, 4), (3, 7), (4, 3), (5, 5), (6, 2), (6, 6)]
    );
    assert_eq!(order_of(&s.women(&t)), [(1, 4), (2, 2), (2, 6)]);
}

#[test]
fn r_ind_4_direct_encounter_breaks_a_tie_by_a_forfeit_win() {
    let ranking = Ranking {
        order: vec![TieBreak::DirectEncounter],
        unplayed: C07,
    };
    let s = rank(&sample(), &ranking, &BTreeMap::new());
    // 3 and 7 never met: shared 3rd. 2 beat 6 by forfeit.
    assert_eq!(
        order_of(&s),
        [(1, 1), (2, 4), (3, 3), (3, 7), (5, 5), (6, 2), (7, 6)]
    );
}

#[test]
fn r_ind_4_go_order_sos_sosos_progressive() {
    // 3/7: SOS 25 < 28 → 7. 2/6: SOS 27 = 27, SOSOS 128 = 128, progressive 13 > 8 → 2.
    let ranking = Ranking {
        order: vec![TieBreak::Buchholz, TieBreak::Sosos, TieBreak::Progressive],
        unplayed: C07,
    };
    let s = rank(&sample(), &ranking, &BTreeMap::new());
    assert_eq!(
        order_of(&s),
        [(1, 1), (2, 4), (3, 7), (4, 3), (5, 5), (6, 2), (7, 6)]
    );
}

#[test]
fn r_ind_4_xiangqi_order_opponents_score_wins_black_wins_progressive() {
    let t = sample();
    assert_eq!(
        values(&t, PLAIN, TieBreak::Buchholz),
        [22, 27, 19, 19, 22, 27, 13]
    );
    // 3/7: 对手分 19 > 13 → 3. 2/6: 对手分 27 = 27, 胜局 0 < 1 → 6.
    let ranking = Ranking {
        order: vec![
            TieBreak::Buchholz,
            TieBreak::GamesWon,
            TieBreak::SecondMoverWins,
            TieBreak::Progressive,
        ],
        unplayed: PLAIN,
    };
    let s = rank(&t, &ranking, &BTreeMap::new());
    assert_eq!(
        order_of(&s),
        [(1, 1), (2, 4), (3, 3), (4, 7), (5, 5), (6, 6), (7, 2)]
    );
}

#[test]
fn r_ind_4_fouls_fewer_is_better() {
    let ranking = Ranking {
        order: vec![TieBreak::Fouls],
        unplayed: PLAIN,
    };
    let fouls = BTreeMap::from([(2, 1)]);
    let s = rank(&sample(), &ranking, &fouls);
    assert_eq!(
        order_of(&s),
        [(1, 1), (2, 4), (3, 3), (3, 7), (5, 5), (6, 6), (7, 2)]
    );
    assert_eq!(
        s.row(2).map(|r| format_value(TieBreak::Fouls, r.values[0])),
        Some("1".to_string())
    );
}

#[test]
fn c07_no_tie_breaks_gives_shared_places_on_equal_points() {
    let s = rank(&sample(), &Ranking::default(), &BTreeMap::new());
    assert_eq!(
        order_of(&s),
        [(1, 1), (2, 4), (3, 3), (3, 7), (5, 5), (6, 2), (6, 6)]
    );
}

#[test]
fn c07_go_native_points_rank_the_same() {
    // Go and Xiangqi finals score 2/1/0 natively: the same integers as FIDE half-points.
    let parsed = trf::parse(SAMPLE).map_err(|e| e.to_string());
    let native = PointSystem {
        pairing_allocated_bye: HalfPoints(2),
        ..PointSystem::FIDE
    };
    let t = parsed.and_then(|t| Tournament::from_trf(&t, native).map_err(|e| e.to_string()));
    assert_eq!(t.map(|t| t.score(1)), Ok(HalfPoints(9)));
}

#[test]
fn c07_inconsistent_games_are_refused() {
    let mut t = match trf::parse(SAMPLE) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    };
    for record in &mut t.records {
        if let Record::Player(p) = record
            && p.start_number == 4
        {
            // 4 claims a win over 1 in round 1, which 1 also won.
            p.rounds[0].result = qiwang_swiss::points::ResultCode::Win;
        }
    }
    assert_eq!(
        Tournament::from_trf(&t, PointSystem::FIDE),
        Err(TournamentError::ResultMismatch {
            player: 1,
            round: 1,
            opponent: 4,
            mine: '1',
            theirs: '1'
        })
    );
}
