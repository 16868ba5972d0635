//! Bulk import of players (a partner platform's export of a national qualifier, hundreds of
//! thousands of rows): each row is checked exactly as `RegisterPlayer`, `LinkAccount` and
//! `EnterEvent` check it, the database is asked once per group instead of once per row, and a group
//! is committed in one transaction. A refused row is reported with its position and never stops the
//! others; a row is imported whole (player, accounts and entries) or not at all.

use std::collections::{HashMap, HashSet};

use tokio_stream::StreamExt;
use tonic::Streaming;

use super::*;

/// Rows per transaction.
const GROUP: usize = 500;

struct Row {
    index: u32,
    player: player::Model,
    accounts: Vec<(String, String)>,
    entries: Vec<entry::Model>,
}

fn refusal(index: u32, e: RegistrationError) -> pb::ImportRefusal {
    let field = match &e {
        RegistrationError::InvalidField { field, .. } => (*field).to_owned(),
        _ => String::new(),
    };
    let status = Status::from(e);
    pb::ImportRefusal {
        index,
        code: qiwang_infra::status::code_name(status.code()).to_owned(),
        field,
        message: status.message().to_owned(),
    }
}

impl RegistrationApi {
    pub(super) async fn import_players_impl(
        &self,
        caller: Caller,
        mut stream: Streaming<pb::ImportPlayerRequest>,
    ) -> std::result::Result<pb::ImportPlayersSummary, Status> {
        require(&caller, &[Role::Organizer]).map_err(Status::from)?;
        let mut summary = pb::ImportPlayersSummary::default();
        let mut group = Vec::with_capacity(GROUP);
        let mut index = 0u32;
        let mut championships: HashMap<String, Preset> = HashMap::new();
        loop {
            let next = stream.next().await;
            let end = next.is_none();
            if let Some(item) = next {
                group.push((index, item?));
                index += 1;
            }
            if group.len() >= GROUP || (end && !group.is_empty()) {
                let rows = std::mem::take(&mut group);
                self.import_group(&caller, rows, &mut championships, &mut summary)
                    .await
                    .map_err(Status::from)?;
            }
            if end {
                break;
            }
        }
        tracing::info!(
            imported = summary.imported,
            refused = summary.refused,
            "players imported"
        );
        Ok(summary)
    }

