//! Messages for people (issue 6): Chinese by default, English with `Accept-Language: en`.
//!
//! Reading: the services speak English diagnostics (they are logs and operator material). What a
//! person reads in `message` is chosen here from a catalogue keyed by the machine code
//! (`extensions.code`), the precondition kind (`extensions.reason`) and the field
//! (`extensions.field`); the service's own text is always kept, unchanged, in `extensions.detail`,
//! so a console can show it and a support desk can search the logs with it. With English the
//! message stays the service's text. Every error leaves the gateway with a code: the
//! document-level refusals async-graphql raises itself get `QUERY_TOO_DEEP`,
//! `QUERY_TOO_COMPLEX` or `GRAPHQL_VALIDATION_FAILED`.

use async_graphql::{ErrorExtensionValues, Response, ServerError, Value};

/// The language of a response's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// 简体中文, the default.
    Zh,
    En,
}

/// Picks the language from an `Accept-Language` header: the highest-weighted tag that is Chinese
/// or English wins (ties: the first listed); anything else, or no header, is Chinese.
pub fn negotiate(header: Option<&str>) -> Lang {
    let Some(header) = header else {
        return Lang::Zh;
    };
    let mut best: Option<(f32, Lang)> = None;
    for part in header.split(',') {
        let mut pieces = part.split(';');
        let tag = pieces
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let q = pieces
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let lang = if tag == "en" || tag.starts_with("en-") {
            Lang::En
        } else if tag == "zh" || tag.starts_with("zh-") {
            Lang::Zh
        } else {
            continue;
        };
        if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, lang));
        }
    }
    best.map_or(Lang::Zh, |(_, lang)| lang)
}

/// Localizes subscription responses too (their errors do not pass the HTTP handler): the
/// language is the WebSocket connection's, from the upgrade request's `Accept-Language`.
pub struct LocalizeSubscriptions;

impl async_graphql::extensions::ExtensionFactory for LocalizeSubscriptions {
    fn create(&self) -> std::sync::Arc<dyn async_graphql::extensions::Extension> {
        std::sync::Arc::new(LocalizeSubscriptions)
    }
}

impl async_graphql::extensions::Extension for LocalizeSubscriptions {
    fn subscribe<'s>(
        &self,
        ctx: &async_graphql::extensions::ExtensionContext<'_>,
        stream: futures_core::stream::BoxStream<'s, Response>,
        next: async_graphql::extensions::NextSubscribe<'_>,
    ) -> futures_core::stream::BoxStream<'s, Response> {
        use tokio_stream::StreamExt;
        let lang = ctx.data_opt::<Lang>().copied().unwrap_or(Lang::Zh);
        Box::pin(next.run(ctx, stream).map(move |mut response| {
            localize(&mut response, lang);
            response
        }))
    }
}

/// Gives every error a code and a detail, and the message in `lang`.
pub fn localize(response: &mut Response, lang: Lang) {
    for error in &mut response.errors {
        localize_error(error, lang);
    }
}

