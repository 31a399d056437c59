"""Community sources against a real, hostile `http.server` on 127.0.0.1: every bad answer is refused by name and
nothing is written; caching revalidates with ETag (304) and serves a stale copy when the server is gone."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sgtools.community import service, sources
from sgtools.community.build import build_index
from sgtools.core import settings as settings_mod
from sgtools.core.errors import BadInput, Conflict, NetworkError, SgToolsError, TooLarge
from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests.conftest import snapshot_tree

RULE_ID = "no-eval-remote-python"
RULE = f"""\
id: {RULE_ID}
language: python
severity: error
message: eval of $X
rule:
  pattern: eval($X)
metadata:
  description: Remote test rule about eval.
  tags: [security, remote-only-tag]
"""
TESTS = f"id: {RULE_ID}\nvalid: ['x = 1']\ninvalid: ['eval(data)']\n"

Route = Callable[[BaseHTTPRequestHandler], None]


class Server:
    """Serves a rule repository from disk under /r/, plus per-path overrides, and records what it was asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.routes: dict[str, Route] = {}
        self.log: list[tuple[str, dict[str, str], int]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path in server.routes:
                    server.routes[self.path](self)
                    return
                file = server.root / self.path.removeprefix("/r/")
                if not self.path.startswith("/r/") or not file.is_file():
                    server.log.append((self.path, dict(self.headers), 404))
                    self.send_response(404)
                    self.end_headers()
                    return
                body = file.read_bytes()
                etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
                if self.headers.get("If-None-Match") == etag:
                    server.log.append((self.path, dict(self.headers), 304))
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.end_headers()
                    return
                # Logged before the answer is sent: the client can read the whole answer, and the test read the
                # log, before this thread runs again (a test saw [200] for two fetches on a loaded machine).
                server.log.append((self.path, dict(self.headers), 200))
                self.send_response(200)
                self.send_header("ETag", etag)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        # A short poll interval: shutdown() waits for the next poll (0.5 s by default, in every teardown).
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def statuses(self, path: str) -> list[int]:
        return [status for p, _h, status in self.log if p == path]


def respond(status: int, body: bytes = b"", headers: dict[str, str] | None = None, delay: float = 0) -> Route:
    def route(h: BaseHTTPRequestHandler) -> None:
        if delay:
            time.sleep(delay)
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
    return route


@pytest.fixture
def remote_repo(tmp_path: Path) -> Path:
    root = tmp_path / "remote"
    (root / "rules").mkdir(parents=True)
    (root / "rule-tests").mkdir()
    (root / "rules" / f"{RULE_ID}.yml").write_text(RULE)
    (root / "rule-tests" / f"{RULE_ID}-test.yml").write_text(TESTS)
    build_index(root, source="remote-test", license="MIT")
    return root


@pytest.fixture
def server(remote_repo: Path) -> Iterator[Server]:
    srv = Server(remote_repo)
    yield srv
    srv.stop()


def use_settings(monkeypatch: pytest.MonkeyPatch, **values: Any) -> None:
    monkeypatch.setattr(settings_mod, "_current", settings_mod.get_settings().replace(**values))


def use_sources(monkeypatch: pytest.MonkeyPatch, *locations: str) -> None:
    monkeypatch.setenv(sources.SOURCES_ENV, ",".join(locations))


def index_of(repo: Path) -> dict[str, Any]:
    return json.loads((repo / "index.json").read_text())  # type: ignore[no-any-return]


def serve_index(srv: Server, path: str, index: dict[str, Any]) -> str:
    srv.routes[path] = respond(200, json.dumps(index).encode())
    return srv.url(path)


# ---- the happy path, priority and labelling ------------------------------------------------------------------


def test_remote_index_search_show_import(server: Server, monkeypatch: pytest.MonkeyPatch, initialized: Workspace,
                                         engine: Engine) -> None:
    url = server.url("/r/index.json")
    use_sources(monkeypatch, url)
    found = service.search_community_rules("remote eval", tags="remote-only-tag")
    assert [m["id"] for m in found["matches"]] == [RULE_ID]
    assert found["matches"][0]["source"] == f"remote-test ({url})"  # names where it really came from
    listed = service.community_sources()
    assert [(s["kind"], s["status"]) for s in listed] == [("url", "ok"), ("bundled", "ok")]
    assert listed[0]["ruleCount"] == 1 and listed[0]["location"] == url
    details = service.get_community_rule_details(RULE_ID)
    assert details["rule"]["yaml"] == RULE and details["rule"]["tests"] == {"valid": ["x = 1"],
                                                                          "invalid": ["eval(data)"]}
    result = service.import_community_rule(initialized, engine, RULE_ID)
    assert result["path"] == f"rules/{RULE_ID}.yml" and result["testPath"] == f"rule-tests/{RULE_ID}-test.yml"
    written = (initialized.root / result["path"]).read_text()
    assert hashlib.sha256(RULE.encode()).hexdigest() in written and "communityId" in written
    assert result["testResult"]["passed"] is True
    # A second import without overwrite is a conflict that names `overwrite`, and changes nothing.
    before = snapshot_tree(initialized.root)
    with pytest.raises(Conflict, match="overwrite"):
        service.import_community_rule(initialized, engine, RULE_ID)
    assert snapshot_tree(initialized.root) == before
    assert service.import_community_rule(initialized, engine, RULE_ID, overwrite=True)["success"]


def test_first_listed_source_wins_and_bundled_is_last(server: Server, remote_repo: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    bundled_id = service.search_community_rules("", limit=1)["matches"][0]["id"]
    shadow = dict(index_of(remote_repo))
    entry = dict(shadow["rules"][0], id=bundled_id)
    shadow["rules"] = [entry]
    url = serve_index(server, "/r/shadow.json", shadow)
    # A local directory source, configured in the user config file (after the environment's sources).
    local = tmp_path / "local"
    (local / "rules").mkdir(parents=True)
    (local / "rules" / f"{bundled_id}.yml").write_text(RULE.replace(RULE_ID, bundled_id))
    build_index(local, source="local-test")
    cfg = sources.config_path()
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'{sources.CONFIG_KEY} = ["{local}"]\n')
    use_sources(monkeypatch, url)
    sset = sources.load_sources()
    assert [s.kind for s in sset.sources] == ["url", "local", "bundled"]
    src, _entry = sset.find(bundled_id)
    assert src.location == url
    monkeypatch.delenv(sources.SOURCES_ENV)
    src, _entry = sources.load_sources().find(bundled_id)
    assert src.location == str(local)
    match = service.search_community_rules(bundled_id.replace("-", " "), limit=1)["matches"][0]
    assert match["source"] == f"local-test ({local})"


# ---- hostile answers: each refused by name, nothing written ----------------------------------------------------


def refused(ws: Workspace, engine: Engine, exc: type[Exception], needle: str, rule_id: str = RULE_ID) -> str:
    before = snapshot_tree(ws.root)
    with pytest.raises(exc, match=needle) as info:
        service.import_community_rule(ws, engine, rule_id)
    assert snapshot_tree(ws.root) == before
    return str(info.value)


def test_wrong_digest_is_refused(server: Server, remote_repo: Path, monkeypatch: pytest.MonkeyPatch,
                                 initialized: Workspace, engine: Engine) -> None:
    server.routes[f"/r/rules/{RULE_ID}.yml"] = respond(200, RULE.replace("error", "hint").encode())
    use_sources(monkeypatch, server.url("/r/index.json"))
    message = refused(initialized, engine, NetworkError, "sha256")
    assert server.url("/r/index.json") in message and "Nothing was written" in message
    with pytest.raises(NetworkError, match="sha256"):
        service.get_community_rule_details(RULE_ID)
    assert not list(sources.cache_dir().glob("blobs/*"))  # bad bytes are never cached


def test_oversized_rule_and_index_are_refused(server: Server, remote_repo: Path, monkeypatch: pytest.MonkeyPatch,
                                              initialized: Workspace, engine: Engine) -> None:
    use_settings(monkeypatch, max_rule_bytes=2000)
    big = (RULE + "# " + "x" * 5000 + "\n").encode()
    index = index_of(remote_repo)
    index["rules"][0]["sha256"] = hashlib.sha256(big).hexdigest()  # honest digest, just too big
    server.routes[f"/r/rules/{RULE_ID}.yml"] = respond(200, big)
    use_sources(monkeypatch, serve_index(server, "/r/big-rule.json", index))
    refused(initialized, engine, TooLarge, "2000")
    # The same, with a server that lies about (or omits) Content-Length: the streamed cap still holds.
    def chunked(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.end_headers()
        h.wfile.write(big)
    server.routes[f"/r/rules/{RULE_ID}.yml"] = chunked
    refused(initialized, engine, TooLarge, "2000")
    # An index over http_max_bytes: that source is refused by name.
    use_settings(monkeypatch, http_max_bytes=300)
    use_sources(monkeypatch, server.url("/r/index.json"))
    problem = sources.load_sources().problems[0]
    assert problem.location == server.url("/r/index.json") and isinstance(problem.error, TooLarge)
    refused(initialized, engine, TooLarge, "300")


@pytest.mark.parametrize(("field", "value"), [
    ("path", "../../../etc/passwd.yml"),
    ("path", f"/rules/{RULE_ID}.yml"),
    ("path", "rules/%2e%2e/x.yml"),
    ("tests", "../rule-tests/x-test.yml"),
    ("id", "../../evil"),
])
def test_traversal_in_path_or_id_is_refused(server: Server, remote_repo: Path, monkeypatch: pytest.MonkeyPatch,
                                            initialized: Workspace, engine: Engine, field: str, value: str) -> None:
    index = index_of(remote_repo)
    index["rules"][0][field] = value
    url = serve_index(server, "/r/evil.json", index)
    use_sources(monkeypatch, url)
    sset = sources.load_sources()
    assert len(sset.problems) == 1 and isinstance(sset.problems[0].error, BadInput)
    assert url in sset.problems[0].error.message
    # Search keeps working on the other sources and says why one is missing.
    result = service.search_community_rules("eval")
    assert any(url in w for w in result["warnings"])
    refused(initialized, engine, BadInput, "schema")
    assert [status for path, _h, status in server.log if "evil" not in path] == []  # no rule was fetched


def test_redirects_only_on_the_same_host(server: Server, monkeypatch: pytest.MonkeyPatch, initialized: Workspace,
                                         engine: Engine) -> None:
    elsewhere = f"http://localhost:{server.port}/r/index.json"  # same machine, another host name
    server.routes["/moved/index.json"] = respond(302, headers={"Location": elsewhere})
    use_sources(monkeypatch, server.url("/moved/index.json"))
    message = refused(initialized, engine, NetworkError, "another host")
    assert "localhost" in message
    server.routes["/file/index.json"] = respond(302, headers={"Location": "file:///etc/passwd"})
    use_sources(monkeypatch, server.url("/file/index.json"))
    refused(initialized, engine, NetworkError, "another host or scheme")
    server.routes["/same/index.json"] = respond(301, headers={"Location": "/r/index.json"})
    use_sources(monkeypatch, server.url("/same/index.json"))
    sset = sources.load_sources()
    assert not sset.problems and sset.sources[0].entries[0]["id"] == RULE_ID
    server.routes["/loop"] = respond(302, headers={"Location": "/loop"})
    use_sources(monkeypatch, server.url("/loop"))
    refused(initialized, engine, NetworkError, "redirected more than")


def test_malformed_json_names_the_source(server: Server, monkeypatch: pytest.MonkeyPatch, initialized: Workspace,
                                         engine: Engine) -> None:
    server.routes["/bad/index.json"] = respond(200, b'{"version": 1, "rules": [{"id": ')
    url = server.url("/bad/index.json")
    use_sources(monkeypatch, url)
    message = refused(initialized, engine, BadInput, "not valid JSON")
    assert url in message


def test_a_server_too_slow_to_answer_is_refused(server: Server, monkeypatch: pytest.MonkeyPatch,
                                                initialized: Workspace, engine: Engine) -> None:
    use_settings(monkeypatch, http_timeout=0.5)
    server.routes["/slow/index.json"] = respond(200, b"{}", delay=60)
    use_sources(monkeypatch, server.url("/slow/index.json"))
    start = time.monotonic()
    refused(initialized, engine, NetworkError, "did not answer within 0.5 s")
    assert time.monotonic() - start < 30  # a hang guard: the server answers after 60 s


def test_a_server_that_trickles_its_body_is_cut_off(server: Server, monkeypatch: pytest.MonkeyPatch,
                                                   initialized: Workspace, engine: Engine) -> None:
    use_settings(monkeypatch, http_timeout=0.6)

    def trickle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", "100000")
        h.end_headers()
        for _ in range(600):  # each byte well within the read timeout, the whole (60 s) far beyond the deadline
            h.wfile.write(b" ")
            h.wfile.flush()
            time.sleep(0.1)

    server.routes["/trickle/index.json"] = trickle
    use_sources(monkeypatch, server.url("/trickle/index.json"))
    start = time.monotonic()
    refused(initialized, engine, NetworkError, "did not finish within 0.6 s")
    assert time.monotonic() - start < 30  # a hang guard: the body takes 60 s


def test_only_https_or_loopback_http(monkeypatch: pytest.MonkeyPatch, initialized: Workspace,
                                     engine: Engine) -> None:
    for url in ("http://example.com/index.json", "file:///etc/passwd", "ftp://example.com/index.json"):
        use_sources(monkeypatch, url)
        refused(initialized, engine, NetworkError, "only https")


def test_local_digest_mismatch_is_refused(remote_repo: Path, monkeypatch: pytest.MonkeyPatch,
                                          initialized: Workspace, engine: Engine) -> None:
    use_sources(monkeypatch, str(remote_repo))  # a directory holding index.json
    (remote_repo / "rules" / f"{RULE_ID}.yml").write_text(RULE.replace("eval($X)", "exec($X)"))
    refused(initialized, engine, NetworkError, "rebuild it")


# ---- caching -------------------------------------------------------------------------------------------------


def test_etag_revalidation_and_ttl(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    url = server.url("/r/index.json")
    use_sources(monkeypatch, url)
    sources.load_sources()
    assert server.statuses("/r/index.json") == [200]
    sources.load_sources()  # within the TTL: no request at all
    assert server.statuses("/r/index.json") == [200]
    use_settings(monkeypatch, cache_ttl=0)
    sset = sources.load_sources()  # expired: a conditional GET, answered 304, the cached copy is used
    assert server.statuses("/r/index.json") == [200, 304]
    sent = [h for p, h, _s in server.log if p == "/r/index.json"][-1]
    assert sent.get("If-None-Match", "").startswith('"')
    assert sset.sources[0].status == "ok" and sset.sources[0].entries[0]["id"] == RULE_ID
    sources.load_sources(refresh=True)
    assert server.statuses("/r/index.json") == [200, 304, 304]


def test_last_modified_revalidation(server: Server, remote_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = (remote_repo / "index.json").read_bytes()
    stamp = "Sun, 22 Nov 2026 07:00:00 GMT"
    seen: list[str | None] = []

    def dated(h: BaseHTTPRequestHandler) -> None:
        seen.append(h.headers.get("If-Modified-Since"))
        if h.headers.get("If-Modified-Since") == stamp:
            h.send_response(304)
            h.end_headers()
            return
        respond(200, body, {"Last-Modified": stamp})(h)

    server.routes["/dated/index.json"] = dated
    use_sources(monkeypatch, server.url("/dated/index.json"))
    use_settings(monkeypatch, cache_ttl=0)
    first = sources.load_sources()
    second = sources.load_sources()
    assert seen == [None, stamp]
    assert first.sources[0].digest == second.sources[0].digest and second.sources[0].status == "ok"


def test_stale_cache_serves_when_offline(server: Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    url = server.url("/r/index.json")
    use_sources(monkeypatch, url)
    sources.load_sources()
    server.stop()
    use_settings(monkeypatch, cache_ttl=0, http_timeout=2.0)
    sset = sources.load_sources()
    assert not sset.problems
    assert sset.sources[0].status == "stale" and "offline" in (sset.sources[0].warning or "")
    result = service.search_community_rules("remote eval")
    assert result["matches"][0]["id"] == RULE_ID
    assert any("offline" in w for w in result["warnings"])
    assert service.community_sources()[0]["status"] == "stale"
    # A URL never fetched before has nothing to fall back on.
    use_sources(monkeypatch, server.url("/never/index.json"))
    sset = sources.load_sources()
    assert len(sset.problems) == 1 and "Could not reach" in sset.problems[0].error.message


def test_update_reports_each_source(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    server.routes["/bad/index.json"] = respond(500)
    use_sources(monkeypatch, server.url("/r/index.json"), server.url("/bad/index.json"))
    result = service.update_community_sources()
    assert result["success"] is False
    assert [s["status"] for s in result["sources"]] == ["ok", "error", "ok"]
    assert "HTTP 500" in result["sources"][1]["error"]


def test_bad_config_file_is_reported_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = sources.config_path()
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("community_sources = 'not a list'\n")
    sset = sources.load_sources()
    assert [p.kind for p in sset.problems] == ["config"] and str(cfg) in sset.problems[0].error.message
    assert [s.kind for s in sset.sources] == ["bundled"]


def test_an_unwritable_cache_dir_costs_a_refetch_not_a_failure(server: Server, monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the cache dir should be")
    monkeypatch.setattr(sources, "cache_dir", lambda: blocked / "community")
    use_sources(monkeypatch, server.url("/r/index.json"))
    for _ in range(2):
        sset = sources.load_sources()
        assert not sset.problems and sset.sources[0].entries[0]["id"] == RULE_ID
    assert server.statuses("/r/index.json") == [200, 200]
    details = service.get_community_rule_details(RULE_ID)
    assert details["rule"]["yaml"] == RULE


def test_a_local_test_file_linked_outside_the_index_is_refused(remote_repo: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                initialized: Workspace, engine: Engine) -> None:
    use_sources(monkeypatch, str(remote_repo))
    secret = tmp_path / "secret.yml"
    secret.write_text("id: x\nvalid: ['SECRET FROM OUTSIDE']\n")
    tests = remote_repo / "rule-tests" / f"{RULE_ID}-test.yml"
    tests.unlink()
    tests.symlink_to(secret)
    # The linked tests are refused, so nothing proves the rule fires: the import is refused as unproven (issue 28)
    # and names the refused link; nothing of the outside file is written or said.
    with pytest.raises(SgToolsError) as err:
        service.import_community_rule(initialized, engine, RULE_ID)
    written = "".join(p.read_text() for p in initialized.root.rglob("*.yml"))
    assert "SECRET" not in written and "SECRET" not in err.value.render()
    assert "rule-unproven" in err.value.render()