    async fn import_group(
        &self,
        caller: &Caller,
        items: Vec<(u32, pb::ImportPlayerRequest)>,
        championships: &mut HashMap<String, Preset>,
        summary: &mut pb::ImportPlayersSummary,
    ) -> Result<()> {
        let now = Utc::now();
        let mut rows: Vec<Row> = Vec::with_capacity(items.len());
        let mut refused: Vec<pb::ImportRefusal> = Vec::new();
        for (index, item) in items {
            let checked = async {
                let player = item
                    .player
                    .as_ref()
                    .ok_or_else(|| invalid("player", "is required"))?;
                let row = player_row(player, new_id("pl"), now)?;
                let mut accounts = Vec::with_capacity(item.accounts.len());
                for a in &item.accounts {
                    accounts.push((
                        parse_platform(&a.platform)?,
                        parse_account_id(&a.account_id)?,
                    ));
                }
                if !item.events.is_empty() && !championships.contains_key(&item.championship_id) {
                    let (_, preset) = self.championship(&item.championship_id).await?;
                    championships.insert(item.championship_id.clone(), preset);
                }
                Ok::<_, RegistrationError>((row, accounts, item.championship_id, item.events))
            }
            .await;
            match checked {
                Ok((player, accounts, championship, events)) => {
                    let entries = if championships.contains_key(&championship) {
                        events
                            .into_iter()
                            .map(|event| entry::Model {
                                id: new_id("en"),
                                championship_id: championship.clone(),
                                event,
                                player_id: player.id.clone(),
                                sequence: 1,
                                entered_by: caller.subject.clone(),
                                entered_at: now,
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    rows.push(Row {
                        index,
                        player,
                        accounts,
                        entries,
                    });
                }
                Err(e) => refused.push(refusal(index, e)),
            }
        }
        // Ask the database once for the group: identities, accounts and bar lists.
        let keys: Vec<String> = rows.iter().map(|r| r.player.identity_key.clone()).collect();
        let taken_identities: HashSet<String> = player::Entity::find()
            .select_only()
            .column(player::Column::IdentityKey)
            .filter(player::Column::IdentityKey.is_in(keys.clone()))
            .into_tuple::<String>()
            .all(&self.db)
            .await?
            .into_iter()
            .collect();
        let mut taken_accounts: HashSet<(String, String)> = HashSet::new();
        let mut by_platform: HashMap<&str, Vec<String>> = HashMap::new();
        for r in &rows {
            for (p, a) in &r.accounts {
                by_platform.entry(p).or_default().push(a.clone());
            }
        }
        for (platform, ids) in by_platform {
            for (p, a) in account::Entity::find()
                .select_only()
                .column(account::Column::Platform)
                .column(account::Column::AccountId)
                .filter(account::Column::Platform.eq(platform))
                .filter(account::Column::AccountId.is_in(ids))
                .into_tuple::<(String, String)>()
                .all(&self.db)
                .await?
            {
                taken_accounts.insert((p, a));
            }
        }
        let barred: HashSet<(String, String)> = bar::Entity::find()
            .filter(bar::Column::IdentityKey.is_in(keys))
            .all(&self.db)
            .await?
            .into_iter()
            .map(|b| (b.game, b.identity_key))
            .collect();
        let mut seen_identities = HashSet::new();
        let mut seen_accounts = HashSet::new();
        let mut accepted = Vec::with_capacity(rows.len());
        for mut r in rows {
            let verdict = (|| {
                if taken_identities.contains(&r.player.identity_key)
                    || !seen_identities.insert(r.player.identity_key.clone())
                {
                    return Err(duplicate_identity());
                }
                for (p, a) in &r.accounts {
                    if taken_accounts.contains(&(p.clone(), a.clone()))
                        || !seen_accounts.insert((p.clone(), a.clone()))
                    {
                        return Err(duplicate_account(p));
                    }
                }
                let sex =
                    sex_from_code(&r.player.sex).ok_or_else(|| invalid("player.sex", "unknown"))?;
                let mut events = HashSet::new();
                for e in &mut r.entries {
                    let preset = championships
                        .get(&e.championship_id)
                        .ok_or_else(|| RegistrationError::NotFound("championship".into()))?;
                    let sequence = judge_entry(&EntryAttempt {
                        preset,
                        event_code: &e.event,
                        now,
                        sex,
                        birth_date: r.player.birth_date,
                        on_bar_list: barred.contains(&(
                            preset.game.code().to_owned(),
                            r.player.identity_key.clone(),
                        )),
                        foreign: r.player.id_kind == "passport",
                        previous_entries: u32::from(!events.insert(e.event.clone())),
                    })?;
                    e.sequence = i32::try_from(sequence).unwrap_or(i32::MAX);
                }
                Ok(())
            })();
            match verdict {
                Ok(()) => accepted.push(r),
                Err(e) => refused.push(refusal(r.index, e)),
            }
        }
        let txn = self.db.begin().await?;
        let players: Vec<player::ActiveModel> = accepted
            .iter()
            .map(|r| player::ActiveModel::from(r.player.clone()))
            .collect();
        for chunk in players.chunks(100) {
            player::Entity::insert_many(chunk.to_vec())
                .exec_without_returning(&txn)
                .await?;
        }
        let accounts: Vec<account::ActiveModel> = accepted
            .iter()
            .flat_map(|r| {
                r.accounts.iter().map(|(p, a)| account::ActiveModel {
                    platform: Set(p.clone()),
                    account_id: Set(a.clone()),
                    player_id: Set(r.player.id.clone()),
                    linked_by: Set(caller.subject.clone()),
                    linked_at: Set(now),
                })
            })
            .collect();
        for chunk in accounts.chunks(200) {
            account::Entity::insert_many(chunk.to_vec())
                .exec_without_returning(&txn)
                .await?;
        }
        let entries: Vec<entry::ActiveModel> = accepted
            .iter()
            .flat_map(|r| r.entries.iter().cloned().map(entry::ActiveModel::from))
            .collect();
        for chunk in entries.chunks(200) {
            entry::Entity::insert_many(chunk.to_vec())
                .exec_without_returning(&txn)
                .await?;
        }
        if !accepted.is_empty() {
            audit(
                &txn,
                caller,
                "player.import",
                &accepted[0].player.id,
                format!("{} players imported in one group", accepted.len()),
            )
            .await?;
        }
        txn.commit().await?;
        summary.imported += accepted.len() as u32;
        summary.refused += refused.len() as u32;
        summary
            .player_ids
            .extend(accepted.into_iter().map(|r| r.player.id));
        summary.refusals.extend(refused);
        Ok(())
    }
}
