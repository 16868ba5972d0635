//! The award book, computed now: the rankings gathered over gRPC, the verdicts from the core.
//!
//! Readings (written down here because the rules leave them open):
//! - A prize table of an individual event reads the final ranking of that event's section in the
//!   pairing service (the first created, when several). A women's individual event without a
//!   section of its own reads the women of the open event (`Preset::women_ranked_in`), so a woman
//!   in the open top 32 also takes her women's prize (R-IND-2, cumulative).
//! - A prize table of a team event reads team-ranking's standings (frozen when frozen), limited to
//!   the places the rules award (R-TEAM-5). The award names the team; its players are the counted
//!   members.
//! - A pairs event's award names the pair; its players are the pair's two.
//! - Ages for an age-restricted table are counted on the first day of the final (R-PRZ-1 gift pack).
//! - Certificates (R-GRD-1..3, R-GRD-5, R-GRD-7): online points stages from each period's
//!   leaderboard (points and counted games; an eliminated player gets none), place stages from the
//!   period rank, knockout stages from each round's statuses, the final from the final ranking of
//!   every individual event with a section, pairs from the pairs events' rankings with the number
//!   of pairs that started. An online certificate names no event (the stage is the event); its date
//!   is the period's last day, a final's the final's last day.
//! - Dan applications (R-GRD-4): the group's ranking in order, disqualified entrants counted in the
//!   field but given no place; each entrant's dan and professional status as an organizer recorded
//!   it (`RecordDanHolding`); an entrant without a record holds no dan and is an amateur.
//! - An event without a final section is not held (a pairs event short of 8 pairs never starts,
//!   R-PAIR-1; a championship need not hold every group): its list is empty and named in
//!   `problems`, and it does not keep the book from being complete. Every ranking that exists
//!   must be final for the book to be complete (and approvable); a section created after the
//!   approval is a change like any other, taken in by an override.
//! - A deduction applies to the award it names while that award exists; when a later change
//!   removes the award, the deduction is listed with the reason it no longer applies.

use chrono::NaiveDate;
use qiwang_core::dan::{self, DanEntrant, DanOutcome, PassReason};
use qiwang_core::grade::{
    self, CertificateBasis, CertificateContext, CertificateRecord, CertificateStatus, GradeTable,
    KnockoutOutcome, Placing, ResultStatus, StageOutcome, StageResult,
};
use qiwang_core::identity::Sex;
use qiwang_core::lottery::{hex, sha256};
use qiwang_core::preset::Preset;
use qiwang_core::prize::{self, AwardList, Placed, PrizeTable};
use qiwang_core::stage::StageKind;
use qiwang_proto::awards::v1 as pb;
use qiwang_proto::pairing::v1 as pairing;
use std::collections::{BTreeMap, HashMap};

/// A final ranking as read from the pairing service.
#[derive(Debug, Clone, Default)]
pub struct FinalRanking {
    pub complete: bool,
    /// (place, player or pair id, sex) in ranking order.
    pub entrants: Vec<(u32, String, Option<Sex>)>,
    pub disqualified: Vec<String>,
    /// Entrants at the start (pairs events: the pairs that started, R-GRD-5).
    pub started: u32,
}

impl FinalRanking {
    pub fn from_pb(r: pairing::FinalRanking, started: u32) -> Self {
        FinalRanking {
            complete: r.complete,
            entrants: r
                .entrants
                .into_iter()
                .map(|e| (e.place, e.player_id, sex_of(&e.sex)))
                .collect(),
            disqualified: r.disqualified_player_ids,
            started,
        }
    }
}

pub fn sex_of(code: &str) -> Option<Sex> {
    match code {
        "male" => Some(Sex::Male),
        "female" => Some(Sex::Female),
        _ => None,
    }
}

/// A team event's standings as read from the team-ranking service.
#[derive(Debug, Clone, Default)]
pub struct TeamTable {
    pub complete: bool,
    pub places_awarded: u32,
    /// (team, place, counted players).
    pub ranked: Vec<(String, u32, Vec<String>)>,
}

