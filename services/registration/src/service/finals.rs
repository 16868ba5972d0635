//! Entering the final's offline groups with approval (R-REG-5, R-REG-8), city-team rosters
//! (R-REG-9, R-TEAM-4) and the offline service fee (R-REG-7): the shell around
//! `qiwang_core::entry::judge_final_entry` and `qiwang_core::finals`.
//!
//! Readings:
//! - A direct entry is judged when it is made (window, bar list, sex, inclusive birth window,
//!   certificate) and then waits for an organizer; a rejection needs a reason. One entry per player
//!   per event.
//! - A city registers one roster; on a side with too many players the first ones in roster order
//!   form the team, and the rest play as individuals (issue 8's reading of "超过可以以个人名义参赛").
//! - The fee is due from the preset; an organizer records a payment (with its reference) or a waiver
//!   (with a reason), then the attendance; the refund follows `finals::refund_due`.

use qiwang_core::entry::{FinalEntryAttempt, judge_final_entry};
use qiwang_core::finals::{self, Attendance};

use super::*;
use crate::entity::finals::{city_team, fee, final_entry, team_member};
use crate::error::precondition;

fn final_entry_pb(e: &final_entry::Model) -> pb::FinalEntry {
    pb::FinalEntry {
        id: e.id.clone(),
        championship_id: e.championship_id.clone(),
        event: e.event.clone(),
        player_id: e.player_id.clone(),
        unit: e.unit.clone(),
        holds_certificate: e.holds_certificate,
        status: match e.status.as_str() {
            "PENDING" => pb::FinalEntryStatus::Pending,
            "APPROVED" => pb::FinalEntryStatus::Approved,
            "REJECTED" => pb::FinalEntryStatus::Rejected,
            _ => pb::FinalEntryStatus::Unspecified,
        }
        .into(),
        reason: e.reason.clone(),
        entered_at: Some(timestamp(e.entered_at)),
    }
}

fn fee_pb(f: &fee::Model) -> pb::Fee {
    pb::Fee {
        championship_id: f.championship_id.clone(),
        player_id: f.player_id.clone(),
        due_yuan: f.due_yuan,
        paid_yuan: f.paid_yuan,
        status: match f.status.as_str() {
            "PAID" => pb::FeeStatus::Paid,
            "WAIVED" => pb::FeeStatus::Waived,
            _ => pb::FeeStatus::Due,
        }
        .into(),
        payment_ref: f.payment_ref.clone(),
        attendance: match f.attendance.as_str() {
            "PLAYED" => pb::Attendance::Played,
            "NO_SHOW" => pb::Attendance::NoShow,
            "EXCUSED" => pb::Attendance::Excused,
            _ => pb::Attendance::Unspecified,
        }
        .into(),
        refund_yuan: f.refund_yuan,
    }
}

fn team_pb(t: &city_team::Model, members: &[team_member::Model]) -> pb::CityTeam {
    pb::CityTeam {
        id: t.id.clone(),
        championship_id: t.championship_id.clone(),
        city: t.city.clone(),
        men_team: t.men_team,
        women_team: t.women_team,
        members: members
            .iter()
            .map(|m| pb::CityTeamMember {
                player_id: m.player_id.clone(),
                sex: sex_to_pb(&m.sex).into(),
                counted: m.counted,
            })
            .collect(),
    }
}

