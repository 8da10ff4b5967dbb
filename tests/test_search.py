"""The generic, game-agnostic search helpers on tiny hand-made graphs."""

from __future__ import annotations

from puzzlegym.solvers.search import (
    adjacency,
    bfs_shortest,
    nodes_reaching,
    reach,
    reachable_states,
    reverse,
    strongly_connected,
    strongly_connected_components,
)

# a --x--> b --z--> d --v--> a ;  a --y--> c --w--> d ;  d --u--> e (e is a sink)
GRAPH = {
    "a": [("x", "b"), ("y", "c")],
    "b": [("z", "d")],
    "c": [("w", "d")],
    "d": [("v", "a"), ("u", "e")],
    "e": [],
}


def succ(state):
    return GRAPH[state]


def test_bfs_shortest_path_and_counts():
    path, expanded, complete = bfs_shortest("a", succ, lambda s: s == "d")
    assert path == ["x", "z"]  # length 2; first of the two shortest paths in successor order
    assert expanded == 2  # a, then b (which discovers d)
    assert complete


def test_bfs_goal_at_start_and_deeper_goal():
    assert bfs_shortest("a", succ, lambda s: s == "a") == ([], 0, True)
    path, _, complete = bfs_shortest("b", succ, lambda s: s == "c")
    assert path == ["z", "v", "y"] and complete


def test_bfs_no_goal_is_complete_and_exhaustive():
    path, expanded, complete = bfs_shortest("a", succ, lambda s: s == "nowhere")
    assert path is None and complete
    assert expanded == 5


def test_bfs_state_limit_is_incomplete():
    path, _, complete = bfs_shortest("a", succ, lambda s: s == "e", max_states=2)
    assert path is None and not complete


def test_reachable_states_builds_the_graph():
    graph, complete = reachable_states("a", succ)
    assert complete
    assert graph == GRAPH
    partial, complete = reachable_states("a", succ, max_states=2)
    assert not complete and set(partial) <= set(GRAPH)


def test_adjacency_reverse_reach():
    adj = adjacency(GRAPH)
    assert adj["d"] == ["a", "e"] and adj["e"] == []
    rev = reverse(adj)
    assert sorted(rev["d"]) == ["b", "c"] and rev["a"] == ["d"]
    assert reach(adj, ["b"]) == {"a", "b", "c", "d", "e"}
    assert reach(adj, ["e"]) == {"e"}
    assert nodes_reaching(adj, ["e"]) == {"a", "b", "c", "d", "e"}
    assert nodes_reaching(adj, ["c"]) == {"a", "b", "c", "d"}


def test_strongly_connected_true_and_false():
    cyc = {1: [2], 2: [3], 3: [1]}
    assert strongly_connected(cyc)
    assert not strongly_connected({1: [2], 2: [3], 3: []})
    # reachable from the root but the root is not reachable back
    assert not strongly_connected({1: [2, 3], 2: [3], 3: [2]})
    # a neighbour that is not a key counts as a sink node
    assert not strongly_connected({1: [2]})
    assert not strongly_connected(adjacency(GRAPH))  # e is a sink
    without_e = {k: [n for n in v if n != "e"] for k, v in adjacency(GRAPH).items() if k != "e"}
    assert strongly_connected(without_e)
    assert strongly_connected({})
    assert strongly_connected({"solo": []})


def test_tarjan_components():
    comps = strongly_connected_components({"a": ["b"], "b": ["c"], "c": ["b"]})
    assert [sorted(c) for c in comps] == [["b", "c"], ["a"]]  # reverse topological order
    comps = strongly_connected_components(adjacency(GRAPH))
    assert sorted(sorted(c) for c in comps) == [["a", "b", "c", "d"], ["e"]]
    assert strongly_connected_components({}) == []


def test_no_recursion_limit_on_long_chains():
    n = 50_000
    ring = {i: [(i + 1) % n] for i in range(n)}
    assert strongly_connected(ring)
    assert len(strongly_connected_components(ring)) == 1
    chain = {i: [i + 1] for i in range(n)}
    comps = strongly_connected_components(chain)
    assert len(comps) == n + 1 and comps[0] == [n]
    path, _, _ = bfs_shortest(0, lambda s: [("next", s + 1)] if s < n else [], lambda s: s == n)
    assert len(path) == n
