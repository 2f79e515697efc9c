"""Separation hooks for lazy cuts (see :mod:`qlib.solvers.focused`).

A hook is called on candidate states during the search.  It returns ``-1``
after writing an accepted state into ``answer``, or the number ``k >= 0`` of
cuts it wrote into ``cut_vars`` / ``cut_ptr`` (cut ``c`` is the product of the
columns ``cut_vars[cut_ptr[c]:cut_ptr[c + 1]]``).

Built-in hooks are called through a registry (``hook_id``), so the search
kernel that calls them is compiled once and cached on disk; a custom hook may
be any ``@njit`` function with the same signature, compiled in each process.
Every hook's ``data`` is a tuple of seven one-dimensional int64 arrays.

The loop hook serves Slitherlink-style single-loop puzzles: every closed loop
of selected edges is either an answer (it alone satisfies every clue) or can
be forbidden, because no proper subset of a cycle's edges forms a cycle, so a
loop that is not the answer is never part of it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

ACCEPT = -1
BUILTIN_HOOKS = {"none": 0, "loops": 1}


@njit(cache=True)
def no_hook(x, data, cut_vars, cut_ptr, answer):
    """The hook of a plain search: never accepts, never cuts."""
    return 0


def empty_hook_data():
    return tuple(np.zeros(1, dtype=np.int64) for _ in range(7))


@njit(cache=True)
def loop_hook(x, data, cut_vars, cut_ptr, answer):
    """Accept a loop that alone satisfies every clue, else cut every closed loop."""
    edge_cols, edge_a, edge_b, point_ptr, point_edges, clue_edges, clue_vals = data
    num_edges = edge_cols.shape[0]
    num_points = point_ptr.shape[0] - 1
    deg = np.zeros(num_points, dtype=np.int32)
    for e in range(num_edges):
        if x[edge_cols[e]]:
            deg[edge_a[e]] += 1
            deg[edge_b[e]] += 1
    seen = np.zeros(num_edges, dtype=np.bool_)
    in_loop = np.zeros(num_edges, dtype=np.bool_)
    stack = np.empty(num_edges, dtype=np.int32)
    comp = np.empty(num_edges, dtype=np.int32)
    count = 0
    pos = 0
    cut_ptr[0] = 0
    capacity = cut_vars.shape[0]
    for e0 in range(num_edges):
        if seen[e0] or not x[edge_cols[e0]]:
            continue
        # collect the connected component of selected edges containing e0
        size = 0
        top = 0
        stack[top] = e0
        top += 1
        seen[e0] = True
        closed = True
        while top > 0:
            top -= 1
            e = stack[top]
            comp[size] = e
            size += 1
            for p in (edge_a[e], edge_b[e]):
                if deg[p] != 2:
                    closed = False
                for k in range(point_ptr[p], point_ptr[p + 1]):
                    f = point_edges[k]
                    if not seen[f] and x[edge_cols[f]]:
                        seen[f] = True
                        stack[top] = f
                        top += 1
        if not closed:
            continue
        for k in range(size):
            in_loop[comp[k]] = True
        alone = True
        for c in range(clue_vals.shape[0]):
            n = 0
            for j in range(4):
                if in_loop[clue_edges[4 * c + j]]:
                    n += 1
            if n != clue_vals[c]:
                alone = False
                break
        if alone:
            answer[:] = x
            for e in range(num_edges):
                answer[edge_cols[e]] = 1 if in_loop[e] else 0
            return -1
        for k in range(size):
            in_loop[comp[k]] = False
        if pos + size > capacity or count + 1 >= cut_ptr.shape[0]:
            break
        for k in range(size):
            cut_vars[pos + k] = edge_cols[comp[k]]
        pos += size
        count += 1
        cut_ptr[count] = pos
    return count


def loop_hook_data(edge_cols, edge_a, edge_b, num_points, clue_edges, clue_vals):
    """Pack the plain arrays the hook reads: edges with their model columns and
    end points, the point -> edges incidence, and each clue's four edges."""
    edge_cols = np.asarray(edge_cols, dtype=np.int64)
    edge_a = np.asarray(edge_a, dtype=np.int64)
    edge_b = np.asarray(edge_b, dtype=np.int64)
    ends = np.concatenate([edge_a, edge_b])
    order = np.argsort(ends, kind="stable")
    point_edges = (order % len(edge_a)).astype(np.int64)
    point_ptr = np.zeros(num_points + 1, dtype=np.int64)
    point_ptr[1:] = np.cumsum(np.bincount(ends, minlength=num_points))
    clue_edges = np.asarray(clue_edges, dtype=np.int64).reshape(-1)  # four edges per clue
    clue_vals = np.asarray(clue_vals, dtype=np.int64)
    return (edge_cols, edge_a, edge_b, point_ptr, point_edges, clue_edges, clue_vals)


def call_hook(hook, hook_id, x, data, cut_vars, cut_ptr, answer):
    """Call a custom hook, or the built-in one numbered ``hook_id`` when ``hook`` is None."""
    raise NotImplementedError("call_hook runs inside numba code only")


@overload(call_hook)
def _call_hook_impl(hook, hook_id, x, data, cut_vars, cut_ptr, answer):
    if isinstance(hook, types.NoneType):
        def builtin(hook, hook_id, x, data, cut_vars, cut_ptr, answer):
            if hook_id == 1:
                return loop_hook(x, data, cut_vars, cut_ptr, answer)
            return no_hook(x, data, cut_vars, cut_ptr, answer)
        return builtin

    def custom(hook, hook_id, x, data, cut_vars, cut_ptr, answer):
        return hook(x, data, cut_vars, cut_ptr, answer)
    return custom
