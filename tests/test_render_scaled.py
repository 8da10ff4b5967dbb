"""Full-resolution frames stay byte-identical: a scripted episode of every objective hashes as
its game's fixture says (``<game package>/frames_sha256.json``, one file per game, so a new
game changes no other game's fixtures; ``puzzlegym game fixtures GAME`` writes it from
:mod:`puzzlegym.authoring.fixtures`)."""

from __future__ import annotations

import pytest

import puzzlegym  # noqa: F401
from puzzlegym.authoring.fixtures import frames_digest, frames_fixture
from puzzlegym.game.registry import env_ids, parse_env_id


def fixture(env_id: str) -> dict | None:
    game, tier = parse_env_id(env_id)
    doc = frames_fixture(game)
    return None if doc is None else doc.get(tier)


@pytest.mark.parametrize("env_id", [i for i in env_ids() if fixture(i) is not None])
def test_full_resolution_frames_are_byte_identical_to_the_fixture(env_id):
    assert frames_digest(env_id) == fixture(env_id)
