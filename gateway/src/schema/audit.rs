//! The audit logs over GraphQL (organizers, R-DIS-3): each service's decisions, oldest first, with
//! each entry's hash link checked by the service that owns it. Award decisions are in
//! `awardDecisions`, a final's log in its `log`.

use async_graphql::{Context, Enum, Object, SimpleObject};
use qiwang_infra::auth::Role;
use qiwang_proto::audit::v1 as pb;

use super::{RoleGuard, authed, rfc3339, services, viewer};
use crate::error::{GatewayError, GqlResult, gql};

/// A service whose decisions are a hash chain.
#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum AuditedService {
    Registration,
    Qualification,
}

#[derive(SimpleObject, Clone)]
pub struct AuditEntry {
    pub seq: String,
    pub at: Option<String>,
    pub actor: String,
    pub role: String,
    pub action: String,
    pub subject: String,
    pub detail: String,
    pub prev_hash: String,
    pub hash: String,
    /// Its content matches its hash and it links to the entry before it.
    pub intact: bool,
}

#[derive(SimpleObject, Clone)]
pub struct AuditLogPage {
    pub entries: Vec<AuditEntry>,
    /// Pass as `after` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

impl From<pb::AuditEntry> for AuditEntry {
    fn from(e: pb::AuditEntry) -> Self {
        AuditEntry {
            seq: e.seq.to_string(),
            at: rfc3339(e.at),
            actor: e.actor,
            role: e.role,
            action: e.action,
            subject: e.subject,
            detail: e.detail,
            prev_hash: e.prev_hash,
            hash: e.hash,
            intact: e.intact,
        }
    }
}

#[derive(Default)]
pub struct AuditQuery;

#[Object]
impl AuditQuery {
    /// A service's audit log, a page at a time (organizers).
    #[graphql(
        guard = "RoleGuard(&[Role::Organizer])",
        complexity = "5 + child_complexity * 10"
    )]
    async fn audit_log(
        &self,
        ctx: &Context<'_>,
        service: AuditedService,
        after: Option<String>,
        size: Option<u32>,
    ) -> GqlResult<AuditLogPage> {
        let caller = viewer(ctx)?;
        let after = match after.as_deref() {
            None | Some("") => 0,
            Some(c) => c.parse::<i64>().map_err(|_| {
                gql(GatewayError::InvalidInput {
                    field: "after",
                    reason: "not a cursor this query gave".into(),
                })
            })?,
        };
        let limit = size.unwrap_or(0);
        let request = authed(caller, pb::AuditPageRequest { after, limit });
        let page = match service {
            AuditedService::Registration => {
                services(ctx)
                    .registration
                    .clone()
                    .list_audit_entries(request)
                    .await
            }
            AuditedService::Qualification => {
                services(ctx)
                    .qualification
                    .clone()
                    .list_audit_entries(request)
                    .await
            }
        }
        .map_err(gql)?
        .into_inner();
        let next = page.next_after;
        let entries = page.entries.into_iter().map(AuditEntry::from).collect();
        Ok(AuditLogPage {
            entries,
            next_cursor: (next > 0).then(|| next.to_string()),
        })
    }
}
