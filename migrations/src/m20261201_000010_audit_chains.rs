//! Tamper-evident audit logs (R-DIS-3): `prev_hash` and `hash` on each service's audit table
//! (registration, qualification, awards), with a unique index on `prev_hash` so the chain can never
//! fork. Entries written before this migration are chained now, in id order, so every log is one
//! chain from its first entry (see `qiwang_infra::audit`).

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, Statement};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// (table, time column, hashed text columns): the same as the services' `ChainedTable`s.
const TABLES: &[(&str, &str, &[&str])] = &[
    (
        "registration_audit",
        "at",
        &["actor", "role", "action", "subject", "detail"],
    ),
    (
        "qualification_audit",
        "at",
        &["actor", "role", "action", "subject", "detail"],
    ),
    (
        "awards_decisions",
        "decided_at",
        &[
            "championship_id",
            "action",
            "decided_by",
            "reason",
            "detail",
        ],
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (table, _, _) in TABLES {
            for column in ["prev_hash", "hash"] {
                manager
                    .alter_table(
                        Table::alter()
                            .table(Alias::new(*table))
                            .add_column(
                                ColumnDef::new(Alias::new(column))
                                    .string_len(64)
                                    .not_null()
                                    .default(""),
                            )
                            .to_owned(),
                    )
                    .await?;
            }
        }
        // Chain what is there.
        let db = manager.get_connection();
        let backend = db.get_database_backend();
        for (table, time, columns) in TABLES {
            let sql = format!(
                "SELECT id, {time}, {} FROM {table} ORDER BY id",
                columns.join(", ")
            );
            let rows = db
                .query_all_raw(Statement::from_string(backend, sql))
                .await?;
            let mut prev = qiwang_infra::audit::GENESIS.to_owned();
            for row in rows {
                let id: i64 = row.try_get("", "id")?;
                let at: chrono::DateTime<chrono::Utc> = row.try_get("", time)?;
                let mut fields = Vec::new();
                for c in *columns {
                    fields.push(row.try_get::<String>("", c)?);
                }
                let refs: Vec<&str> = fields.iter().map(String::as_str).collect();
                let hash = qiwang_infra::audit::entry_hash(&prev, at, &refs);
                let at = qiwang_infra::audit::chain_time(at);
                let update = Query::update()
                    .table(Alias::new(*table))
                    .value(Alias::new(*time), at)
                    .value(Alias::new("prev_hash"), prev.clone())
                    .value(Alias::new("hash"), hash.clone())
                    .and_where(Expr::col(Alias::new("id")).eq(id))
                    .to_owned();
                manager.exec_stmt(update).await?;
                prev = hash;
            }
            manager
                .create_index(
                    Index::create()
                        .name(format!("{table}_chain"))
                        .table(Alias::new(*table))
                        .col(Alias::new("prev_hash"))
                        .unique()
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (table, _, _) in TABLES {
            manager
                .drop_index(
                    Index::drop()
                        .name(format!("{table}_chain"))
                        .table(Alias::new(*table))
                        .to_owned(),
                )
                .await?;
            for column in ["prev_hash", "hash"] {
                manager
                    .alter_table(
                        Table::alter()
                            .table(Alias::new(*table))
                            .drop_column(Alias::new(column))
                            .to_owned(),
                    )
                    .await?;
            }
        }
        Ok(())
    }
}
