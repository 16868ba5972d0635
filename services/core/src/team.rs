//! Team events (团体赛, R-TEAM-1 to R-TEAM-5): who plays for which team, and team standings from
//! the individual final ranks.
//!
//! A team category ([`TeamCategory`], preset section `[[teams]]`) says how players are grouped
//! (province-level region or country, the host city's own team, registered city teams or youth
//! entering units) and which of their individual places count: the men's team adds the open-ranking
//! places of its best 3 men, the women's team the women's-ranking places of its best 2 women, the
//! xiangqi-2022 youth team its best 3 boys and 2 girls. [`team_standings`] ranks the teams (lower
//! sum first) and says how many places are awarded (R-TEAM-5); [`team_awards`] hands the result to
//! the prize rules.

use chrono::NaiveDate;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::identity::{Identity, Sex};
use crate::preset::{Checker, Event, EventSex};
use crate::prize::{self, AwardList, Placed, PrizeError, PrizeTable};

/// The ranking code of a team event's prize table (`[[prizes]]` with `ranking = "team"`).
pub const TEAM_RANKING: &str = "team";

/// The most players one team category may count.
pub const MAX_COUNTED: u32 = 100;

/// How a team category groups players into teams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamGrouping {
    /// By the province-level region of the resident ID (R-TEAM-2, R-TEAM-3), or by country for a
    /// player with a foreign passport. Reading: every province-level code (71 Taiwan, 81 Hong Kong,
    /// 82 Macau included) is a team region in every preset, and foreigners form one team per
    /// country in every preset.
    Region,
    /// Teams registered with the organizers: go-2025 city teams (R-REG-9), xiangqi-2022 youth
    /// entering units (R-TEAM-4). Membership is an input decided at registration; a player without
    /// one plays as an individual.
    Registered,
}

/// A ranking of an event: `men-individual` / `open`, `youth` / `girls`, …
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RankingRef {
    pub event: String,
    pub ranking: String,
}

impl RankingRef {
    pub fn new(event: &str, ranking: &str) -> Self {
        RankingRef {
            event: event.to_owned(),
            ranking: ranking.to_owned(),
        }
    }
}

impl fmt::Display for RankingRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.event, self.ranking)
    }
}

/// "The best `count` players of `sex`, by their place in `ranking`" (R-TEAM-1, R-TEAM-4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountedPlayers {
    pub ranking: RankingRef,
    pub sex: Sex,
    pub count: u32,
}

/// A small field: with at most `max_teams` ranked teams, only `places` places are awarded
/// (R-TEAM-5: fewer than 3 teams → the champion, exactly 3 → the top 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmallField {
    pub max_teams: u32,
    pub places: u32,
}

/// One team category (a team event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamCategory {
    /// The team event's code (`men-team`, `youth`, …).
    pub event: String,
    pub grouping: TeamGrouping,
    /// The host city's own team (东道主杭州市具有组队权, 2015), only with [`TeamGrouping::Region`].
    /// Reading: its members are those the organizers register for it; they leave their region's
    /// team, and every other player of the host city plays for the region.
    pub host_city_team: Option<String>,
    /// Which places count; a team needs all of them to be ranked.
    pub counted: Vec<CountedPlayers>,
    /// Ascending by `max_teams`. Beyond the last, the prize table's length applies.
    pub small_fields: Vec<SmallField>,
}

impl TeamCategory {
    /// Players a complete team counts (3 for a men's team, 5 for a youth team).
    pub fn members_counted(&self) -> u32 {
        self.counted.iter().map(|c| c.count).sum()
    }
}

/// Which team a player plays for in one category.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TeamKey {
    /// A province-level region by its two-digit code (`33`).
    Region(&'static str),
    /// Foreign players of one country (ISO 3166-1 alpha-3).
    Country(&'static str),
    /// The host city's own team.
    HostCity,
    /// A registered city team or entering unit, by its registered name.
    Registered(String),
}

impl fmt::Display for TeamKey {
    /// A stable id, also used as the awardee of a team prize.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeamKey::Region(code) => write!(f, "region:{code}"),
            TeamKey::Country(code) => write!(f, "country:{code}"),
            TeamKey::HostCity => write!(f, "host-city"),
            TeamKey::Registered(name) => write!(f, "registered:{name}"),
        }
    }
}

/// A team membership the registration service decided (an input to [`team_key`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeamMembership {
    /// Registered for the host city's own team.
    HostCity,
    /// Registered for a city team or by an entering unit, by its name.
    Registered(String),
}

/// Why a player cannot be placed in a team.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TeamKeyError {
    #[error("this team category has no host-city team")]
    NoHostCityTeam,
    #[error("this team category groups players by region; registered teams do not apply")]
    RegisteredTeamInRegionCategory,
    #[error("this team category has registered teams only; there is no host-city team")]
    HostCityInRegisteredCategory,
    #[error("a registered team needs a name")]
    EmptyTeamName,
    #[error("the player is listed more than once")]
    DuplicatePlayer,
}

/// The team a player plays for in a category (R-TEAM-2, R-TEAM-3, R-TEAM-4), or `None` when the
/// player plays as an individual only.
///
/// - Region grouping: a host-city member plays for the host city; anyone else for the region of
///   the resident ID's first two digits (83, the Taiwan residence-permit code, is the Taiwan team,
///   71), or for the passport's country.
/// - Registered grouping: the registered team, or none.
pub fn team_key(
    category: &TeamCategory,
    identity: &Identity,
    membership: Option<&TeamMembership>,
) -> Result<Option<TeamKey>, TeamKeyError> {
    let origin = match identity {
        Identity::Resident(id) => Origin::Region(id.region().code),
        Identity::Passport(p) => Origin::Country(p.nationality()),
    };
    team_key_of_origin(category, origin, membership)
}

/// Where a player comes from, as the registration service publishes it (the region code of the
/// resident ID, or the passport's country) — enough for a team without the ID number itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Region(&'static str),
    Country(&'static str),
}

impl Origin {
    /// The origin of a published region code (`"33"`) or, for foreigners, nationality (`"KOR"`).
    pub fn parse(region_code: &str, nationality: &str) -> Option<Origin> {
        if region_code.is_empty() {
            crate::nationality::by_code(nationality).map(Origin::Country)
        } else {
            crate::region::by_code(region_code).map(|r| Origin::Region(r.code))
        }
    }
}

