//! Subscriptions (issue 6: "where a live view helps"): the online stages' changes as they happen
//! — periods opened and closed, advancement decided, knockout rounds drawn and decided, players
//! eliminated, the finalist list and its notice — from the qualification service's `WatchChanges`
//! stream, over GraphQL over WebSocket (`graphql-transport-ws` or the older `graphql-ws`) at
//! `/graphql/ws`. The token goes in `connection_init`'s payload (`{"authorization": "Bearer …"}`).
//!
//! Reading: a follower that falls behind gets an error (`DATA_LOSS`) and the stream ends, so a
//! console re-reads the state and subscribes again rather than trusting a gap.

use async_graphql::{Context, ID, SimpleObject, Subscription};
use qiwang_proto::qualification::v1 as pb;
use tokio_stream::{Stream, StreamExt};

use super::{authed, services, viewer};
use crate::error::{GqlResult, gql};

/// One change of a championship's online stages.
#[derive(SimpleObject, Clone, Debug)]
pub struct QualificationChange {
    /// PERIOD, ADVANCEMENT, KNOCKOUT_ROUND, KNOCKOUT_STATUS, FINALISTS or ELIMINATED.
    pub kind: String,
    pub stage: Option<String>,
    pub period: Option<u32>,
    /// The player the change is about, when it is about one.
    pub player_id: Option<ID>,
    /// In words: what changed and why.
    pub summary: String,
}

impl From<pb::Change> for QualificationChange {
    fn from(c: pb::Change) -> Self {
        use pb::change::Kind;
        let (mut stage, mut period) = match &c.at {
            Some(at) => (Some(at.stage.clone()), Some(at.period)),
            None => (None, None),
        };
        let (kind, player, summary) = match c.kind {
            Some(Kind::Period(p)) => {
                if let Some(r) = &p.period {
                    stage = Some(r.stage.clone());
                    period = Some(r.period);
                }
                let state = if p.closed {
                    "closed"
                } else if p.open {
                    "open"
                } else {
                    "not open"
                };
                ("PERIOD", None, format!("the period is {state}"))
            }
            Some(Kind::Advancement(a)) => (
                "ADVANCEMENT",
                Some(a.player_id),
                format!(
                    "{}: {}",
                    if a.advanced {
                        "advances"
                    } else {
                        "does not advance"
                    },
                    a.reason
                ),
            ),
            Some(Kind::KnockoutRound(k)) => {
                if let Some(r) = &k.round {
                    stage = Some(r.stage.clone());
                }
                let what = if k.closed_at.is_some() {
                    "closed"
                } else if k.drawn_at.is_some() {
                    "drawn"
                } else {
                    "seed published"
                };
                (
                    "KNOCKOUT_ROUND",
                    None,
                    format!("round {}: {what}", k.round.map_or(0, |r| r.round)),
                )
            }
            Some(Kind::KnockoutStatus(s)) => ("KNOCKOUT_STATUS", Some(s.player_id), s.reason),
            Some(Kind::Finalists(l)) => (
                "FINALISTS",
                None,
                format!("the finalist list ({} entries) changed", l.finalists.len()),
            ),
            Some(Kind::Eliminated(e)) => ("ELIMINATED", Some(e.player_id), e.reason),
            None => ("UNKNOWN", None, String::new()),
        };
        QualificationChange {
            kind: kind.to_owned(),
            stage,
            period,
            player_id: player.filter(|p| !p.is_empty()).map(ID),
            summary,
        }
    }
}

#[derive(Default)]
pub struct SubscriptionRoot;

#[Subscription]
impl SubscriptionRoot {
    /// A championship's online stages as they change (any signed-in viewer).
    async fn qualification_changes(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
    ) -> async_graphql::Result<impl Stream<Item = GqlResult<QualificationChange>> + use<>> {
        let caller = viewer(ctx)?;
        let stream = services(ctx)
            .qualification
            .clone()
            .watch_changes(authed(
                caller,
                pb::WatchRequest {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(stream.map(|item| item.map(QualificationChange::from).map_err(gql)))
    }
}