/// One online period's leaderboard row, as grades need it.
#[derive(Debug, Clone)]
pub struct OnlineRow {
    pub player: String,
    pub rank: u32,
    pub points: i64,
    pub counted_games: u32,
    pub eliminated: bool,
}

/// Everything the book is computed from, gathered by the service.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub championship: String,
    /// Final rankings by event code (the event's own section).
    pub rankings: HashMap<String, FinalRanking>,
    pub teams: HashMap<String, TeamTable>,
    /// Pairs by id: the two players.
    pub pairs: HashMap<String, (String, String)>,
    pub birth_dates: HashMap<String, NaiveDate>,
    /// Online results by (stage, period).
    pub online: BTreeMap<(String, u32), Vec<OnlineRow>>,
    /// Knockout outcomes by stage: player → outcome.
    pub knockouts: BTreeMap<String, BTreeMap<String, KnockoutOutcome>>,
    /// Dan holdings: player → (amateur dan, professional).
    pub holdings: HashMap<String, (u8, bool)>,
    pub deductions: Vec<pb::Deduction>,
    pub problems: Vec<String>,
}

impl Inputs {
    /// The ranking a table or grade of `event` reads, with the event it came from.
    pub fn ranking_of<'a>(
        &'a self,
        preset: &'a Preset,
        event: &'a str,
    ) -> Option<&'a FinalRanking> {
        self.rankings.get(event).or_else(|| {
            preset
                .women_ranked_in(event)
                .and_then(|open| self.rankings.get(open))
        })
    }
}

/// The day ages are counted on, and certificates of the final are dated.
pub fn final_dates(preset: &Preset) -> (Option<NaiveDate>, Option<NaiveDate>) {
    preset
        .final_stage()
        .map_or((None, None), |s| (s.starts_on, s.ends_on))
}