/// [`team_key`] from a published [`Origin`].
pub fn team_key_of_origin(
    category: &TeamCategory,
    origin: Origin,
    membership: Option<&TeamMembership>,
) -> Result<Option<TeamKey>, TeamKeyError> {
    match (category.grouping, membership) {
        (TeamGrouping::Region, None) => Ok(Some(match origin {
            Origin::Region(code) => TeamKey::Region(if code == "83" { "71" } else { code }),
            Origin::Country(country) => TeamKey::Country(country),
        })),
        (TeamGrouping::Region, Some(TeamMembership::HostCity)) => {
            if category.host_city_team.is_some() {
                Ok(Some(TeamKey::HostCity))
            } else {
                Err(TeamKeyError::NoHostCityTeam)
            }
        }
        (TeamGrouping::Region, Some(TeamMembership::Registered(_))) => {
            Err(TeamKeyError::RegisteredTeamInRegionCategory)
        }
        (TeamGrouping::Registered, None) => Ok(None),
        (TeamGrouping::Registered, Some(TeamMembership::HostCity)) => {
            Err(TeamKeyError::HostCityInRegisteredCategory)
        }
        (TeamGrouping::Registered, Some(TeamMembership::Registered(name))) => {
            let name = name.trim();
            if name.is_empty() {
                Err(TeamKeyError::EmptyTeamName)
            } else {
                Ok(Some(TeamKey::Registered(name.to_owned())))
            }
        }
    }
}

/// A player to place in a team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamCandidate {
    pub player: String,
    pub identity: Identity,
    pub membership: Option<TeamMembership>,
}

/// The teams of one category: each player in at most one team.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TeamAssignment {
    pub teams: BTreeMap<String, TeamKey>,
    /// Players who play as individuals only (no registered team).
    pub individuals: Vec<String>,
    /// Players who could not be placed, with the reason.
    pub problems: Vec<(String, TeamKeyError)>,
}

/// Places every candidate with [`team_key`]. A player listed twice is a problem and is placed in
/// no team, since a player belongs to at most one team per category.
pub fn assign_teams(category: &TeamCategory, candidates: &[TeamCandidate]) -> TeamAssignment {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for c in candidates {
        *seen.entry(c.player.as_str()).or_default() += 1;
    }
    let mut out = TeamAssignment::default();
    let mut reported: BTreeSet<&str> = BTreeSet::new();
    for c in candidates {
        if seen.get(c.player.as_str()).copied().unwrap_or(0) > 1 {
            if reported.insert(c.player.as_str()) {
                out.problems
                    .push((c.player.clone(), TeamKeyError::DuplicatePlayer));
            }
            continue;
        }
        match team_key(category, &c.identity, c.membership.as_ref()) {
            Ok(Some(key)) => {
                out.teams.insert(c.player.clone(), key);
            }
            Ok(None) => out.individuals.push(c.player.clone()),
            Err(e) => out.problems.push((c.player.clone(), e)),
        }
    }
    out
}

/// A player's place in an individual ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndividualRank {
    pub player: String,
    /// 1-based; equal places are shared (1, 2, 2, 4).
    pub place: u32,
    pub sex: Sex,
}

/// The players of one sex in open-ranking order, renumbered: each place becomes 1 + the number of
/// players of that sex strictly ahead, so players sharing an open place share the new place
/// (R-TEAM-1 reading: the women's ranking is the women in open-ranking order, renumbered).
pub fn sex_ranking(open: &[IndividualRank], sex: Sex) -> Vec<IndividualRank> {
    let placed: Vec<Placed> = open
        .iter()
        .map(|r| Placed {
            id: r.player.clone(),
            place: r.place,
            sex: Some(r.sex),
            birth_date: None,
        })
        .collect();
    prize::renumbered(&placed, |p| p.sex == Some(sex))
        .into_iter()
        .map(|p| IndividualRank {
            player: p.id,
            place: p.place,
            sex,
        })
        .collect()
}

/// One player's row for [`team_standings`]: their place in one ranking and their team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRank {
    pub player: String,
    pub ranking: RankingRef,
    pub place: u32,
    pub sex: Sex,
    pub team: TeamKey,
}

/// The rows of one ranking for the players who have a team (others are left out).
pub fn member_ranks(
    ranking: &RankingRef,
    ranks: &[IndividualRank],
    teams: &BTreeMap<String, TeamKey>,
) -> Vec<MemberRank> {
    ranks
        .iter()
        .filter_map(|r| {
            teams.get(&r.player).map(|team| MemberRank {
                player: r.player.clone(),
                ranking: ranking.clone(),
                place: r.place,
                sex: r.sex,
                team: team.clone(),
            })
        })
        .collect()
}

/// A player whose place counts for the team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountedMember {
    pub player: String,
    pub ranking: RankingRef,
    pub place: u32,
}

/// A ranked (complete) team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamStanding {
    pub team: TeamKey,
    /// 1-based; equal (sum, best place) share the place.
    pub place: u32,
    /// Sum of the counted places (lower is better).
    pub sum: u64,
    /// The best counted individual place (the tie-break).
    pub best_place: u32,
    /// Exactly [`TeamCategory::members_counted`] members, by component then place.
    pub counted: Vec<CountedMember>,
    /// Whether the place is among those awarded (R-TEAM-5).
    pub awarded: bool,
}

/// A team with fewer players than the category counts: not ranked (R-TEAM-1 reading).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncompleteTeam {
    pub team: TeamKey,
    /// The players it has, by component then place.
    pub members: Vec<CountedMember>,
    /// How many more players it would need.
    pub missing: u32,
}

/// The standings of one team category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamStandings {
    /// By place, then team key.
    pub ranked: Vec<TeamStanding>,
    /// By team key.
    pub unranked: Vec<IncompleteTeam>,
    /// Places awarded (R-TEAM-5).
    pub places_awarded: u32,
}

/// Why team standings cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TeamError {
    #[error("{player:?} appears more than once in ranking {ranking}")]
    DuplicatePlayer { player: String, ranking: RankingRef },
    #[error(
        "{player:?} is listed for two teams; a player belongs to at most one team per category"
    )]
    PlayerInTwoTeams { player: String },
    #[error("{player:?} has place 0 in ranking {ranking}; places start at 1")]
    PlaceZero { player: String, ranking: RankingRef },
}