fn text(ext: &ErrorExtensionValues, name: &str) -> Option<String> {
    match ext.get(name) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The code of an error async-graphql raised before any resolver ran (or while coercing a
/// resolver's arguments).
fn classify(error: &ServerError) -> &'static str {
    if error.message.contains("nested too deep") {
        "QUERY_TOO_DEEP"
    } else if error.message.contains("too complex") {
        "QUERY_TOO_COMPLEX"
    } else if error.path.is_empty() {
        "GRAPHQL_VALIDATION_FAILED"
    } else if error.message.starts_with("Failed to parse")
        || error.message.contains("Invalid value")
    {
        "INVALID_ARGUMENT"
    } else {
        "INTERNAL"
    }
}

fn localize_error(error: &mut ServerError, lang: Lang) {
    let code = error
        .extensions
        .as_ref()
        .and_then(|x| text(x, "code"))
        .unwrap_or_else(|| classify(error).to_owned());
    let detail = error.message.clone();
    let ext = error.extensions.get_or_insert_with(Default::default);
    ext.set("code", code.as_str());
    if ext.get("detail").is_none() {
        ext.set("detail", detail);
    }
    if lang == Lang::Zh {
        let reason = text(ext, "reason");
        let field = text(ext, "field");
        error.message = chinese(&code, reason.as_deref(), field.as_deref());
    }
}

/// The Chinese message for a code (and precondition kind, and field).
pub fn chinese(code: &str, reason: Option<&str>, field: Option<&str>) -> String {
    if code == "INVALID_ARGUMENT" && reason == Some("INJECTION_SHAPED") {
        let f = field.unwrap_or_default();
        return format!(
            "输入含有不允许的内容（标记、脚本、模板、SQL 片段、公式或控制字符）（字段 {f}）"
        );
    }
    let base = match code {
        "UNAUTHENTICATED" => "请先登录：身份令牌缺失、过期或无效",
        "PERMISSION_DENIED" => "无权进行此操作或查看此内容",
        "INVALID_ARGUMENT" => "输入有误",
        "NOT_FOUND" => "未找到所请求的记录",
        "ALREADY_EXISTS" => "该记录已存在，或与已提交的内容不一致",
        "FAILED_PRECONDITION" => reason
            .and_then(precondition)
            .unwrap_or("当前状态不允许此操作"),
        "RESOURCE_EXHAUSTED" => "提交过于频繁，请稍后再试",
        "ABORTED" => "操作与他人的修改冲突，请重试",
        "UNAVAILABLE" | "DEADLINE_EXCEEDED" => "所需的服务暂时不可用，请稍后重试",
        "OUT_OF_RANGE" => "超出允许的范围",
        "QUERY_TOO_DEEP" => "查询嵌套层数超过上限",
        "QUERY_TOO_COMPLEX" => "查询过于复杂，请缩小范围",
        "GRAPHQL_VALIDATION_FAILED" => "查询语句无效",
        "PAYLOAD_TOO_LARGE" => "上传内容超过大小上限",
        "UNSUPPORTED_MEDIA_TYPE" => "上传的文件不是允许的图片格式",
        _ => "服务器内部错误，请联系组委会",
    };
    match field {
        Some(f) if code == "INVALID_ARGUMENT" && !f.is_empty() => format!("{base}（字段 {f}）"),
        _ => base.to_owned(),
    }
}

/// 前置条件: what a person is told for each precondition kind the services raise.
fn precondition(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "REGISTRATION_NOT_OPEN" => "报名尚未开始",
        "REGISTRATION_CLOSED" => "报名已截止",
        "BARRED" => "该棋手不具备参赛资格（限制名单）",
        "SEX_NOT_ADMITTED" => "该项目不接受此性别的棋手报名",
        "OUTSIDE_AGE_WINDOW" | "OUTSIDE_AGE_BOUNDS" => "棋手年龄不符合该项目的规定",
        "CERTIFICATE_REQUIRED" => "需要提交证书",
        "NOT_DIRECT_ENTRY" => "该项目不能直接报名",
        "NOT_ONLINE_QUALIFIER" => "该项目没有网络选拔赛",
        "PAIRS_NOT_OPEN" => "双人项目尚未开放报名",
        "PAIRS_CLOSED" => "双人项目报名已截止",
        "PAIRS_DRAWN" | "ALREADY_DRAWN" => "已经抽签",
        "CITY_TEAMS_CLOSED" => "城市队报名已截止",
        "WILDCARD_CLOSED" => "外卡申请已截止",
        "WILDCARD_QUOTA_FULL" => "外卡名额已满",
        "WILDCARD_STATE" => "该外卡申请的状态不允许此操作",
        "PERIOD_NOT_OPEN" => "该阶段尚未开放",
        "PERIOD_CLOSED" => "该阶段已结束",
        "PERIOD_NOT_CLOSED" => "该阶段尚未结束",
        "RESET_NOT_ALLOWED" => "本规程不允许重置积分",
        "SEED_NOT_PUBLISHED" => "抽签种子尚未公布",
        "NOTICE_WORKFLOW" | "NOTICE_PUBLISHED" => "公示流程的当前状态不允许此操作",
        "REPORTS_PENDING" => "仍有举报未处理完毕",
        "NOT_LISTED" => "该棋手不在决赛名单中",
        "NOT_REACHED" => "该棋手尚未进入本项目要求的比赛阶段",
        "DEADLINE_PASSED" => "已超过截止日期",
        "EVENT_STATE" => "比赛的当前状态不允许此操作",
        "ROUND_NOT_DRAWN" => "本轮尚未编排",
        "PREVIOUS_ROUND_OPEN" => "上一轮尚未结束",
        "GAMES_UNFINISHED" => "仍有对局未结束",
        "NO_VALID_PAIRING" => "无法按规则完成编排",
        "RANKINGS_NOT_FINAL" => "排名尚未最终确定",
        "NOT_APPROVED" => "奖项尚未审批",
        "NOT_FROZEN" => "团体成绩尚未冻结",
        "FEE_SETTLED" => "费用已结清",
        "ENTRY_DECIDED" => "该报名已有决定",
        "NO_FINAL" | "NO_FINAL_SECTION" => "本届赛事没有对应的决赛",
        "QUOTA_FILLED" | "SEEDS_FULL" => "名额已满",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_is_the_default_and_english_must_be_asked_for() {
        assert_eq!(negotiate(None), Lang::Zh);
        assert_eq!(negotiate(Some("")), Lang::Zh);
        assert_eq!(negotiate(Some("fr-FR")), Lang::Zh);
        assert_eq!(negotiate(Some("en")), Lang::En);
        assert_eq!(negotiate(Some("en-US,en;q=0.9")), Lang::En);
        assert_eq!(negotiate(Some("zh-CN,zh;q=0.9,en;q=0.8")), Lang::Zh);
        assert_eq!(negotiate(Some("zh;q=0.5, en;q=0.9")), Lang::En);
        assert_eq!(negotiate(Some("en;q=0")), Lang::Zh);
        assert_eq!(negotiate(Some("de, en;q=0.7")), Lang::En);
    }

    #[test]
    fn every_error_gets_a_code_a_detail_and_a_chinese_message() {
        let mut response = Response::from_errors(vec![
            ServerError::new("Query is nested too deep.", None),
            ServerError::new("Unknown field \"x\"", None),
        ]);
        localize(&mut response, Lang::Zh);
        let codes: Vec<_> = response
            .errors
            .iter()
            .map(|e| e.extensions.as_ref().and_then(|x| text(x, "code")))
            .collect();
        assert_eq!(
            codes,
            [
                Some("QUERY_TOO_DEEP".to_owned()),
                Some("GRAPHQL_VALIDATION_FAILED".to_owned())
            ]
        );
        assert_eq!(response.errors[0].message, "查询嵌套层数超过上限");
        let detail = response.errors[1]
            .extensions
            .as_ref()
            .and_then(|x| text(x, "detail"));
        assert_eq!(detail.as_deref(), Some("Unknown field \"x\""));
    }

    #[test]
    fn english_keeps_the_service_text_and_a_precondition_names_its_kind() {
        let mut error = ServerError::new("registration closed on 2022-09-30", None);
        let mut ext = ErrorExtensionValues::default();
        ext.set("code", "FAILED_PRECONDITION");
        ext.set("reason", "REGISTRATION_CLOSED");
        error.extensions = Some(ext);
        let mut en = Response::from_errors(vec![error.clone()]);
        localize(&mut en, Lang::En);
        assert_eq!(en.errors[0].message, "registration closed on 2022-09-30");
        let mut zh = Response::from_errors(vec![error]);
        localize(&mut zh, Lang::Zh);
        assert_eq!(zh.errors[0].message, "报名已截止");
        assert_eq!(
            chinese("INVALID_ARGUMENT", None, Some("birthDate")),
            "输入有误（字段 birthDate）"
        );
        assert_eq!(
            chinese("FAILED_PRECONDITION", Some("SOMETHING_NEW"), None),
            "当前状态不允许此操作"
        );
    }
}
