//! The gRPC shell of the registration service: it checks the caller's role, parses the request
//! into core types, asks `qiwang-core` for the verdict and stores the result. No rule lives here.

use chrono::{DateTime, NaiveDate, Utc};
use qiwang_core::entry::{EntryAttempt, judge_entry};
use qiwang_core::identity::{self, Identity, Passport, ResidentId, Sex};
use qiwang_core::preset::{self, Game, Preset};
use qiwang_core::region;
use qiwang_infra::auth::{self, AuthInterceptor, Caller, Role, Verifier};
use qiwang_infra::db::is_unique_violation;
use qiwang_infra::lane;
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::registration::v1::registration_service_server::{
    RegistrationService, RegistrationServiceServer,
};
use sea_orm::sea_query::{Expr, ExprTrait, LikeExpr};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, NotSet,
    PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Set, TransactionTrait,
};
use tonic::service::interceptor::InterceptedService;
use tonic::{Request, Response, Status};

use crate::entity::{account, audit, bar, championship, entry, player};
use crate::error::{RegistrationError, Result, invalid};

mod evidence;
mod finals;
mod import;
mod pairs;
mod public;
mod wildcards;

/// The registration service over one database.
#[derive(Clone)]
pub struct RegistrationApi {
    db: DatabaseConnection,
    /// How far players got (pairs eligibility); `None` when not configured.
    qualification: Option<
        qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient<
            tonic::transport::Channel,
        >,
    >,
    /// Added to the machine's clock (development and tests only; see `Settings`).
    clock_offset: chrono::Duration,
    /// When bulk imports last had the imported tables analyzed (`import::ImportStatistics`).
    import_statistics: std::sync::Arc<std::sync::Mutex<import::ImportStatistics>>,
}

impl RegistrationApi {
    pub fn new(db: DatabaseConnection) -> Self {
        RegistrationApi {
            db,
            qualification: None,
            clock_offset: chrono::Duration::zero(),
            import_statistics: Default::default(),
        }
    }

    /// Runs the service's clock `seconds` ahead (development and tests only).
    pub fn with_clock_offset(mut self, seconds: i64) -> Self {
        self.clock_offset = chrono::Duration::seconds(seconds);
        self
    }

    /// The service's current time.
    fn now(&self) -> DateTime<Utc> {
        Utc::now() + self.clock_offset
    }

    /// The qualification service, for the pairs events' eligibility (R-PAIR-1, R-PAIR-2).
    pub fn with_qualification(
        mut self,
        client: qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient<
            tonic::transport::Channel,
        >,
    ) -> Self {
        self.qualification = Some(client);
        self
    }

    /// The tonic service, with every call authenticated by `verifier`.
    pub fn into_server(
        self,
        verifier: Verifier,
    ) -> InterceptedService<RegistrationServiceServer<Self>, AuthInterceptor> {
        RegistrationServiceServer::with_interceptor(
            self,
            AuthInterceptor::admitting_public(verifier),
        )
    }
}

type Reply<T> = std::result::Result<Response<T>, Status>;

/// Lookups of more ids than this in one call (qualification's ingest asks for thousands) are bulk
/// work: they run on the bulk lane (`qiwang_infra::lane`), so that requests outrank them.
const BULK_LOOKUP: usize = 64;
/// Rows per page of `StreamOnlineEntrants`.
const ENTRANTS_PAGE: usize = 10_000;

fn reply<T>(r: Result<T>) -> Reply<T> {
    r.map(Response::new).map_err(Status::from)
}

fn timestamp(t: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: t.timestamp(),
        nanos: t.timestamp_subsec_nanos() as i32,
    }
}

fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

fn game_to_pb(game: Game) -> pb::Game {
    match game {
        Game::Go => pb::Game::Go,
        Game::Xiangqi => pb::Game::Xiangqi,
        Game::Chess => pb::Game::Chess,
    }
}

fn game_from_pb(value: i32) -> Result<Game> {
    match pb::Game::try_from(value) {
        Ok(pb::Game::Go) => Ok(Game::Go),
        Ok(pb::Game::Xiangqi) => Ok(Game::Xiangqi),
        Ok(pb::Game::Chess) => Ok(Game::Chess),
        _ => Err(invalid(
            "game",
            "must be GAME_GO, GAME_XIANGQI or GAME_CHESS",
        )),
    }
}

fn game_from_code(code: &str) -> pb::Game {
    Game::parse(code)
        .map(game_to_pb)
        .unwrap_or(pb::Game::Unspecified)
}

fn sex_code(sex: Sex) -> &'static str {
    match sex {
        Sex::Male => "male",
        Sex::Female => "female",
    }
}

fn sex_to_pb(code: &str) -> pb::Sex {
    match code {
        "male" => pb::Sex::Male,
        "female" => pb::Sex::Female,
        _ => pb::Sex::Unspecified,
    }
}

fn sex_from_code(code: &str) -> Option<Sex> {
    match code {
        "male" => Some(Sex::Male),
        "female" => Some(Sex::Female),
        _ => None,
    }
}

fn events_to_pb(preset: &Preset) -> Vec<pb::Event> {
    preset
        .events
        .iter()
        .map(|e| pb::Event {
            code: e.code.clone(),
            name_zh: e.name_zh.clone(),
            name_en: e.name_en.clone(),
            online_qualifier: e.online_qualifier,
        })
        .collect()
}

fn championship_to_pb(row: &championship::Model, preset: &Preset) -> pb::Championship {
    pb::Championship {
        id: row.id.clone(),
        name: row.name.clone(),
        preset: row.preset.clone(),
        game: game_to_pb(preset.game) as i32,
        season: preset.season,
        events: events_to_pb(preset),
        registration_opens_on: preset.registration.opens_on.to_string(),
        registration_closes_on: preset.registration.closes_on.to_string(),
        created_at: Some(timestamp(row.created_at)),
    }
}

/// Whether `caller` may see `player_id`'s personal data in full (R-REG-3).
fn sees_in_full(caller: &Caller, player_id: &str) -> bool {
    caller.role.sees_personal_data() || caller.is_player(player_id)
}

