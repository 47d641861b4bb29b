#!/usr/bin/env python3
"""Writes fixtures/hostile/: small roots of broken and hostile input, each checked against its
expected diagnostics by tests/hostile.rs. Deterministic; run again after changing it.

Large cases (a 100 MB line, 100,000 tiny files, symbolic-link loops) are made by the test
itself in a scratch folder rather than committed.
"""
import bz2
import gzip
import importlib.util
import io
import json
import lzma
import random
import shutil
import sqlite3
import struct
import tarfile
import tempfile
import zipfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ROOT = FIXTURES / "hostile"
SID = "0badf00d-0000-4000-8000-000000000001"
STAMP = (2026, 10, 1, 9, 0, 0)

spec = importlib.util.spec_from_file_location("store_fixture", Path(__file__).with_name("make-store-fixture.py"))
store_fixture = importlib.util.module_from_spec(spec)
spec.loader.exec_module(store_fixture)


def event(kind, data, n, stamp="2026-10-01T09:00:00.000Z", ensure_ascii=True):
    return json.dumps({"type": kind, "data": data, "id": f"e{n}", "timestamp": stamp, "parentId": None},
                      separators=(",", ":"), ensure_ascii=ensure_ascii)


def session_dir(case):
    path = ROOT / case / ".copilot" / "session-state" / SID
    path.mkdir(parents=True, exist_ok=True)
    return path


def lines_case():
    good = event("user.message", {"content": "a good line"}, 1)
    nested = '{"type":"user.message","data":{"content":' + "[" * 5000 + "]" * 5000 + "}}"
    counters = event("session.shutdown", {"shutdownType": "routine", "modelMetrics": {
        "gpt-5.4": {"requests": {"count": 2.5}, "usage": {"inputTokens": 1e30, "outputTokens": -40, "cacheReadTokens": 10.75,
                                                             "cacheWriteTokens": "12", "reasoningTokens": 99999999999999999999999}}}}, 5)
    parts = [
        b"\xef\xbb\xbf" + good.encode(),                               # a byte-order mark before the first line
        b'{"type":"assistant.message","data":{"content":"torn',        # torn mid-string
        b'{"type":"user.message","data":{"content":"bad \xff\xfe byte"}}',  # invalid UTF-8
        nested.encode(),                                               # nested 5000 deep
        counters.encode(),                                             # counts of every wrong kind
        b"[1,2,3]",                                                    # not an object
        b'{"data":{"content":"no type"}}',                             # no type
        b"",                                                           # blank
        event("user.message", {"content": "crlf line"}, 9).encode() + b"\r",  # a CRLF ending
        event("session.mystery_event", {}, 10).encode(),               # unknown type
        b"\x00\x00\x00\x00",                                           # binary
        event("user.message", {"content": 12345}, 12).encode(),        # content of the wrong type
        b'{"type":"user.message","timestamp":"not a time","data":{"content":"undated"}}',
        b'{"type":"user.message","data":{"content":"cut at the very end',  # the file's last line, no newline
    ]
    (session_dir("lines") / "events.jsonl").write_bytes(b"\n".join(parts))


def build_store(sql, out_dir, checkpoint=False):
    store_fixture.build_store(sql, out_dir, checkpoint=checkpoint, transaction_per_statement=True)


STORE_SQL = "".join(
    f"INSERT INTO sessions (id, cwd, summary, created_at) VALUES ('{SID[:-1]}{n}', '/w', 'session {n}', '2026-10-0{n}T09:00:00.000Z');\n"
    for n in range(1, 8)
)


def wal_frames(wal):
    page_size = struct.unpack(">I", wal[8:12])[0]
    return page_size, 24 + page_size, (len(wal) - 32) // (24 + page_size)