/// The award book computed from `inputs`.
pub fn compute(preset: &Preset, inputs: &Inputs) -> Result<pb::AwardBook, prize::PrizeError> {
    let mut problems = inputs.problems.clone();
    let mut complete = true;
    let (starts_on, ends_on) = final_dates(preset);
    let age_on = starts_on.unwrap_or(NaiveDate::MIN);
    let mut lists: Vec<(AwardList, &PrizeTable, bool)> = Vec::new();
    for table in &preset.prizes {
        if let Some(team) = inputs.teams.get(&table.event) {
            // A team event is held when one of the rankings it counts is.
            let held = preset
                .teams
                .iter()
                .filter(|c| c.event == table.event)
                .flat_map(|c| &c.counted)
                .any(|c| inputs.ranking_of(preset, &c.ranking.event).is_some());
            if !held {
                problems.push(format!(
                    "{}: not held (no final section counts for it)",
                    table.event
                ));
            }
            let ranking: Vec<Placed> = team
                .ranked
                .iter()
                .map(|(t, place, _)| Placed {
                    id: t.clone(),
                    place: *place,
                    sex: None,
                    birth_date: None,
                })
                .collect();
            let list = prize::award_list(&table.limited_to(team.places_awarded), &ranking, age_on)?;
            complete &= team.complete || !held;
            lists.push((list, table, team.complete));
            continue;
        }
        let Some(ranking) = inputs.ranking_of(preset, &table.event) else {
            problems.push(format!(
                "{}/{}: not held (no final section)",
                table.event, table.ranking
            ));
            lists.push((prize::award_list(table, &[], age_on)?, table, false));
            continue;
        };
        let placed: Vec<Placed> = ranking
            .entrants
            .iter()
            .map(|(place, id, sex)| Placed {
                id: id.clone(),
                place: *place,
                sex: *sex,
                birth_date: inputs.birth_dates.get(id).copied(),
            })
            .collect();
        complete &= ranking.complete;
        lists.push((
            prize::award_list(table, &placed, age_on)?,
            table,
            ranking.complete,
        ));
    }
    // Deductions (R-PRZ-2), in the order they were decided.
    let mut deductions = Vec::with_capacity(inputs.deductions.len());
    for d in &inputs.deductions {
        let mut d = d.clone();
        let target = lists
            .iter_mut()
            .find(|(l, _, _)| l.event == d.event && l.ranking == d.ranking);
        match target.and_then(|(l, _, _)| l.awards.iter_mut().find(|a| a.awardee == d.awardee)) {
            None => d.not_applied = "the awardee holds no award in that list".into(),
            Some(award) => match prize::deduct(award, d.yuan, &d.reason, &d.decided_by) {
                Ok(a) => *award = a,
                Err(e) => d.not_applied = e.to_string(),
            },
        }
        deductions.push(d);
    }
    let totals = prize::totals(&lists.iter().map(|(l, _, _)| l.clone()).collect::<Vec<_>>());
    let prize_lists = lists
        .iter()
        .map(|(l, t, done)| prize_list_pb(inputs, l, t, *done, &deductions))
        .collect();

    let mut records = Vec::new();
    certificates(
        preset,
        inputs,
        ends_on,
        &mut records,
        &mut complete,
        &mut problems,
    );
    let mut dan_groups = Vec::new();
    if let Some(apps) = &preset.dan_applications {
        for group in &apps.groups {
            let Some(ranking) = inputs.ranking_of(preset, &group.event) else {
                problems.push(format!(
                    "dan applications {}: not held (no final section)",
                    group.code
                ));
                continue;
            };
            complete &= ranking.complete;
            let entrants: Vec<DanEntrant> = ranking
                .entrants
                .iter()
                .map(|(_, id, _)| (id, false))
                .chain(ranking.disqualified.iter().map(|id| (id, true)))
                .map(|(id, cancelled)| {
                    let (amateur_dan, professional) =
                        inputs.holdings.get(id).copied().unwrap_or((0, false));
                    DanEntrant {
                        player: id.clone(),
                        amateur_dan,
                        professional,
                        results_cancelled: cancelled,
                    }
                })
                .collect();
            let outcome = dan::dan_applications(group, &entrants);
            let context = CertificateContext {
                championship: inputs.championship.clone(),
                game: preset.game,
                event: group.event.clone(),
                stage: preset
                    .final_stage()
                    .map_or_else(|| "final".to_owned(), |s| s.code.clone()),
                period: None,
                result_date: ends_on.unwrap_or(NaiveDate::MIN),
            };
            for a in &outcome.awards {
                records.push(CertificateRecord {
                    context: context.clone(),
                    player: a.player.clone(),
                    grade: dan::amateur_dan_grade(a.dan),
                    basis: CertificateBasis::DanApplication {
                        place: a.place,
                        amateur_place: a.amateur_place,
                        nominal_place: a.nominal_place,
                    },
                    status: CertificateStatus::Issued,
                });
            }
            if let Some(p) = &outcome.professional_option {
                records.push(CertificateRecord {
                    context: context.clone(),
                    player: p.player.clone(),
                    grade: dan::professional_first_dan_grade(),
                    basis: CertificateBasis::ProfessionalOption {
                        place: 1,
                        claim_within_months: p.claim_within_months,
                    },
                    status: CertificateStatus::Issued,
                });
            }
            dan_groups.push(dan_group_pb(&group.code, &group.event, &outcome));
        }
    }
    let mut certificates: Vec<pb::Certificate> = records.iter().map(certificate_pb).collect();
    certificates.sort_by(|a, b| a.key.cmp(&b.key));
    certificates.dedup_by(|a, b| a.key == b.key);
    problems.sort();
    problems.dedup();
    Ok(pb::AwardBook {
        championship_id: inputs.championship.clone(),
        complete,
        prize_lists,
        totals: totals
            .into_iter()
            .map(|t| pb::AwardeeTotal {
                awardee: t.awardee,
                awards: t.awards,
                gross_yuan: t.gross,
                deducted_yuan: t.deducted,
                net_yuan: t.net,
                in_kind: t.in_kind.iter().map(|k| k.code().to_owned()).collect(),
            })
            .collect(),
        certificates,
        dan_groups,
        problems,
        ..Default::default()
    })
}