fn player_to_pb(row: &player::Model, accounts: &[account::Model], full: bool) -> pb::Player {
    let region = row.region_code.as_deref().and_then(region::by_code);
    pb::Player {
        id: row.id.clone(),
        name: row.name.clone(),
        sex: sex_to_pb(&row.sex) as i32,
        birth_date: row.birth_date.to_string(),
        id_number: if full {
            row.id_number.clone()
        } else {
            identity::mask_id_number(&row.id_number)
        },
        id_kind: row.id_kind.clone(),
        id_masked: !full,
        nationality: row.nationality.clone(),
        region_code: row.region_code.clone().unwrap_or_default(),
        region_name: region.map(|r| r.name_zh.to_owned()).unwrap_or_default(),
        phone: match &row.phone {
            Some(p) if full => p.clone(),
            Some(p) => identity::mask_phone(p),
            None => String::new(),
        },
        accounts: accounts
            .iter()
            .map(|a| pb::LinkedAccount {
                platform: a.platform.clone(),
                account_id: a.account_id.clone(),
            })
            .collect(),
        created_at: Some(timestamp(row.created_at)),
    }
}

fn parse_date(field: &'static str, value: &str) -> Result<NaiveDate> {
    NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d")
        .map_err(|_| invalid(field, format!("{value:?} is not a date (YYYY-MM-DD)")))
}

fn parse_name(value: &str) -> Result<String> {
    let name = value.trim();
    let len = name.chars().count();
    if len == 0 || len > 100 {
        return Err(invalid("name", "must be 1-100 characters"));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid("name", "must not contain control characters"));
    }
    Ok(name.to_owned())
}

fn parse_phone(value: &str) -> Result<Option<String>> {
    let phone = value.trim();
    if phone.is_empty() {
        return Ok(None);
    }
    let digits = phone.chars().filter(char::is_ascii_digit).count();
    if !(5..=20).contains(&digits)
        || !phone
            .chars()
            .all(|c| c.is_ascii_digit() || "+- ".contains(c))
    {
        return Err(invalid(
            "phone",
            "must be 5-20 digits, optionally with +, - and spaces",
        ));
    }
    Ok(Some(phone.to_owned()))
}

fn parse_identity(value: Option<&pb::Identity>) -> Result<Identity> {
    match value.and_then(|i| i.kind.as_ref()) {
        Some(pb::identity::Kind::Resident(r)) => ResidentId::parse(&r.number)
            .map(Identity::Resident)
            .map_err(|e| invalid("identity.resident.number", e.to_string())),
        Some(pb::identity::Kind::Passport(p)) => Passport::parse(&p.number, &p.nationality)
            .map(Identity::Passport)
            .map_err(|e| {
                let field = match e {
                    identity::PassportError::Number => "identity.passport.number",
                    _ => "identity.passport.nationality",
                };
                invalid(field, e.to_string())
            }),
        None => Err(invalid(
            "identity",
            "a resident ID or a passport is required",
        )),
    }
}

/// A bar-list key: a resident ID, or a passport written "NAT:NUMBER".
fn parse_bar_key(value: &str) -> Result<String> {
    let identity = match value.split_once(':') {
        Some((nat, number)) => Passport::parse(number, nat)
            .map(Identity::Passport)
            .map_err(|e| invalid("id_number", e.to_string()))?,
        None => ResidentId::parse(value)
            .map(Identity::Resident)
            .map_err(|e| invalid("id_number", e.to_string()))?,
    };
    Ok(identity.key())
}

/// The codes of the preset's online-qualifier events (R-REG-1).
fn online_events(preset: &Preset) -> Vec<String> {
    preset
        .events
        .iter()
        .filter(|e| e.online_qualifier)
        .map(|e| e.code.clone())
        .collect()
}

fn parse_platform(value: &str) -> Result<String> {
    let ok = !value.is_empty()
        && value.len() <= 64
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if ok {
        Ok(value.to_owned())
    } else {
        Err(invalid("platform", "must be 1-64 of a-z, 0-9, '-', '_'"))
    }
}

fn parse_account_id(value: &str) -> Result<String> {
    if qiwang_infra::text::is_account_id(value) {
        Ok(value.to_owned())
    } else {
        Err(invalid("account_id", qiwang_infra::text::ACCOUNT_ID_RULE))
    }
}

/// A new player's row from a registration request, every field checked (R-REG-3).
fn player_row(
    req: &pb::RegisterPlayerRequest,
    id: String,
    now: DateTime<Utc>,
) -> Result<player::Model> {
    let name = parse_name(&req.name)?;
    let sex = match pb::Sex::try_from(req.sex) {
        Ok(pb::Sex::Male) => Sex::Male,
        Ok(pb::Sex::Female) => Sex::Female,
        _ => return Err(invalid("sex", "must be SEX_MALE or SEX_FEMALE")),
    };
    let birth_date = parse_date("birth_date", &req.birth_date)?;
    let identity = parse_identity(req.identity.as_ref())?;
    identity::check_stated_facts(&identity, birth_date, sex).map_err(|e| {
        let field = match e {
            identity::StatedFactsError::BirthDate { .. } => "birth_date",
            identity::StatedFactsError::Sex => "sex",
        };
        invalid(field, e.to_string())
    })?;
    let phone = parse_phone(&req.phone)?;
    Ok(player::Model {
        id,
        name,
        sex: sex_code(sex).to_owned(),
        birth_date,
        id_kind: if identity.is_foreign() {
            "passport"
        } else {
            "resident"
        }
        .to_owned(),
        id_number: identity.number().to_owned(),
        identity_key: identity.key(),
        nationality: identity.nationality().to_owned(),
        region_code: match &identity {
            Identity::Resident(r) => Some(r.region().code.to_owned()),
            Identity::Passport(_) => None,
        },
        phone,
        created_at: now,
        updated_at: now,
    })
}

fn require(caller: &Caller, roles: &[Role]) -> Result<()> {
    auth::require(caller, roles)
        .map_err(|s| RegistrationError::PermissionDenied(s.message().to_owned()))
}

/// Appends one decision to the audit log (R-DIS-3), inside the caller's transaction.
async fn audit<C: ConnectionTrait>(
    db: &C,
    caller: &Caller,
    action: &str,
    subject: &str,
    detail: String,
) -> Result<()> {
    use qiwang_infra::audit as chain;
    chain::lock_chain(db, crate::AUDIT_CHAIN.name).await?;
    let prev_hash = chain::last_hash(db, &crate::AUDIT_CHAIN).await?;
    let at = chain::chain_time(Utc::now());
    let role = caller.role.as_str();
    let hash = chain::entry_hash(
        &prev_hash,
        at,
        &[&caller.subject, role, action, subject, &detail],
    );
    audit::Entity::insert(audit::ActiveModel {
        id: NotSet,
        at: Set(at),
        actor: Set(caller.subject.clone()),
        role: Set(role.to_owned()),
        action: Set(action.to_owned()),
        subject: Set(subject.to_owned()),
        detail: Set(detail),
        prev_hash: Set(prev_hash),
        hash: Set(hash),
    })
    .exec(db)
    .await?;
    Ok(())
}

