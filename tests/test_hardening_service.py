"""Issue 15, items 1-8: ``serve`` and ``play`` under hostile or unlucky clients. Real servers on
loopback (in this process, so limits can be set small), real sockets."""

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from puzzlegym.base.errors import ConfigError
from puzzlegym.record.files import read_log
from puzzlegym.service import http as service_http
from puzzlegym.service.play import PlaySession, make_play_server
from puzzlegym.service.serve import Service, make_serve_server
from tests.mutations import ODD_VALUES, key_paths, replaced


class Server:
    def __init__(self, server, closer):
        self.server, self.closer = server, closer
        self.host, self.port = server.server_address[:2]
        self.thread = threading.Thread(target=server.serve_forever, daemon=True)
        self.thread.start()

    def request(self, method, path, body=None, session=None, headers=None, raw=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        h = {"Content-Type": "application/json"} if (body is not None or raw is not None) else {}
        if session is not None:
            h["X-Session"] = session
        h.update(headers or {})
        data = raw if raw is not None else (None if body is None else json.dumps(body))
        try:
            conn.request(method, path, data, h)
            resp = conn.getresponse()
            payload = resp.read()
            ctype = resp.headers.get("Content-Type", "")
            return resp.status, (json.loads(payload) if "json" in ctype else payload)
        finally:
            conn.close()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.closer()


def serve(record_dir, **kwargs):
    extra = {
        k: kwargs.pop(k) for k in ("token", "max_connections", "request_timeout_s") if k in kwargs
    }
    service = Service(**{"backend": "native", "clock": "sim", "record_dir": record_dir, **kwargs})
    return Server(make_serve_server("127.0.0.1", 0, service, **extra), service.close)


@pytest.fixture
def srv(tmp_path):
    s = serve(tmp_path / "records")
    yield s
    s.close()


def manifest(path) -> dict:
    return json.loads((Path(path) / "manifest.json").read_text())


RESET = {"objective": "MazePaint-Easy", "level": 1, "start": "board"}
WAIT = {"type": "wait"}


# ------------------------------------------------------------------------------- item 1
def test_records_are_never_overwritten_across_serve_restarts(tmp_path):
    records = tmp_path / "records"
    first = serve(records)
    try:
        paths = [first.request("POST", "/reset", RESET)[1]["record"] for _ in range(2)]
        first.request("POST", "/action", WAIT)
    finally:
        first.close()
    kept = {p: (Path(p) / "log.jsonl").read_bytes() for p in paths}
    second = serve(records)  # a restart with the same --record-dir
    try:
        new = second.request("POST", "/reset", RESET)[1]["record"]
        second.request("POST", "/action", WAIT)
    finally:
        second.close()
    assert new not in paths and Path(new).parent == records
    assert {p: (Path(p) / "log.jsonl").read_bytes() for p in paths} == kept
    assert all("result" in manifest(p) for p in paths + [new])  # each ended cleanly


# ------------------------------------------------------------------------------- item 2
@pytest.mark.parametrize("name", ["../../x", "zzz/../victim", "a" * 300, "", "bad name", "é"])
def test_session_names_are_validated_and_never_reach_paths(srv, tmp_path, name):
    status, victim = srv.request("POST", "/reset", RESET, session="victim")
    assert status == 200
    before = (Path(victim["record"]) / "log.jsonl").read_bytes()
    try:
        status, doc = srv.request("POST", "/reset", RESET, session=name)
    except (ValueError, http.client.HTTPException):
        return  # the client library itself refuses the header: nothing was sent
    assert status == 400 and "X-Session" in doc["error"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records"]
    assert [p.name for p in (tmp_path / "records").iterdir()] == [Path(victim["record"]).name]
    assert (Path(victim["record"]) / "log.jsonl").read_bytes() == before


# ------------------------------------------------------------------------------- item 3
def raw_request(srv, head: bytes, body: bytes = b"", wait_s: float = 15.0) -> bytes:
    with socket.create_connection((srv.host, srv.port), timeout=wait_s) as sock:
        sock.sendall(head + body)
        chunks = []
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                if b"\r\n\r\n" in b"".join(chunks) and b"Connection: close" not in b"".join(chunks):
                    break
        except TimeoutError:
            pass
    return b"".join(chunks)


def post_head(srv, length: str | None, path="/action") -> bytes:
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: 127.0.0.1:{srv.port}",
        "Content-Type: application/json",
    ]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@pytest.fixture
def quick_srv(tmp_path):
    """A server whose request deadline is 0.5 s."""
    s = serve(tmp_path / "records", request_timeout_s=0.5)
    yield s
    s.close()


def test_content_length_must_be_a_bounded_byte_count(quick_srv):
    srv = quick_srv
    srv.request("POST", "/reset", RESET)
    before = srv.request("GET", "/status")[1]
    for length, status in [
        ("-1", b" 400 "),
        (None, b" 411 "),
        ("1e3", b" 400 "),
        ("99999999", b" 413 "),
    ]:
        answer = raw_request(srv, post_head(srv, length), json.dumps(WAIT).encode() + b" " * 60_000)
        assert status in answer.split(b"\r\n", 1)[0], (length, answer[:200])
    assert srv.request("GET", "/status")[1] == before  # nothing was applied
    # a client that announces a body and never sends it is answered 408 and dropped at the
    # request deadline
    answer = raw_request(srv, post_head(srv, "100"), b'{"type"')
    assert b" 408 " in answer.split(b"\r\n", 1)[0]
    assert srv.request("GET", "/status")[1] == before


def closed_by_server(sock: socket.socket) -> bool:
    """True once the server has closed ``sock`` (EOF or an answer waiting; never blocks)."""
    try:
        return sock.recv(4096, socket.MSG_DONTWAIT + socket.MSG_PEEK) is not None
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_connections_are_bounded(srv):
    cap = service_http.MAX_CONNECTIONS
    idle = [socket.create_connection((srv.host, srv.port)) for _ in range(cap + 20)]
    try:
        # served at once: a new connection closes the longest-waiting idle one
        assert srv.request("GET", "/status")[0] == 409  # (no episode yet)
        deadline = time.monotonic() + 10  # a bound on this test's wait, not on the server
        while sum(map(closed_by_server, idle)) < 21 and time.monotonic() < deadline:
            time.sleep(0.05)
        closed = [i for i, sock in enumerate(idle) if closed_by_server(sock)]
        assert closed == list(range(21))  # the oldest: the server holds at most `cap`
    finally:
        for sock in idle:
            sock.close()


def test_responses_are_not_held_back_by_nagle(srv):
    """Headers and body leave in separate writes: without TCP_NODELAY on the connections each
    small response waited for the client's delayed ACK. asyncio sets it on connections of a
    socket whose protocol is TCP; Linux copies it from the listening socket too."""
    sock = srv.server.socket
    assert sock.proto == socket.IPPROTO_TCP
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


class Trickler:
    """Slow-loris clients: each socket sends one more byte of an endless header every
    ``period_s`` (far below any per-read timeout) until the server closes it."""

    def __init__(self, srv, n: int, period_s: float = 0.25) -> None:
        self.socks = [socket.create_connection((srv.host, srv.port)) for _ in range(n)]
        self.head = f"GET /status HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nX-Slow: ".encode()
        self.closed_by_server = [False] * n
        self.answers = [b""] * n
        self.period_s, self._stop = period_s, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        sent = 0
        while not self._stop.is_set() and not all(self.closed_by_server):
            for i, sock in enumerate(self.socks):
                if self.closed_by_server[i]:
                    continue
                try:
                    data = sock.recv(4096, socket.MSG_DONTWAIT)
                    self.answers[i] += data
                    self.closed_by_server[i] = True  # an answer or EOF: the server is done with it
                    continue
                except BlockingIOError:
                    pass
                except OSError:
                    self.closed_by_server[i] = True
                    continue
                try:
                    sock.send(self.head[sent : sent + 1] if sent < len(self.head) else b"x")
                except OSError:
                    self.closed_by_server[i] = True
            sent += 1
            self._stop.wait(self.period_s)

    def open_count(self) -> int:
        return self.closed_by_server.count(False)

    def close(self) -> None:
        self._stop.set()
        self.thread.join(10)
        for sock in self.socks:
            sock.close()


def test_slow_loris_clients_do_not_lock_out_others_and_are_cut_at_the_request_deadline(tmp_path):
    srv = serve(tmp_path / "records", request_timeout_s=5)
    slow = Trickler(srv, 64)
    try:
        time.sleep(1.0)  # every slow client is connected and has sent a few bytes
        assert slow.open_count() == 64
        status, _ = srv.request("GET", "/status")
        assert status == 409  # served (no episode yet), not 503
        assert srv.request("POST", "/reset", RESET)[0] == 200
        assert slow.open_count() == 64  # ... while every slow client still holds its connection
        deadline = time.monotonic() + 60  # a bound on this test's loop, not on the server's speed
        while slow.open_count() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert slow.open_count() == 0  # the server closed each one, though it kept sending
        assert all(a.startswith(b"HTTP/1.1 408 ") and b"within 5 s" in a for a in slow.answers)
    finally:
        slow.close()
        srv.close()


def test_more_slow_clients_than_the_connection_cap_do_not_delay_others(tmp_path):
    srv = serve(tmp_path / "records", request_timeout_s=2, max_connections=16)
    slow = Trickler(srv, 24)
    try:
        time.sleep(0.5)
        assert slow.open_count() == 16  # the 8 oldest were closed as the others came
        assert srv.request("GET", "/status")[0] == 409  # served at once, not 503
        deadline = time.monotonic() + 60  # a bound on this test's waits, not on the server
        while slow.open_count() == 16 and time.monotonic() < deadline:
            time.sleep(0.05)  # the tricklers notice a closed socket at their next byte
        assert slow.open_count() == 15  # ... by closing the longest-waiting trickler
        while slow.open_count() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert slow.open_count() == 0  # the rest at the request deadline
    finally:
        slow.close()
        srv.close()


# ------------------------------------------------------------------------------- item 4
def test_sessions_are_bounded_and_can_be_deleted(tmp_path):
    s = serve(tmp_path / "records", max_sessions=2, idle_s=3600)
    try:
        a = s.request("POST", "/reset", RESET, session="a")[1]["record"]
        assert (
            s.request("POST", "/reset", {**RESET, "level": 99}, session="x")[0] == 400
        )  # takes no slot
        assert s.request("POST", "/reset", RESET, session="b")[0] == 200
        status, doc = s.request("POST", "/reset", RESET, session="c")
        assert status == 429 and "too many sessions" in doc["error"]
        status, doc = s.request("DELETE", "/session", session="a")
        assert status == 200 and doc["record"] == a
        assert manifest(a)["result"]["ended"] == "session_deleted"
        assert s.request("GET", "/status", session="a")[0] == 409
        assert s.request("DELETE", "/session", session="a")[0] == 404
        assert s.request("POST", "/reset", RESET, session="c")[0] == 200
    finally:
        s.close()
    assert all(
        manifest(p)["result"]["ended"] == "server_stopped"
        for p in (tmp_path / "records").iterdir()
        if p.name != Path(a).name
    )


def test_idle_sessions_expire(tmp_path):
    s = serve(tmp_path / "records", max_sessions=1, idle_s=0.5)
    try:
        c = s.request("POST", "/reset", RESET, session="c")[1]["record"]
        deadline = time.monotonic() + 30
        while "result" not in manifest(c) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert manifest(c)["result"]["ended"] == "session_expired"
        assert s.request("GET", "/status", session="c")[0] == 409
        assert s.request("POST", "/reset", RESET, session="d")[0] == 200  # its slot is free again
    finally:
        s.close()


# ------------------------------------------------------------------------------- item 5
def test_rejected_reset_leaves_the_running_episode(srv):
    record = srv.request("POST", "/reset", RESET)[1]["record"]
    srv.request("POST", "/action", {"type": "click", "x": 640, "y": 450})
    before = srv.request("GET", "/status")[1]
    for body, field in [
        ({**RESET, "seed": -1}, "reset.seed"),
        ({**RESET, "seed": 2**70}, "reset.seed"),
        ({**RESET, "level": 99}, "reset.level"),
        ({**RESET, "start": "moon"}, "reset.start"),
        ({**RESET, "objective": "Nope-Easy"}, "env id"),
    ]:
        status, doc = srv.request("POST", "/reset", body)
        assert status == 400 and field in doc["error"], (body, doc)
        assert srv.request("GET", "/status")[1] == before
    assert srv.request("POST", "/action", WAIT)[0] == 200
    assert "result" not in manifest(record)
    srv.request("POST", "/reset", RESET)  # a good reset ends the old episode cleanly
    assert manifest(record)["result"]["ended"] == "reset"
    assert len(list(Path(record).parent.iterdir())) == 2  # rejected resets left no directory


# ------------------------------------------------------------------------------- item 6
def test_hostile_json_values_are_400_naming_the_field(srv):
    srv.request("POST", "/reset", RESET)
    before = srv.request("GET", "/status")[1]
    cases = [
        ('{"type": ["click"]}', "action.type"),
        ('{"type": "click", "x": ' + "9" * 5000 + ', "y": 1}', "action(click).x"),
        ('{"type": "click", "x": Infinity, "y": 1}', "action(click).x"),
        ('{"type": "click", "x": 1e999, "y": 1}', "action(click).x"),
        ('{"type": "click", "x": NaN, "y": 1}', "action(click).x"),
        ("[" * 20_000 + "]" * 20_000, "nested too deeply"),
        ('{"type": "batch", "actions": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply"),
    ]
    for raw, fragment in cases:
        status, doc = srv.request("POST", "/action", raw=raw.encode())
        assert status == 400 and fragment in doc["error"], (raw[:60], doc)
    status, doc = srv.request(
        "POST", "/reset", raw=b'{"objective": "MazePaint-Easy", "seed": ' + b"1" * 5000 + b"}"
    )
    assert status == 400 and "reset.seed" in doc["error"]
    assert srv.request("GET", "/status")[1] == before


# ------------------------------------------------------------------------------- items 6, 7
@pytest.fixture
def play(tmp_path):
    session = PlaySession("LongPuzzle/MazePaint-Easy", tmp_path / "human")
    s = Server(make_play_server("127.0.0.1", 0, session), session.close)
    yield s, session, tmp_path / "human"
    s.close()


def test_play_batch_with_a_malformed_later_event_applies_nothing(play):
    s, session, record = play
    card = session.env.unwrapped.suite.targets()["game:MazePaint"].center
    click = [
        {"kind": "pointer_down", "t": 1000.5, "x": card[0], "y": card[1]},
        {"kind": "pointer_up", "t": 1050.25, "x": card[0], "y": card[1]},
    ]
    bad_events = [
        ({"kind": "bogus", "t": 1100}, "events[2].kind"),
        ({"kind": "key", "t": float("inf")}, "events[2].t"),
        ({"kind": "key", "t": 5, "value": ["Enter"]}, "events[2].value"),
        ({"kind": "pointer_down", "t": 5, "x": 2**80}, "events[2].x"),
        ({"kind": "key", "t": 5, "extra": 1}, "unexpected field"),
    ]
    for bad, field in bad_events:
        raw = (
            json.dumps(click + [bad]).replace("inf", "Infinity")
            if bad["t"] == float("inf")
            else json.dumps(click + [bad])
        )
        status, doc = s.request("POST", "/play/events", raw=raw.encode())
        assert status == 400 and field in doc["error"], (bad, doc)
    assert session.env.unwrapped.actions == 0
    assert session.env.unwrapped.suite.screen == "home"
    assert [r for r in read_log(record) if r["kind"] == "action"] == []
    status, _ = s.request("POST", "/play/events", click)  # the same click alone is played
    assert status == 200 and session.env.unwrapped.suite.screen == "difficulty"


# ------------------------------------------------------------------------------- item 8
def test_cross_origin_and_foreign_host_requests_are_refused(srv):
    assert srv.request("POST", "/reset", RESET)[0] == 200
    before = srv.request("GET", "/status")[1]
    wait = json.dumps(WAIT).encode()
    for headers, status, fragment in [
        ({"Content-Type": "text/plain"}, 415, "Content-Type"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "Content-Type"),
        ({"Origin": "http://evil.example"}, 403, "Origin"),
        ({"Origin": "null"}, 403, "Origin"),
        ({"Host": "evil.example"}, 403, "Host"),
        ({"Host": f"rebound.example:{srv.port}"}, 403, "Host"),
    ]:
        got, doc = srv.request("POST", "/action", raw=wait, headers=headers)
        assert got == status and fragment in doc["error"], (headers, doc)
    assert srv.request("GET", "/status")[1] == before
    same_origin = {"Origin": f"http://127.0.0.1:{srv.port}"}
    assert srv.request("POST", "/action", raw=wait, headers=same_origin)[0] == 200
    assert srv.request("GET", "/status", headers={"Host": f"localhost:{srv.port}"})[0] == 200


def test_serve_needs_a_token_beyond_loopback(tmp_path):
    service = Service(record_dir=tmp_path / "r")
    with pytest.raises(ConfigError, match="--token"):
        make_serve_server("0.0.0.0", 0, service)
    s = serve(tmp_path / "records", token="s3cret-token-0123456789")
    try:
        assert s.request("POST", "/reset", RESET)[0] == 401
        assert (
            s.request("POST", "/reset", RESET, headers={"Authorization": "Bearer wrong"})[0] == 401
        )
        good = {"Authorization": "Bearer s3cret-token-0123456789"}
        assert s.request("POST", "/reset", RESET, headers=good)[0] == 200
        assert s.request("GET", "/status", headers=good)[0] == 200
    finally:
        s.close()


def test_play_beyond_loopback_needs_a_token_and_a_rebinding_page_plays_nothing(tmp_path):
    """Issue 45, item 3: ``play --host 0.0.0.0`` had no Host check and no token, so a
    DNS-rebinding page's POST to /play/events was recorded as the person's move."""
    session = PlaySession("LongPuzzle/MazePaint-Easy", tmp_path / "human")
    try:
        with pytest.raises(ConfigError, match="0.0.0.0.: anything but loopback needs --token"):
            make_play_server("0.0.0.0", 0, session)
        with pytest.raises(ConfigError, match="play --token"):
            make_play_server("0.0.0.0", 0, session, token="short")
        token = "play-token-0123456789abcdef"
        s = Server(make_play_server("0.0.0.0", 0, session, token=token), lambda: None)
        card = session.env.unwrapped.suite.targets()["game:MazePaint"].center
        click = [
            {"kind": "pointer_down", "t": 1000, "x": card[0], "y": card[1]},
            {"kind": "pointer_up", "t": 1050, "x": card[0], "y": card[1]},
        ]
        rebound = {
            "Host": f"rebound.example:{s.port}",
            "Origin": f"http://rebound.example:{s.port}",
        }
        try:
            for headers in (rebound, {**rebound, "Authorization": "Bearer wrong-token-000000"}):
                assert s.request("POST", "/play/events", click, headers=headers)[0] == 401
                assert s.request("GET", "/play/frame", headers=headers)[0] == 401
            assert session.env.unwrapped.actions == 0
            assert s.request("GET", "/", headers=rebound)[0] == 200  # the static page is public
            good = {"Authorization": f"Bearer {token}"}
            assert s.request("POST", "/play/events", click, headers=good)[0] == 200
            assert session.env.unwrapped.suite.screen == "difficulty"
        finally:
            s.server.shutdown()
            s.server.server_close()
    finally:
        session.close()


def test_play_on_a_wildcard_host_prints_its_address_with_a_token(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlegym", "play", "--host", "0.0.0.0", "--port", "0"]
        + ["--record-dir", str(tmp_path / "records")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        url = line.split("open ", 1)[1].split(" in a browser")[0]
        base, _, fragment = url.partition("/#token=")
        assert base.startswith("http://0.0.0.0:") and len(fragment) >= 32, line
        conn = http.client.HTTPConnection("127.0.0.1", int(base.rsplit(":", 1)[1]), timeout=30)
        for auth, status in [({}, 401), ({"Authorization": f"Bearer {fragment}"}, 200)]:
            conn.request("GET", "/play/frame", headers=auth)
            resp = conn.getresponse()
            resp.read()
            assert resp.status == status
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_no_reply_of_play_or_serve_can_be_framed(srv, play):
    """Issue 45, item 4 (the Chromium side: tests/test_play_page.py)."""
    p, _, _ = play
    for server, method, path in [
        (srv, "GET", "/status"),
        (srv, "POST", "/nowhere"),
        (p, "GET", "/"),
        (p, "GET", "/page.js"),
        (p, "GET", "/play/frame"),
    ]:
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        conn.request(method, path)
        resp = conn.getresponse()
        resp.read()
        conn.close()
        assert resp.headers["X-Frame-Options"] == "DENY", path
        assert resp.headers["Content-Security-Policy"] == "frame-ancestors 'none'", path


# ------------------------------------------------------------------------------- issue 29
def send_chunked(srv, head: bytes, total: int, chunk: int = 1 << 20) -> tuple[int, bytes]:
    """Send ``head`` then a chunked body of ``total`` bytes (a JSON string of x); returns the
    bytes the server let through (the kernel's buffers bound what it never read) and its
    answer."""
    sent = 0
    with socket.create_connection((srv.host, srv.port), timeout=15) as sock:
        try:
            sock.sendall(head)
            piece = b"x" * chunk
            while sent < total:
                sock.sendall(f"{chunk:x}\r\n".encode() + piece + b"\r\n")
                sent += chunk
            sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered and closed: the rest could not be sent
            pass
        answer = b""
        try:
            while chunk_in := sock.recv(65536):
                answer += chunk_in
        except OSError:
            pass
    return sent, answer


def test_a_chunked_body_is_refused_whatever_its_content_length_says(srv):
    """Item 10, the attack: ``Content-Length: 2`` with ``Transfer-Encoding: chunked`` and a
    200 MB body (before: read in full, RSS 62 -> 256 MB, then 400), and a 2 MB JSON action
    sent chunked (before: accepted, 200)."""
    srv.request("POST", "/reset", RESET)
    before = srv.request("GET", "/status")[1]
    head = post_head(srv, "2")[:-2] + b"Transfer-Encoding: chunked\r\n\r\n"
    sent, answer = send_chunked(srv, head, 200 << 20)
    assert answer.split(b"\r\n", 1)[0] == b"HTTP/1.1 411 Length Required"
    assert b"Transfer-Encoding: not accepted" in answer
    assert sent < 64 << 20  # the server stopped reading at the headers
    action = json.dumps({"type": "type_text", "text": "a" * (2 << 20)}).encode()
    head = post_head(srv, None)[:-2] + b"Transfer-Encoding: chunked\r\n\r\n"
    with socket.create_connection((srv.host, srv.port), timeout=15) as sock:
        try:
            sock.sendall(head + f"{len(action):x}\r\n".encode() + action + b"\r\n0\r\n\r\n")
        except OSError:
            pass
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 411 ")
    assert srv.request("GET", "/status")[1] == before  # nothing was applied


def test_header_lines_and_counts_are_bounded(srv):
    """Item 12, the attack: a 70 KB header line and 300 headers, each sent in one write (h11
    bounds only headers that arrive in pieces); before, both got 200."""
    base = f"GET /status HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
    cases = {
        "long line": base + "X-Pad: " + "a" * 70_000 + "\r\n\r\n",
        "many headers": base + "".join(f"X-H{i}: v\r\n" for i in range(300)) + "\r\n",
        "long target": base.replace("/status", "/status?" + "q" * 9000) + "\r\n",
    }
    statuses = {
        name: raw_request(srv, head.encode(), wait_s=5).split(b"\r\n", 1)[0]
        for name, head in cases.items()
    }
    assert statuses == {
        "long line": b"HTTP/1.1 431 Request Header Fields Too Large",
        "many headers": b"HTTP/1.1 431 Request Header Fields Too Large",
        "long target": b"HTTP/1.1 414 Request-URI Too Long",
    }
    assert srv.request("GET", "/status", headers={"X-Fine": "a" * 1000})[0] == 409


RECONNECTOR = """
import select, socket, sys
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def open_one():
    sock = socket.create_connection((host, port))
    sock.send(b"G")
    return sock
socks = {}
poller = select.poll()
for _ in range(n):
    sock = open_one()
    socks[sock.fileno()] = sock
    poller.register(sock, select.POLLIN)
print("ready", flush=True)
reopened = 0
poller.register(sys.stdin, select.POLLIN)
while True:
    events = poller.poll(1000)
    if any(fd == sys.stdin.fileno() for fd, _ in events):
        break
    for fd, _ in events:  # readable: an answer or EOF, the server closed it
        poller.unregister(fd)
        socks.pop(fd).close()
        try:
            sock = open_one()
        except OSError:
            continue
        reopened += 1
        socks[sock.fileno()] = sock
        poller.register(sock, select.POLLIN)
print(reopened, flush=True)
"""


class Reconnector:
    """Item 11's attacker, in its own process: ``n`` connections that each send one byte and
    are reopened as soon as the server closes them."""

    def __init__(self, srv, n: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", RECONNECTOR, srv.host, str(srv.port), str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "ready\n"

    def close(self) -> int:
        """Stop; the number of connections it reopened."""
        out, _ = self.proc.communicate("stop\n", timeout=30)
        return int(out.split()[-1])


def status_from(srv, source: str) -> int:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", "/status")
        return conn.getresponse().status
    finally:
        conn.close()


def test_reconnecting_slow_clients_do_not_lock_out_status(srv):
    """Item 11, the attack: 520 one-byte connections (more than the cap of 512), each reopened
    as soon as it closes; before, GET /status answered 503 on 44 of 45 tries. Now each try
    closes a waiting connection of the peer holding the most (the attacker's own, when it
    comes from the same address, the longest-waiting first) and is served."""
    attacker = Reconnector(srv, 520)
    try:
        same = [status_from(srv, "127.0.0.1") for _ in range(45)]
        other = [status_from(srv, "127.0.0.2") for _ in range(15)]
    finally:
        reopened = attacker.close()
    assert same == [409] * 45 and other == [409] * 15  # served (no episode yet), never 503
    assert reopened >= 8  # the attacker kept reconnecting the whole time


# ------------------------------------------------------------------------------- as a new user
@pytest.mark.parametrize("command", [["play", "LongPuzzle/MazePaint-Easy"], ["serve"]])
def test_a_port_in_use_is_a_clear_error_and_opens_nothing(tmp_path, command):
    """Before, ``puzzlegym play --port <in use>`` printed an OSError traceback (and had already
    opened its episode record)."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "puzzlegym", *command, "--port", str(port)]
            + ["--record-dir", str(tmp_path / "records")],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        f"puzzlegym: error: port {port}: cannot listen on 127.0.0.1:{port} (Address already in "
        "use); another server is using it: stop it, or choose another --port (0 picks a free one)"
    )
    assert not (tmp_path / "records").exists()


# ------------------------------------------------------------------------ issue 45: the class
def _mutations(doc):
    """Strategy: ``doc`` with one value (at any key path) replaced by an odd one, or its JSON
    text cut short."""
    from hypothesis import strategies as st

    odd = st.sampled_from(ODD_VALUES)
    text = json.dumps(doc)
    return st.one_of(
        st.tuples(st.sampled_from(list(key_paths(doc))), odd).map(
            lambda pv: json.dumps(replaced(doc, *pv))
        ),
        st.integers(0, len(text) - 1).map(lambda n: text[:n]),
    )


SERVE_BODIES = [
    ("/reset", RESET),
    ("/action", {"type": "click", "x": 640, "y": 450}),
    ("/action", {"type": "drag", "x0": 10, "y0": 20, "x1": 30, "y1": 40}),
    ("/action", {"type": "batch", "actions": [{"type": "press_key", "key": "Enter"}, WAIT]}),
    ("/answer", {"text": "done", "success": True}),
]
PLAY_EVENTS = [
    {"kind": "pointer_down", "t": 1000.5, "x": 640, "y": 450},
    {"kind": "pointer_move", "t": 1010, "x": 650, "y": 450},
    {"kind": "pointer_up", "t": 1050.25, "x": 660, "y": 450},
    {"kind": "key", "t": 1100, "value": "Enter"},
]


def test_mutated_requests_to_serve_and_play_are_answered_never_a_500(srv, play):
    """Every route of ``serve`` and ``play`` takes valid bodies mutated (a value at any key
    path replaced by an odd one, or the JSON cut short): each is answered 200 or a 4xx naming
    the problem, never a 500, and the server keeps answering."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    p, _, _ = play
    bodies = [(srv, path, doc) for path, doc in SERVE_BODIES] + [(p, "/play/events", PLAY_EVENTS)]
    assert srv.request("POST", "/reset", RESET)[0] == 200

    @settings(
        max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    @given(data=st.data())
    def one(data):
        server, path, doc = data.draw(st.sampled_from(bodies), label="route")
        raw = data.draw(_mutations(doc), label="body")
        status, reply = server.request("POST", path, raw=raw.encode())
        assert status == 200 or (400 <= status < 500 and reply["error"]), (path, raw, reply)

    one()
    assert srv.request("GET", "/status")[0] == 200
    assert p.request("GET", "/play/frame")[0] == 200


SERVE_ROUTES = ["/reset", "/action", "/answer", "/screenshot", "/status", "/session"]
PLAY_ROUTES = ["/", "/page.js", "/favicon.svg", "/play/frame", "/play/events", "/play/again"]
PLAY_ROUTES += ["/play/next", "/play/rules"]
ODD_PATHS = ["/play/../reset", "/%00", "/status?x=1", "/" + "a" * 5000, "//status", "*", "/%C3%A9"]
ODD_HEADERS = {
    "Content-Type": ["application/json", "text/plain", "", "application/json; charset=latin-1"],
    "X-Session": ["", "x" * 300, "../../etc", "0", "\u00e9"],
    "Authorization": ["", "Bearer", "Bearer " + "x" * 300, "Basic Og=="],
    "Origin": ["null", "http://evil.example", "http://127.0.0.1"],
    "Transfer-Encoding": ["chunked", "gzip"],
}


def test_any_method_route_header_or_body_is_answered_never_a_500(srv, play):
    """Beyond the bodies: every route of ``serve`` and ``play`` (and odd paths) with any
    method, odd headers (content types, sessions, tokens, origins, transfer encodings) and odd
    bodies is answered 2xx, 3xx or 4xx, never a 500 or a dropped connection, and both servers
    keep answering."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    p, _, _ = play
    servers = {"serve": (srv, SERVE_ROUTES), "play": (p, PLAY_ROUTES)}

    @settings(
        max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    @given(data=st.data())
    def one(data):
        server, routes = servers[data.draw(st.sampled_from(sorted(servers)), label="server")]
        method = data.draw(
            st.sampled_from(["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"])
        )
        path = data.draw(st.sampled_from(routes + ODD_PATHS), label="path")
        names = data.draw(st.sets(st.sampled_from(sorted(ODD_HEADERS)), max_size=3))
        headers = {n: data.draw(st.sampled_from(ODD_HEADERS[n]), label=n) for n in names}
        body = data.draw(st.sampled_from([None, b"", b"{}", b"[]", b"null", b"{", b"\xff"]))
        if "Transfer-Encoding" in headers and body is None:
            body = b""
        conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
        try:
            conn.putrequest(method, path, skip_accept_encoding=True)
            for name, value in headers.items():
                conn.putheader(name, value.encode("utf-8"))
            if body is not None and "Transfer-Encoding" not in headers:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            status = conn.getresponse().status
        finally:
            conn.close()
        assert status < 500, (method, path, headers, body, status)

    one()
    assert srv.request("GET", "/status")[0] in (200, 409)
    assert p.request("GET", "/play/frame")[0] == 200
