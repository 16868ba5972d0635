//! `qiwang presets show NAME`: a preset as organizers read it, in Chinese and English.

use qiwang_core::advancement::Selection;
use qiwang_core::grade::{GradeTable, StageGrades};
use qiwang_core::knockout::DrawRule;
use qiwang_core::preset::{EventSex, Game, Preset};
use qiwang_core::stage::{Stage, StageKind};
use qiwang_core::time_control::TimeControl;
use qiwang_core::workflow::NoticePeriod;
use std::fmt::Write;

fn yes_no(b: bool) -> &'static str {
    if b { "是 yes" } else { "否 no" }
}

fn secs(d: chrono::TimeDelta) -> i64 {
    d.num_seconds()
}

/// Renders the whole preset.
pub fn describe(p: &Preset) -> String {
    let mut out = String::new();
    let o = &mut out;
    let game_zh = match p.game {
        Game::Go => "围棋",
        Game::Xiangqi => "象棋",
        Game::Chess => "国际象棋",
    };
    let _ = writeln!(o, "{}\n{}", p.title_zh, p.title_en);
    let _ = writeln!(
        o,
        "棋种 Game: {game_zh} / {}    赛季 Season: {}",
        p.game.code(),
        p.season
    );
    let r = &p.registration;
    let _ = writeln!(
        o,
        "网络报名 Online registration (China time, inclusive): {} — {}; 可重复报名 repeat entry: {}",
        r.opens_on,
        r.closes_on,
        yes_no(r.repeat_entry)
    );
    let _ = writeln!(
        o,
        "限制名单 Bar list: 海外棋手豁免 overseas exempt: {}",
        yes_no(p.bar.overseas_exempt)
    );
    let _ = writeln!(
        o,
        "线下服务费 Offline service fee: {} 元 yuan; 未参赛退费 refund to a no-show: {}",
        p.fees.offline_service_fee_yuan,
        yes_no(p.fees.refund_no_show)
    );
    if let Some(n) = p.finals_information_working_days {
        let _ = writeln!(
            o,
            "总决赛信息完善 Finals information: within {n} 个工作日 working days of qualifying"
        );
    }
    if let Some(ct) = &p.city_teams {
        let _ = writeln!(
            o,
            "城市代表队 City teams: {} 男 men + {} 女 women, registration {} — {}",
            ct.men, ct.women, ct.opens_on, ct.closes_on
        );
    }
    let w = &p.wildcards;
    let _ = writeln!(
        o,
        "外卡 Wildcards: deadline {}; quota per event {}; sources: {}",
        w.deadline
            .map(|d| d.to_string())
            .unwrap_or_else(|| "组委会决定 set by organizers".into()),
        w.quota_per_event
            .map(|q| q.to_string())
            .unwrap_or_else(|| "组委会决定 organizers decide".into()),
        if w.sources.is_empty() {
            "—".to_owned()
        } else {
            w.sources.join(", ")
        }
    );
    match p.public_notice {
        Some(NoticePeriod::Dates {
            opens_on,
            closes_on,
        }) => {
            let _ = writeln!(o, "名单公示 Public notice: {opens_on} — {closes_on}");
        }
        Some(NoticePeriod::DaysBeforeFinal(n)) => {
            let _ = writeln!(o, "名单公示 Public notice: {n} 天 days before the final");
        }
        None => {
            let _ = writeln!(o, "名单公示 Public notice: set by organizers");
        }
    }

    let _ = writeln!(o, "\n项目 Events:");
    for e in &p.events {
        let sex = match e.sex {
            EventSex::Open => "不限 open",
            EventSex::Male => "男 men",
            EventSex::Female => "女 women",
        };
        let online = if e.online_qualifier {
            "网络海选 online qualifier"
        } else {
            "线下报名 offline entry"
        };
        let mut line = format!(
            "  {:20} {} / {}  [{sex}; {online}]",
            e.code, e.name_zh, e.name_en
        );
        if let Some(win) = e.birth_window {
            let from = win
                .born_from
                .map(|d| d.to_string())
                .unwrap_or_else(|| "…".into());
            let to = win
                .born_to
                .map(|d| d.to_string())
                .unwrap_or_else(|| "…".into());
            let _ = write!(line, " 出生 born {from} — {to}");
        }
        if e.requires_grade_certificate {
            line.push_str(" 须持等级证书 certificate required;");
        }
        if e.requires_approval {
            line.push_str(" 须审核 approval required;");
        }
        let _ = writeln!(o, "{line}");
        if let Some(pr) = &e.pairs {
            let _ = writeln!(
                o,
                "      双人 pairs: {:?}, partners reached ≥ {:?} (one ≥ {:?}), {}..{} pairs, registration {} — {}{}",
                pr.kind,
                pr.min_reach_both,
                pr.min_reach_one,
                pr.min_pairs,
                pr.max_pairs,
                pr.opens_on,
                pr.closes_on,
                pr.age
                    .map(|a| format!(", ages over {} and under {}", a.older_than, a.younger_than))
                    .unwrap_or_default()
            );
        }
    }

    let _ = writeln!(o, "\n阶段 Stages:");
    for s in &p.stages {
        stage(o, s);
    }

    if !p.teams.is_empty() {
        let _ = writeln!(o, "\n团体 Teams:");
        for t in &p.teams {
            let counted: Vec<String> = t
                .counted
                .iter()
                .map(|c| {
                    format!(
                        "best {} {:?} by {}/{}",
                        c.count, c.sex, c.ranking.event, c.ranking.ranking
                    )
                })
                .collect();
            let _ = writeln!(
                o,
                "  {:20} grouped by {:?}; {}",
                t.event,
                t.grouping,
                counted.join(" + ")
            );
        }
    }
    if !p.prizes.is_empty() {
        let _ = writeln!(o, "\n奖金 Prizes (元 yuan, before tax):");
        for t in &p.prizes {
            let _ = writeln!(
                o,
                "  {} / {} [{} {}]: {t}",
                t.name_zh, t.name_en, t.event, t.ranking
            );
        }
    }
    if let Some(dan) = &p.dan_applications {
        let _ = writeln!(o, "\n段位申报 Dan applications:");
        for g in &dan.groups {
            let _ = writeln!(o, "  {} ({}):", g.code, g.event);
            for tier in &g.tiers {
                let when: Vec<String> = tier
                    .when
                    .iter()
                    .map(|c| format!("≥ {} entrants of {} dan+", c.entrants, c.dan))
                    .collect();
                let awards: Vec<String> = tier
                    .awards
                    .iter()
                    .map(|a| {
                        format!(
                            "places {}-{} → {} dan (roll down to {})",
                            a.from, a.to, a.dan, a.roll_down_to
                        )
                    })
                    .collect();
                let _ = writeln!(
                    o,
                    "    when {}: {}",
                    if when.is_empty() {
                        "always".into()
                    } else {
                        when.join(" and ")
                    },
                    awards.join("; ")
                );
            }
        }
    }
    out
}