def store_cases():
    for case in ("wal-bad-checksum-middle", "wal-torn-tail", "wal-old-salt", "wal-without-db"):
        build_store(STORE_SQL, ROOT / case / ".copilot")
    base = ROOT / "wal-bad-checksum-middle" / ".copilot" / "session-store.db-wal"
    wal = bytearray(base.read_bytes())
    _, frame, count = wal_frames(wal)
    # A frame in the inserts, after the schema's transaction and a few rows have committed.
    middle = 32 + (count * 5 // 6) * frame + 24 + 100
    wal[middle] ^= 0xFF
    base.write_bytes(bytes(wal))

    torn = ROOT / "wal-torn-tail" / ".copilot" / "session-store.db-wal"
    data = torn.read_bytes()
    torn.write_bytes(data[: len(data) - 1000])

    old = ROOT / "wal-old-salt" / ".copilot" / "session-store.db-wal"
    wal = bytearray(old.read_bytes())
    _, frame, count = wal_frames(wal)
    for index in range(count * 2 // 3, count):
        offset = 32 + index * frame
        wal[offset + 8:offset + 16] = bytes(a ^ 0x5A for a in wal[offset + 8:offset + 16])
    old.write_bytes(bytes(wal))

    (ROOT / "wal-without-db" / ".copilot" / "session-store.db").unlink()
    build_store(STORE_SQL, ROOT / "db-without-wal" / ".copilot", checkpoint=True)
    build_store(STORE_SQL, ROOT / "db-truncated" / ".copilot", checkpoint=True)
    truncated = ROOT / "db-truncated" / ".copilot" / "session-store.db"
    truncated.write_bytes(truncated.read_bytes()[:6000])
    not_sqlite = ROOT / "not-sqlite" / ".copilot"
    not_sqlite.mkdir(parents=True, exist_ok=True)
    (not_sqlite / "session-store.db").write_text("this is a text file, not a database\n")
    (not_sqlite / "session-store.db-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\x00" * 60)


def other_database_wal(page_size):
    """The -wal of another database, uncheckpointed, with pages of `page_size` bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "other.db"
        connection = sqlite3.connect(db, isolation_level=None)
        connection.execute(f"PRAGMA page_size={page_size}")
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA wal_autocheckpoint=0")
        connection.executescript("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('another database');")
        wal = Path(f"{db}-wal").read_bytes()
        connection.close()
    return wal


def wal_header_cases():
    """Logs SQLite reads as empty or ignores, beside a database whose rows are all in its main file."""
    # The usage fixture's deleted session (usage only in the store) and kept session (with its
    # log), the store checkpointed (4096-byte pages), beside the log of another database of
    # 1024-byte pages.
    foreign = ROOT / "wal-foreign-page-size" / ".copilot"
    build_store((FIXTURES / "sql" / "usage-deleted-session.sql").read_text(), foreign, checkpoint=True)
    shutil.copytree(FIXTURES / "usage" / "deleted-session" / ".copilot" / "session-state", foreign / "session-state")
    (foreign / "session-store.db-wal").write_bytes(other_database_wal(1024))
    # What a truncating checkpoint leaves: an empty log.
    build_store(STORE_SQL, ROOT / "wal-empty" / ".copilot", checkpoint=True)
    (ROOT / "wal-empty" / ".copilot" / "session-store.db-wal").write_bytes(b"")
    # A log cut inside its 32-byte header.
    build_store(STORE_SQL, ROOT / "wal-torn-header" / ".copilot", checkpoint=True)
    (ROOT / "wal-torn-header" / ".copilot" / "session-store.db-wal").write_bytes(other_database_wal(4096)[:20])


def zip_entry(name):
    info = zipfile.ZipInfo(name, date_time=STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def good_log():
    return (event("session.start", {"copilotVersion": "1.0.102", "producer": "copilot-agent", "context": {"cwd": "/w"}}, 1)
            + "\n" + event("user.message", {"content": "inside a zip"}, 2) + "\n")


def write_zip(name, entries, **options):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", **options) as archive:
        for entry_name, data in entries:
            archive.writestr(zip_entry(entry_name), data)
    return buffer.getvalue()


def zip_cases():
    folder = ROOT / "zips"
    folder.mkdir(parents=True, exist_ok=True)
    log_path = f".copilot/session-state/{SID}/events.jsonl"
    (folder / "bomb.zip").write_bytes(write_zip("bomb", [(log_path, good_log()), (".copilot/session-state/" + SID[:-1] + "2/events.jsonl", b"\0" * (100 << 20))]))
    (folder / "unsafe-names.zip").write_bytes(write_zip("unsafe", [
        (log_path, good_log()), ("../../outside.txt", "climbs out"), ("/etc/passwd", "absolute"), ("C:\\Windows\\win.ini", "drive"),
    ]))
    (folder / "duplicates.zip").write_bytes(write_zip("dup", [(log_path, good_log()), (log_path, "second copy\n")]))
    (folder / "zip64.zip").write_bytes(_zip64(log_path))
    plain = bytearray(write_zip("enc", [(log_path, good_log()), (".copilot/command-history-state.json", '{"commandHistory":["secret"]}')]))
    _mark_encrypted(plain, ".copilot/command-history-state.json")
    (folder / "encrypted.zip").write_bytes(bytes(plain))
    damaged = bytearray(write_zip("crc", [(log_path, good_log())]))
    _spoil_checksum(damaged, log_path)
    (folder / "wrong-checksum.zip").write_bytes(bytes(damaged))
    whole = write_zip("trunc", [(log_path, good_log() * 50)])
    (folder / "truncated.zip").write_bytes(whole[: len(whole) // 2])


def absolute_name_cases():
    """Entry names written absolute, as some Windows zip tools do: read as relative names."""
    folder = ROOT / "zips"
    log_path = f".copilot/session-state/{SID}/events.jsonl"
    for case, prefix, separator in (
        ("absolute-windows.zip", "C:\\Users\\mona\\", "\\"),
        ("absolute-posix.zip", "/home/mona/", "/"),
        ("absolute-unc.zip", "\\\\server\\share\\mona\\", "\\"),
    ):
        entries = [(prefix + log_path.replace("/", separator), good_log()),
                   (prefix + ".copilot/config.json".replace("/", separator), '{"model":"gpt-5.4"}')]
        (folder / case).write_bytes(write_zip(case, entries))


def home_tar():
    """A home with one log, as a tar archive (fixed times, so the bytes do not change)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        data = good_log().encode()
        info = tarfile.TarInfo(f"mona/.copilot/session-state/{SID}/events.jsonl")
        info.size, info.mtime = len(data), 1790845500
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def not_zip_cases():
    """Files named .zip that are something else: the message says what each is, by its first bytes.
    The 7-Zip, RAR and SQLite ones are only their format's signature and zeros: no more is read."""
    folder = ROOT / "not-zips"
    folder.mkdir(parents=True, exist_ok=True)
    tar = home_tar()
    cases = {
        "empty.zip": b"",
        "tar-gz.zip": gzip.compress(tar, mtime=0),
        "tar.zip": tar,
        "gzip.zip": gzip.compress(good_log().encode(), mtime=0),
        "tar-bz2.zip": bz2.compress(tar),
        "tar-xz.zip": lzma.compress(tar),
        "7z.zip": b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(24),
        "rar.zip": b"Rar!\x1a\x07\x01\x00" + bytes(24),
        "sqlite.zip": b"SQLite format 3\x00" + bytes(84),
        "events-jsonl.zip": good_log().encode(),
        "random.zip": random.Random(11).randbytes(300),
    }
    for name, data in cases.items():
        (folder / name).write_bytes(data)
    return tar


def nested_zip_cases(tar):
    """A zip of zips: the zip inside is read (one level); deeper ones and ones that are not zips
    are a clear error."""
    folder = ROOT / "zips"
    log_path = f".copilot/session-state/{SID}/events.jsonl"
    home = write_zip("home", [(log_path, good_log()), (".copilot/config.json", '{"model":"gpt-5.4"}')])
    (folder / "zip-in-zip.zip").write_bytes(write_zip("outer", [("README.txt", "my laptop's backup\n"), ("backup/mona-home.zip", home)]))
    (folder / "zip-in-zip-in-zip.zip").write_bytes(write_zip("outer", [("backups.zip", write_zip("middle", [("mona-home.zip", home)]))]))
    (folder / "tar-gz-in-zip.zip").write_bytes(write_zip("outer", [("mona-home.zip", gzip.compress(tar, mtime=0))]))


def encodings_case():
    """Logs as Windows tools may save them: UTF-16 (little- and big-endian) with a byte-order mark,
    and UTF-8 with byte-order marks, one at the start and one opening a later line (two files
    joined). Each has a counter line, for the usage-only reading, and non-ASCII text; the
    little-endian one a long message, which the page keeps only the start of and reads again."""
    base = ROOT / "encodings" / ".copilot" / "session-state"

    def log(n, extra=""):
        lines = [
            event("session.start", {"copilotVersion": "1.0.102", "producer": "copilot-agent", "context": {"cwd": "C:\\work"}}, 1),
            event("user.message", {"content": f"naïve café ✓ 😀 {extra}"}, 2, ensure_ascii=False),
            event("assistant.message", {"content": "réponse"}, 3, stamp="2026-10-01T09:00:05.000Z", ensure_ascii=False),
            event("session.shutdown", {"shutdownType": "routine", "modelMetrics": {"gpt-5.4": {
                "requests": {"count": n}, "usage": {"inputTokens": 1000 * n, "outputTokens": 40 * n, "cacheReadTokens": 0, "cacheWriteTokens": 0}}}},
                4, stamp="2026-10-01T09:00:09.000Z"),
        ]
        return "\r\n".join(lines) + "\r\n"

    def write(n, data):
        folder = base / f"{SID[:-2]}1{n}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "events.jsonl").write_bytes(data)

    write(0, b"\xff\xfe" + log(1, "long " + "texte " * 200).encode("utf-16-le"))
    write(1, b"\xfe\xff" + log(2).encode("utf-16-be"))
    lines = log(3).split("\r\n")
    write(2, ("\ufeff" + "\r\n".join(lines[:2]) + "\r\n\ufeff" + "\r\n".join(lines[2:])).encode())


def format_drift_case():
    """Logs of a newer Copilot CLI with kinds of event this version does not read: two of
    1.0.119 (one kind named by a token, which the report scrubs), one of 1.0.102."""
    token = "ghp_" + "A1b2C3d4" * 4 + "E5f6"

    def log(sid, version, kinds):
        start = event("session.start", {"sessionId": sid, "copilotVersion": version, "producer": "copilot-agent",
                                        "context": {"cwd": "/work/shop"}}, 1)
        lines = [start, event("user.message", {"content": "hello"}, 2)]
        lines += [event(kind, {"value": n}, 3 + n) for n, kind in enumerate(kinds)]
        path = ROOT / "format-drift" / ".copilot" / "session-state" / sid
        path.mkdir(parents=True, exist_ok=True)
        (path / "events.jsonl").write_text("\n".join(lines) + "\n")

    log("d1f70000-0000-4000-8000-000000000001", "1.0.119", ["session.brand_new_thing", "session.brand_new_thing", "assistant.new_widget"])
    log("d1f70000-0000-4000-8000-000000000002", "1.0.119", ["session.brand_new_thing", token])
    log("d1f70000-0000-4000-8000-000000000003", "1.0.102", ["session.not_in_the_schema"])


def copied_session_case():
    """One CLI session on two machines, each signed in as its own login: copied from the laptop
    to the desktop after its second day, and gone on there a third day. Each day is the usage of
    the machine whose copy holds it: the first two the laptop's, the third the desktop's."""
    sid = "c0b1ed00-0000-4000-8000-000000000001"

    def shutdown(n, day, requests, input_tokens, output_tokens):
        return event("session.shutdown", {"shutdownType": "routine", "modelMetrics": {"gpt-5.4": {
            "requests": {"count": requests}, "usage": {"inputTokens": input_tokens, "outputTokens": output_tokens,
                                                        "cacheReadTokens": 0, "cacheWriteTokens": 0}}}},
                     n, stamp=f"2026-11-{day:02d}T10:00:00.000Z")

    def resume(n, day):
        stamp = f"2026-11-{day:02d}T09:00:00.000Z"
        return event("session.resume", {"resumeTime": stamp, "eventCount": n - 1, "context": {"cwd": "/work/shop"}},
                     n, stamp=stamp)

    lines = [
        event("session.start", {"sessionId": sid, "copilotVersion": "1.0.102", "producer": "copilot-agent",
                                "context": {"cwd": "/work/shop"}}, 1, stamp="2026-11-02T09:00:00.000Z"),
        event("user.message", {"content": "first day"}, 2, stamp="2026-11-02T09:00:01.000Z"),
        shutdown(3, 2, 1, 1000, 100),
        resume(4, 3),
        event("user.message", {"content": "second day"}, 5, stamp="2026-11-03T09:00:01.000Z"),
        shutdown(6, 3, 2, 3000, 300),
    ]
    on_desktop = lines + [
        resume(7, 4),
        event("user.message", {"content": "third day, on the desktop"}, 8, stamp="2026-11-04T09:00:01.000Z"),
        shutdown(9, 4, 3, 6000, 600),
    ]
    for machine, login, log in (("mona-laptop", "mona", lines), ("mona-desktop", "mona-at-work", on_desktop)):
        copilot = ROOT / "copied-session" / machine / ".copilot"
        (copilot / "session-state" / sid).mkdir(parents=True, exist_ok=True)
        (copilot / "session-state" / sid / "events.jsonl").write_text("\n".join(log) + "\n")
        (copilot / "logs").mkdir(exist_ok=True)
        (copilot / "logs" / "process-1793610000000-100.log").write_text(
            f"2026-11-02T08:59:58.400Z [INFO] Signed in to https://github.com as {login}.\n")


def chat_paths_and_types_case():
    """A VS Code chat log whose lines name paths that do not exist or put values of the wrong
    type (a string where the requests are, a number where a request is): each such line, or part
    of one, is diagnosed by its line number, and the good requests are counted."""
    sid = "c0de2206-0000-4000-8000-000000000006"
    day = 1792486800000  # 2026-10-20T09:00:00Z

    def request(n, tokens, **more):
        return {"requestId": f"request_{n}", "timestamp": day + n * 60000, "message": {"text": f"question {n}"},
                "response": [{"value": f"answer {n}"}], "modelId": "copilot/gpt-5.4",
                "modelTotals": [{"model": "copilot/gpt-5.4", "inputTokens": tokens, "cachedTokens": 0,
                                 "outputTokens": tokens // 10}], **more}

    entries = [
        # 1: request 1 is a string and request 2's response a number: both left out, 0 and 2 counted.
        {"kind": 0, "v": {"version": 3, "creationDate": day, "sessionId": sid,
                          "requests": [request(0, 1000), "a request that is a string", request(2, 2000, response=5)]}},
        # 2: a good request.
        {"kind": 2, "k": ["requests"], "v": [request(3, 3000)]},
        # 3: a string set where the requests are.
        {"kind": 1, "k": ["requests"], "v": "not the requests"},
        # 4: a request that does not exist.
        {"kind": 1, "k": ["requests", 7, "result"], "v": {"metadata": {}}},
        # 5: a push onto a message, which is no array.
        {"kind": 2, "k": ["requests", 0, "message"], "v": ["x"]},
        # 6: a string set where a request's token totals are.
        {"kind": 1, "k": ["requests", 3, "modelTotals"], "v": "lots"},
        # 7: a timestamp that is a bool.
        {"kind": 1, "k": ["requests", 3, "timestamp"], "v": True},
        # 8: a number pushed as a request (left out) beside a good one.
        {"kind": 2, "k": ["requests"], "v": [42, request(5, 5000)]},
        # 9: a result whose metadata is a string (left out), set on a good request.
        {"kind": 1, "k": ["requests", 5, "result"], "v": {"metadata": "none"}},
        # 10: a delete past the requests' end.
        {"kind": 3, "k": ["requests", 9]},
        # 11: a title that is an array.
        {"kind": 1, "k": ["customTitle"], "v": ["a", "title"]},
        # 12: a name where the requests' index is.
        {"kind": 1, "k": ["requests", "first", "result"], "v": {}},
        # 13: a good title.
        {"kind": 1, "k": ["customTitle"], "v": "Paths and types"},
    ]
    storage = ROOT / "chat-paths-and-types" / ".config" / "Code" / "User" / "workspaceStorage" / ("7a9e" * 8)
    (storage / "chatSessions").mkdir(parents=True, exist_ok=True)
    (storage / "workspace.json").write_text(json.dumps({"folder": "file:///home/ana/src/shop"}) + "\n")
    lines = [json.dumps(entry, separators=(",", ":")) for entry in entries]
    (storage / "chatSessions" / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")


def _zip64(log_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        with archive.open(zip_entry(log_path), "w", force_zip64=True) as entry:
            entry.write(good_log().encode())
    return buffer.getvalue()


def _patch_headers(data, name, local_offset, central_offset, change):
    """Changes one byte of an entry's local and of its central header: `change(old) -> new`."""
    encoded = name.encode()
    for signature, offset, name_offset in ((b"PK\x03\x04", local_offset, 30), (b"PK\x01\x02", central_offset, 46)):
        start = 0
        while (start := data.find(signature, start)) != -1:
            if data[start + name_offset:start + name_offset + len(encoded)] == encoded:
                data[start + offset] = change(data[start + offset])
            start += 4


def _mark_encrypted(data, name):
    """Sets the 'encrypted' flag of an entry."""
    _patch_headers(data, name, 6, 8, lambda flags: flags | 1)


def _spoil_checksum(data, name):
    """Flips a bit of an entry's CRC-32."""
    _patch_headers(data, name, 14, 16, lambda crc: crc ^ 1)


def main():
    import warnings
    warnings.simplefilter("ignore")  # the duplicate-names zip is duplicated on purpose
    if ROOT.exists():
        shutil.rmtree(ROOT)
    lines_case()
    store_cases()
    wal_header_cases()
    zip_cases()
    absolute_name_cases()
    nested_zip_cases(not_zip_cases())
    encodings_case()
    copied_session_case()
    chat_paths_and_types_case()
    format_drift_case()


if __name__ == "__main__":
    main()
