//! The `qiwang` binary as an operator runs it.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn qiwang() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qiwang"));
    // A clean environment for settings: nothing from the caller's QIWANG_* leaks in.
    for (key, _) in std::env::vars() {
        if key.starts_with("QIWANG_") || key == "DATABASE_URL" {
            cmd.env_remove(key);
        }
    }
    cmd
}

fn temp_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "qiwang-cli-{}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

#[test]
fn invalid_configuration_stops_start_up_and_names_the_key() {
    let dir = temp_dir();
    let out = qiwang()
        .current_dir(&dir)
        .arg("up")
        .env("QIWANG_GRPC__LISTEN", "not-an-address")
        .output()
        .expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("grpc.listen") && stderr.contains("QIWANG_GRPC__LISTEN"),
        "{stderr}"
    );

    let out = qiwang()
        .current_dir(&dir)
        .arg("up")
        .env("QIWANG_GATEWAY__LISEN", "127.0.0.1:1")
        .output()
        .expect("run");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("lisen"),
        "unknown keys are named"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn presets_check_reports_every_error_with_its_path() {
    let dir = temp_dir();
    let file = dir.join("bad.toml");
    let good = qiwang()
        .args(["presets", "show", "xiangqi-2022"])
        .output()
        .expect("run");
    assert!(good.status.success());
    assert!(String::from_utf8_lossy(&good.stdout).contains("少儿赛"));
    std::fs::write(
        &file,
        "format = 1\nname = \"x\"\ngame = \"go\"\nseason = 2030\ntitle_zh = \"\"\ntitle_en = \"t\"\n\
         [registration]\nopens_on = \"2030-02-30\"\ncloses_on = \"2030-03-01\"\nrepeat_entry = true\n\
         [fees]\noffline_service_fee_yuan = 0\nrefund_no_show = false\n\
         [[events]]\ncode = \"a\"\nname_zh = \"甲\"\nname_en = \"A\"\nsex = \"x\"\nonline_qualifier = true\n",
    )
    .expect("write");
    let out = qiwang()
        .args(["presets", "check"])
        .arg(&file)
        .output()
        .expect("run");
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    for path in [
        "title_zh: must not be empty",
        "registration.opens_on:",
        "events[0].sex:",
    ] {
        assert!(stdout.contains(path), "{path} missing from:\n{stdout}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn production_mode_refuses_to_mint() {
    let dir = temp_dir();
    let key = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../infra/testdata/test-ed25519-public.pem"
    );
    let out = qiwang()
        .current_dir(&dir)
        .args(["token", "--role", "organizer", "--sub", "x"])
        .env("QIWANG_AUTH__MODE", "production")
        .env("QIWANG_AUTH__PUBLIC_KEYS", format!("[\"{key}\"]"))
        .output()
        .expect("run");
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot mint"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dev = qiwang()
        .current_dir(&dir)
        .args(["token", "--role", "organizer", "--sub", "x"])
        .output()
        .expect("run");
    assert!(dev.status.success());
    assert_eq!(
        String::from_utf8_lossy(&dev.stdout)
            .trim()
            .split('.')
            .count(),
        3,
        "a JWT"
    );
    assert!(
        dir.join("qiwang-data/dev-jwt-secret").is_file(),
        "the secret is generated into the data dir"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn up_starts_everything_on_the_embedded_default_and_stops_on_sigterm() {
    let dir = temp_dir();
    let mut child = qiwang()
        .current_dir(&dir)
        .arg("up")
        .env("QIWANG_GRPC__LISTEN", "127.0.0.1:0")
        .env("QIWANG_GATEWAY__LISTEN", "127.0.0.1:0")
        .env("QIWANG_METRICS__LISTEN", "127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut banner = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        match lines.next() {
            Some(Ok(line)) => {
                let done = line.starts_with("Ctrl-C");
                banner.push(line);
                if done {
                    break;
                }
            }
            _ => break,
        }
    }
    let text = banner.join("\n");
    assert!(
        text.contains("gRPC") && text.contains("/graphql") && text.contains("token"),
        "{text}"
    );
    assert!(
        dir.join("qiwang-data/qiwang.db").is_file(),
        "SQLite file created in ./qiwang-data/"
    );
    let gateway = text
        .lines()
        .find_map(|l| l.split("http://").nth(1))
        .and_then(|rest| rest.split('/').next())
        .expect("gateway address")
        .to_owned();
    let healthz = std::net::TcpStream::connect(&gateway).map(|mut s| {
        use std::io::{Read, Write};
        let _ = write!(
            s,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        );
        let mut body = String::new();
        let _ = s.read_to_string(&mut body);
        body
    });
    assert!(healthz.expect("gateway reachable").contains("200 OK"));

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("wait") {
            break exit;
        }
        assert!(
            Instant::now() < deadline,
            "qiwang did not stop within 30 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(exit.success(), "graceful exit: {exit:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn presets_show_prints_every_section_in_chinese_and_english() {
    let out = qiwang()
        .args(["presets", "show", "go-2025"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "2025全国业余围棋棋王争霸赛（山海杯）",
        "线下服务费 Offline service fee: 260 元 yuan",
        "within 10 个工作日 working days",
        "城市代表队 City teams: 3 男 men + 2 女 women",
        "第6期 period 6: 2025-08-14 — 2025-09-03",
        "用时 time control: 30 min + 3×20 s byo-yomi",
        "groups A/B, then a placement round of 16 pairs",
        "申诉 appeals: in writing within 20 min, fee 2000 yuan",
        "1: 60000, 2: 30000, 3: 20000, 4: 10000, 5-6: 5000, 7-8: 3000, 9-32: 1000",
        "段位申报 Dan applications:",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn presets_check_accepts_the_five_and_rejects_a_broken_copy_precisely() {
    let dir = temp_dir();
    let presets = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/presets");
    for name in [
        "go-2015",
        "xiangqi-2015",
        "chess-2015",
        "xiangqi-2022",
        "go-2025",
    ] {
        let out = qiwang()
            .args(["presets", "check"])
            .arg(format!("{presets}/{name}.toml"))
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let text = std::fs::read_to_string(format!("{presets}/go-2025.toml")).expect("preset");
    let broken =
        text.replacen("top_n = 38", "top_n = 0", 1)
            .replacen("fee_yuan = 2000", "fee_yuan = -1", 1);
    let file = dir.join("go-2030.toml");
    std::fs::write(&file, broken).expect("write");
    let out = qiwang()
        .args(["presets", "check"])
        .arg(&file)
        .output()
        .expect("run");
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(".top_n: must be > 0"), "{stdout}");
    assert!(
        stdout.contains("stages[1].final.appeal.fee_yuan: must be >= 0"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn one_request_id_ties_the_json_logs_of_gateway_and_service_together() {
    let dir = temp_dir();
    let mut child = qiwang()
        .current_dir(&dir)
        .arg("up")
        .env("QIWANG_GRPC__LISTEN", "127.0.0.1:0")
        .env("QIWANG_GATEWAY__LISTEN", "127.0.0.1:0")
        .env("QIWANG_METRICS__LISTEN", "127.0.0.1:0")
        .env("QIWANG_LOG__FORMAT", "json")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut gateway = None;
    let deadline = Instant::now() + Duration::from_secs(60);
    while gateway.is_none() && Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_secs(1)) {
            gateway = line
                .split("http://")
                .nth(1)
                .and_then(|r| r.split('/').next())
                .map(str::to_owned)
                .filter(|_| line.contains("GraphQL"));
        }
    }
    let gateway = gateway.expect("gateway address in the banner");
    let token = qiwang()
        .current_dir(&dir)
        .args(["token", "--role", "organizer", "--sub", "org-1"])
        .output()
        .expect("token");
    let token = String::from_utf8_lossy(&token.stdout).trim().to_owned();
    let body = serde_json::json!({
        "query": "mutation($i: RegisterPlayerInput!) { registerPlayer(input: $i) { id } }",
        "variables": { "i": { "name": "张三", "sex": "FEMALE", "birthDate": "1949-12-31", "residentId": "11010519491231002X" } }
    });
    let response = reqwest::blocking::Client::new()
        .post(format!("http://{gateway}/graphql"))
        .bearer_auth(&token)
        .header("x-request-id", "e2e-req-42")
        .json(&body)
        .send()
        .expect("graphql");
    assert_eq!(
        response
            .headers()
            .get("x-request-id")
            .and_then(|v| v.to_str().ok()),
        Some("e2e-req-42")
    );
    let text = response.text().expect("body");
    assert!(text.contains("\"registerPlayer\":{\"id\""), "{text}");
    let (mut from_gateway, mut from_service) = (false, false);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(from_gateway && from_service) && Instant::now() < deadline {
        let Ok(line) = rx.recv_timeout(Duration::from_millis(500)) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if !line.contains("e2e-req-42") {
            continue;
        }
        let target = json["target"].as_str().unwrap_or_default();
        from_gateway |= target.starts_with("qiwang_gateway");
        from_service |= target.starts_with("qiwang_registration");
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(dir);
    assert!(from_gateway, "a gateway log line carries the request id");
    assert!(
        from_service,
        "the registration service's log line carries the same request id"
    );
}

#[test]
fn r_ind_3_pair_is_a_bbppairings_compatible_command_line() {
    let dir = temp_dir();
    let trf = dir.join("t.trf");
    std::fs::write(
        &trf,
        "012 Test\nXXR 3\nXXC white1\n\
001    1      A                                 2400                             0.0    1\n\
001    2      B                                 2300                             0.0    2\n\
001    3      C                                 2200                             0.0    3\n",
    )
    .expect("write trf");
    let out = dir.join("out.txt");
    let status = qiwang()
        .args(["pair", "--dutch"])
        .arg(&trf)
        .arg("-p")
        .arg(&out)
        .status()
        .expect("run");
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&out).expect("output"),
        "2\n1 2\n3 0\n"
    );
    // A finished tournament paired by bbpPairings checks clean, round by round.
    let finished = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../swiss/tests/data/dutch-bbp-12.trf"
    );
    let check = qiwang()
        .args(["pair", "--dutch", finished, "-c"])
        .output()
        .expect("run");
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // bbpPairings' exit codes: 5 for a file that cannot be read, 3 for bad input.
    let missing = qiwang()
        .args(["pair", "--dutch"])
        .arg(dir.join("missing.trf"))
        .arg("-p")
        .status()
        .expect("run");
    assert_eq!(missing.code(), Some(5));
    std::fs::write(&trf, "001 this is not a player line\n").expect("write");
    let bad = qiwang()
        .args(["pair", "--dutch"])
        .arg(&trf)
        .arg("-p")
        .status()
        .expect("run");
    assert_eq!(bad.code(), Some(3));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn r_pair_3_lottery_verify_reruns_a_published_draw() {
    let candidates = ["pr_a", "pr_b", "pr_c", "pr_d", "pr_e"];
    let expected =
        qiwang_core::lottery::draw("seed 1", &candidates.map(String::from), 3).expect("draw");
    let run = |expect: &str| {
        qiwang()
            .args([
                "lottery", "verify", "--seed", "seed 1", "--places", "3", "--expect", expect,
            ])
            .args(candidates)
            .output()
            .expect("runs")
    };
    let ok = run(&expected.join(","));
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{stdout}");
    assert!(stdout.contains("verified"), "{stdout}");
    assert!(
        stdout.starts_with(&format!("1\t{}", expected[0])),
        "{stdout}"
    );
    let mut wrong = expected.clone();
    wrong.swap(0, 1);
    let bad = run(&wrong.join(","));
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stdout).contains("MISMATCH"));
}

#[test]
fn r_dis_3_audit_check_reports_every_chain() {
    let dir = temp_dir();
    let run = |args: &[&str]| {
        qiwang()
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("runs")
    };
    let migrated = run(&["migrate", "up"]);
    assert!(migrated.status.success(), "{migrated:?}");
    let checked = run(&["audit", "check"]);
    let stdout = String::from_utf8_lossy(&checked.stdout);
    assert!(checked.status.success(), "{checked:?}");
    for table in [
        "registration_audit",
        "qualification_audit",
        "awards_decisions",
    ] {
        assert!(
            stdout.contains(&format!("{table}: intact, 0 entries")),
            "{stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
