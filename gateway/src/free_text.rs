//! Refuses injection-shaped free text before anything runs (issue 6): every string a request
//! carries — literal arguments anywhere in the document and every variable, at any depth — goes
//! through `qiwang_infra::text::check_free_text`. A refused request executes nothing, so it
//! changes nothing; the error is `INVALID_ARGUMENT` with the offending argument in
//! `extensions.field` and `extensions.reason` = `INJECTION_SHAPED`.
//!
//! Checking every string, not a list of fields, covers the free-text fields of tomorrow too. The
//! one exception is `presetToml`: a whole preset file, which the preset parser validates.

use std::sync::Arc;

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextParseQuery};
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, Selection, SelectionSet,
};
use async_graphql::{ErrorExtensionValues, Pos, ServerError, ServerResult, Value, Variables};
use qiwang_infra::text::check_free_text;

/// Arguments (and input fields) that are not free text.
const EXEMPT: [&str; 1] = ["presetToml"];

pub struct FreeTextGuard;

impl ExtensionFactory for FreeTextGuard {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(FreeTextGuard)
    }
}

fn refusal(field: &str, reason: String, pos: Option<Pos>) -> ServerError {
    tracing::info!(field, %reason, "injection-shaped input refused");
    let mut error = ServerError::new(format!("{field}: {reason}"), pos);
    let mut ext = ErrorExtensionValues::default();
    ext.set("code", "INVALID_ARGUMENT");
    ext.set("field", field);
    ext.set("reason", "INJECTION_SHAPED");
    error.extensions = Some(ext);
    error
}

/// The first refused string in `value`, with its path below `path`.
fn check_value(path: &str, value: &Value) -> Option<(String, String)> {
    match value {
        Value::String(s) => check_free_text(s)
            .err()
            .map(|why| (path.to_owned(), why.to_string())),
        Value::List(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| check_value(&format!("{path}[{i}]"), v)),
        Value::Object(fields) => fields
            .iter()
            .filter(|(k, _)| !EXEMPT.contains(&k.as_str()))
            .find_map(|(k, v)| check_value(&format!("{path}.{k}"), v)),
        _ => None,
    }
}

fn check_selection_set(set: &SelectionSet) -> Result<(), ServerError> {
    for item in &set.items {
        match &item.node {
            Selection::Field(field) => {
                for (name, value) in &field.node.arguments {
                    if EXEMPT.contains(&name.node.as_str()) {
                        continue;
                    }
                    // Variables count as null here: they are checked from the request's variables.
                    let literal = value
                        .node
                        .clone()
                        .into_const_with(|_| Ok::<_, ()>(Value::Null))
                        .unwrap_or(Value::Null);
                    if let Some((path, why)) = check_value(name.node.as_str(), &literal) {
                        return Err(refusal(&path, why, Some(value.pos)));
                    }
                }
                check_selection_set(&field.node.selection_set.node)?;
            }
            Selection::InlineFragment(fragment) => {
                check_selection_set(&fragment.node.selection_set.node)?;
            }
            // Fragment definitions are checked once each, on their own.
            Selection::FragmentSpread(_) => {}
        }
    }
    Ok(())
}

fn check_document(doc: &ExecutableDocument, variables: &Variables) -> Result<(), ServerError> {
    for (name, value) in variables.iter() {
        if EXEMPT.contains(&name.as_str()) {
            continue;
        }
        if let Some((path, why)) = check_value(&format!("${name}"), value) {
            return Err(refusal(&path, why, None));
        }
    }
    match &doc.operations {
        DocumentOperations::Single(op) => check_selection_set(&op.node.selection_set.node)?,
        DocumentOperations::Multiple(ops) => {
            for op in ops.values() {
                check_selection_set(&op.node.selection_set.node)?;
            }
        }
    }
    for fragment in doc.fragments.values() {
        check_selection_set(&fragment.node.selection_set.node)?;
    }
    Ok(())
}

#[async_graphql::async_trait::async_trait]
impl Extension for FreeTextGuard {
    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        let doc = next.run(ctx, query, variables).await?;
        check_document(&doc, variables)?;
        Ok(doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(query: &str, variables: serde_json::Value) -> Result<(), ServerError> {
        let doc = async_graphql::parser::parse_query(query).expect("parses");
        check_document(&doc, &Variables::from_json(variables))
    }

    #[test]
    fn literals_and_variables_at_any_depth_are_checked() {
        assert!(
            check(
                "mutation { a(reason: \"迟到\") { b } }",
                serde_json::json!({})
            )
            .is_ok()
        );
        let e = check(
            "mutation { a(input: { x: [\"ok\", \"<script>\"] }) { b } }",
            serde_json::json!({}),
        )
        .expect_err("literal");
        assert!(e.message.starts_with("input.x[1]:"), "{}", e.message);
        let e = check(
            "mutation($i: I!) { a(input: $i) { b } }",
            serde_json::json!({ "i": { "reason": "' OR '1'='1" } }),
        )
        .expect_err("variable");
        assert!(e.message.starts_with("$i.reason:"), "{}", e.message);
        let e = check(
            "query { ...F } fragment F on Query { a(name: \"{{7*7}}\") }",
            serde_json::json!({}),
        )
        .expect_err("fragment");
        assert!(e.message.starts_with("name:"), "{}", e.message);
        // A preset file is not free text.
        assert!(
            check(
                "mutation($i: I!) { a(input: $i) { b } }",
                serde_json::json!({ "i": { "presetToml": "# R-ADV-1 -- the line\n[x]\n" } }),
            )
            .is_ok()
        );
    }
}
