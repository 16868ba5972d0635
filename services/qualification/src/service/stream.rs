//! A partner's stream of game reports (`ReportGames`, `StreamGames`).
//!
//! A stream is read only as fast as it is stored: while one group is being stored, the next is
//! gathered, up to [`BATCH`] reports, and then nothing more is read until the first is committed.
//! What the sender has not been let send waits in its own buffers behind HTTP/2 flow control (the
//! server's stream window is small, see `qiwang::start`), so a sender faster than the database is
//! held back instead of flooding the connection. (A flood of small frames is what made h2 end
//! Python grpcio partners' connections with `ENHANCE_YOUR_CALM "too_many_data_frames"`.)
//!
//! A group is stored when it holds [`BATCH`] reports or [`GROUP_WAIT`] after its first report, so
//! a partner sending one report at a time is acknowledged within about that long plus one commit.
//! When the process shuts down, a stream stops reading, stores and answers the reports it has
//! read, and ends with `UNAVAILABLE`: the partner resends whatever has no outcome.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::*;

/// How long a group's first report waits for more before the group is stored.
pub(super) const GROUP_WAIT: Duration = Duration::from_millis(50);

/// The status a stream ends with when the server shuts down while it is open.
pub(super) fn shutting_down() -> Status {
    Status::unavailable(
        "the server is shutting down: resend every report that has no outcome \
         (a report stored before is acknowledged as a duplicate)",
    )
}

/// Where a stream's outcomes go, one per report in the order received, each after its group is
/// committed (or refused).
pub(super) type Outcomes = mpsc::Sender<std::result::Result<pb::ReportOutcome, Status>>;

impl QualificationApi {
    /// Reads `stream`, stores it in groups and sends each report's outcome to `out`. `Ok` when the
    /// partner ended the stream and every outcome was sent; `UNAVAILABLE` after a shutdown (every
    /// report read was stored and answered first); the stream's or the store's error otherwise.
    pub(super) async fn ingest_stream(
        &self,
        caller: &Caller,
        mut stream: Streaming<pb::GameReport>,
        out: &Outcomes,
    ) -> std::result::Result<(), Status> {
        let mut shutdown = self.shutdown.clone();
        let mut group: Vec<pb::GameReport> = Vec::new();
        let mut due: Option<Instant> = None;
        let mut storing: Option<JoinHandle<std::result::Result<Vec<pb::ReportOutcome>, Status>>> =
            None;
        let (mut ended, mut stopping) = (false, false);
        loop {
            let idle = storing.is_none();
            if idle
                && !group.is_empty()
                && (group.len() >= BATCH
                    || ended
                    || stopping
                    || due.is_some_and(|d| d <= Instant::now()))
            {
                // In a task of its own: a group once begun is stored whatever happens to the stream.
                let (api, caller, reports) =
                    (self.clone(), caller.clone(), std::mem::take(&mut group));
                due = None;
                storing = Some(tokio::spawn(async move {
                    api.store_group(&caller, reports).await
                }));
                continue;
            }
            if idle && group.is_empty() && (ended || stopping) {
                break;
            }
            tokio::select! {
                biased;
                stored = async {
                    match storing.as_mut() {
                        Some(task) => task.await,
                        None => std::future::pending().await,
                    }
                } => {
                    storing = None;
                    let outcomes = stored
                        .map_err(|e| Status::from(QualificationError::from(e)))??;
                    for outcome in outcomes {
                        if out.send(Ok(outcome)).await.is_err() {
                            // The partner hung up: what was committed stays stored, unacknowledged.
                            return Err(Status::cancelled("the partner ended the call"));
                        }
                    }
                }
                () = async {
                    // The watch's guard is dropped here: it may not be held across an await.
                    let _ = shutdown.wait_for(|stop| *stop).await;
                }, if !stopping => stopping = true,
                next = stream.next(), if !ended && !stopping && group.len() < BATCH => match next {
                    None => ended = true,
                    Some(Ok(report)) => {
                        if group.is_empty() {
                            due = Some(Instant::now() + GROUP_WAIT);
                        }
                        group.push(report);
                    }
                    Some(Err(status)) => return Err(status),
                },
                () = async {
                    match due {
                        Some(due) => tokio::time::sleep_until(due).await,
                        None => std::future::pending().await,
                    }
                }, if idle => {}
            }
        }
        if stopping {
            Err(shutting_down())
        } else {
            Ok(())
        }
    }

    /// Stores one group and answers each of its reports, in order.
    async fn store_group(
        &self,
        caller: &Caller,
        reports: Vec<pb::GameReport>,
    ) -> std::result::Result<Vec<pb::ReportOutcome>, Status> {
        let ids: Vec<String> = reports.iter().map(|r| r.game_id.clone()).collect();
        let outcomes = self.ingest(caller, reports).await.map_err(Status::from)?;
        Ok(ids
            .into_iter()
            .zip(outcomes)
            .map(|(game_id, outcome)| match outcome {
                Ok(ack) => pb::ReportOutcome {
                    game_id,
                    code: "OK".into(),
                    ack: Some(ack),
                    ..Default::default()
                },
                Err(e) => {
                    let field = e.field().to_owned();
                    let status = Status::from(e);
                    pb::ReportOutcome {
                        game_id,
                        code: code_name(status.code()).into(),
                        field,
                        message: status.message().to_owned(),
                        ack: None,
                    }
                }
            })
            .collect())
    }

    /// `ReportGames`: the stream's outcomes gathered into one summary.
    pub(super) async fn report_stream(
        &self,
        caller: &Caller,
        stream: Streaming<pb::GameReport>,
    ) -> std::result::Result<pb::ReportGamesSummary, Status> {
        let (tx, mut rx): (Outcomes, _) = mpsc::channel(BATCH);
        let gather = async move {
            let mut summary = pb::ReportGamesSummary::default();
            while let Some(Ok(outcome)) = rx.recv().await {
                summary.received += 1;
                match &outcome.ack {
                    Some(ack) if ack.status == pb::AckStatus::Duplicate as i32 => {
                        summary.duplicates += 1;
                    }
                    Some(_) => summary.stored += 1,
                    None => summary.refused += 1,
                }
                summary.outcomes.push(outcome);
            }
            summary
        };
        let (ended, summary) = tokio::join!(
            async move {
                let ended = self.ingest_stream(caller, stream, &tx).await;
                drop(tx);
                ended
            },
            gather
        );
        ended.map(|()| summary)
    }
}