impl RegistrationApi {
    async fn championship(&self, id: &str) -> Result<(championship::Model, Preset)> {
        let row = championship::Entity::find_by_id(id.to_owned())
            .one(&self.db)
            .await?
            .ok_or_else(|| RegistrationError::NotFound(format!("championship {id}")))?;
        let preset = preset::parse(&row.preset_toml)
            .map_err(|e| RegistrationError::StoredPreset(row.id.clone(), e))?;
        Ok((row, preset))
    }

    async fn player(&self, id: &str) -> Result<player::Model> {
        player::Entity::find_by_id(id.to_owned())
            .one(&self.db)
            .await?
            .ok_or_else(|| RegistrationError::NotFound(format!("player {id}")))
    }

    async fn accounts_of(&self, player_id: &str) -> Result<Vec<account::Model>> {
        Ok(account::Entity::find()
            .filter(account::Column::PlayerId.eq(player_id))
            .order_by_asc(account::Column::Platform)
            .order_by_asc(account::Column::AccountId)
            .all(&self.db)
            .await?)
    }

    async fn player_view(&self, row: &player::Model, caller: &Caller) -> Result<pb::Player> {
        let accounts = self.accounts_of(&row.id).await?;
        Ok(player_to_pb(row, &accounts, sees_in_full(caller, &row.id)))
    }

    async fn create_championship_impl(
        &self,
        caller: Caller,
        req: pb::CreateChampionshipRequest,
    ) -> Result<pb::Championship> {
        require(&caller, &[Role::Organizer])?;
        let (preset, text) = if req.preset_toml.trim().is_empty() {
            let (_, text) = preset::OFFICIAL
                .iter()
                .find(|(n, _)| *n == req.preset)
                .ok_or_else(|| {
                    let known: Vec<&str> = preset::OFFICIAL.iter().map(|(n, _)| *n).collect();
                    invalid(
                        "preset",
                        format!(
                            "unknown preset {:?}; official presets: {}",
                            req.preset,
                            known.join(", ")
                        ),
                    )
                })?;
            (
                preset::parse(text).map_err(RegistrationError::Preset)?,
                (*text).to_owned(),
            )
        } else {
            let preset = preset::parse(&req.preset_toml).map_err(RegistrationError::Preset)?;
            if !req.preset.is_empty() && req.preset != preset.name {
                return Err(invalid(
                    "preset",
                    format!("does not match the file's name {:?}", preset.name),
                ));
            }
            (preset, req.preset_toml)
        };
        let name = if req.name.trim().is_empty() {
            preset.title_zh.clone()
        } else {
            req.name.trim().to_owned()
        };
        if name.chars().count() > 200 {
            return Err(invalid("name", "must be at most 200 characters"));
        }
        let row = championship::Model {
            id: new_id("ch"),
            name,
            preset: preset.name.clone(),
            preset_toml: text,
            game: preset.game.code().to_owned(),
            season: preset.season,
            created_by: caller.subject.clone(),
            created_at: Utc::now(),
        };
        let txn = self.db.begin().await?;
        championship::Entity::insert(championship::ActiveModel::from(row.clone()))
            .exec(&txn)
            .await?;
        audit(
            &txn,
            &caller,
            "championship.create",
            &row.id,
            format!("preset {}", row.preset),
        )
        .await?;
        txn.commit().await?;
        tracing::info!(championship = %row.id, preset = %row.preset, "championship created");
        Ok(championship_to_pb(&row, &preset))
    }

