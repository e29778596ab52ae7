"""Deterministic, fast layout: Fruchterman-Reingold with grid-approximated repulsion."""

from __future__ import annotations

from collections import defaultdict
import math

import numpy as np

from paperkg.graph.explorer.config import FIT_CANVAS, GRAVITY, LAYOUT_SEED, MIN_FIT_SCALE, SPACING, VIEW_SPACING
from paperkg.graph.explorer.views import View


def force_layout(n: int, edges: np.ndarray, weights: np.ndarray, *, seed: int, iterations: int = 0) -> np.ndarray:
    """Positions (n x 2, about one unit apart) for a connected graph on nodes 0..n-1.

    Fruchterman-Reingold: attraction d^2 along edges, repulsion k^2/d - exact for small graphs,
    for large ones approximated through the centres of mass of a grid (O(n * cells) per step)
    plus exact short-range repulsion (cKDTree pairs) - and a weak pull to the centre.
    Deterministic: same input -> same output.
    """
    from scipy.spatial import cKDTree

    if n <= 1:
        return np.zeros((n, 2))
    if not iterations:
        iterations = 60 if n <= 30 else 150 if n <= 1500 else 100
    rng = np.random.RandomState(seed)
    k = 1.0
    side = math.sqrt(n) * k
    pos = rng.uniform(0, side, size=(n, 2))
    t = side / 8.0 + 0.5
    cool = 0.005 ** (1.0 / iterations)
    ei = edges[:, 0] if len(edges) else np.zeros(0, dtype=np.int64)
    ej = edges[:, 1] if len(edges) else np.zeros(0, dtype=np.int64)
    exact = n <= 400
    grid = 24
    for _ in range(iterations):
        disp = np.zeros((n, 2))
        if exact:
            d = pos[:, None, :] - pos[None, :, :]
            f = (k * k) / ((d * d).sum(-1) + 1e-4)
            disp += (d * f[:, :, None]).sum(1)
        else:
            lo = pos.min(0)
            cell = np.maximum((pos.max(0) - lo) / grid, 1e-9)
            ij = np.minimum(((pos - lo) / cell).astype(np.int64), grid - 1)
            cid = ij[:, 0] * grid + ij[:, 1]
            cnt = np.bincount(cid, minlength=grid * grid)
            nz = np.nonzero(cnt)[0]
            m = cnt[nz].astype(float)
            cx = np.bincount(cid, pos[:, 0], grid * grid)[nz] / m
            cy = np.bincount(cid, pos[:, 1], grid * grid)[nz] / m
            dx = pos[:, 0:1] - cx[None, :]
            dy = pos[:, 1:2] - cy[None, :]
            soft = float((cell**2).sum()) * 0.25 + k * k
            f = m[None, :] * (k * k) / (dx * dx + dy * dy + soft)
            disp[:, 0] += (dx * f).sum(1)
            disp[:, 1] += (dy * f).sum(1)
            radius = max(k, float(np.sqrt((cell**2).sum())))
            pairs = cKDTree(pos).query_pairs(radius, output_type="ndarray")
            if len(pairs):
                i, j = pairs[:, 0], pairs[:, 1]
                d = pos[i] - pos[j]
                d2 = (d * d).sum(1)
                # exact minus the (softened) part the grid already counted
                ff = (k * k) / (d2 + 1e-4) - (k * k) / (d2 + soft)
                fx, fy = d[:, 0] * ff, d[:, 1] * ff
                disp[:, 0] += np.bincount(i, fx, n) - np.bincount(j, fx, n)
                disp[:, 1] += np.bincount(i, fy, n) - np.bincount(j, fy, n)
        if len(ei):
            d = pos[ei] - pos[ej]
            f2 = np.sqrt((d * d).sum(1)) * weights / k
            fx, fy = d[:, 0] * f2, d[:, 1] * f2
            disp[:, 0] -= np.bincount(ei, fx, n) - np.bincount(ej, fx, n)
            disp[:, 1] -= np.bincount(ei, fy, n) - np.bincount(ej, fy, n)
        disp -= GRAVITY * (pos - pos.mean(0))
        length = np.sqrt((disp * disp).sum(1)) + 1e-9
        pos = pos + disp * (np.minimum(length, t) / length)[:, None]
        # quantise every step: last-bit differences between numpy builds/CPUs cannot grow
        pos = np.round(pos, 7)
        t *= cool
    return pos - pos.mean(0)