/// How many places a team event awards (R-TEAM-5), given the length of its prize table and the
/// number of ranked (complete) teams: the first small field that holds the teams caps it
/// (xiangqi-2022: ≤ 2 teams → 1, 3 teams → 2); beyond the small fields the table's length applies;
/// never more than there are teams.
pub fn places_awarded(small_fields: &[SmallField], table_places: u32, ranked_teams: u32) -> u32 {
    let cap = small_fields
        .iter()
        .find(|f| ranked_teams <= f.max_teams)
        .map_or(table_places, |f| f.places);
    cap.min(table_places).min(ranked_teams)
}

/// Team standings of one category (R-TEAM-1, R-TEAM-4, R-TEAM-5).
///
/// `rows` are players' places in the rankings the category counts, with their teams (see
/// [`member_ranks`]); rows of other rankings, or of a sex a component does not count, are ignored.
/// `table_places` is the length of the team event's prize table.
///
/// Each team counts, per component, its best `count` players of that sex by place in that ranking
/// (ties between its own players by player id; the sum is the same). The team score is the sum of
/// the counted places, lower first; a remaining tie goes to the better best individual place;
/// teams still tied share the place. A team lacking players in any component is not ranked.
/// Reading: a player counts at most once per team, in the first component that counts them.
/// Places awarded: [`places_awarded`] over the ranked teams; a team is awarded when its place is
/// within them (teams sharing the last awarded place are all awarded).
pub fn team_standings(
    category: &TeamCategory,
    rows: &[MemberRank],
    table_places: u32,
) -> Result<TeamStandings, TeamError> {
    // Validate: each player once per ranking, one team, places from 1.
    let mut team_of: BTreeMap<&str, &TeamKey> = BTreeMap::new();
    let mut seen: BTreeSet<(&str, &RankingRef)> = BTreeSet::new();
    for r in rows {
        if r.place == 0 {
            return Err(TeamError::PlaceZero {
                player: r.player.clone(),
                ranking: r.ranking.clone(),
            });
        }
        if !seen.insert((r.player.as_str(), &r.ranking)) {
            return Err(TeamError::DuplicatePlayer {
                player: r.player.clone(),
                ranking: r.ranking.clone(),
            });
        }
        if let Some(prev) = team_of.insert(r.player.as_str(), &r.team)
            && *prev != r.team
        {
            return Err(TeamError::PlayerInTwoTeams {
                player: r.player.clone(),
            });
        }
    }
    let mut sorted: Vec<&MemberRank> = rows.iter().collect();
    sorted.sort_by(|a, b| a.place.cmp(&b.place).then_with(|| a.player.cmp(&b.player)));
    let teams: BTreeSet<&TeamKey> = rows
        .iter()
        .filter(|r| {
            category
                .counted
                .iter()
                .any(|c| c.ranking == r.ranking && c.sex == r.sex)
        })
        .map(|r| &r.team)
        .collect();

    let mut complete: Vec<(TeamKey, u64, u32, Vec<CountedMember>)> = Vec::new();
    let mut unranked = Vec::new();
    for team in teams {
        let mut members: Vec<CountedMember> = Vec::new();
        let mut missing = 0u32;
        for component in &category.counted {
            let want = usize::try_from(component.count).unwrap_or(usize::MAX);
            let picked: Vec<CountedMember> = sorted
                .iter()
                .filter(|r| {
                    r.team == *team
                        && r.ranking == component.ranking
                        && r.sex == component.sex
                        && !members.iter().any(|m| m.player == r.player)
                })
                .take(want)
                .map(|r| CountedMember {
                    player: r.player.clone(),
                    ranking: r.ranking.clone(),
                    place: r.place,
                })
                .collect();
            let got = u32::try_from(picked.len()).unwrap_or(u32::MAX);
            missing += component.count.saturating_sub(got);
            members.extend(picked);
        }
        if missing > 0 {
            unranked.push(IncompleteTeam {
                team: team.clone(),
                members,
                missing,
            });
        } else {
            let sum: u64 = members.iter().map(|m| u64::from(m.place)).sum();
            let best = members.iter().map(|m| m.place).min().unwrap_or(u32::MAX);
            complete.push((team.clone(), sum, best, members));
        }
    }
    complete.sort_by(|a, b| (a.1, a.2, &a.0).cmp(&(b.1, b.2, &b.0)));
    let ranked_count = u32::try_from(complete.len()).unwrap_or(u32::MAX);
    let awarded_places = places_awarded(&category.small_fields, table_places, ranked_count);
    let mut ranked: Vec<TeamStanding> = Vec::with_capacity(complete.len());
    for (i, (team, sum, best_place, counted)) in complete.into_iter().enumerate() {
        let place = match ranked.last() {
            Some(prev) if prev.sum == sum && prev.best_place == best_place => prev.place,
            _ => u32::try_from(i + 1).unwrap_or(u32::MAX),
        };
        ranked.push(TeamStanding {
            team,
            place,
            sum,
            best_place,
            counted,
            awarded: place <= awarded_places,
        });
    }
    Ok(TeamStandings {
        ranked,
        unranked,
        places_awarded: awarded_places,
    })
}

/// The team prizes: the team event's table limited to the places awarded (R-TEAM-5), over the
/// ranked teams (awardee = the team key's id, e.g. `region:33`). Reading: when tied teams cover
/// places beyond those awarded, those places add nothing to their pool.
pub fn team_awards(standings: &TeamStandings, table: &PrizeTable) -> Result<AwardList, PrizeError> {
    let ranking: Vec<Placed> = standings
        .ranked
        .iter()
        .map(|t| Placed {
            id: t.team.to_string(),
            place: t.place,
            sex: None,
            birth_date: None,
        })
        .collect();
    prize::award_list(
        &table.limited_to(standings.places_awarded),
        &ranking,
        NaiveDate::MIN,
    )
}

// ---------------------------------------------------------------------------------------------
// Preset section `[[teams]]`
// ---------------------------------------------------------------------------------------------

