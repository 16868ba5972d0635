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

/// The tables an import fills; on PostgreSQL they are analyzed as imports grow them.
const IMPORTED_TABLES: &str = "registration_players, registration_accounts, registration_entries";

/// Players imported by this process since the imported tables were last analyzed, and how many
/// the tables held then (as far as this process knows: what it imported before).
#[derive(Default)]
pub(super) struct ImportStatistics {
    since: u64,
    at_last: u64,
}

impl ImportStatistics {
    /// Counts `imported` rows; true when the tables should be analyzed now: after the first group
    /// and then each time imports have doubled what this process had imported at the last one.
    fn due(&mut self, imported: u64) -> bool {
        self.since += imported;
        if self.since > 0 && self.since >= Ord::max(self.at_last, GROUP as u64) {
            self.at_last += self.since;
            self.since = 0;
            true
        } else {
            false
        }
    }
}

struct Row {
    index: u32,
    player: player::Model,
    accounts: Vec<(String, String)>,
    entries: Vec<entry::Model>,
}

fn lock_statistics(
    m: &std::sync::Mutex<ImportStatistics>,
) -> std::sync::MutexGuard<'_, ImportStatistics> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
        let mut counted = 0u64;
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
                let imported = u64::from(summary.imported) - counted;
                counted += imported;
                self.refresh_statistics(imported).await;
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

    /// On PostgreSQL, `ANALYZE`s the imported tables when imports have grown them enough
    /// ([`ImportStatistics::due`]). A bulk import grows them faster than autovacuum's analyze
    /// follows (which waits for its next round, and is off on some servers), and until then the
    /// planner believes a lookup such as `platform = $1 AND account_id IN (…)` matches a handful of
    /// rows: it picks a bitmap scan of the whole platform and filters every row, so each lookup
    /// costs as much as the table is large, for the import's own duplicate checks and for the
    /// account and entry lookups of qualification's ingest. Measured with `qiwang bench ingest
    /// --players 200000 --games 1000000` on PostgreSQL 15 with autovacuum off: those lookups took
    /// 43-66 ms each, scanning every account and entry. Doubling keeps the statistics within 2x of
    /// the tables at a handful of `ANALYZE`s in all (each a sample of at most 30,000 rows).
    /// A failure is logged and changes nothing: statistics are an optimization, not a write.
    async fn refresh_statistics(&self, imported: u64) {
        if self.db.get_database_backend() != sea_orm::DbBackend::Postgres
            || !lock_statistics(&self.import_statistics).due(imported)
        {
            return;
        }
        let started = std::time::Instant::now();
        match self
            .db
            .execute_unprepared(&format!("ANALYZE {IMPORTED_TABLES}"))
            .await
        {
            Ok(_) => tracing::debug!(
                seconds = started.elapsed().as_secs_f64(),
                "imported tables analyzed"
            ),
            Err(e) => tracing::warn!(error = %e, "analyzing the imported tables failed"),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_are_refreshed_after_the_first_group_and_then_at_each_doubling() {
        let mut clock = ImportStatistics::default();
        assert!(!clock.due(0), "nothing imported, nothing to analyze");
        assert!(!clock.due(499));
        assert!(clock.due(1), "a first group of rows");
        // 20,000-row streams, as `qiwang bench ingest` imports them: analyzed at 500 (above),
        // then whenever the rows since reach what had been imported at the last analysis.
        let mut analyzed = Vec::new();
        let mut total = 500u64;
        for _ in 0..50 {
            total += 20_000;
            if clock.due(20_000) {
                analyzed.push(total);
            }
        }
        assert_eq!(
            analyzed,
            vec![20_500, 60_500, 140_500, 300_500, 620_500],
            "a million rows in 50 streams are analyzed 6 times in all, never 2x behind"
        );
    }
}