fn prize_list_pb(
    inputs: &Inputs,
    l: &AwardList,
    t: &PrizeTable,
    complete: bool,
    deductions: &[pb::Deduction],
) -> pb::PrizeList {
    let team = inputs.teams.get(&t.event);
    pb::PrizeList {
        event: l.event.clone(),
        ranking: l.ranking.clone(),
        name_zh: t.name_zh.clone(),
        name_en: t.name_en.clone(),
        complete,
        awards: l
            .awards
            .iter()
            .map(|a| {
                let (kind, players) = if let Some(team) = team {
                    let members = team
                        .ranked
                        .iter()
                        .find(|(id, _, _)| *id == a.awardee)
                        .map(|(_, _, m)| m.clone())
                        .unwrap_or_default();
                    ("team", members)
                } else if let Some((x, y)) = inputs.pairs.get(&a.awardee) {
                    ("pair", vec![x.clone(), y.clone()])
                } else {
                    ("player", vec![a.awardee.clone()])
                };
                pb::Award {
                    awardee: a.awardee.clone(),
                    awardee_kind: kind.into(),
                    player_ids: players,
                    place: a.place,
                    shared_by: a.shared_by,
                    yuan: a.yuan,
                    in_kind: a.in_kind.iter().map(|k| k.code().to_owned()).collect(),
                    deductions: deductions
                        .iter()
                        .filter(|d| {
                            d.event == l.event
                                && d.ranking == l.ranking
                                && d.awardee == a.awardee
                                && d.not_applied.is_empty()
                        })
                        .cloned()
                        .collect(),
                    net_yuan: a.net_yuan(),
                }
            })
            .collect(),
        places: l
            .places
            .iter()
            .map(|p| pb::SharedPlace {
                first_place: p.first_place,
                last_place: p.last_place,
                holders: p.holders,
                pool_yuan: p.pool,
                share_yuan: p.share,
                remainder_yuan: p.remainder,
                vacated_yuan: p.vacated,
            })
            .collect(),
        gross_yuan: l.gross(),
        paid_yuan: l.paid(),
        unpaid_remainder_yuan: l.unpaid_remainder(),
        vacated_yuan: l.vacated(),
    }
}

