"""SciMIF from a hub id (``owner/name[@revision]``), served by a real loopback hub that
``datasets.load_dataset`` reads over HTTP, or found in the hub cache."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.data.locate import locate

from . import scimif_release as release
from .helpers import offline_hub_snapshot

# each test its own image cache and `datasets` cache: nothing carries over between tests
pytestmark = pytest.mark.usefixtures("own_data_caches")
COMMIT = "0123456789abcdef0123456789abcdef01234567"


class LoopbackHub(http.server.ThreadingHTTPServer):
    """A minimal Hugging Face hub on loopback serving one dataset repository from a folder
    at one commit, reachable by the revisions in ``revisions``; it logs every request."""

    def __init__(self, repo: str, root: Path, revisions: dict[str, str]) -> None:
        super().__init__(("127.0.0.1", 0), _HubHandler)
        self.repo, self.root, self.revisions = repo, root, revisions
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _HubHandler(http.server.BaseHTTPRequestHandler):
    server: LoopbackHub

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _send(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _entry(self, path: Path) -> dict[str, Any]:
        rel = path.relative_to(self.server.root).as_posix()
        if path.is_dir():
            return {"type": "directory", "path": rel, "oid": "0" * 40}
        data = path.read_bytes()
        oid = hashlib.sha1(data).hexdigest()
        return {"type": "file", "path": rel, "size": len(data), "oid": oid}

    def _json(self, value: Any) -> None:
        self._send(200, json.dumps(value).encode(), {"Content-Type": "application/json"})

    def _serve(self) -> None:
        hub = self.server
        url = urllib.parse.urlparse(self.path)
        parts = urllib.parse.unquote(url.path).strip("/").split("/")
        hub.requests.append(f"{self.command} {url.path}")
        owner_name = hub.repo.split("/")
        if parts[:3] == ["datasets", *owner_name] and parts[3:4] == ["resolve"]:
            commit = hub.revisions.get(parts[4])
            if commit is None:
                return self._send(404, headers={"X-Error-Code": "RevisionNotFound"})
            path = hub.root / "/".join(parts[5:])
            if not path.is_file():
                return self._send(404, headers={"X-Error-Code": "EntryNotFound"})
            data = path.read_bytes()
            etag = f'"{hashlib.sha1(data).hexdigest()}"'
            return self._send(200, data, {"X-Repo-Commit": commit, "ETag": etag})
        if parts[:4] == ["api", "datasets", *owner_name] and len(parts) >= 6:
            kind, commit = parts[4], hub.revisions.get(parts[5])
            if commit is None:
                return self._send(404, headers={"X-Error-Code": "RevisionNotFound"})
            files = sorted(p for p in hub.root.rglob("*") if p.is_file())
            if kind == "revision":
                siblings = [{"rfilename": self._entry(p)["path"]} for p in files]
                return self._json({"id": hub.repo, "sha": commit, "siblings": siblings})
            if kind == "tree":
                base = hub.root.joinpath(*parts[6:])
                recursive = "recursive=true" in url.query.lower()
                kids = sorted(base.rglob("*") if recursive else base.iterdir())
                return self._json([self._entry(p) for p in kids])
        self._send(404, headers={"X-Error-Code": "RepoNotFound"})

    do_GET = do_HEAD = _serve


@pytest.fixture
def loopback_hub(tmp_path: Path) -> Iterator[LoopbackHub]:
    root = release.write_hub_folder(tmp_path / "repo", release.hub_rows())
    hub = LoopbackHub("someone/scimif-hub", root, {"v1.0": COMMIT, COMMIT: COMMIT})
    thread = threading.Thread(target=hub.serve_forever, daemon=True)
    thread.start()
    yield hub
    hub.shutdown()
    hub.server_close()


LOAD_SCRIPT = """
import json
from sci_tasks.benchmarks.scimif import loader as scimif
from sci_tasks.data.locate import locate
location = locate("scimif")
docs = [dict(doc) for d in scimif.FILES for doc in scimif.load(d, location)]
print(json.dumps({"where": location.where, "ref": location.hub_ref, "docs": docs}))
"""


def load_through_hub(hub: LoopbackHub, tmp_path: Path, data_dir: str) -> dict[str, Any]:
    """A fresh interpreter pointed at the loopback hub (the hub clients read their endpoint
    at import), with SCIMIF_DATA_DIR set as a user sets it."""
    env = {
        **os.environ,
        "SCIMIF_DATA_DIR": data_dir,
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
        "HF_HUB_DISABLE_XET": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_CACHE": str(tmp_path / "hf-home" / "hub"),
        "HF_DATASETS_CACHE": str(tmp_path / "hf-home" / "datasets"),
        "SCI_TASKS_CACHE": str(tmp_path / "sci-cache"),
    }
    env.pop("HF_TOKEN", None)
    done = subprocess.run(
        [sys.executable, "-c", LOAD_SCRIPT], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_hub_id_with_revision_is_read_with_load_dataset(
    loopback_hub: LoopbackHub, tmp_path: Path
) -> None:
    result = load_through_hub(loopback_hub, tmp_path, "someone/scimif-hub@v1.0")
    assert result["ref"] == ["someone/scimif-hub", "v1.0"]
    # the revision reached the hub: the card was resolved at v1.0, the data at its commit
    assert "GET /datasets/someone/scimif-hub/resolve/v1.0/README.md" in loopback_hub.requests
    assert (
        f"GET /datasets/someone/scimif-hub/resolve/{COMMIT}/data/test-00000-of-00001.parquet"
        in loopback_hub.requests
    )
    docs = result["docs"]
    assert len(docs) == len(release.hub_rows())
    local = [
        dict(doc) for d in scimif.FILES for doc in scimif.load(d, release.folder(loopback_hub.root))
    ]
    assert [{k: d[k] for k in release.SCORED_FIELDS} for d in docs] == [
        {k: d[k] for k in release.SCORED_FIELDS} for d in local
    ]
    assert all(d["data_source"].startswith("hub someone/scimif-hub@v1.0 (from SCIMIF_DATA_DIR")
               for d in docs)  # fmt: skip
    images = [Path(p) for d in docs for p in d["images"]]
    assert len(images) == 6
    assert all(p.is_relative_to(tmp_path / "sci-cache" / "scimif" / "images") for p in images)


def test_unknown_revision_is_a_one_line_error(loopback_hub: LoopbackHub, tmp_path: Path) -> None:
    env_result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from sci_tasks.benchmarks.scimif import loader; loader.load('physics')",
        ],
        env={
            **os.environ,
            "SCIMIF_DATA_DIR": "someone/scimif-hub@v9",
            "HF_ENDPOINT": loopback_hub.url,
            "HF_HUB_OFFLINE": "0",
            "HF_DATASETS_OFFLINE": "0",
            "HF_HOME": str(tmp_path / "hf-home"),
            "HF_DATASETS_CACHE": str(tmp_path / "hf-home" / "datasets"),
            "HF_HUB_CACHE": str(tmp_path / "hf-home" / "hub"),
        },
        capture_output=True,
        text=True,
        timeout=180,
    )
    last = env_result.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "sci_tasks.data.locate.DataError: cannot fetch hub dataset 'someone/scimif-hub@v9' "
        "split 'test' with datasets:"
    )
    assert "v9" in last


def test_hub_root_subfolder_in_the_hub_layout_is_read_from_the_hub_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``SCI_TASKS_DATA_DIR=owner/name``: the ``scimif/`` subfolder is fetched (offline here:
    placed in the hub cache as a download leaves it) and its layout detected."""
    release.write_hub_folder(
        offline_hub_snapshot(tmp_path, monkeypatch) / "scimif", release.hub_rows()
    )
    location = locate("scimif", {"SCI_TASKS_DATA_DIR": "someone/sci-data"})
    assert (location.kind, location.subdir) == ("hub", "scimif")
    docs = scimif.load("geography", location)
    assert docs["id"] == [0, 1] and release.image_bytes(docs[1]) == [release.RIVER, release.DUSK]


def test_hub_ref_parsing() -> None:
    assert locate("scimif", {"SCIMIF_DATA_DIR": "Sheryle7436/SciMIF"}).hub_ref == (
        "Sheryle7436/SciMIF",
        None,
    )
    at = locate("scimif", {"SCIMIF_DATA_DIR": "Sheryle7436/SciMIF@refs/pr/3"})
    assert at.hub_ref == ("Sheryle7436/SciMIF", "refs/pr/3")
    with pytest.raises(ValueError, match="not a hub dataset id"):
        _ = locate("scimif").hub_ref