def components(n: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        groups[find(i)].append(i)
    return sorted(groups.values(), key=lambda c: (-len(c), c[0]))


def packed_layout(n: int, pairs: list[tuple[int, int]], weights: list[float], *, seed: int) -> np.ndarray:
    """Lay out each connected component on its own, then pack them in rows (largest first;
    isolated nodes end up in a tidy grid instead of being flung to the edges)."""
    pos = np.zeros((n, 2))
    comps = components(n, pairs)
    by_comp: dict[int, list[int]] = defaultdict(list)
    comp_of = {}
    for c, members in enumerate(comps):
        for i in members:
            comp_of[i] = c
    for e, (a, b) in enumerate(pairs):
        by_comp[comp_of[a]].append(e)
    blocks = []
    for c, members in enumerate(comps):
        local = {u: i for i, u in enumerate(members)}
        es = by_comp[c]
        sub_edges = np.array([(local[pairs[e][0]], local[pairs[e][1]]) for e in es], dtype=np.int64).reshape(-1, 2)
        sub_w = np.array([weights[e] for e in es], float)
        if len(members) == 2:
            p = np.array([[-0.5, 0.0], [0.5, 0.0]])
        else:
            p = force_layout(len(members), sub_edges, sub_w, seed=seed + c)
        p = p - p.min(0)
        blocks.append((members, p))
    margin = 1.2
    area = sum((float(p[:, 0].max()) + margin) * (float(p[:, 1].max()) + margin) for _, p in blocks)
    widest = max((float(p[:, 0].max()) for _, p in blocks), default=0.0)
    width = max(widest, math.sqrt(area) * 1.3)
    x = y = row = 0.0
    for members, p in blocks:
        w, h = float(p[:, 0].max()), float(p[:, 1].max())
        if x > 0 and x + w > width:
            x, y, row = 0.0, y + row + margin, 0.0
        pos[members] = p + (x, y)
        x += w + margin
        row = max(row, h)
    return pos - (pos.min(0) + pos.max(0)) / 2 if n else pos


def separate(pos: np.ndarray, half: np.ndarray, *, gap: float = 6.0, rounds: int = 400) -> np.ndarray:
    """Push apart boxes (centres ``pos``, half sizes ``half``, px) until none overlap, each
    pair along the axis where it overlaps least; keeps the layout's shape otherwise.

    >>> p = separate(np.array([[0.0, 0.0], [5.0, 0.0]]), np.array([[10.0, 10.0], [10.0, 10.0]]))
    >>> bool(abs(p[1, 0] - p[0, 0]) >= 20 or abs(p[1, 1] - p[0, 1]) >= 20)
    True
    """
    pos = pos.astype(float).copy()
    n = len(pos)
    for _ in range(rounds):
        d = pos[None, :, :] - pos[:, None, :]
        need = half[None, :, :] + half[:, None, :] + gap
        over = need - np.abs(d)
        hit = (over[:, :, 0] > 0) & (over[:, :, 1] > 0)
        np.fill_diagonal(hit, False)
        if not hit.any():
            break
        axis = np.where(over[:, :, 0] < over[:, :, 1], 0, 1)
        push = np.zeros((n, 2))
        i, j = np.nonzero(hit)
        ax = axis[i, j]
        amount = over[i, j, ax] + 0.5
        # identical centres: separate by index so the result stays deterministic
        sign = np.sign(d[i, j, ax])
        sign[sign == 0] = np.where(i[sign == 0] < j[sign == 0], 1, -1)
        np.add.at(push, (j, ax), sign * amount / 2)
        np.add.at(push, (i, ax), -sign * amount / 2)
        pos = np.round(pos + push, 4)
    return pos


def place(view: View) -> None:
    """Positions in px for the view's nodes; nodes with a box (``view.boxes``) never overlap."""
    order = view.nodes
    local = {u: i for i, u in enumerate(order)}
    pairs, weights = [], []
    for (_id, a, b, _x), w in zip(view.edges, view.weights):
        if a != b:
            pairs.append((local[a], local[b]))
            weights.append(w)
    pos = packed_layout(len(order), pairs, weights, seed=LAYOUT_SEED) * VIEW_SPACING.get(view.name, SPACING)
    if view.boxes and len(order) > 1:
        # boxes: (label half width, label half height, radius). Labels keep their screen size
        # while the page fits the drawing to the canvas, so when the layout is wider than the
        # canvas their room in layout px is the screen size over the expected fit scale.
        label = np.array([view.boxes.get(u, (10.0, 10.0, 10.0))[:2] for u in order], float)
        radius = np.array([view.boxes.get(u, (10.0, 10.0, 10.0))[2] for u in order], float)[:, None]
        scale = 1.0
        for _ in range(4):
            half = np.maximum(label / scale, radius) + 4
            pos = separate(pos, half)
            extent = pos.max(0) - pos.min(0) + 2 * half.max(0)
            fit = min(1.0, FIT_CANVAS[0] / extent[0], FIT_CANVAS[1] / extent[1])
            if fit >= scale * 0.9:
                break
            scale = max(fit, MIN_FIT_SCALE)
    view.positions = {u: (int(round(float(x))), int(round(float(y)))) for u, (x, y) in zip(order, pos)}