/// One `[[teams]]` entry of a preset file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TeamCategoryFile {
    pub(crate) event: String,
    /// `region` | `registered`
    pub(crate) grouping: String,
    pub(crate) host_city_team: Option<String>,
    pub(crate) counted: Vec<CountedPlayersFile>,
    #[serde(default)]
    pub(crate) small_fields: Vec<SmallFieldFile>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CountedPlayersFile {
    pub(crate) event: String,
    pub(crate) ranking: String,
    /// `male` | `female`
    pub(crate) sex: String,
    pub(crate) count: i64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SmallFieldFile {
    pub(crate) max_teams: i64,
    pub(crate) places: i64,
}

/// Validates one `[[teams]]` entry, reporting every problem under `path` (e.g. `teams[1]`).
pub(crate) fn check_team_category(
    file: &TeamCategoryFile,
    path: &str,
    c: &mut Checker,
) -> Option<TeamCategory> {
    let errors_before = c.0.len();
    let p = |field: &str| format!("{path}.{field}");
    c.non_empty(&p("event"), &file.event);
    let grouping = match file.grouping.as_str() {
        "region" => Some(TeamGrouping::Region),
        "registered" => Some(TeamGrouping::Registered),
        other => {
            c.err(
                p("grouping"),
                format!("{other:?} is not one of region, registered"),
            );
            None
        }
    };
    if let Some(host) = &file.host_city_team {
        c.non_empty(&p("host_city_team"), host);
        if grouping == Some(TeamGrouping::Registered) {
            c.err(
                p("host_city_team"),
                "only a region grouping has a host-city team",
            );
        }
    }
    if file.counted.is_empty() {
        c.err(p("counted"), "must count at least one group of players");
    }
    let mut counted = Vec::with_capacity(file.counted.len());
    let mut total: i64 = 0;
    for (i, f) in file.counted.iter().enumerate() {
        let q = |field: &str| format!("{path}.counted[{i}].{field}");
        c.non_empty(&q("event"), &f.event);
        c.non_empty(&q("ranking"), &f.ranking);
        let sex = match f.sex.as_str() {
            "male" => Some(Sex::Male),
            "female" => Some(Sex::Female),
            other => {
                c.err(q("sex"), format!("{other:?} is not one of male, female"));
                None
            }
        };
        c.positive(&q("count"), f.count);
        total = total.saturating_add(f.count.max(0));
        if file.counted[..i]
            .iter()
            .any(|prev| prev.event == f.event && prev.ranking == f.ranking && prev.sex == f.sex)
        {
            c.err(
                format!("{path}.counted[{i}]"),
                "counts the same ranking and sex twice",
            );
        }
        if let (Some(sex), Ok(count)) = (sex, u32::try_from(f.count)) {
            counted.push(CountedPlayers {
                ranking: RankingRef::new(&f.event, &f.ranking),
                sex,
                count,
            });
        }
    }
    if total > i64::from(MAX_COUNTED) {
        c.err(
            p("counted"),
            format!("a team may count at most {MAX_COUNTED} players"),
        );
    }
    let mut small_fields = Vec::with_capacity(file.small_fields.len());
    for (i, f) in file.small_fields.iter().enumerate() {
        let q = |field: &str| format!("{path}.small_fields[{i}].{field}");
        c.positive(&q("max_teams"), f.max_teams);
        c.positive(&q("places"), f.places);
        if f.places > f.max_teams && f.max_teams > 0 {
            c.err(q("places"), "must not exceed max_teams");
        }
        if i > 0 && f.max_teams <= file.small_fields[i - 1].max_teams {
            c.err(
                q("max_teams"),
                "must be greater than the previous small field's",
            );
        }
        if let (Ok(max_teams), Ok(places)) = (u32::try_from(f.max_teams), u32::try_from(f.places)) {
            small_fields.push(SmallField { max_teams, places });
        }
    }
    if c.0.len() > errors_before {
        return None;
    }
    Some(TeamCategory {
        event: file.event.clone(),
        grouping: grouping?,
        host_city_team: file.host_city_team.clone(),
        counted,
        small_fields,
    })
}

/// Validates the `[[teams]]` array (`path` is `teams`): every entry, one entry per team event.
pub(crate) fn check_teams(
    files: &[TeamCategoryFile],
    path: &str,
    c: &mut Checker,
) -> Option<Vec<TeamCategory>> {
    let mut out = Vec::with_capacity(files.len());
    let mut ok = true;
    for (i, f) in files.iter().enumerate() {
        let here = format!("{path}[{i}]");
        if files[..i].iter().any(|prev| prev.event == f.event) {
            c.err(
                format!("{here}.event"),
                format!("{:?} already has a team category", f.event),
            );
            ok = false;
        }
        match check_team_category(f, &here, c) {
            Some(t) => out.push(t),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// Cross-checks validated team categories against the preset's events and prize tables:
/// the team event and every counted ranking's event exist; every counted ranking is one a prize
/// table names (Reading: ranking codes are those of `[[prizes]]`, so a misspelt ranking is caught);
/// the team event has a `team` prize table that admits everyone (teams have no sex or age).
pub(crate) fn check_teams_against(
    teams: &[TeamCategory],
    events: &[Event],
    prizes: &[PrizeTable],
    path: &str,
    c: &mut Checker,
) {
    let known_event = |code: &str| events.iter().any(|e| e.code == code);
    for (i, t) in teams.iter().enumerate() {
        if !known_event(&t.event) {
            c.err(
                format!("{path}[{i}].event"),
                format!("{:?} is not an event of this preset", t.event),
            );
        }
        match prize::find_table(prizes, &t.event, TEAM_RANKING) {
            None => c.err(
                format!("{path}[{i}].event"),
                format!(
                    "no [[prizes]] table with event = {:?} and ranking = {TEAM_RANKING:?}",
                    t.event
                ),
            ),
            Some(table)
                if table.eligible.sex != EventSex::Open || table.eligible.min_age.is_some() =>
            {
                c.err(
                    format!("{path}[{i}].event"),
                    "the team prize table must admit every team (sex = \"open\", no min_age)",
                )
            }
            Some(_) => {}
        }
        for (j, comp) in t.counted.iter().enumerate() {
            if !known_event(&comp.ranking.event) {
                c.err(
                    format!("{path}[{i}].counted[{j}].event"),
                    format!("{:?} is not an event of this preset", comp.ranking.event),
                );
            } else if prize::find_table(prizes, &comp.ranking.event, &comp.ranking.ranking)
                .is_none()
            {
                c.err(
                    format!("{path}[{i}].counted[{j}].ranking"),
                    format!(
                        "no [[prizes]] table names ranking {:?} of event {:?}",
                        comp.ranking.ranking, comp.ranking.event
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{Passport, ResidentId, resident_id_check_char};
    use crate::prize::tests::tables;
    use proptest::prelude::*;

    /// A valid resident ID from its first 17 digits.
    fn resident(first17: &str) -> Identity {
        let mut d = [0u32; 17];
        for (slot, c) in d.iter_mut().zip(first17.chars()) {
            *slot = c.to_digit(10).expect("digit");
        }
        let id = format!("{first17}{}", resident_id_check_char(&d));
        Identity::Resident(ResidentId::parse(&id).expect("valid id"))
    }

    /// The team categories of an official preset.
    fn categories(preset: &str) -> Vec<TeamCategory> {
        crate::advancement::tests::official(preset).teams.clone()
    }

    fn category<'a>(cats: &'a [TeamCategory], event: &str) -> &'a TeamCategory {
        cats.iter().find(|c| c.event == event).expect("category")
    }

    fn open() -> RankingRef {
        RankingRef::new("men-individual", "open")
    }

    fn region(code: &'static str) -> TeamKey {
        TeamKey::Region(code)
    }

    fn row(player: &str, place: u32, sex: Sex, team: TeamKey) -> MemberRank {
        MemberRank {
            player: player.to_owned(),
            ranking: open(),
            place,
            sex,
            team,
        }
    }

    fn men_team() -> TeamCategory {
        category(&categories("go-2015"), "men-team").clone()
    }

    fn summary(s: &TeamStandings) -> Vec<(String, u32, u64, u32, bool)> {
        s.ranked
            .iter()
            .map(|t| (t.team.to_string(), t.place, t.sum, t.best_place, t.awarded))
            .collect()
    }

    #[test]
    fn r_team_1_men_team_is_the_sum_of_its_best_3_places_lower_first() {
        let rows = vec![
            // Zhejiang: 1, 5, 9, 20 → best 3 sum 15.
            row("z1", 1, Sex::Male, region("33")),
            row("z2", 5, Sex::Male, region("33")),
            row("z3", 9, Sex::Male, region("33")),
            row("z4", 20, Sex::Male, region("33")),
            // Beijing: 2, 3, 4 → 9.
            row("b1", 2, Sex::Male, region("11")),
            row("b2", 3, Sex::Male, region("11")),
            row("b3", 4, Sex::Male, region("11")),
            // Shanghai: 6, 7, 8 → 21, plus a woman who does not count for a men's team.
            row("s1", 6, Sex::Male, region("31")),
            row("s2", 7, Sex::Male, region("31")),
            row("s3", 8, Sex::Male, region("31")),
            row("sw", 10, Sex::Female, region("31")),
            // Korea: 11, 12, 13 → 36.
            row("k1", 11, Sex::Male, TeamKey::Country("KOR")),
            row("k2", 12, Sex::Male, TeamKey::Country("KOR")),
            row("k3", 13, Sex::Male, TeamKey::Country("KOR")),
        ];
        let s = team_standings(&men_team(), &rows, 6).expect("valid");
        assert_eq!(
            summary(&s),
            [
                ("region:11".into(), 1, 9, 2, true),
                ("region:33".into(), 2, 15, 1, true),
                ("region:31".into(), 3, 21, 6, true),
                ("country:KOR".into(), 4, 36, 11, true),
            ]
        );
        let zj = &s.ranked[1];
        assert_eq!(
            zj.counted
                .iter()
                .map(|m| (m.player.as_str(), m.place))
                .collect::<Vec<_>>(),
            [("z1", 1), ("z2", 5), ("z3", 9)]
        );
        assert!(s.ranked.iter().all(|t| t.counted.len() == 3));
        assert_eq!(s.places_awarded, 4);
    }

    #[test]
    fn r_team_1_ties_go_to_the_best_individual_place_then_share_the_place() {
        let rows = vec![
            // A: 2 + 7 + 9 = 18, best 2. B: 1 + 8 + 9 = 18, best 1 → B ahead of A.
            row("a1", 2, Sex::Male, region("33")),
            row("a2", 7, Sex::Male, region("33")),
            row("a3", 9, Sex::Male, region("33")),
            row("b1", 1, Sex::Male, region("11")),
            row("b2", 8, Sex::Male, region("11")),
            row("b3", 9, Sex::Male, region("11")),
            // C: 3 + 6 + 10 = 19, best 3; D: 3 + 5 + 11 = 19, best 3 → share 3rd; E is 5th.
            row("c1", 3, Sex::Male, region("44")),
            row("c2", 6, Sex::Male, region("44")),
            row("c3", 10, Sex::Male, region("44")),
            row("d1", 3, Sex::Male, region("32")),
            row("d2", 5, Sex::Male, region("32")),
            row("d3", 11, Sex::Male, region("32")),
            row("e1", 12, Sex::Male, region("37")),
            row("e2", 13, Sex::Male, region("37")),
            row("e3", 14, Sex::Male, region("37")),
        ];
        let s = team_standings(&men_team(), &rows, 6).expect("valid");
        assert_eq!(
            summary(&s),
            [
                ("region:11".into(), 1, 18, 1, true),
                ("region:33".into(), 2, 18, 2, true),
                ("region:32".into(), 3, 19, 3, true),
                ("region:44".into(), 3, 19, 3, true),
                ("region:37".into(), 5, 39, 12, true),
            ]
        );
        // The prizes: xiangqi-2015 men's team, 3rd and 4th shared: (6000 + 3000) / 2 each.
        let prizes = tables("xiangqi-2015");
        let table = prize::find_table(&prizes, "men-team", TEAM_RANKING).expect("table");
        let list = team_awards(&s, table).expect("valid");
        let yuan = |id: &str| list.awards_of(id).map(|a| a.yuan).sum::<i64>();
        assert_eq!((yuan("region:11"), yuan("region:33")), (12000, 9000));
        assert_eq!((yuan("region:32"), yuan("region:44")), (4500, 4500));
        assert_eq!(yuan("region:37"), 3000);
    }

    #[test]
    fn r_team_1_a_team_with_too_few_players_is_not_ranked() {
        let rows = vec![
            row("a1", 1, Sex::Male, region("33")),
            row("a2", 2, Sex::Male, region("33")),
            row("aw", 3, Sex::Female, region("33")),
            row("b1", 4, Sex::Male, region("11")),
            row("b2", 5, Sex::Male, region("11")),
            row("b3", 6, Sex::Male, region("11")),
        ];
        let s = team_standings(&men_team(), &rows, 6).expect("valid");
        assert_eq!(summary(&s), [("region:11".into(), 1, 15, 4, true)]);
        assert_eq!(s.unranked.len(), 1);
        assert_eq!(
            (&s.unranked[0].team, s.unranked[0].missing),
            (&region("33"), 1)
        );
        assert_eq!(s.unranked[0].members.len(), 2);
        assert_eq!(s.places_awarded, 1);
    }

    #[test]
    fn r_team_1_the_womens_ranking_is_the_women_in_open_order_renumbered() {
        let open_ranking = vec![
            IndividualRank {
                player: "m1".into(),
                place: 1,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "w1".into(),
                place: 2,
                sex: Sex::Female,
            },
            IndividualRank {
                player: "m2".into(),
                place: 3,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "w2".into(),
                place: 4,
                sex: Sex::Female,
            },
            IndividualRank {
                player: "w3".into(),
                place: 4,
                sex: Sex::Female,
            },
            IndividualRank {
                player: "m3".into(),
                place: 4,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "w4".into(),
                place: 7,
                sex: Sex::Female,
            },
        ];
        let women = sex_ranking(&open_ranking, Sex::Female);
        assert_eq!(
            women
                .iter()
                .map(|r| (r.player.as_str(), r.place))
                .collect::<Vec<_>>(),
            [("w1", 1), ("w2", 2), ("w3", 2), ("w4", 4)]
        );
        let men = sex_ranking(&open_ranking, Sex::Male);
        assert_eq!(
            men.iter()
                .map(|r| (r.player.as_str(), r.place))
                .collect::<Vec<_>>(),
            [("m1", 1), ("m2", 2), ("m3", 3)]
        );
        // Women's teams count women's-ranking places: Zhejiang 1 + 2 = 3, Beijing 2 + 4 = 6.
        let cats = categories("go-2015");
        let women_team = category(&cats, "women-team");
        let teams: BTreeMap<String, TeamKey> = [
            ("w1", region("33")),
            ("w2", region("11")),
            ("w3", region("33")),
            ("w4", region("11")),
            ("m1", region("33")),
        ]
        .into_iter()
        .map(|(p, t)| (p.to_owned(), t))
        .collect();
        let rows = member_ranks(
            &RankingRef::new("women-individual", "women"),
            &women,
            &teams,
        );
        let s = team_standings(women_team, &rows, 6).expect("valid");
        assert_eq!(
            summary(&s),
            [
                ("region:33".into(), 1, 3, 1, true),
                ("region:11".into(), 2, 6, 2, false)
            ]
        );
        assert_eq!(
            s.places_awarded, 1,
            "two ranked teams: the champion only (R-TEAM-5)"
        );
        // Open-ranking rows do not count for the women's team.
        let open_rows = member_ranks(&open(), &open_ranking, &teams);
        assert!(
            team_standings(women_team, &open_rows, 6)
                .expect("valid")
                .ranked
                .is_empty()
        );
    }

    #[test]
    fn r_team_2_regions_countries_and_the_host_city_team() {
        let cat = men_team();
        assert_eq!(cat.host_city_team.as_deref(), Some("杭州市"));
        let hangzhou = resident("33010619900101001");
        assert_eq!(team_key(&cat, &hangzhou, None), Ok(Some(region("33"))));
        assert_eq!(
            team_key(&cat, &hangzhou, Some(&TeamMembership::HostCity)),
            Ok(Some(TeamKey::HostCity))
        );
        let korean = Identity::Passport(Passport::parse("M1234567", "KOR").expect("valid"));
        assert_eq!(
            team_key(&cat, &korean, None),
            Ok(Some(TeamKey::Country("KOR")))
        );
        for (first17, code) in [
            ("71000019900101001", "71"),
            ("83000019900101001", "71"),
            ("81000019900101001", "81"),
            ("82000019900101001", "82"),
            ("65010019900101001", "65"),
        ] {
            assert_eq!(
                team_key(&cat, &resident(first17), None),
                Ok(Some(region(code))),
                "{first17}"
            );
        }
        // 2022 has no host-city team.
        let cats = categories("xiangqi-2022");
        let men_2022 = category(&cats, "men-team");
        assert_eq!(
            team_key(men_2022, &hangzhou, Some(&TeamMembership::HostCity)),
            Err(TeamKeyError::NoHostCityTeam)
        );
        assert_eq!(
            team_key(
                men_2022,
                &hangzhou,
                Some(&TeamMembership::Registered("杭州".into()))
            ),
            Err(TeamKeyError::RegisteredTeamInRegionCategory)
        );
        assert_eq!(TeamKey::HostCity.to_string(), "host-city");
    }

    #[test]
    fn r_team_2_a_player_belongs_to_at_most_one_team_per_category() {
        let cat = men_team();
        let candidates = vec![
            TeamCandidate {
                player: "a".into(),
                identity: resident("33010619900101001"),
                membership: None,
            },
            TeamCandidate {
                player: "b".into(),
                identity: resident("11010519900101001"),
                membership: Some(TeamMembership::HostCity),
            },
            TeamCandidate {
                player: "a".into(),
                identity: resident("33010619900101001"),
                membership: Some(TeamMembership::HostCity),
            },
        ];
        let out = assign_teams(&cat, &candidates);
        assert_eq!(out.teams.len(), 1);
        assert_eq!(out.teams.get("b"), Some(&TeamKey::HostCity));
        assert_eq!(
            out.problems,
            [("a".to_owned(), TeamKeyError::DuplicatePlayer)]
        );
        let rows = vec![
            row("x", 1, Sex::Male, region("33")),
            MemberRank {
                ranking: RankingRef::new("women-individual", "women"),
                ..row("x", 1, Sex::Male, region("11"))
            },
        ];
        assert_eq!(
            team_standings(&cat, &rows, 6),
            Err(TeamError::PlayerInTwoTeams { player: "x".into() })
        );
        let twice = vec![
            row("x", 1, Sex::Male, region("33")),
            row("x", 2, Sex::Male, region("33")),
        ];
        assert_eq!(
            team_standings(&cat, &twice, 6),
            Err(TeamError::DuplicatePlayer {
                player: "x".into(),
                ranking: open()
            })
        );
        let zero = vec![row("x", 0, Sex::Male, region("33"))];
        assert_eq!(
            team_standings(&cat, &zero, 6),
            Err(TeamError::PlaceZero {
                player: "x".into(),
                ranking: open()
            })
        );
    }

    #[test]
    fn r_team_3_the_region_comes_from_the_first_two_digits_of_the_resident_id() {
        let cats = categories("xiangqi-2022");
        let cat = category(&cats, "women-team");
        assert_eq!(
            team_key(cat, &resident("11010519491231002"), None),
            Ok(Some(region("11")))
        );
        assert_eq!(
            team_key(cat, &resident("33010619900101002"), None),
            Ok(Some(region("33")))
        );
        assert_eq!(cat.grouping, TeamGrouping::Region);
    }

    #[test]
    fn r_team_4_xiangqi_2022_youth_team_is_3_boys_and_2_girls_of_an_entering_unit() {
        let cats = categories("xiangqi-2022");
        let youth = category(&cats, "youth");
        assert_eq!(youth.grouping, TeamGrouping::Registered);
        assert_eq!(youth.members_counted(), 5);
        let unit = |n: &str| TeamKey::Registered(n.to_owned());
        // The youth ranking (boys' table is open): a girl g1 is 2nd.
        let youth_open = vec![
            IndividualRank {
                player: "b1".into(),
                place: 1,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "g1".into(),
                place: 2,
                sex: Sex::Female,
            },
            IndividualRank {
                player: "b2".into(),
                place: 3,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "b3".into(),
                place: 4,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "g2".into(),
                place: 5,
                sex: Sex::Female,
            },
            IndividualRank {
                player: "b4".into(),
                place: 6,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "c1".into(),
                place: 7,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "c2".into(),
                place: 8,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "c3".into(),
                place: 9,
                sex: Sex::Male,
            },
            IndividualRank {
                player: "cg1".into(),
                place: 10,
                sex: Sex::Female,
            },
        ];
        let girls = sex_ranking(&youth_open, Sex::Female);
        let teams: BTreeMap<String, TeamKey> = [
            ("b1", "unit-a"),
            ("g1", "unit-a"),
            ("b2", "unit-a"),
            ("b3", "unit-a"),
            ("g2", "unit-a"),
            ("b4", "unit-a"),
            ("c1", "unit-b"),
            ("c2", "unit-b"),
            ("c3", "unit-b"),
            ("cg1", "unit-b"),
        ]
        .into_iter()
        .map(|(p, t)| (p.to_owned(), unit(t)))
        .collect();
        let mut rows = member_ranks(&RankingRef::new("youth", "boys"), &youth_open, &teams);
        rows.extend(member_ranks(
            &RankingRef::new("youth", "girls"),
            &girls,
            &teams,
        ));
        let s = team_standings(youth, &rows, 6).expect("valid");
        // unit-a: boys 1 + 3 + 4, girls 1 + 2 → 11. unit-b has one girl: not ranked.
        assert_eq!(summary(&s), [("registered:unit-a".into(), 1, 11, 1, true)]);
        assert_eq!(s.ranked[0].counted.len(), 5);
        assert_eq!(
            s.ranked[0]
                .counted
                .iter()
                .map(|m| (m.player.as_str(), m.ranking.ranking.as_str(), m.place))
                .collect::<Vec<_>>(),
            [
                ("b1", "boys", 1),
                ("b2", "boys", 3),
                ("b3", "boys", 4),
                ("g1", "girls", 1),
                ("g2", "girls", 2)
            ]
        );
        assert_eq!((s.unranked.len(), s.unranked[0].missing), (1, 1));
    }

    #[test]
    fn r_team_4_go_2025_teams_are_the_registered_city_teams() {
        let cats = categories("go-2025");
        let men = category(&cats, "men-team");
        assert_eq!(men.grouping, TeamGrouping::Registered);
        let p = resident("33010619900101001");
        assert_eq!(
            team_key(men, &p, None),
            Ok(None),
            "no city team: plays as an individual"
        );
        assert_eq!(
            team_key(
                men,
                &p,
                Some(&TeamMembership::Registered(" 淳安县 ".into()))
            ),
            Ok(Some(TeamKey::Registered("淳安县".into())))
        );
        assert_eq!(
            team_key(men, &p, Some(&TeamMembership::Registered(" ".into()))),
            Err(TeamKeyError::EmptyTeamName)
        );
        assert_eq!(
            team_key(men, &p, Some(&TeamMembership::HostCity)),
            Err(TeamKeyError::HostCityInRegisteredCategory)
        );
        let out = assign_teams(
            men,
            &[TeamCandidate {
                player: "a".into(),
                identity: p,
                membership: None,
            }],
        );
        assert_eq!(out.individuals, ["a"]);
    }

    #[test]
    fn r_team_5_places_awarded_by_the_number_of_ranked_teams() {
        let cats = categories("xiangqi-2022");
        let small = &category(&cats, "men-team").small_fields;
        let six: Vec<u32> = (0..=8).map(|n| places_awarded(small, 6, n)).collect();
        assert_eq!(six, [0, 1, 1, 2, 4, 5, 6, 6, 6]);
        let three: Vec<u32> = (0..=5).map(|n| places_awarded(small, 3, n)).collect();
        assert_eq!(three, [0, 1, 1, 2, 3, 3]);
        assert_eq!(places_awarded(&[], 6, 3), 3);
    }

    #[test]
    fn r_team_5_three_teams_award_the_top_two_and_incomplete_teams_do_not_count() {
        let mut rows = Vec::new();
        for (t, code) in ["33", "11", "31"].iter().enumerate() {
            for k in 0..3u32 {
                rows.push(row(
                    &format!("{code}-{k}"),
                    1 + t as u32 + 3 * k,
                    Sex::Male,
                    region(code),
                ));
            }
        }
        // A fourth, incomplete team does not lift the count to 4.
        rows.push(row("44-0", 20, Sex::Male, region("44")));
        let cats = categories("xiangqi-2022");
        let s = team_standings(category(&cats, "men-team"), &rows, 6).expect("valid");
        assert_eq!(s.places_awarded, 2);
        assert_eq!(
            s.ranked.iter().map(|t| t.awarded).collect::<Vec<_>>(),
            [true, true, false]
        );
        let prizes = tables("xiangqi-2022");
        let table = prize::find_table(&prizes, "men-team", TEAM_RANKING).expect("table");
        let list = team_awards(&s, table).expect("valid");
        assert_eq!(
            list.awards
                .iter()
                .map(|a| (a.awardee.as_str(), a.yuan))
                .collect::<Vec<_>>(),
            [("region:33", 12000), ("region:11", 9000)]
        );
        // Two teams tied for 2nd of 2 awarded places: places beyond the awarded add nothing.
        let mut tied = s.clone();
        tied.ranked[2].place = 2;
        let list = team_awards(&tied, table).expect("valid");
        assert_eq!(
            list.awards
                .iter()
                .map(|a| (a.awardee.as_str(), a.yuan))
                .collect::<Vec<_>>(),
            [
                ("region:33", 12000),
                ("region:11", 4500),
                ("region:31", 4500)
            ]
        );
    }

    #[test]
    fn r_team_1_snippets_pass_the_cross_checks() {
        for name in [
            "go-2015",
            "xiangqi-2015",
            "chess-2015",
            "xiangqi-2022",
            "go-2025",
        ] {
            let preset = crate::preset::official_by_name(name)
                .expect("known")
                .expect("valid");
            let mut c = Checker::new();
            check_teams_against(
                &categories(name),
                &preset.events,
                &tables(name),
                "teams",
                &mut c,
            );
            assert!(c.0.is_empty(), "{name}: {:?}", c.0);
        }
    }

    #[test]
    fn r_team_1_a_bad_team_section_reports_every_error_with_its_path() {
        let text = r#"
            [[teams]]
            event = ""
            grouping = "province"
            host_city_team = ""
            counted = []
            small_fields = [{ max_teams = 3, places = 4 }, { max_teams = 2, places = 0 }]
            [[teams]]
            event = "youth"
            grouping = "registered"
            host_city_team = "杭州市"
            counted = [
              { event = "youth", ranking = "boys", sex = "boys", count = 0 },
              { event = "youth", ranking = "boys", sex = "boys", count = 3 },
            ]
            [[teams]]
            event = "youth"
            grouping = "region"
            counted = [{ event = "", ranking = "", sex = "male", count = 101 }]
        "#;
        #[derive(Deserialize)]
        struct OnlyTeams {
            teams: Vec<TeamCategoryFile>,
        }
        let f: OnlyTeams = toml::from_str(text).expect("toml");
        let mut c = Checker::new();
        assert!(check_teams(&f.teams, "teams", &mut c).is_none());
        let rendered: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        let expected = [
            "teams[0].event: must not be empty",
            "teams[0].grouping: \"province\" is not one of region, registered",
            "teams[0].host_city_team: must not be empty",
            "teams[0].counted: must count at least one group of players",
            "teams[0].small_fields[0].places: must not exceed max_teams",
            "teams[0].small_fields[1].places: must be > 0",
            "teams[0].small_fields[1].max_teams: must be greater than the previous small field's",
            "teams[1].host_city_team: only a region grouping has a host-city team",
            "teams[1].counted[0].sex: \"boys\" is not one of male, female",
            "teams[1].counted[0].count: must be > 0",
            "teams[1].counted[1].sex: \"boys\" is not one of male, female",
            "teams[1].counted[1]: counts the same ranking and sex twice",
            "teams[2].event: \"youth\" already has a team category",
            "teams[2].counted[0].event: must not be empty",
            "teams[2].counted[0].ranking: must not be empty",
            "teams[2].counted: a team may count at most 100 players",
        ];
        assert_eq!(rendered, expected);
        // Cross-checks: unknown events, a missing team table, an unknown ranking.
        let preset = crate::preset::official_by_name("go-2025")
            .expect("known")
            .expect("valid");
        let mut cats = categories("go-2025");
        cats[0].event = "relay".into();
        cats[1].counted[0].ranking.ranking = "ladies".into();
        let mut c = Checker::new();
        check_teams_against(&cats, &preset.events, &tables("go-2025"), "teams", &mut c);
        let rendered: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            rendered,
            [
                "teams[0].event: \"relay\" is not an event of this preset",
                "teams[0].event: no [[prizes]] table with event = \"relay\" and ranking = \"team\"",
                "teams[1].counted[0].ranking: no [[prizes]] table names ranking \"ladies\" of event \"women-individual\"",
            ]
        );
    }

    /// Rows for a random field: (team index, sex, place) with places in competition form.
    fn arb_rows() -> impl Strategy<Value = Vec<MemberRank>> {
        proptest::collection::vec((0usize..6, any::<bool>(), 1usize..3), 0..40).prop_map(|spec| {
            let codes = ["11", "12", "13", "14", "15", "21"];
            let mut rows = Vec::new();
            let mut ahead = 0u32;
            for (i, (team, male, group)) in spec.into_iter().enumerate() {
                for k in 0..group {
                    rows.push(MemberRank {
                        player: format!("p{i}-{k}"),
                        ranking: RankingRef::new("men-individual", "open"),
                        place: ahead + 1,
                        sex: if male { Sex::Male } else { Sex::Female },
                        team: TeamKey::Region(codes[team]),
                    });
                }
                ahead += group as u32;
            }
            rows
        })
    }

    proptest! {
        #[test]
        fn r_team_1_sums_use_exactly_n_members_and_ranking_ignores_input_order(
            rows in arb_rows(),
            seed in any::<u64>(),
        ) {
            let cat = men_team();
            let s = team_standings(&cat, &rows, 6).expect("valid");
            for t in &s.ranked {
                prop_assert_eq!(t.counted.len(), 3);
                prop_assert_eq!(t.sum, t.counted.iter().map(|m| u64::from(m.place)).sum::<u64>());
                // The counted are the team's 3 best men.
                let mut places: Vec<u32> = rows.iter().filter(|r| r.team == t.team && r.sex == Sex::Male).map(|r| r.place).collect();
                places.sort_unstable();
                prop_assert_eq!(t.sum, places.iter().take(3).map(|&p| u64::from(p)).sum::<u64>());
            }
            for t in &s.unranked {
                prop_assert!(t.members.len() < 3 && t.missing > 0);
            }
            for w in s.ranked.windows(2) {
                prop_assert!((w[0].sum, w[0].best_place) <= (w[1].sum, w[1].best_place));
                prop_assert_eq!(w[0].place == w[1].place, (w[0].sum, w[0].best_place) == (w[1].sum, w[1].best_place));
            }
            // Shuffle deterministically by the seed.
            let mut shuffled = rows.clone();
            let mut x = seed | 1;
            for i in (1..shuffled.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                shuffled.swap(i, (x % (i as u64 + 1)) as usize);
            }
            prop_assert_eq!(team_standings(&cat, &shuffled, 6).expect("valid"), s);
        }
    }
}