impl RegistrationApi {
    pub(super) async fn enter_final_event_impl(
        &self,
        caller: Caller,
        req: pb::EnterFinalEventRequest,
    ) -> Result<pb::FinalEntry> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        if caller.is(Role::Player) && !caller.is_player(&req.player_id) {
            return Err(RegistrationError::PermissionDenied(
                "a player may enter only themself".into(),
            ));
        }
        if req.unit.trim().is_empty() {
            return Err(invalid("unit", "the entering unit (报名单位) is required"));
        }
        let (champ, preset) = self.championship(&req.championship_id).await?;
        let row = self.player(&req.player_id).await?;
        let sex = sex_from_code(&row.sex)
            .ok_or_else(|| RegistrationError::NotFound(format!("sex of player {}", row.id)))?;
        let on_bar_list =
            bar::Entity::find_by_id((preset.game.code().to_owned(), row.identity_key.clone()))
                .one(&self.db)
                .await?
                .is_some();
        let now = self.now();
        let holds_certificate = !req.certificate_ref.trim().is_empty();
        judge_final_entry(&FinalEntryAttempt {
            preset: &preset,
            event_code: &req.event,
            now,
            sex,
            birth_date: row.birth_date,
            on_bar_list,
            foreign: row.id_kind == "passport",
            holds_certificate,
            certificate_waived: false,
        })?;
        let model = final_entry::Model {
            id: new_id("fe"),
            championship_id: champ.id.clone(),
            event: req.event.clone(),
            player_id: row.id.clone(),
            unit: req.unit.trim().to_owned(),
            holds_certificate,
            certificate_ref: req.certificate_ref.trim().to_owned(),
            status: "PENDING".into(),
            reason: String::new(),
            entered_at: now,
            entered_by: caller.subject.clone(),
            decided_at: None,
            decided_by: None,
        };
        if let Err(e) = final_entry::Entity::insert(final_entry::ActiveModel::from(model.clone()))
            .exec_without_returning(&self.db)
            .await
        {
            return Err(if is_unique_violation(&e) {
                RegistrationError::AlreadyExists(format!(
                    "player {} has already entered {}",
                    row.id, req.event
                ))
            } else {
                e.into()
            });
        }
        tracing::info!(player = %row.id, event = %req.event, "final entry awaiting approval");
        Ok(final_entry_pb(&model))
    }

    pub(super) async fn decide_final_entry_impl(
        &self,
        caller: Caller,
        req: pb::DecideFinalEntryRequest,
    ) -> Result<pb::FinalEntry> {
        require(&caller, &[Role::Organizer])?;
        if !req.approve && req.reason.trim().is_empty() {
            return Err(invalid("reason", "a rejection needs a reason"));
        }
        let mut e = final_entry::Entity::find_by_id(req.entry_id.clone())
            .one(&self.db)
            .await?
            .ok_or_else(|| RegistrationError::NotFound(format!("entry {}", req.entry_id)))?;
        if e.status != "PENDING" {
            return Err(precondition(
                "ENTRY_DECIDED",
                &e.id,
                format!("the entry is already {}", e.status.to_lowercase()),
            ));
        }
        e.status = if req.approve { "APPROVED" } else { "REJECTED" }.into();
        e.reason = req.reason.trim().to_owned();
        e.decided_at = Some(self.now());
        e.decided_by = Some(caller.subject.clone());
        let txn = self.db.begin().await?;
        final_entry::Entity::update(final_entry::ActiveModel::from(e.clone()).reset_all())
            .exec(&txn)
            .await?;
        audit(
            &txn,
            &caller,
            if req.approve {
                "final_entry.approve"
            } else {
                "final_entry.reject"
            },
            &e.id,
            format!("{} {} {}", e.player_id, e.event, e.reason),
        )
        .await?;
        txn.commit().await?;
        Ok(final_entry_pb(&e))
    }

    pub(super) async fn list_final_entries_impl(
        &self,
        caller: Caller,
        req: pb::PairsEventRef,
    ) -> Result<pb::ListFinalEntriesResponse> {
        require(&caller, &[Role::Organizer, Role::Referee])?;
        Ok(pb::ListFinalEntriesResponse {
            entries: final_entry::Entity::find()
                .filter(final_entry::Column::ChampionshipId.eq(&req.championship_id))
                .filter(final_entry::Column::Event.eq(&req.event))
                .order_by_asc(final_entry::Column::EnteredAt)
                .order_by_asc(final_entry::Column::Id)
                .all(&self.db)
                .await?
                .iter()
                .map(final_entry_pb)
                .collect(),
        })
    }

    pub(super) async fn register_city_team_impl(
        &self,
        caller: Caller,
        req: pb::RegisterCityTeamRequest,
    ) -> Result<pb::CityTeam> {
        require(&caller, &[Role::Organizer])?;
        if req.city.trim().is_empty() {
            return Err(invalid("city", "is required"));
        }
        let (champ, preset) = self.championship(&req.championship_id).await?;
        // The 2015 host city's team (R-TEAM-2: 东道主杭州市具有组队权) is registered the same way.
        let host_city = preset
            .teams
            .iter()
            .any(|t| t.host_city_team.as_deref() == Some(req.city.trim()));
        let rules = preset.city_teams;
        if rules.is_none() && !host_city {
            return Err(precondition(
                "NO_CITY_TEAMS",
                &champ.id,
                "this championship has no city teams (nor a host-city team of that name)",
            ));
        }
        let mut roster = Vec::with_capacity(req.player_ids.len());
        for id in &req.player_ids {
            let p = match self.player(id).await {
                Err(RegistrationError::NotFound(_)) => {
                    return Err(invalid(
                        "player_ids",
                        format!("player {id} is not registered"),
                    ));
                }
                other => other?,
            };
            let sex = sex_from_code(&p.sex)
                .ok_or_else(|| RegistrationError::NotFound(format!("sex of player {id}")))?;
            roster.push((p.id, sex));
        }
        let verdict = match &rules {
            Some(rules) => {
                finals::check_city_team(rules, &roster, self.now()).map_err(|e| match e {
                    finals::CityTeamError::Duplicate(_) => invalid("player_ids", e.to_string()),
                    finals::CityTeamError::OutsideWindow { .. } => {
                        precondition("CITY_TEAMS_CLOSED", &champ.id, e.to_string())
                    }
                })?
            }
            None => finals::host_city_roster(&roster)
                .map_err(|e| invalid("player_ids", e.to_string()))?,
        };
        let team = city_team::Model {
            id: new_id("ct"),
            championship_id: champ.id.clone(),
            city: req.city.trim().to_owned(),
            men_team: verdict.men_team,
            women_team: verdict.women_team,
            registered_at: self.now(),
            registered_by: caller.subject.clone(),
        };
        let members: Vec<team_member::Model> = roster
            .iter()
            .map(|(id, sex)| team_member::Model {
                championship_id: champ.id.clone(),
                player_id: id.clone(),
                team_id: team.id.clone(),
                sex: sex_code(*sex).to_owned(),
                counted: !verdict.individuals.contains(id),
            })
            .collect();
        let txn = self.db.begin().await?;
        if let Err(e) = city_team::Entity::insert(city_team::ActiveModel::from(team.clone()))
            .exec_without_returning(&txn)
            .await
        {
            return Err(if is_unique_violation(&e) {
                RegistrationError::AlreadyExists(format!("{} has registered its team", team.city))
            } else {
                e.into()
            });
        }
        for m in &members {
            if let Err(e) = team_member::Entity::insert(team_member::ActiveModel::from(m.clone()))
                .exec_without_returning(&txn)
                .await
            {
                return Err(if is_unique_violation(&e) {
                    RegistrationError::AlreadyExists(format!(
                        "player {} is already on a city's roster",
                        m.player_id
                    ))
                } else {
                    e.into()
                });
            }
        }
        audit(
            &txn,
            &caller,
            "city_team.register",
            &team.id,
            format!(
                "{} men_team={} women_team={} individuals={:?}",
                team.city, team.men_team, team.women_team, verdict.individuals
            ),
        )
        .await?;
        txn.commit().await?;
        Ok(team_pb(&team, &members))
    }

    pub(super) async fn list_city_teams_impl(
        &self,
        caller: Caller,
        req: pb::ListCityTeamsRequest,
    ) -> Result<pb::ListCityTeamsResponse> {
        require(
            &caller,
            &[
                Role::Organizer,
                Role::Referee,
                Role::Player,
                Role::Partner,
                Role::Federation,
            ],
        )?;
        let teams = city_team::Entity::find()
            .filter(city_team::Column::ChampionshipId.eq(&req.championship_id))
            .order_by_asc(city_team::Column::City)
            .all(&self.db)
            .await?;
        let members = team_member::Entity::find()
            .filter(team_member::Column::ChampionshipId.eq(&req.championship_id))
            .all(&self.db)
            .await?;
        Ok(pb::ListCityTeamsResponse {
            teams: teams
                .iter()
                .map(|t| {
                    let mine: Vec<team_member::Model> = members
                        .iter()
                        .filter(|m| m.team_id == t.id)
                        .cloned()
                        .collect();
                    team_pb(t, &mine)
                })
                .collect(),
        })
    }

    /// The player's fee row, created as due when first touched.
    async fn fee_row(&self, championship: &str, player: &str) -> Result<fee::Model> {
        let (champ, preset) = self.championship(championship).await?;
        self.player(player).await?;
        if let Some(f) = fee::Entity::find_by_id((champ.id.clone(), player.to_owned()))
            .one(&self.db)
            .await?
        {
            return Ok(f);
        }
        Ok(fee::Model {
            championship_id: champ.id,
            player_id: player.to_owned(),
            due_yuan: finals::fee_due(&preset.fees),
            paid_yuan: 0,
            status: "DUE".into(),
            payment_ref: String::new(),
            attendance: String::new(),
            refund_yuan: 0,
            updated_at: self.now(),
        })
    }

    async fn store_fee(&self, caller: &Caller, f: &fee::Model, detail: String) -> Result<()> {
        let txn = self.db.begin().await?;
        fee::Entity::insert(fee::ActiveModel::from(f.clone()))
            .on_conflict(
                sea_orm::sea_query::OnConflict::columns([
                    fee::Column::ChampionshipId,
                    fee::Column::PlayerId,
                ])
                .update_columns([
                    fee::Column::PaidYuan,
                    fee::Column::Status,
                    fee::Column::PaymentRef,
                    fee::Column::Attendance,
                    fee::Column::RefundYuan,
                    fee::Column::UpdatedAt,
                ])
                .to_owned(),
            )
            .exec_without_returning(&txn)
            .await?;
        audit(&txn, caller, "fee", &f.player_id, detail).await?;
        txn.commit().await?;
        Ok(())
    }

    pub(super) async fn record_fee_impl(
        &self,
        caller: Caller,
        req: pb::RecordFeeRequest,
    ) -> Result<pb::Fee> {
        require(&caller, &[Role::Organizer])?;
        let mut f = self.fee_row(&req.championship_id, &req.player_id).await?;
        if !f.attendance.is_empty() {
            return Err(precondition(
                "FEE_SETTLED",
                &f.player_id,
                "the attendance is recorded; the fee is settled",
            ));
        }
        match pb::FeeStatus::try_from(req.status) {
            Ok(pb::FeeStatus::Paid) => {
                if req.payment_ref.trim().is_empty() {
                    return Err(invalid("payment_ref", "a payment needs its reference"));
                }
                f.status = "PAID".into();
                f.paid_yuan = f.due_yuan;
                f.payment_ref = req.payment_ref.trim().to_owned();
            }
            Ok(pb::FeeStatus::Waived) => {
                if req.reason.trim().is_empty() {
                    return Err(invalid("reason", "a waiver needs a reason"));
                }
                f.status = "WAIVED".into();
                f.paid_yuan = 0;
            }
            _ => {
                return Err(invalid(
                    "status",
                    "must be FEE_STATUS_PAID or FEE_STATUS_WAIVED",
                ));
            }
        }
        f.updated_at = self.now();
        let detail = format!(
            "{} {} yuan ref={:?} {}",
            f.status,
            f.paid_yuan,
            f.payment_ref,
            req.reason.trim()
        );
        self.store_fee(&caller, &f, detail).await?;
        Ok(fee_pb(&f))
    }

    pub(super) async fn record_attendance_impl(
        &self,
        caller: Caller,
        req: pb::RecordAttendanceRequest,
    ) -> Result<pb::Fee> {
        require(&caller, &[Role::Organizer])?;
        let (_, preset) = self.championship(&req.championship_id).await?;
        let mut f = self.fee_row(&req.championship_id, &req.player_id).await?;
        let (code, attendance) = match pb::Attendance::try_from(req.attendance) {
            Ok(pb::Attendance::Played) => ("PLAYED", Attendance::Played),
            Ok(pb::Attendance::NoShow) => ("NO_SHOW", Attendance::NoShowWithoutCause),
            Ok(pb::Attendance::Excused) => {
                if req.reason.trim().is_empty() {
                    return Err(invalid(
                        "reason",
                        "an excused absence needs the reason accepted",
                    ));
                }
                ("EXCUSED", Attendance::ExcusedByOrganizer)
            }
            _ => {
                return Err(invalid(
                    "attendance",
                    "must be ATTENDANCE_PLAYED, ATTENDANCE_NO_SHOW or ATTENDANCE_EXCUSED",
                ));
            }
        };
        f.attendance = code.into();
        f.refund_yuan = finals::refund_due(&preset.fees, f.paid_yuan, attendance);
        f.updated_at = self.now();
        let detail = format!(
            "attendance {code}; refund {} yuan {}",
            f.refund_yuan,
            req.reason.trim()
        );
        self.store_fee(&caller, &f, detail).await?;
        Ok(fee_pb(&f))
    }

    pub(super) async fn get_fee_impl(
        &self,
        caller: Caller,
        req: pb::GetFeeRequest,
    ) -> Result<pb::Fee> {
        require(&caller, &[Role::Organizer, Role::Referee, Role::Player])?;
        if caller.is(Role::Player) && !caller.is_player(&req.player_id) {
            return Err(RegistrationError::PermissionDenied(
                "a player may read only their own fee".into(),
            ));
        }
        Ok(fee_pb(
            &self.fee_row(&req.championship_id, &req.player_id).await?,
        ))
    }
}