    async fn register_player_impl(
        &self,
        caller: Caller,
        req: pb::RegisterPlayerRequest,
    ) -> Result<pb::Player> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        let id = if caller.is(Role::Player) {
            caller.subject.clone()
        } else {
            new_id("pl")
        };
        let row = player_row(&req, id.clone(), Utc::now())?;
        let key = row.identity_key.clone();
        let txn = self.db.begin().await?;
        if player::Entity::find_by_id(id.clone())
            .one(&txn)
            .await?
            .is_some()
        {
            return Err(RegistrationError::AlreadyExists(format!(
                "player {id} is already registered"
            )));
        }
        if player::Entity::find()
            .filter(player::Column::IdentityKey.eq(&key))
            .one(&txn)
            .await?
            .is_some()
        {
            return Err(duplicate_identity());
        }
        if let Err(e) = player::Entity::insert(player::ActiveModel::from(row.clone()))
            .exec(&txn)
            .await
        {
            return Err(if is_unique_violation(&e) {
                duplicate_identity()
            } else {
                e.into()
            });
        }
        if caller.is(Role::Organizer) {
            audit(&txn, &caller, "player.register", &id, String::new()).await?;
        }
        txn.commit().await?;
        tracing::info!(player = %id, "player registered");
        Ok(player_to_pb(&row, &[], true))
    }

    async fn list_players_impl(
        &self,
        caller: Caller,
        req: pb::ListPlayersRequest,
    ) -> Result<pb::ListPlayersResponse> {
        require(&caller, &[Role::Organizer, Role::Referee])?;
        let page_size = match req.page_size {
            0 => 50,
            n @ 1..=500 => n as u64,
            _ => return Err(invalid("page_size", "must be between 1 and 500")),
        };
        let mut query = player::Entity::find().order_by_asc(player::Column::Id);
        if !req.page_token.is_empty() {
            let after = decode_page_token(&req.page_token)
                .ok_or_else(|| invalid("page_token", "is not a token this service issued"))?;
            query = query.filter(player::Column::Id.gt(after));
        }
        if !req.name_contains.is_empty() {
            let escaped = req
                .name_contains
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            query = query.filter(
                Expr::col(player::Column::Name)
                    .like(LikeExpr::new(format!("%{escaped}%")).escape('\\')),
            );
        }
        if !req.region_code.is_empty() {
            query = query.filter(player::Column::RegionCode.eq(req.region_code));
        }
        let mut rows = query.limit(page_size + 1).all(&self.db).await?;
        let next_page_token = if rows.len() as u64 > page_size {
            rows.truncate(page_size as usize);
            rows.last()
                .map(|r| encode_page_token(&r.id))
                .unwrap_or_default()
        } else {
            String::new()
        };
        let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
        // One query for every row's accounts, not one per row.
        let accounts = account::Entity::find()
            .filter(account::Column::PlayerId.is_in(ids))
            .all(&self.db)
            .await?;
        let players = rows
            .iter()
            .map(|r| {
                let mine: Vec<account::Model> = accounts
                    .iter()
                    .filter(|a| a.player_id == r.id)
                    .cloned()
                    .collect();
                player_to_pb(r, &mine, sees_in_full(&caller, &r.id))
            })
            .collect();
        Ok(pb::ListPlayersResponse {
            players,
            next_page_token,
        })
    }

    async fn update_player_impl(
        &self,
        caller: Caller,
        req: pb::UpdatePlayerRequest,
    ) -> Result<pb::Player> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        if caller.is(Role::Player) && !caller.is_player(&req.id) {
            return Err(RegistrationError::PermissionDenied(
                "a player may update only their own record".into(),
            ));
        }
        let row = self.player(&req.id).await?;
        let mut active = player::ActiveModel::from(row);
        let mut changed = Vec::new();
        if let Some(name) = &req.name {
            active.name = Set(parse_name(name)?);
            changed.push("name");
        }
        if let Some(phone) = &req.phone {
            active.phone = Set(parse_phone(phone)?);
            changed.push("phone");
        }
        active.updated_at = Set(Utc::now());
        let txn = self.db.begin().await?;
        let row = active.update(&txn).await?;
        if caller.is(Role::Organizer) {
            audit(&txn, &caller, "player.update", &row.id, changed.join(",")).await?;
        }
        txn.commit().await?;
        self.player_view(&row, &caller).await
    }

    async fn link_account_impl(
        &self,
        caller: Caller,
        req: pb::LinkAccountRequest,
    ) -> Result<pb::Player> {
        require(&caller, &[Role::Organizer, Role::Player, Role::Partner])?;
        let platform = parse_platform(&req.platform)?;
        let account_id = parse_account_id(&req.account_id)?;
        match caller.role {
            Role::Player if !caller.is_player(&req.player_id) => {
                return Err(RegistrationError::PermissionDenied(
                    "a player may link accounts only to themself".into(),
                ));
            }
            Role::Partner if caller.platform.as_deref() != Some(platform.as_str()) => {
                return Err(RegistrationError::PermissionDenied(
                    "a partner may link accounts only on its own platform".into(),
                ));
            }
            _ => {}
        }
        let row = self.player(&req.player_id).await?;
        let key = (platform.clone(), account_id.clone());
        let existing = account::Entity::find_by_id(key.clone())
            .one(&self.db)
            .await?;
        match existing {
            // Linking the same account to the same player again is acknowledged, not duplicated.
            Some(a) if a.player_id == row.id => return self.player_view(&row, &caller).await,
            Some(_) => return Err(duplicate_account(&platform)),
            None => {}
        }
        let txn = self.db.begin().await?;
        let insert = account::Entity::insert(account::ActiveModel {
            platform: Set(platform.clone()),
            account_id: Set(account_id.clone()),
            player_id: Set(row.id.clone()),
            linked_by: Set(caller.subject.clone()),
            linked_at: Set(Utc::now()),
        })
        .exec(&txn)
        .await;
        if let Err(e) = insert {
            return Err(if is_unique_violation(&e) {
                duplicate_account(&platform)
            } else {
                e.into()
            });
        }
        if caller.is(Role::Organizer) {
            audit(
                &txn,
                &caller,
                "account.link",
                &row.id,
                format!("{platform}:{account_id}"),
            )
            .await?;
        }
        txn.commit().await?;
        self.player_view(&row, &caller).await
    }

    async fn resolve_account_impl(
        &self,
        caller: Caller,
        req: pb::ResolveAccountRequest,
    ) -> Result<pb::Player> {
        require(&caller, &[Role::Organizer, Role::Referee, Role::Partner])?;
        let platform = parse_platform(&req.platform)?;
        let account_id = parse_account_id(&req.account_id)?;
        if caller.is(Role::Partner) && caller.platform.as_deref() != Some(platform.as_str()) {
            return Err(RegistrationError::PermissionDenied(
                "a partner may resolve accounts only on its own platform".into(),
            ));
        }
        let link = account::Entity::find_by_id((platform.clone(), account_id.clone()))
            .one(&self.db)
            .await?
            .ok_or_else(|| {
                RegistrationError::NotFound(format!("account {platform}:{account_id}"))
            })?;
        let row = self.player(&link.player_id).await?;
        self.player_view(&row, &caller).await
    }

    async fn entered_players_impl(
        &self,
        caller: Caller,
        req: pb::ListEnteredPlayersRequest,
    ) -> Result<pb::ListEnteredPlayersResponse> {
        require(&caller, &[Role::Organizer, Role::Referee, Role::Partner])?;
        if req.player_ids.len() > 10_000 {
            return Err(invalid("player_ids", "at most 10,000 per call"));
        }
        let (_, preset) = self.championship(&req.championship_id).await?;
        let online = online_events(&preset);
        let mut entered: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
            std::collections::BTreeMap::new();
        for chunk in req.player_ids.chunks(1_000) {
            let rows = entry::Entity::find()
                .filter(entry::Column::ChampionshipId.eq(&req.championship_id))
                .filter(entry::Column::Event.is_in(online.clone()))
                .filter(entry::Column::PlayerId.is_in(chunk.iter().cloned()))
                .all(&self.db)
                .await?;
            for row in rows {
                entered.entry(row.player_id).or_default().insert(row.event);
            }
        }
        Ok(pb::ListEnteredPlayersResponse {
            player_ids: entered.keys().cloned().collect(),
            entries: entered
                .into_iter()
                .map(|(player_id, events)| pb::EnteredPlayer {
                    player_id,
                    events: events.into_iter().collect(),
                })
                .collect(),
        })
    }

    /// Checks a `StreamOnlineEntrants` call and starts its query on the bulk lane: one statement
    /// (the accounts of `platform` whose player has an online-qualifier entry in the championship,
    /// a semi-join the database runs as one pass), read as it comes and sent in pages of
    /// [`ENTRANTS_PAGE`]. A failure midway ends the stream with its status, so a reader never
    /// mistakes a cut-off stream for the whole field.
    async fn online_entrants_impl(
        &self,
        caller: Caller,
        req: pb::StreamOnlineEntrantsRequest,
    ) -> Result<tokio::sync::mpsc::Receiver<std::result::Result<pb::OnlineEntrantsPage, Status>>>
    {
        require(&caller, &[Role::Organizer, Role::Referee, Role::Partner])?;
        let platform = parse_platform(&req.platform)?;
        if caller.is(Role::Partner) && caller.platform.as_deref() != Some(platform.as_str()) {
            return Err(RegistrationError::PermissionDenied(
                "a partner may list accounts only on its own platform".into(),
            ));
        }
        let (_, preset) = self.championship(&req.championship_id).await?;
        let online = online_events(&preset);
        let query = account::Entity::find()
            .filter(account::Column::Platform.eq(&platform))
            .filter(
                account::Column::PlayerId.in_subquery(
                    sea_orm::sea_query::Query::select()
                        .column(entry::Column::PlayerId)
                        .from(entry::Entity)
                        .and_where(entry::Column::ChampionshipId.eq(&req.championship_id))
                        .and_where(entry::Column::Event.is_in(online))
                        .to_owned(),
                ),
            );
        let db = self.db.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        lane::spawn_bulk(async move {
            use tokio_stream::StreamExt;
            let failed = |error: sea_orm::DbErr| Status::from(RegistrationError::from(error));
            let mut rows = match query.stream(&db).await {
                Ok(rows) => rows,
                Err(error) => {
                    let _ = tx.send(Err(failed(error))).await;
                    return;
                }
            };
            let mut page = pb::OnlineEntrantsPage::default();
            while let Some(row) = rows.next().await {
                let row = match row {
                    Ok(row) => row,
                    Err(error) => {
                        let _ = tx.send(Err(failed(error))).await;
                        return;
                    }
                };
                page.account_ids.push(row.account_id);
                page.player_ids.push(row.player_id);
                if page.account_ids.len() == ENTRANTS_PAGE
                    && tx.send(Ok(std::mem::take(&mut page))).await.is_err()
                {
                    return;
                }
            }
            if !page.account_ids.is_empty() {
                let _ = tx.send(Ok(page)).await;
            }
        });
        Ok(rx)
    }

    /// Runs a lookup of `ids` ids: on the bulk lane when they are more than [`BULK_LOOKUP`].
    async fn lookup<T, W, F>(&self, ids: usize, work: W) -> Result<T>
    where
        W: FnOnce(RegistrationApi) -> F,
        F: Future<Output = Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        let api = self.clone();
        if ids <= BULK_LOOKUP {
            return work(api).await;
        }
        lane::spawn_bulk(work(api)).await?
    }

    async fn resolve_accounts_impl(
        &self,
        caller: Caller,
        req: pb::ResolveAccountsRequest,
    ) -> Result<pb::ResolveAccountsResponse> {
        require(&caller, &[Role::Organizer, Role::Referee, Role::Partner])?;
        let platform = parse_platform(&req.platform)?;
        if caller.is(Role::Partner) && caller.platform.as_deref() != Some(platform.as_str()) {
            return Err(RegistrationError::PermissionDenied(
                "a partner may resolve accounts only on its own platform".into(),
            ));
        }
        if req.account_ids.len() > 10_000 {
            return Err(invalid("account_ids", "at most 10,000 per call"));
        }
        let mut found = std::collections::HashMap::new();
        // Bounded IN lists keep every backend's parameter limit (SQLite: 32,766).
        for chunk in req.account_ids.chunks(1_000) {
            let rows = account::Entity::find()
                .filter(account::Column::Platform.eq(&platform))
                .filter(account::Column::AccountId.is_in(chunk.iter().cloned()))
                .all(&self.db)
                .await?;
            for row in rows {
                found.insert(row.account_id, row.player_id);
            }
        }
        let player_ids = req
            .account_ids
            .iter()
            .map(|a| found.get(a).cloned().unwrap_or_default())
            .collect();
        Ok(pb::ResolveAccountsResponse { player_ids })
    }

    async fn add_bar_impl(&self, caller: Caller, req: pb::AddBarRequest) -> Result<pb::Bar> {
        require(&caller, &[Role::Organizer])?;
        let game = game_from_pb(req.game)?;
        let key = parse_bar_key(&req.id_number)?;
        let reason = req.reason.trim();
        if reason.is_empty() || reason.chars().count() > 200 {
            return Err(invalid(
                "reason",
                "must be 1-200 characters (the title held)",
            ));
        }
        let pk = (game.code().to_owned(), key.clone());
        if let Some(existing) = bar::Entity::find_by_id(pk).one(&self.db).await? {
            return Ok(bar_to_pb(&existing));
        }
        let row = bar::Model {
            game: game.code().to_owned(),
            identity_key: key.clone(),
            reason: reason.to_owned(),
            added_by: caller.subject.clone(),
            added_at: Utc::now(),
        };
        let txn = self.db.begin().await?;
        bar::Entity::insert(bar::ActiveModel::from(row.clone()))
            .exec(&txn)
            .await?;
        audit(
            &txn,
            &caller,
            "bar.add",
            &format!("{}:{key}", game.code()),
            row.reason.clone(),
        )
        .await?;
        txn.commit().await?;
        Ok(bar_to_pb(&row))
    }

    async fn remove_bar_impl(
        &self,
        caller: Caller,
        req: pb::RemoveBarRequest,
    ) -> Result<pb::RemoveBarResponse> {
        require(&caller, &[Role::Organizer])?;
        let game = game_from_pb(req.game)?;
        let key = parse_bar_key(&req.id_number)?;
        let txn = self.db.begin().await?;
        let result = bar::Entity::delete_by_id((game.code().to_owned(), key.clone()))
            .exec(&txn)
            .await?;
        let removed = result.rows_affected > 0;
        if removed {
            audit(
                &txn,
                &caller,
                "bar.remove",
                &format!("{}:{key}", game.code()),
                String::new(),
            )
            .await?;
        }
        txn.commit().await?;
        Ok(pb::RemoveBarResponse { removed })
    }

    async fn list_bars_impl(
        &self,
        caller: Caller,
        req: pb::ListBarsRequest,
    ) -> Result<pb::ListBarsResponse> {
        require(&caller, &[Role::Organizer, Role::Referee])?;
        let game = game_from_pb(req.game)?;
        let rows = bar::Entity::find()
            .filter(bar::Column::Game.eq(game.code()))
            .order_by_asc(bar::Column::IdentityKey)
            .all(&self.db)
            .await?;
        Ok(pb::ListBarsResponse {
            bars: rows.iter().map(bar_to_pb).collect(),
        })
    }

    async fn enter_event_impl(
        &self,
        caller: Caller,
        req: pb::EnterEventRequest,
    ) -> Result<pb::Entry> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        if caller.is(Role::Player) && !caller.is_player(&req.player_id) {
            return Err(RegistrationError::PermissionDenied(
                "a player may enter only themself".into(),
            ));
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
        let txn = self.db.begin().await?;
        let previous = entry::Entity::find()
            .filter(entry::Column::ChampionshipId.eq(&champ.id))
            .filter(entry::Column::Event.eq(&req.event))
            .filter(entry::Column::PlayerId.eq(&row.id))
            .count(&txn)
            .await?;
        let now = Utc::now();
        let sequence = judge_entry(&EntryAttempt {
            preset: &preset,
            event_code: &req.event,
            now,
            sex,
            birth_date: row.birth_date,
            on_bar_list,
            foreign: row.id_kind == "passport",
            previous_entries: u32::try_from(previous).unwrap_or(u32::MAX),
        })?;
        let model = entry::Model {
            id: new_id("en"),
            championship_id: champ.id.clone(),
            event: req.event.clone(),
            player_id: row.id.clone(),
            sequence: i32::try_from(sequence).unwrap_or(i32::MAX),
            entered_by: caller.subject.clone(),
            entered_at: now,
        };
        if let Err(e) = entry::Entity::insert(entry::ActiveModel::from(model.clone()))
            .exec(&txn)
            .await
        {
            return Err(if is_unique_violation(&e) {
                RegistrationError::AlreadyExists(
                    "a concurrent entry was just recorded; read the entries and retry".into(),
                )
            } else {
                e.into()
            });
        }
        if caller.is(Role::Organizer) {
            audit(
                &txn,
                &caller,
                "entry.create",
                &row.id,
                format!("{} {}", champ.id, req.event),
            )
            .await?;
        }
        txn.commit().await?;
        tracing::info!(player = %row.id, championship = %champ.id, event = %req.event, sequence, "entered");
        Ok(entry_to_pb(&model))
    }

    async fn list_entries_impl(
        &self,
        caller: Caller,
        req: pb::ListEntriesRequest,
    ) -> Result<pb::ListEntriesResponse> {
        require(
            &caller,
            &[Role::Organizer, Role::Referee, Role::Player, Role::Partner],
        )?;
        let mut query = entry::Entity::find()
            .filter(entry::Column::ChampionshipId.eq(&req.championship_id))
            .order_by_asc(entry::Column::EnteredAt)
            .order_by_asc(entry::Column::Id);
        if caller.is(Role::Player) {
            if !req.player_id.is_empty() && !caller.is_player(&req.player_id) {
                return Err(RegistrationError::PermissionDenied(
                    "a player may list only their own entries".into(),
                ));
            }
            query = query.filter(entry::Column::PlayerId.eq(&caller.subject));
        } else if !req.player_id.is_empty() {
            query = query.filter(entry::Column::PlayerId.eq(&req.player_id));
        }
        let rows = query.all(&self.db).await?;
        Ok(pb::ListEntriesResponse {
            entries: rows.iter().map(entry_to_pb).collect(),
        })
    }
}