/// The grade certificates of every stage (R-GRD-1..3, R-GRD-5, R-GRD-7).
fn certificates(
    preset: &Preset,
    inputs: &Inputs,
    final_ends: Option<NaiveDate>,
    out: &mut Vec<CertificateRecord>,
    complete: &mut bool,
    problems: &mut Vec<String>,
) {
    for stage in &preset.stages {
        let Some(grades) = &stage.grades else {
            continue;
        };
        let context =
            |event: &str, period: Option<u32>, date: Option<NaiveDate>| CertificateContext {
                championship: inputs.championship.clone(),
                game: preset.game,
                event: event.to_owned(),
                stage: stage.code.clone(),
                period,
                result_date: date
                    .or(stage.ends_on)
                    .or(final_ends)
                    .unwrap_or(NaiveDate::MIN),
            };
        let mut push = |ctx: &CertificateContext, player: &str, result: StageResult| {
            if let Some(r) = grade::certificate_for(grades, ctx, player, &result) {
                out.push(r);
            }
        };
        match (&grades.table, stage.kind) {
            (GradeTable::None, _) => {}
            (GradeTable::Knockout(_), _) => {
                if let Some(outcomes) = inputs.knockouts.get(&stage.code) {
                    let ctx = context("", None, None);
                    for (player, outcome) in outcomes {
                        push(
                            &ctx,
                            player,
                            StageResult {
                                status: ResultStatus::Standing,
                                counted_games: grades.min_counted_games,
                                outcome: StageOutcome::Knockout(*outcome),
                            },
                        );
                    }
                }
            }
            (GradeTable::Places(_), StageKind::Final) => {
                for event in preset.events.iter().filter(|e| e.pairs.is_none()) {
                    let Some(ranking) = inputs.rankings.get(&event.code) else {
                        continue;
                    };
                    if inputs.teams.contains_key(&event.code) {
                        continue;
                    }
                    *complete &= ranking.complete;
                    let ctx = context(&event.code, None, final_ends);
                    for (place, player, _) in &ranking.entrants {
                        push(
                            &ctx,
                            player,
                            StageResult {
                                status: ResultStatus::Standing,
                                counted_games: grades.min_counted_games,
                                outcome: StageOutcome::Place(Placing::single(*place)),
                            },
                        );
                    }
                }
            }
            (table, _) => {
                for period in &stage.periods {
                    let Some(rows) = inputs.online.get(&(stage.code.clone(), period.number)) else {
                        problems.push(format!(
                            "{} period {}: no results read",
                            stage.code, period.number
                        ));
                        continue;
                    };
                    let ctx = context("", Some(period.number), Some(period.closes_on));
                    for row in rows {
                        let outcome = match table {
                            GradeTable::Places(_) if row.rank == 0 => continue,
                            GradeTable::Places(_) => StageOutcome::Place(Placing::single(row.rank)),
                            _ => {
                                StageOutcome::Points(i32::try_from(row.points).unwrap_or(i32::MAX))
                            }
                        };
                        push(
                            &ctx,
                            &row.player,
                            StageResult {
                                status: if row.eliminated {
                                    ResultStatus::Eliminated
                                } else {
                                    ResultStatus::Standing
                                },
                                counted_games: row.counted_games,
                                outcome,
                            },
                        );
                    }
                }
            }
        }
        // Pairs events (R-GRD-5): every player of a placed pair.
        for t in &grades.pairs {
            let Some(ranking) = inputs.rankings.get(&t.event) else {
                continue;
            };
            *complete &= ranking.complete;
            let ctx = context(&t.event, None, final_ends);
            for (place, pair, _) in &ranking.entrants {
                let result = StageResult {
                    status: ResultStatus::Standing,
                    counted_games: 0,
                    outcome: StageOutcome::PairsPlace {
                        event: t.event.clone(),
                        placing: Placing::single(*place),
                        pairs_at_start: ranking.started,
                    },
                };
                let players: Vec<&String> = match inputs.pairs.get(pair) {
                    Some((a, b)) => vec![a, b],
                    None => vec![pair],
                };
                for p in players {
                    push(&ctx, p, result.clone());
                }
            }
        }
    }
}

/// The opaque, stable key of a certificate: the same award of the same player keeps it.
pub fn certificate_key(r: &CertificateRecord) -> String {
    let k = r.key();
    let text = format!(
        "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}",
        k.championship,
        k.event,
        k.stage,
        k.period.unwrap_or(0),
        k.player,
        k.kind
    );
    format!("crt_{}", &hex(&sha256(text.as_bytes()))[..32])
}

fn basis_words(b: &CertificateBasis) -> String {
    let placing = |p: &Placing| {
        if p.best == p.worst {
            format!("place {}", p.best)
        } else {
            format!("places {}-{} shared", p.best, p.worst)
        }
    };
    match b {
        CertificateBasis::Points {
            points,
            counted_games,
        } => format!("{points} points, {counted_games} counted games"),
        CertificateBasis::Place {
            placing: p,
            counted_games,
        } => format!("{}, {counted_games} counted games", placing(p)),
        CertificateBasis::Knockout(KnockoutOutcome::OutInRound(r)) => {
            format!("out in knockout round {r}")
        }
        CertificateBasis::Knockout(KnockoutOutcome::WonLastRound) => {
            "won the last knockout round".into()
        }
        CertificateBasis::PairsPlace {
            placing: p,
            pairs_at_start,
        } => format!("{} of {pairs_at_start} pairs", placing(p)),
        CertificateBasis::DanApplication {
            place,
            amateur_place,
            nominal_place,
        } => format!(
            "place {place} (amateur place {amateur_place}), for amateur place {nominal_place}"
        ),
        CertificateBasis::ProfessionalOption {
            place,
            claim_within_months,
        } => format!(
            "place {place}: professional 1 dan, claimable within {claim_within_months} months"
        ),
    }
}