fn stage(o: &mut String, s: &Stage) {
    let kind = match s.kind {
        StageKind::Points => "积分 points",
        StageKind::Knockout => "淘汰 knockout",
        StageKind::Repechage => "复活 repechage",
        StageKind::Offline => "线下 offline",
        StageKind::Final => "总决赛 final",
    };
    let dates = match (s.starts_on, s.ends_on) {
        (Some(a), Some(b)) => format!(" {a} — {b}"),
        _ => String::new(),
    };
    let _ = writeln!(
        o,
        "  {} {} / {} [{kind}]{dates}",
        s.code, s.name_zh, s.name_en
    );
    for per in &s.periods {
        let _ = writeln!(
            o,
            "    第{}期 period {}: {} — {}",
            per.number, per.number, per.opens_on, per.closes_on
        );
    }
    if let Some(on) = &s.online {
        let pts = &on.points;
        let draw = pts
            .draw
            .map(|d| format!(", draw {d:+}"))
            .unwrap_or_else(|| ", no draws".into());
        let _ = writeln!(
            o,
            "    计分 points: win {:+}, loss {:+}{draw}; escape {:+} (opponent {:+})",
            pts.win, pts.loss, pts.escape, pts.escape_opponent
        );
        let d = &on.disconnection;
        let _ = writeln!(
            o,
            "    断线 disconnection → escape: total over {} s, or more than {} disconnections{}",
            secs(d.total_over),
            d.count_over,
            d.interruption_over
                .map(|i| format!(" (an interruption counts when over {} s)", secs(i)))
                .unwrap_or_default()
        );
        let hours = match on.play_hours.daily {
            Some(h) => format!("{}–{}", h.from.format("%H:%M"), h.to.format("%H:%M")),
            None => "全天 any time".into(),
        };
        let first = on
            .play_hours
            .first_day_from
            .map(|t| format!("; first day from {}", t.format("%H:%M")))
            .unwrap_or_default();
        let _ = writeln!(o, "    比赛时间 play hours (China time): {hours}{first}");
        if let Some(tc) = on.time_control {
            time_control(o, tc);
        }
        if let Some(limit) = on.first_move_limit {
            let _ = writeln!(o, "    首步 first move within {} s, else void", secs(limit));
        }
        let _ = writeln!(
            o,
            "    清零 resets: {}; 逃跑淘汰 eliminated at escape no. {}; 排名最少局数 min games to rank: {}{}",
            yes_no(on.resets_allowed),
            on.eliminate_at_escapes
                .map(|n| n.to_string())
                .unwrap_or_else(|| "—".into()),
            on.min_games_ranked,
            on.min_games_certificate
                .map(|n| format!("; 证书最少局数 for a certificate: {n}"))
                .unwrap_or_default()
        );
    }
    if let Some(adv) = &s.advance {
        let how = match &adv.selection {
            Selection::Points(r) | Selection::Repechage(r) => {
                let chain: Vec<&str> = r.tie_chain.iter().map(|t| t.code()).collect();
                format!(
                    "points ≥ {}, top {}, ≥ {} games, ties: [{}]",
                    r.min_points
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "—".into()),
                    r.top_n
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "all".into()),
                    r.min_counted_games,
                    chain.join(", ")
                )
            }
            Selection::Knockout => "knockout winners".into(),
        };
        let groups: Vec<String> = adv
            .groups
            .iter()
            .map(|g| {
                format!(
                    "{} ({}) top {}",
                    g.code,
                    g.events.join("+"),
                    g.top_n.map(|n| n.to_string()).unwrap_or_default()
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "    晋级 advance → {}: {how}{}{}",
            adv.to,
            if groups.is_empty() {
                String::new()
            } else {
                format!("; groups: {}", groups.join(", "))
            },
            adv.final_quota
                .map(|q| format!("; final quota {q}"))
                .unwrap_or_default()
        );
        for seed in &adv.seeds {
            let _ = writeln!(
                o,
                "    直接晋级 direct seeds: {} from {}",
                seed.count, seed.source
            );
        }
    }
    if let Some(k) = &s.knockout {
        let draw = match k.draw {
            DrawRule::Impossible => "no draws".to_owned(),
            DrawRule::BlitzReplay(b) => format!(
                "draw → one blitz game, colours swapped ({} s / {} s + {} s), a blitz draw goes to {:?}",
                b.first_mover_secs, b.second_mover_secs, b.increment_secs, b.draw_winner
            ),
        };
        let _ = writeln!(
            o,
            "    淘汰赛 knockout: {} rounds, random pairing, odd player out advances, escape = out; {draw}{}",
            k.rounds,
            k.unmatched_advance_after_minutes
                .map(|m| format!("; not matched within {m} min → advances"))
                .unwrap_or_default()
        );
    }
    if let Some(tc) = s.knockout.as_ref().and_then(|k| k.time_control) {
        time_control(o, tc);
    }
    if let Some(g) = &s.grades {
        grades(o, g);
    }
    if let Some(f) = &s.final_format {
        let tb: Vec<&str> = f.tie_breaks.iter().map(|t| t.code()).collect();
        let _ = writeln!(
            o,
            "    赛制 format: Swiss, {}{}{}; points win/draw/loss {}/{}/{} (half-points); tie-breaks: {}",
            f.rounds
                .map(|r| format!("{r} rounds"))
                .unwrap_or_else(|| "rounds by entries".into()),
            if f.groups.is_empty() {
                String::new()
            } else {
                format!(", groups {}", f.groups.join("/"))
            },
            f.placement_pairs
                .map(|n| format!(", then a placement round of {n} pairs"))
                .unwrap_or_default(),
            f.points.win,
            f.points.draw,
            f.points.loss,
            tb.join(", ")
        );
        if let Some(a) = f.appeal {
            let _ = writeln!(
                o,
                "    申诉 appeals: in writing within {} min, fee {} yuan (refunded if upheld)",
                a.within_minutes, a.fee_yuan
            );
        }
    }
}

