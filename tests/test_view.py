"""The episode viewer without a browser (issue 33, item 1): the frames a page stores decode to
the record's own frame hashes, the delta regions cover every changed pixel, the page stays in
its byte bound (a stride past it), the dead-end spans come from the record's events, a
model's hostile text stays text, pages go beside the records (atomically, the record only
read, a record being written refused), and the command says what it wrote."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlegym.base.errors import ConfigError, RecordError
from puzzlegym.cli import main
from puzzlegym.record.files import VIEW_PAGE, EpisodeRecorder, read_log
from puzzlegym.view.episode import read_episode
from puzzlegym.view.frames import MIN_MAX_BYTES, changed_regions, record_frames
from puzzlegym.view.page import embed_json
from puzzlegym.view.turns import read_turns
from puzzlegym.view.write import view, write_episode_page
from tests.view_episodes import HOSTILE, composite, recorded_frames


@pytest.fixture(scope="module")
def records(view_records):
    return view_records


def _data(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    raw = re.search(r'<script type="application/json" id="episode">(.*?)</script>', text, re.S)
    assert raw is not None
    return json.loads(raw.group(1))


# --------------------------------------------------------------------------- frames
@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 1279), st.integers(0, 899), st.integers(1, 300), st.integers(1, 200)
        ),
        max_size=9,
    )
)
def test_the_changed_regions_cover_every_changed_pixel(rects):
    rng = np.random.default_rng(len(rects))
    before = rng.integers(0, 256, (900, 1280, 3), dtype=np.uint8)
    after = before.copy()
    for x, y, w, h in rects:
        after[y : y + h, x : x + w, rng.integers(0, 3)] ^= 0x5A
    regions = changed_regions(before, after)
    covered = np.zeros((900, 1280), bool)
    for x, y, w, h in regions:
        assert 0 <= x < x + w <= 1280 and 0 <= y < y + h <= 900
        covered[y : y + h, x : x + w] = True
    changed = (before != after).any(axis=2)
    assert not (changed & ~covered).any()
    assert (regions == []) == (not changed.any())


def test_the_stored_frames_decode_to_the_records_own_frame_hashes(records):
    """Every frame the solver episode's page stores, composited from its PNG patches and
    keyframes, has the SHA-256 the env wrote into the record while it played (one hash per
    action)."""
    record = records["solver"]
    hashes = recorded_frames(record)
    n = read_episode(record)["n"]
    strip, report = record_frames(record, n)
    assert report["ok"] and report["frames"] == len(hashes) == n + 1  # one per action
    assert strip.stride == 1 and strip.positions() == list(range(n + 1))
    frames = composite(strip)
    assert {p: hashlib.sha256(f.tobytes()).hexdigest() for p, f in frames.items()} == hashes
    assert strip.steps[0][:2] == [0, 1]  # the reset's frame is a keyframe


def test_a_page_past_its_byte_bound_keeps_every_kth_frame(records):
    record = records["random"]
    n = read_episode(record)["n"]
    bound = 200_000
    full, _ = record_frames(record, n)
    assert full.image_bytes > bound  # too small for every frame
    strip, report = record_frames(record, n, max_bytes=bound)
    assert report["ok"] and strip.stride > 1 and strip.passes >= 2
    assert strip.image_bytes <= bound
    assert strip.positions()[-1] == n and all(p % strip.stride == 0 for p in strip.positions()[:-1])
    assert strip.shown_at(strip.stride + 1) == strip.stride and strip.shown_at(n) == n
    hashes = recorded_frames(record)
    for p, frame in composite(strip).items():
        assert hashlib.sha256(frame.tobytes()).hexdigest() == hashes[p]
    with pytest.raises(ConfigError, match="max_bytes"):
        record_frames(record, n, max_bytes=bound, stride=1)
    with pytest.raises(ConfigError, match="max_bytes"):
        record_frames(record, n, max_bytes=MIN_MAX_BYTES - 1)


# --------------------------------------------------------------------------- data
def test_dead_end_spans_are_the_records_attempt_runs_to_the_board_that_left_them(records):
    record = records["random"]
    log = read_log(record)
    runs = [
        (run["fatal_actions"], run["recovered_by"])
        for a in log
        if a["kind"] == "attempt"
        for run in a["runs"]
    ]
    assert runs == [(241, "undo")]
    undo_at = next(r["actions"] for r in log if r["kind"] == "undo" and r["actions"] > 241)
    spans = read_episode(record)["spans"]
    assert [(s["start"], s["end"], s["recovered_by"]) for s in spans] == [(241, undo_at, "undo")]
    dead = [r["actions"] for r in log if r["kind"] == "snapshot" and r["dead_end"]]
    assert min(dead) == 241 and max(dead) < undo_at  # dead exactly inside the span


def test_the_model_turns_keep_text_reasoning_calls_feedback_and_faults(records):
    turns = read_turns(records["model"])
    entries = turns["entries"]
    first = next(e for e in entries if e["kind"] == "request")
    assert first["content"] == HOSTILE and first["retries"] == 1 and first["faults"]
    assert first["reasoning"].startswith("The home screen shows six games")
    assert first["calls"] == [{"name": "click", "arguments": '{"x": 1,'}]
    assert any(e["kind"] == "malformed" for e in entries)
    assert any(e["kind"] == "result" and "accepted" in e["text"] for e in entries)
    assert turns["faults"][0] == first["at"] == 0
    assert read_turns(records["solver"]) is None


def test_a_hostile_string_cannot_leave_the_pages_data(records, tmp_path):
    assert "<" not in embed_json({"t": HOSTILE}) and json.loads(embed_json({"t": HOSTILE})) == {
        "t": HOSTILE
    }
    page = Path(write_episode_page(records["model"])["page"])
    text = page.read_text(encoding="utf-8")
    assert HOSTILE not in text and "window.pwned" in text  # there, escaped
    assert text.count("</script>") == 2  # the data's and the script's own
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', text).group(1)
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp.split("script-src")[1]


# --------------------------------------------------------------------------- files
def _digests(directory: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in directory.iterdir()
        if p.name != VIEW_PAGE
    }


def test_pages_go_beside_the_records_and_a_second_view_makes_the_same_page(records, tmp_path):
    record = records["solver"]
    before = _digests(record)
    first = write_episode_page(record)
    page = Path(first["page"])
    assert page == record / VIEW_PAGE and first["bytes"] == page.stat().st_size
    again = page.read_bytes()
    write_episode_page(record)
    assert page.read_bytes() == again  # derived from the record alone
    assert _digests(record) == before  # the record's files were only read
    assert not [p for p in record.iterdir() if p.name.startswith(".")]  # no temporary left
    data = _data(page)
    assert data["n"] == first["actions"] and data["replay"]["ok"] and data["index"] is None


def test_a_record_being_written_is_refused(tmp_path):
    live = EpisodeRecorder(tmp_path / "live", {"env_id": "LongPuzzle/MazePaint-Easy"})
    try:
        with pytest.raises(RecordError, match="being written"):
            write_episode_page(tmp_path / "live")
    finally:
        live.close()
    assert not (tmp_path / "live" / VIEW_PAGE).exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RecordError, match="no episode record"):
        view(empty)


def test_view_of_a_run_writes_every_page_and_an_index_and_says_so(records, capsys):
    run = records["solver"].parents[1]  # holds solver/, random/, model/ only
    assert main(["view", str(run), "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    pages = [line for line in out if line.split(":")[0].endswith(VIEW_PAGE)]
    assert len(pages) == 3 and all("replay reproduces the record" in line for line in pages)
    assert any("1 dead-end span," in line for line in pages)
    assert out[-1] == f"index of 3 episode pages: {run / VIEW_PAGE}"
    index = (run / VIEW_PAGE).read_text(encoding="utf-8")
    for name in ("solver", "random", "model"):
        assert f'href="./{name}/record/{VIEW_PAGE}"' in index
    assert _data(records["random"] / VIEW_PAGE)["index"] == f"../../{VIEW_PAGE}"


def test_report_then_view_links_the_pages_as_view_then_report_does(records, tmp_path, capsys):
    """Issue 43, item 6: the README's order (eval, report, view) left the report saying "0 of 3
    episodes have a viewer page". ``view`` now writes the run's report again, with its own
    title and note, so either order ends with the links."""
    run = tmp_path / "run"
    shutil.copytree(records["solver"].parents[1], run)
    for page in run.rglob(VIEW_PAGE):  # pages an earlier test wrote into the shared records
        page.unlink()
    assert main(["report", str(run), "--title", "My run", "--note", "A note."]) == 0
    index = run / "report" / "index.md"
    assert "0 of 3 episodes have a viewer page" in index.read_text()
    capsys.readouterr()
    assert main(["view", str(run), "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"report written again with the pages' links: {index}"
    )
    text = index.read_text()
    assert text.startswith("# My run\n\nA note.\n")
    assert "3 of 3 episodes have a viewer page (linked in [Table 18](table18.md))" in text
    table18 = (run / "report" / "table18.md").read_text()
    assert table18.count(f"/record/{VIEW_PAGE})") == 3