pub fn certificate_pb(r: &CertificateRecord) -> pb::Certificate {
    pb::Certificate {
        key: certificate_key(r),
        championship_id: r.context.championship.clone(),
        player_id: r.player.clone(),
        game: r.context.game.code().to_owned(),
        event: r.context.event.clone(),
        stage: r.context.stage.clone(),
        period: r.context.period.unwrap_or(0),
        kind: r.basis.kind().to_owned(),
        grade_zh: r.grade.zh.clone(),
        grade_en: r.grade.en.clone(),
        grade_level: r.grade.level,
        basis: basis_words(&r.basis),
        result_date: r.context.result_date.format("%Y-%m-%d").to_string(),
        content_hash: r.content_hash(),
    }
}

fn dan_group_pb(code: &str, event: &str, o: &DanOutcome) -> pb::DanGroupOutcome {
    pb::DanGroupOutcome {
        group: code.to_owned(),
        event: event.to_owned(),
        field: o
            .field
            .iter()
            .map(|f| format!("{} dan+: {} entrants", f.dan, f.entrants))
            .collect(),
        tier: o.tier.map_or(0, |t| t as u32 + 1),
        awards: o
            .awards
            .iter()
            .map(|a| pb::DanAwardRow {
                player_id: a.player.clone(),
                dan: u32::from(a.dan),
                place: a.place,
                amateur_place: a.amateur_place,
                nominal_place: a.nominal_place,
                roll_down_to: a.roll_down_to,
                rolled_down: a.rolled_down(),
            })
            .collect(),
        passes: o
            .passes
            .iter()
            .map(|p| {
                let why = match p.reason {
                    PassReason::HoldsDan(d) => format!("already holds {d} dan"),
                    PassReason::AlreadyAwarded(d) => format!("already awarded {d} dan"),
                };
                format!(
                    "place {} ({}): {} dan passed down, {why}",
                    p.place, p.player, p.dan
                )
            })
            .collect(),
        lapsed: o
            .lapsed
            .iter()
            .map(|l| {
                format!(
                    "{} dan for place {} lapsed: nobody within place {} could take it",
                    l.dan, l.nominal_place, l.roll_down_to
                )
            })
            .collect(),
        professional_option_player_id: o
            .professional_option
            .as_ref()
            .map(|p| p.player.clone())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qiwang_core::preset;

    fn go_2025() -> Preset {
        preset::official_by_name("go-2025")
            .expect("go-2025")
            .expect("loads")
    }

    fn open_ranking(n: u32, women: &[u32]) -> FinalRanking {
        FinalRanking {
            complete: true,
            entrants: (1..=n)
                .map(|i| {
                    let sex = if women.contains(&i) {
                        Sex::Female
                    } else {
                        Sex::Male
                    };
                    (i, format!("p{i:02}"), Some(sex))
                })
                .collect(),
            disqualified: Vec::new(),
            started: n,
        }
    }

    fn list<'a>(book: &'a pb::AwardBook, event: &str, ranking: &str) -> &'a pb::PrizeList {
        book.prize_lists
            .iter()
            .find(|l| l.event == event && l.ranking == ranking)
            .expect("list")
    }

    #[test]
    fn r_ind_2_r_prz_1_a_woman_in_the_open_top_32_also_takes_her_women_prize() {
        let preset = go_2025();
        let mut inputs = Inputs {
            championship: "ch".into(),
            ..Default::default()
        };
        inputs
            .rankings
            .insert("men-individual".into(), open_ranking(40, &[5, 33]));
        let book = compute(&preset, &inputs).expect("book");
        let open = list(&book, "men-individual", "open");
        let women = list(&book, "women-individual", "women");
        let p05 = |l: &pb::PrizeList| l.awards.iter().find(|a| a.awardee == "p05").map(|a| a.yuan);
        assert_eq!(p05(open), Some(5000), "open place 5");
        assert_eq!(p05(women), Some(10000), "women's place 1");
        let total = book
            .totals
            .iter()
            .find(|t| t.awardee == "p05")
            .expect("total");
        assert_eq!(total.gross_yuan, 15000, "cumulative (R-IND-2)");
        assert_eq!(
            women
                .awards
                .iter()
                .find(|a| a.awardee == "p33")
                .map(|a| a.place),
            Some(2),
            "women renumbered among women"
        );
    }

    #[test]
    fn r_prz_1_a_tie_at_places_9_and_10_shares_the_summed_prizes() {
        let preset = go_2025();
        let mut ranking = open_ranking(12, &[]);
        ranking.entrants[9].0 = 9; // p10 shares place 9 with p09
        let mut inputs = Inputs::default();
        inputs.rankings.insert("men-individual".into(), ranking);
        let book = compute(&preset, &inputs).expect("book");
        let open = list(&book, "men-individual", "open");
        for p in ["p09", "p10"] {
            let a = open.awards.iter().find(|a| a.awardee == p).expect("award");
            assert_eq!((a.place, a.shared_by, a.yuan), (9, 2, 1000));
        }
        let shared = open
            .places
            .iter()
            .find(|s| s.first_place == 9)
            .expect("place 9");
        assert_eq!((shared.last_place, shared.pool_yuan), (10, 2000));
    }

    #[test]
    fn r_prz_2_a_deduction_applies_to_the_award_it_names_or_says_why_not() {
        let preset = go_2025();
        let mut inputs = Inputs::default();
        inputs
            .rankings
            .insert("men-individual".into(), open_ranking(8, &[]));
        let deduction = |awardee: &str, yuan: i64| pb::Deduction {
            event: "men-individual".into(),
            ranking: "open".into(),
            awardee: awardee.into(),
            yuan,
            reason: "skipped the closing ceremony".into(),
            decided_by: "org".into(),
            ..Default::default()
        };
        inputs.deductions = vec![
            deduction("p01", 6000),
            deduction("p99", 100),
            deduction("p08", 5000),
        ];
        let book = compute(&preset, &inputs).expect("book");
        let open = list(&book, "men-individual", "open");
        let p01 = open
            .awards
            .iter()
            .find(|a| a.awardee == "p01")
            .expect("p01");
        assert_eq!(
            (p01.yuan, p01.net_yuan, p01.deductions.len()),
            (60000, 54000, 1)
        );
        let p08 = open
            .awards
            .iter()
            .find(|a| a.awardee == "p08")
            .expect("p08");
        assert_eq!(p08.net_yuan, 3000, "a deduction above the award is refused");
        assert!(p08.deductions.is_empty());
    }

    #[test]
    fn r_grd_4_the_dan_roll_down_passes_place_1_holding_8_dan() {
        let preset = go_2025();
        let mut inputs = Inputs::default();
        inputs
            .rankings
            .insert("men-individual".into(), open_ranking(40, &[]));
        for i in 1..=35 {
            inputs.holdings.insert(format!("p{i:02}"), (6, false));
        }
        inputs.holdings.insert("p01".into(), (8, false));
        let book = compute(&preset, &inputs).expect("book");
        let open = book
            .dan_groups
            .iter()
            .find(|g| g.group == "open")
            .expect("open group");
        let eight: Vec<&pb::DanAwardRow> = open.awards.iter().filter(|a| a.dan == 8).collect();
        assert_eq!(eight.len(), 1);
        assert_eq!(
            (eight[0].player_id.as_str(), eight[0].rolled_down),
            ("p02", true)
        );
        assert!(
            open.passes
                .iter()
                .any(|p| p.contains("p01") && p.contains("8 dan"))
        );
        assert_eq!(
            open.professional_option_player_id, "p01",
            "the option stays the champion's"
        );
        assert!(
            book.certificates
                .iter()
                .any(|c| c.player_id == "p02" && c.kind == "dan-application" && c.grade_level == 8)
        );
    }

    fn go_2015() -> Preset {
        preset::official_by_name("go-2015")
            .expect("go-2015")
            .expect("loads")
    }

    fn grade<'a>(book: &'a pb::AwardBook, player: &str, stage: &str) -> Option<&'a str> {
        book.certificates
            .iter()
            .find(|c| c.player_id == player && c.stage == stage)
            .map(|c| c.grade_zh.as_str())
    }

    #[test]
    fn r_grd_1_period_ranks_and_knockout_exits_earn_their_grades() {
        let preset = go_2015();
        let mut inputs = Inputs::default();
        let row = |player: &str, rank: u32, eliminated: bool| OnlineRow {
            player: player.into(),
            rank,
            points: 10,
            counted_games: 5,
            eliminated,
        };
        inputs.online.insert(
            ("jinji".into(), 1),
            vec![
                row("a", 20, false),
                row("b", 21, false),
                row("c", 801, false),
                row("d", 0, true),
            ],
        );
        let mut ko = BTreeMap::new();
        ko.insert("r1".to_owned(), KnockoutOutcome::OutInRound(1));
        ko.insert("r2".to_owned(), KnockoutOutcome::OutInRound(2));
        ko.insert("r3".to_owned(), KnockoutOutcome::OutInRound(3));
        ko.insert("w".to_owned(), KnockoutOutcome::WonLastRound);
        inputs.knockouts.insert("ruwei".into(), ko);
        let book = compute(&preset, &inputs).expect("book");
        assert_eq!(grade(&book, "a", "jinji"), Some("1级"));
        assert_eq!(grade(&book, "b", "jinji"), Some("2级"));
        assert_eq!(grade(&book, "c", "jinji"), None, "below every band");
        assert_eq!(grade(&book, "d", "jinji"), None, "eliminated (R-GRD-7)");
        assert_eq!(grade(&book, "r1", "ruwei"), None, "out in round 1: nothing");
        assert_eq!(grade(&book, "r2", "ruwei"), Some("1级"));
        assert_eq!(grade(&book, "r3", "ruwei"), Some("1段"));
        assert_eq!(grade(&book, "w", "ruwei"), Some("2段"));
    }

    #[test]
    fn r_grd_5_both_players_of_a_placed_pair_get_the_pairs_grade_when_8_pairs_started() {
        let preset = go_2015();
        let pairs_ranking = |started: u32| FinalRanking {
            complete: true,
            entrants: (1..=started)
                .map(|i| (i, format!("pair{i}"), None))
                .collect(),
            disqualified: Vec::new(),
            started,
        };
        let mut inputs = Inputs::default();
        for i in 1..=8 {
            inputs
                .pairs
                .insert(format!("pair{i}"), (format!("x{i}"), format!("y{i}")));
        }
        inputs.rankings.insert("men-pairs".into(), pairs_ranking(8));
        let book = compute(&preset, &inputs).expect("book");
        assert_eq!(grade(&book, "x1", "final"), Some("4段"));
        assert_eq!(grade(&book, "y1", "final"), Some("4段"));
        assert_eq!(grade(&book, "y3", "final"), Some("3段"));
        assert_eq!(grade(&book, "x6", "final"), Some("2段"));
        assert_eq!(grade(&book, "x7", "final"), None);
        let prizes = list(&book, "men-pairs", "pairs");
        assert_eq!(
            prizes.awards[0].player_ids,
            ["x1", "y1"],
            "the pair's award names both players"
        );
        // A field of 7 pairs did not start (R-PAIR-1): no pairs grades (R-GRD-5).
        inputs.rankings.insert("men-pairs".into(), pairs_ranking(7));
        let book = compute(&preset, &inputs).expect("book");
        assert_eq!(grade(&book, "x1", "final"), None);
    }
}
