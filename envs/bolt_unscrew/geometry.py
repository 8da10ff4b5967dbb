"""Bolt Unscrew: the exact shapes that decide covering (and that the view draws).

Anchors sit on an integer lattice (coordinates in *pitch* units). Every shape is a set of
points within a radius of a segment:

* an anchor is a disc of radius :data:`ANCHOR_R` around its centre;
* a bar is a capsule (stadium) of half-width :data:`BAR_HALF` around the segment between its
  two end holes;
* a round pad is a disc of radius :data:`PAD_R` around its hole.

Two shapes *intersect* when they share interior points: the distance between their core
segments is strictly less than the sum of their radii (touching does not count). Coordinates
are integers and radii are exact fractions, so every test below is exact rational arithmetic
(no floating point, no tolerance): the picture and the rules can never disagree.
"""

from __future__ import annotations

from fractions import Fraction

ANCHOR_R = Fraction(1, 5)  # anchor (and board hole) radius
SCREW_R = Fraction(13, 50)  # screw head radius (drawing only)
BAR_HALF = Fraction(2, 5)  # half-width of a bar
PAD_R = Fraction(1)  # radius of a round pad

Point = tuple[int, int]
Segment = tuple[Point, Point]


def _sub(a: Point, b: Point) -> tuple[int, int]:
    return a[0] - b[0], a[1] - b[1]


def _cross(u: tuple[int, int], v: tuple[int, int]) -> int:
    return u[0] * v[1] - u[1] * v[0]


def _dot(u: tuple[int, int], v: tuple[int, int]) -> int:
    return u[0] * v[0] + u[1] * v[1]


def point_segment_dist2(q: Point, seg: Segment) -> Fraction:
    """Exact squared distance from point ``q`` to the closed segment ``seg``."""
    p0, p1 = seg
    d = _sub(p1, p0)
    w = _sub(q, p0)
    dd = _dot(d, d)
    if dd == 0:
        return Fraction(_dot(w, w))
    t = _dot(w, d)
    if t <= 0:
        return Fraction(_dot(w, w))
    if t >= dd:
        e = _sub(q, p1)
        return Fraction(_dot(e, e))
    c = _cross(d, w)
    return Fraction(c * c, dd)


def _orient(a: Point, b: Point, c: Point) -> int:
    v = _cross(_sub(b, a), _sub(c, a))
    return (v > 0) - (v < 0)


def _on_segment(a: Point, b: Point, c: Point) -> bool:
    """``c`` collinear with ``a``-``b`` lies within their bounding box."""
    return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])


def segments_intersect(s: Segment, t: Segment) -> bool:
    a, b = s
    c, d = t
    o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
    if o1 != o2 and o3 != o4:
        return True
    return (
        (o1 == 0 and _on_segment(a, b, c))
        or (o2 == 0 and _on_segment(a, b, d))
        or (o3 == 0 and _on_segment(c, d, a))
        or (o4 == 0 and _on_segment(c, d, b))
    )


def segment_segment_dist2(s: Segment, t: Segment) -> Fraction:
    """Exact squared distance between two closed segments (points are degenerate segments)."""
    if segments_intersect(s, t):
        return Fraction(0)
    return min(
        point_segment_dist2(s[0], t),
        point_segment_dist2(s[1], t),
        point_segment_dist2(t[0], s),
        point_segment_dist2(t[1], s),
    )


def shapes_intersect(s: Segment, rs: Fraction, t: Segment, rt: Fraction) -> bool:
    """Whether the rounded shapes (segment ``s`` radius ``rs``) and (``t``, ``rt``) overlap."""
    r = rs + rt
    return segment_segment_dist2(s, t) < r * r


def covers(seg: Segment, radius: Fraction, anchor: Point) -> bool:
    """Whether a board shape (core segment ``seg``, radius) covers any part of an anchor disc."""
    r = radius + ANCHOR_R
    return point_segment_dist2(anchor, seg) < r * r


def on_segment_strict(p0: Point, p1: Point, q: Point) -> bool:
    """``q`` lies on the segment ``p0``-``p1`` strictly between its ends."""
    if _cross(_sub(p1, p0), _sub(q, p0)) != 0:
        return False
    t = _dot(_sub(q, p0), _sub(p1, p0))
    return 0 < t < _dot(_sub(p1, p0), _sub(p1, p0))


__all__ = [
    "ANCHOR_R",
    "BAR_HALF",
    "PAD_R",
    "SCREW_R",
    "covers",
    "on_segment_strict",
    "point_segment_dist2",
    "segment_segment_dist2",
    "segments_intersect",
    "shapes_intersect",
]