fn time_control(o: &mut String, tc: TimeControl) {
    let byo = tc
        .byoyomi_secs
        .map(|b| match tc.byoyomi_periods {
            Some(n) => format!(" + {n}×{b} s byo-yomi"),
            None => format!(", then {b} s a move"),
        })
        .unwrap_or_default();
    let _ = writeln!(o, "    用时 time control: {} min{byo}", tc.main_secs / 60);
}

fn grades(o: &mut String, g: &StageGrades) {
    let bands: Vec<String> = match &g.table {
        GradeTable::None => Vec::new(),
        GradeTable::Points(b) => b
            .iter()
            .map(|b| format!("≥{} pts {}/{}", b.min_points, b.grade.zh, b.grade.en))
            .collect(),
        GradeTable::Places(b) => b
            .iter()
            .map(|b| match b.to {
                Some(to) if to != b.from => {
                    format!("{}-{} {}/{}", b.from, to, b.grade.zh, b.grade.en)
                }
                Some(_) => format!("{} {}/{}", b.from, b.grade.zh, b.grade.en),
                None => format!("{}+ {}/{}", b.from, b.grade.zh, b.grade.en),
            })
            .collect(),
        GradeTable::Knockout(b) => b
            .iter()
            .map(|b| format!("{:?} {}/{}", b.outcome, b.grade.zh, b.grade.en))
            .collect(),
    };
    if !bands.is_empty() || g.min_counted_games > 0 {
        let _ = writeln!(
            o,
            "    等级 grades{}: {}",
            if g.min_counted_games > 0 {
                format!(" (≥ {} counted games)", g.min_counted_games)
            } else {
                String::new()
            },
            if bands.is_empty() {
                "organizers enter the table".into()
            } else {
                bands.join(", ")
            }
        );
    }
    for t in &g.pairs {
        let places: Vec<String> = t
            .places
            .iter()
            .map(|b| match b.to {
                Some(to) if to != b.from => format!("{}-{to} {}", b.from, b.grade.zh),
                _ => format!("{} {}", b.from, b.grade.zh),
            })
            .collect();
        let _ = writeln!(
            o,
            "    双人等级 pairs grades {} (≥ {} pairs): {}",
            t.event,
            t.min_pairs,
            places.join(", ")
        );
    }
}