fn duplicate_identity() -> RegistrationError {
    RegistrationError::AlreadyExists(
        "a player with this identity document is already registered (one person, one player)"
            .into(),
    )
}

fn duplicate_account(platform: &str) -> RegistrationError {
    RegistrationError::AlreadyExists(format!(
        "this {platform} account is already linked to another player"
    ))
}

fn bar_to_pb(row: &bar::Model) -> pb::Bar {
    pb::Bar {
        game: game_from_code(&row.game) as i32,
        id_number: row.identity_key.clone(),
        reason: row.reason.clone(),
        added_by: row.added_by.clone(),
        added_at: Some(timestamp(row.added_at)),
    }
}

fn entry_to_pb(row: &entry::Model) -> pb::Entry {
    pb::Entry {
        id: row.id.clone(),
        championship_id: row.championship_id.clone(),
        event: row.event.clone(),
        player_id: row.player_id.clone(),
        sequence: row.sequence,
        entered_at: Some(timestamp(row.entered_at)),
    }
}

fn encode_page_token(last_id: &str) -> String {
    last_id.bytes().map(|b| format!("{b:02x}")).collect()
}

fn decode_page_token(token: &str) -> Option<String> {
    if !token.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

#[tonic::async_trait]
impl RegistrationService for RegistrationApi {
    async fn list_presets(
        &self,
        request: Request<pb::ListPresetsRequest>,
    ) -> Reply<pb::ListPresetsResponse> {
        auth::caller(&request)?;
        let presets = preset::OFFICIAL
            .iter()
            .filter_map(|(_, text)| preset::parse(text).ok())
            .map(|p| pb::PresetSummary {
                name: p.name.clone(),
                game: game_to_pb(p.game) as i32,
                season: p.season,
                title_zh: p.title_zh.clone(),
                title_en: p.title_en.clone(),
                events: events_to_pb(&p),
            })
            .collect();
        Ok(Response::new(pb::ListPresetsResponse { presets }))
    }

    async fn create_championship(
        &self,
        request: Request<pb::CreateChampionshipRequest>,
    ) -> Reply<pb::Championship> {
        let caller = auth::caller(&request)?;
        reply(
            self.create_championship_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn get_championship(
        &self,
        request: Request<pb::GetChampionshipRequest>,
    ) -> Reply<pb::Championship> {
        auth::caller(&request)?;
        let id = request.into_inner().id;
        reply(
            self.championship(&id)
                .await
                .map(|(row, preset)| championship_to_pb(&row, &preset)),
        )
    }

    async fn list_championships(
        &self,
        request: Request<pb::ListChampionshipsRequest>,
    ) -> Reply<pb::ListChampionshipsResponse> {
        auth::caller(&request)?;
        let rows = championship::Entity::find()
            .order_by_asc(championship::Column::CreatedAt)
            .order_by_asc(championship::Column::Id)
            .all(&self.db)
            .await
            .map_err(|e| Status::from(RegistrationError::from(e)))?;
        let mut championships = Vec::with_capacity(rows.len());
        for row in rows {
            let preset = preset::parse(&row.preset_toml)
                .map_err(|e| Status::from(RegistrationError::StoredPreset(row.id.clone(), e)))?;
            championships.push(championship_to_pb(&row, &preset));
        }
        Ok(Response::new(pb::ListChampionshipsResponse {
            championships,
        }))
    }

    async fn register_player(
        &self,
        request: Request<pb::RegisterPlayerRequest>,
    ) -> Reply<pb::Player> {
        let caller = auth::caller(&request)?;
        reply(
            self.register_player_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn get_player(&self, request: Request<pb::GetPlayerRequest>) -> Reply<pb::Player> {
        let caller = auth::caller(&request)?;
        let id = request.into_inner().id;
        let result = async {
            let row = self.player(&id).await?;
            self.player_view(&row, &caller).await
        };
        reply(result.await)
    }

    async fn list_players(
        &self,
        request: Request<pb::ListPlayersRequest>,
    ) -> Reply<pb::ListPlayersResponse> {
        let caller = auth::caller(&request)?;
        reply(self.list_players_impl(caller, request.into_inner()).await)
    }

    async fn update_player(&self, request: Request<pb::UpdatePlayerRequest>) -> Reply<pb::Player> {
        let caller = auth::caller(&request)?;
        reply(self.update_player_impl(caller, request.into_inner()).await)
    }

    async fn link_account(&self, request: Request<pb::LinkAccountRequest>) -> Reply<pb::Player> {
        let caller = auth::caller(&request)?;
        reply(self.link_account_impl(caller, request.into_inner()).await)
    }

    async fn resolve_account(
        &self,
        request: Request<pb::ResolveAccountRequest>,
    ) -> Reply<pb::Player> {
        let caller = auth::caller(&request)?;
        reply(
            self.resolve_account_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn resolve_accounts(
        &self,
        request: Request<pb::ResolveAccountsRequest>,
    ) -> Reply<pb::ResolveAccountsResponse> {
        let caller = auth::caller(&request)?;
        let req = request.into_inner();
        let ids = req.account_ids.len();
        reply(
            self.lookup(ids, |api| async move {
                api.resolve_accounts_impl(caller, req).await
            })
            .await,
        )
    }

    async fn list_entered_players(
        &self,
        request: Request<pb::ListEnteredPlayersRequest>,
    ) -> Reply<pb::ListEnteredPlayersResponse> {
        let caller = auth::caller(&request)?;
        let req = request.into_inner();
        let ids = req.player_ids.len();
        reply(
            self.lookup(ids, |api| async move {
                api.entered_players_impl(caller, req).await
            })
            .await,
        )
    }

    type StreamOnlineEntrantsStream = std::pin::Pin<
        Box<
            dyn tokio_stream::Stream<Item = std::result::Result<pb::OnlineEntrantsPage, Status>>
                + Send,
        >,
    >;

    async fn stream_online_entrants(
        &self,
        request: Request<pb::StreamOnlineEntrantsRequest>,
    ) -> Reply<Self::StreamOnlineEntrantsStream> {
        let caller = auth::caller(&request)?;
        let rx = self
            .online_entrants_impl(caller, request.into_inner())
            .await?;
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }

    async fn import_players(
        &self,
        request: Request<tonic::Streaming<pb::ImportPlayerRequest>>,
    ) -> Reply<pb::ImportPlayersSummary> {
        let caller = auth::caller(&request)?;
        self.import_players_impl(caller, request.into_inner())
            .await
            .map(Response::new)
    }

    async fn get_championship_rules(
        &self,
        request: Request<pb::GetChampionshipRequest>,
    ) -> Reply<pb::ChampionshipRules> {
        auth::caller(&request)?;
        let id = request.into_inner().id;
        reply(self.championship(&id).await.map(|(row, preset)| {
            pb::ChampionshipRules {
                championship_id: row.id,
                preset: row.preset,
                preset_toml: row.preset_toml,
                stages: preset
                    .stages
                    .iter()
                    .map(|st| pb::StageSummary {
                        code: st.code.clone(),
                        name_zh: st.name_zh.clone(),
                        name_en: st.name_en.clone(),
                        kind: st.kind.code().to_owned(),
                        periods: st
                            .periods
                            .iter()
                            .map(|p| pb::PeriodSummary {
                                number: p.number,
                                opens_on: p.opens_on.to_string(),
                                closes_on: p.closes_on.to_string(),
                            })
                            .collect(),
                        starts_on: st.starts_on.map(|d| d.to_string()).unwrap_or_default(),
                        ends_on: st.ends_on.map(|d| d.to_string()).unwrap_or_default(),
                    })
                    .collect(),
            }
        }))
    }

    async fn add_bar(&self, request: Request<pb::AddBarRequest>) -> Reply<pb::Bar> {
        let caller = auth::caller(&request)?;
        reply(self.add_bar_impl(caller, request.into_inner()).await)
    }

    async fn remove_bar(
        &self,
        request: Request<pb::RemoveBarRequest>,
    ) -> Reply<pb::RemoveBarResponse> {
        let caller = auth::caller(&request)?;
        reply(self.remove_bar_impl(caller, request.into_inner()).await)
    }

    async fn list_bars(
        &self,
        request: Request<pb::ListBarsRequest>,
    ) -> Reply<pb::ListBarsResponse> {
        let caller = auth::caller(&request)?;
        reply(self.list_bars_impl(caller, request.into_inner()).await)
    }

    async fn enter_event(&self, request: Request<pb::EnterEventRequest>) -> Reply<pb::Entry> {
        let caller = auth::caller(&request)?;
        reply(self.enter_event_impl(caller, request.into_inner()).await)
    }

    async fn list_entries(
        &self,
        request: Request<pb::ListEntriesRequest>,
    ) -> Reply<pb::ListEntriesResponse> {
        let caller = auth::caller(&request)?;
        reply(self.list_entries_impl(caller, request.into_inner()).await)
    }

    async fn register_pair(&self, request: Request<pb::RegisterPairRequest>) -> Reply<pb::Pair> {
        let caller = auth::caller(&request)?;
        reply(self.register_pair_impl(caller, request.into_inner()).await)
    }

    async fn withdraw_pair(&self, request: Request<pb::WithdrawPairRequest>) -> Reply<pb::Pair> {
        let caller = auth::caller(&request)?;
        reply(self.withdraw_pair_impl(caller, request.into_inner()).await)
    }

    async fn verify_pair_relation(
        &self,
        request: Request<pb::VerifyPairRelationRequest>,
    ) -> Reply<pb::Pair> {
        let caller = auth::caller(&request)?;
        reply(
            self.verify_pair_relation_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn list_pairs(
        &self,
        request: Request<pb::PairsEventRef>,
    ) -> Reply<pb::ListPairsResponse> {
        let caller = auth::caller(&request)?;
        reply(self.list_pairs_impl(caller, request.into_inner()).await)
    }

    async fn publish_pairs_seed(
        &self,
        request: Request<pb::PublishPairsSeedRequest>,
    ) -> Reply<pb::PairsDraw> {
        let caller = auth::caller(&request)?;
        reply(
            self.publish_pairs_seed_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn draw_pairs(&self, request: Request<pb::PairsEventRef>) -> Reply<pb::PairsDraw> {
        let caller = auth::caller(&request)?;
        reply(self.draw_pairs_impl(caller, request.into_inner()).await)
    }

    async fn get_pairs_draw(&self, request: Request<pb::PairsEventRef>) -> Reply<pb::PairsDraw> {
        let caller = auth::caller(&request)?;
        reply(self.get_pairs_draw_impl(caller, request.into_inner()).await)
    }

    async fn enter_final_event(
        &self,
        request: Request<pb::EnterFinalEventRequest>,
    ) -> Reply<pb::FinalEntry> {
        let caller = auth::caller(&request)?;
        reply(
            self.enter_final_event_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn decide_final_entry(
        &self,
        request: Request<pb::DecideFinalEntryRequest>,
    ) -> Reply<pb::FinalEntry> {
        let caller = auth::caller(&request)?;
        reply(
            self.decide_final_entry_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn list_final_entries(
        &self,
        request: Request<pb::PairsEventRef>,
    ) -> Reply<pb::ListFinalEntriesResponse> {
        let caller = auth::caller(&request)?;
        reply(
            self.list_final_entries_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn register_city_team(
        &self,
        request: Request<pb::RegisterCityTeamRequest>,
    ) -> Reply<pb::CityTeam> {
        let caller = auth::caller(&request)?;
        reply(
            self.register_city_team_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn list_city_teams(
        &self,
        request: Request<pb::ListCityTeamsRequest>,
    ) -> Reply<pb::ListCityTeamsResponse> {
        let caller = auth::caller(&request)?;
        reply(
            self.list_city_teams_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn record_fee(&self, request: Request<pb::RecordFeeRequest>) -> Reply<pb::Fee> {
        let caller = auth::caller(&request)?;
        reply(self.record_fee_impl(caller, request.into_inner()).await)
    }

    async fn record_attendance(
        &self,
        request: Request<pb::RecordAttendanceRequest>,
    ) -> Reply<pb::Fee> {
        let caller = auth::caller(&request)?;
        reply(
            self.record_attendance_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn get_fee(&self, request: Request<pb::GetFeeRequest>) -> Reply<pb::Fee> {
        let caller = auth::caller(&request)?;
        reply(self.get_fee_impl(caller, request.into_inner()).await)
    }

    async fn submit_wildcard(
        &self,
        request: Request<pb::SubmitWildcardRequest>,
    ) -> Reply<pb::Wildcard> {
        let caller = auth::caller(&request)?;
        reply(
            self.submit_wildcard_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn review_wildcard(&self, request: Request<pb::WildcardRef>) -> Reply<pb::Wildcard> {
        let caller = auth::caller(&request)?;
        reply(
            self.review_wildcard_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn decide_wildcard(
        &self,
        request: Request<pb::DecideWildcardRequest>,
    ) -> Reply<pb::Wildcard> {
        let caller = auth::caller(&request)?;
        reply(
            self.decide_wildcard_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn list_wildcards(
        &self,
        request: Request<pb::ListWildcardsRequest>,
    ) -> Reply<pb::ListWildcardsResponse> {
        let caller = auth::caller(&request)?;
        reply(self.list_wildcards_impl(caller, request.into_inner()).await)
    }

    async fn upload_evidence(
        &self,
        request: Request<pb::UploadEvidenceRequest>,
    ) -> Reply<pb::Evidence> {
        let caller = auth::caller(&request)?;
        reply(
            self.upload_evidence_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn get_public_profiles(
        &self,
        request: Request<pb::GetPublicProfilesRequest>,
    ) -> Reply<pb::GetPublicProfilesResponse> {
        auth::caller_or_public(&request)?;
        reply(self.public_profiles_impl(request.into_inner()).await)
    }

    async fn get_evidence(&self, request: Request<pb::EvidenceRef>) -> Reply<pb::EvidenceContent> {
        let caller = auth::caller(&request)?;
        reply(self.get_evidence_impl(caller, request.into_inner()).await)
    }

    async fn list_audit_entries(
        &self,
        request: Request<qiwang_proto::audit::v1::AuditPageRequest>,
    ) -> Reply<qiwang_proto::audit::v1::AuditPage> {
        let caller = auth::caller(&request)?;
        require(&caller, &[Role::Organizer])?;
        let page =
            qiwang_infra::audit::page_pb(&self.db, &crate::AUDIT_CHAIN, request.into_inner())
                .await
                .map_err(|e| Status::from(crate::error::RegistrationError::from(e)))?;
        Ok(Response::new(page))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_tokens_round_trip_and_reject_garbage() {
        for id in ["pl_0192", "玩家-7", ""] {
            assert_eq!(
                decode_page_token(&encode_page_token(id)).as_deref(),
                Some(id)
            );
        }
        assert_eq!(decode_page_token("zz"), None);
        assert_eq!(decode_page_token("abc"), None);
    }

    #[test]
    fn r_reg_2_bar_keys_take_resident_ids_and_passports() {
        assert_eq!(
            parse_bar_key("11010519491231002X").expect("valid"),
            "11010519491231002X"
        );
        assert_eq!(
            parse_bar_key("KOR:M1234567").expect("valid"),
            "KOR:M1234567"
        );
        assert!(parse_bar_key("110105194912310021").is_err());
        assert!(parse_bar_key("ZZZ:M1234567").is_err());
    }
}
