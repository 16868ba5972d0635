"""A partner platform written with Python's grpcio (gRPC's C-core, as under the C++, Ruby and PHP
clients), building its reports from qiwang's descriptor set: no generated code, no protoc.

    python grpcio_partner.py DESCRIPTORS ADDRESS TOKEN CHAMPIONSHIP PLAYERS BULK SLOW

Streams BULK games in one ReportGames call, then SLOW games on StreamGames, one every 50 ms,
timing each acknowledgement. Prints one JSON object with what it saw.
"""

import json
import sys
import threading
import time

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

SERVICE = "/qiwang.qualification.v1.QualificationService/"


def message_classes(path):
    files = descriptor_pb2.FileDescriptorSet.FromString(open(path, "rb").read())
    pool = descriptor_pool.DescriptorPool()
    pending = list(files.file)
    added = set()
    while pending:  # dependencies first, whatever order the set lists them in
        f = pending.pop(0)
        if all(d in added for d in f.dependency):
            pool.Add(f)
            added.add(f.name)
        else:
            pending.append(f)

    def cls(name):
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))

    return (
        cls("qiwang.qualification.v1.GameReport"),
        cls("qiwang.qualification.v1.ReportGamesSummary"),
        cls("qiwang.qualification.v1.ReportOutcome"),
    )


def main():
    descriptors, address, token, champ, players, bulk, slow = sys.argv[1:8]
    players, bulk, slow = int(players), int(bulk), int(slow)
    GameReport, Summary, Outcome = message_classes(descriptors)
    base = 1653883200  # 2022-05-30T04:00:00Z, the first day of 海选 period 1

    def report(n, prefix):
        a = n % players
        b = (n * 7 + 1) % players
        if a == b:
            b = (a + 1) % players
        start = base + (n * 17) % (11 * 86400)
        r = GameReport(
            championship_id=champ,
            game_id=f"{prefix}-{n}",
            first_account=f"acc-{a}",
            second_account=f"acc-{b}",
            result=1,  # RESULT_FIRST_WINS
            end_reason=2,  # END_REASON_RESIGNATION
            stage="haixuan",
            period=1,
        )
        r.started_at.seconds = start
        r.ended_at.seconds = start + 600
        return r

    channel = grpc.insecure_channel(address)
    metadata = [("authorization", "Bearer " + token)]
    out = {}

    report_games = channel.stream_unary(
        SERVICE + "ReportGames",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=Summary.FromString,
    )
    started = time.monotonic()
    try:
        summary = report_games(
            (report(n, "py") for n in range(bulk)), metadata=metadata, timeout=1200
        )
        out["bulk"] = {
            "received": summary.received,
            "stored": summary.stored,
            "duplicates": summary.duplicates,
            "refused": summary.refused,
            "first_refusal": next(
                (o.message for o in summary.outcomes if o.code != "OK"), ""
            ),
        }
    except grpc.RpcError as e:
        out["bulk"] = {"error": f"{e.code().name}: {e.details()}"}
    out["bulk_seconds"] = time.monotonic() - started

    stream_games = channel.stream_stream(
        SERVICE + "StreamGames",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=Outcome.FromString,
    )
    sent = {}
    lock = threading.Lock()

    def paced():
        for n in range(slow):
            r = report(n, "py-slow")
            with lock:
                sent[r.game_id] = time.monotonic()
            yield r
            time.sleep(0.05)

    latencies = []
    codes = {}
    try:
        for outcome in stream_games(paced(), metadata=metadata, timeout=600):
            now = time.monotonic()
            with lock:
                latencies.append((now - sent[outcome.game_id]) * 1000)
            codes[outcome.code] = codes.get(outcome.code, 0) + 1
        out["slow"] = {"codes": codes}
    except grpc.RpcError as e:
        out["slow"] = {"error": f"{e.code().name}: {e.details()}", "codes": codes}
    latencies.sort()
    out["slow_ack_ms"] = {
        "count": len(latencies),
        "p50": latencies[len(latencies) // 2] if latencies else None,
        "max": latencies[-1] if latencies else None,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
