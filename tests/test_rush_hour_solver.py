"""The Rush Hour solver: optimal BFS on published hard positions, exact distance tables per
cluster (memoised), the walk down a table, unsolvable clusters."""

from __future__ import annotations

import pytest

from puzzlegym import solvers
from puzzlegym.envs.rush_hour import clusters as C
from puzzlegym.envs.rush_hour import rules as R
from puzzlegym.envs.rush_hour import solver as S

# Published 6×6 positions (36-character notation) with their optimal move counts and cluster
# sizes: the hardest known board (with a wall), and the hardest original-style board without
# walls.
HARDEST = ("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM", 60, 2332)
HARDEST_NO_WALLS = ("PBBoEoPCDoEFPCDAAFGGGHoFooIHJJLLIMMo", 51, 4780)


def replay(level, state, moves):
    for move in moves:
        state = R.apply(level, state, move)
        assert isinstance(state, R.State), move
    return state


@pytest.mark.parametrize("notation, moves, states", [HARDEST, HARDEST_NO_WALLS])
def test_published_hard_positions_are_solved_optimally(notation, moves, states):
    level = R.Level.from_notation(notation)
    S.clear_memo()
    sol = solvers.solve(level)  # plain BFS: no table yet
    assert sol.optimal and sol.length == moves and sol.meta["solver"] == "bfs"
    assert R.is_solved(level, replay(level, R.initial_state(level), sol.moves))
    table = S.cluster_table(level)
    assert table.n_states == states
    assert table.farthest()[0] == moves  # these boards are the farthest of their clusters
    walked = solvers.solve(level)  # now the walk down the memoised table
    assert walked.meta["solver"] == "table" and walked.length == moves
    assert R.is_solved(level, replay(level, R.initial_state(level), walked.moves))


def test_packed_states_round_trip_and_successors_match_the_rules():
    level = R.Level.from_notation(HARDEST[0])
    packed = S.packer(level)
    state = R.initial_state(level)
    for _ in range(12):
        key = packed.encode(state)
        assert packed.decode(key) == state.positions
        got = sorted(packed.successors(key))
        want = sorted(
            (m, packed.encode(R.apply(level, state, m))) for m in R.legal_moves(level, state)
        )
        assert got == want
        assert sorted(packed.neighbours(key, packed.occupancy(key))) == sorted(
            (k, packed.occupancy(k)) for _m, k in want
        )
        state = R.apply(level, state, R.legal_moves(level, state)[-1])


def test_distances_agree_with_bfs_from_every_sampled_state():
    level = R.Level.from_notation(HARDEST_NO_WALLS[0])
    table = S.cluster_table(level)
    packed = S.packer(level)
    keys = sorted(table.distances)[::97]
    for key in keys:
        state = R.State(packed.decode(key))
        S.clear_memo()
        bfs = S.solve(level, state)
        assert bfs.meta["solver"] == "bfs" and bfs.length == table.distances[key]
    # neighbouring states differ by at most one move (moves are reversible)
    for key in keys:
        d = table.distances[key]
        for _m, nxt in packed.successors(key):
            assert abs(table.distances[nxt] - d) <= 1


def test_solved_state_needs_no_moves():
    level = R.Level.from_notation("ooooooooooooAAoooo" + "o" * 18, tier="Easy")
    done = R.apply(level, R.initial_state(level), (0, 4))
    assert S.solve(level, done).moves == () and S.distance(level, done) == 0
    assert S.solve(level).moves == ((0, 4),)


# B: a car above C, a vertical truck in the target car's way (col 3). With the car above, the
# truck can drop to rows 3-5 and free row 2; with the car below it never can.
TWO_CLUSTERS = R.Level.from_notation(
    "oooBoooooBooAAoCoooooCoooooCoooooooo",
    id="two-clusters",
    tier="Easy",
)


def test_a_cluster_without_a_solved_state_is_a_dead_end():
    level = TWO_CLUSTERS
    S.clear_memo()
    start = R.initial_state(level)
    assert S.distance(level, start) == 2 and S.certify(level, start) == "solvable"
    trapped = R.state_from_json(
        level, {"vehicles": [[2, 0], [3, 3], [0, 3]]}
    )  # car below the truck
    assert S.distance(level, trapped) is None
    assert S.certify(level, trapped) == "dead_end" and solvers.is_dead_end(level, trapped)
    with pytest.raises(solvers.Unsolvable):
        S.solve(level, trapped)
    assert R.potential(level, trapped) == 0.0
    # both clusters are memoised, each found again without a search
    assert S.cached_table(level, start) is S.cluster_table(level, start)
    assert S.cached_table(level, trapped) is S.cluster_table(level, trapped)
    assert S.cached_table(level, start) is not S.cached_table(level, trapped)
    assert not S.cached_table(level, trapped).solvable


def test_cluster_limit_is_reported():
    level = R.Level.from_notation(HARDEST[0])
    S.clear_memo()
    with pytest.raises(S.SearchLimitReached, match="more than 100 states"):
        S.cluster_table(level, max_states=100)
    with pytest.raises(S.SearchLimitReached):
        S.solve(level, max_states=100)
    assert S.cached_table(level, R.initial_state(level)) is None  # nothing half-built is kept


def test_memo_is_bounded():
    S.clear_memo()
    base = "ooooooooooooAAoooo"
    for k in range(C.MEMO_LEVELS + 5):
        level = R.Level.from_notation(base + "o" * 18, id=f"l{k}", tier="Easy")
        S.distance(level, R.initial_state(level))
    assert len(C._MEMO._levels) == C.MEMO_LEVELS


def test_memo_is_bounded_by_states(monkeypatch):
    """Past MEMO_STATES states the least recently used levels' tables go (the newest stays)."""
    S.clear_memo()
    base = "ooooooooooooAAoooo"
    levels = [R.Level.from_notation(base + "o" * 18, id=f"s{k}", tier="Easy") for k in range(6)]
    size = len(S.cluster_table(levels[0]).distances)
    monkeypatch.setattr(C, "MEMO_STATES", 3 * size)
    for level in levels[1:]:
        S.distance(level, R.initial_state(level))
    assert [lv.id for lv in C._MEMO._levels] == ["s3", "s4", "s5"]
    monkeypatch.setattr(C, "MEMO_STATES", 0)
    S.distance(levels[0], R.initial_state(levels[0]))
    assert [lv.id for lv in C._MEMO._levels] == ["s0"]
