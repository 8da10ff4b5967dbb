"""Generic, game-agnostic graph search used by the game solvers.

A search space is given implicitly by a start state and a ``successors(state)`` function that
yields ``(move, next_state)`` pairs; states must be hashable. Explicit graphs (as built by
:func:`reachable_states`) are plain dicts ``state -> list[(move, next_state)]``; functions on
adjacency take ``node -> iterable of neighbour nodes`` (see :func:`adjacency`).

Everything here is iterative, so deep or large graphs never hit Python's recursion limit.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

S = TypeVar("S", bound=Hashable)
M = TypeVar("M")

Successors = Callable[[S], Iterable[tuple[M, S]]]


def bfs_shortest(
    start: S,
    successors: Successors,
    is_goal: Callable[[S], bool],
    max_states: int | None = None,
) -> tuple[list[Any] | None, int, bool]:
    """Breadth-first search for a shortest move sequence from ``start`` to a goal state.

    Returns ``(path, expanded, complete)``:

    * ``path`` is the list of moves of a shortest path (``[]`` if ``start`` is a goal), or
      ``None`` when no goal was found;
    * ``expanded`` is the number of states whose successors were generated;
    * ``complete`` is ``True`` when the answer is definitive (a goal was found, or the whole
      reachable space was exhausted without one) and ``False`` when the search stopped
      because more than ``max_states`` distinct states were discovered.

    Goals are tested when a state is discovered, so the first goal seen is at minimum depth.
    """
    if is_goal(start):
        return [], 0, True
    parent: dict[Any, tuple[Any, Any] | None] = {start: None}
    queue = deque([start])
    expanded = 0
    while queue:
        state = queue.popleft()
        expanded += 1
        for move, nxt in successors(state):
            if nxt in parent:
                continue
            parent[nxt] = (state, move)
            if is_goal(nxt):
                return _unwind(parent, nxt), expanded, True
            if max_states is not None and len(parent) > max_states:
                return None, expanded, False
            queue.append(nxt)
    return None, expanded, True


def _unwind(parent: Mapping[Any, tuple[Any, Any] | None], state: Any) -> list[Any]:
    moves = []
    link = parent[state]
    while link is not None:
        state, move = link
        moves.append(move)
        link = parent[state]
    moves.reverse()
    return moves


def reachable_states(
    start: S,
    successors: Successors,
    max_states: int | None = None,
) -> tuple[dict[S, list[tuple[Any, S]]], bool]:
    """Build the explicit graph of every state reachable from ``start``.

    Returns ``(graph, complete)`` where ``graph`` maps each expanded state to the list of its
    ``(move, next_state)`` pairs. ``complete`` is ``False`` when the search stopped because
    more than ``max_states`` states were discovered; the graph then holds only the states
    expanded so far (their successor lists may mention states that are not keys).
    """
    graph: dict[Any, list[tuple[Any, Any]]] = {}
    seen = {start}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        edges = list(successors(state))
        graph[state] = edges
        for _move, nxt in edges:
            if nxt not in seen:
                seen.add(nxt)
                if max_states is not None and len(seen) > max_states:
                    return graph, False
                queue.append(nxt)
    return graph, True


def adjacency(graph: Mapping[S, Iterable[tuple[Any, S]]]) -> dict[S, list[S]]:
    """Drop the moves of a ``state -> [(move, next)]`` graph: ``state -> [next, ...]``.

    Every node mentioned only as a successor is added as a key with no out-edges.
    """
    adj: dict[Any, list[Any]] = {node: [nxt for _m, nxt in edges] for node, edges in graph.items()}
    for targets in list(adj.values()):
        for nxt in targets:
            if nxt not in adj:
                adj[nxt] = []
    return adj


def _closed(adj: Mapping[S, Iterable[S]]) -> dict[S, list[S]]:
    """A copy of ``adj`` in which every neighbour is also a key."""
    out: dict[Any, list[Any]] = {node: list(nbrs) for node, nbrs in adj.items()}
    for nbrs in list(out.values()):
        for nxt in nbrs:
            if nxt not in out:
                out[nxt] = []
    return out


def reverse(adj: Mapping[S, Iterable[S]]) -> dict[S, list[S]]:
    """The transpose of an adjacency mapping (every node is a key)."""
    closed = _closed(adj)
    rev: dict[Any, list[Any]] = {node: [] for node in closed}
    for node, nbrs in closed.items():
        for nxt in nbrs:
            rev[nxt].append(node)
    return rev


def reach(adj: Mapping[S, Iterable[S]], sources: Iterable[S]) -> set[S]:
    """Every node reachable from any of ``sources`` (including the sources)."""
    seen = set(sources)
    queue = deque(seen)
    while queue:
        node = queue.popleft()
        for nxt in adj.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def nodes_reaching(adj: Mapping[S, Iterable[S]], targets: Iterable[S]) -> set[S]:
    """Every node from which some node of ``targets`` is reachable (including the targets)."""
    return reach(reverse(adj), targets)


def strongly_connected(adj: Mapping[S, Iterable[S]]) -> bool:
    """Whether every node can reach every other node.

    ``adj`` maps node -> neighbour nodes; neighbours that are not keys count as nodes with no
    out-edges. The empty graph counts as strongly connected. Checked with one forward and one
    backward breadth-first search from an arbitrary node.
    """
    closed = _closed(adj)
    if not closed:
        return True
    root = next(iter(closed))
    if len(reach(closed, [root])) != len(closed):
        return False
    return len(reach(reverse(closed), [root])) == len(closed)


def strongly_connected_components(adj: Mapping[S, Iterable[S]]) -> list[list[S]]:
    """The strongly connected components of ``adj`` (iterative Tarjan).

    Components come out in reverse topological order: a component is listed before every
    component that has an edge into it. Nodes inside a component are in discovery order.
    """
    closed = _closed(adj)
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on_stack: set[Any] = set()
    stack: list[Any] = []
    components: list[list[Any]] = []
    counter = 0
    for root in closed:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work: list[tuple[Any, Any]] = [(root, iter(closed[root]))]
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(closed[nxt])))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                comp.reverse()
                components.append(comp)
    return components


__all__ = [
    "adjacency",
    "bfs_shortest",
    "nodes_reaching",
    "reach",
    "reachable_states",
    "reverse",
    "strongly_connected",
    "strongly_connected_components",
]
