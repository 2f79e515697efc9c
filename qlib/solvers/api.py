"""``qlib.solve``: one entry point, one parameter vocabulary, several backends."""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from ..compile import CompiledModel, compile
from ..result import Solution
from . import anneal, exhaustive, focused

BACKENDS = ("exhaustive", "cpu", "gpu", "auto")
DEFAULT_TIME_LIMIT = 10.0


def _seed_sequence(seed, count: int) -> np.ndarray:
    """``count`` non-zero 64-bit generator states derived from ``seed`` (splitmix64)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    mask = (1 << 64) - 1
    state = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & mask
    out = np.empty(count, dtype=np.uint64)
    for k in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        out[k] = z or 1
    return out


def _check_time_limit(time_limit):
    if time_limit is None:
        return DEFAULT_TIME_LIMIT
    if not isinstance(time_limit, (int, float)) or not time_limit > 0 or not math.isfinite(time_limit):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    return float(time_limit)


def _initial_states(compiled: CompiledModel, initial_state, num_replicas, rng_states) -> np.ndarray:
    n = compiled.num_vars
    if initial_state is not None:
        if isinstance(initial_state, Solution):
            initial_state = _transfer(initial_state, compiled)
        start = compiled.as_states(initial_state)
        if start.ndim == 1:
            return np.tile(start, (num_replicas, 1))
        if start.shape[0] != num_replicas:
            raise ValueError(f"initial_state holds {start.shape[0]} states for {num_replicas} replicas")
        return start.copy()
    gen = np.random.Generator(np.random.PCG64(int(rng_states[0])))
    return gen.integers(0, 2, size=(num_replicas, n), dtype=np.uint8)


def _transfer(solution: Solution, compiled: CompiledModel) -> np.ndarray:
    """A previous solution's values on this model's variables (new variables start at 0)."""
    old = solution.compiled
    state = np.zeros(compiled.num_vars, dtype=np.uint8)
    common, new_pos, old_pos = np.intersect1d(compiled.var_ids, old.var_ids, return_indices=True)
    state[new_pos] = solution.state[old_pos]
    return state


def _beta_range(compiled: CompiledModel, rng_state) -> tuple[float, float]:
    """Hot and cold inverse temperatures from the sizes of single-flip deltas.

    As in dwave-samplers: the hot end accepts the largest uphill move with
    probability 1/2, the cold end the smallest with probability 1/100.
    """
    gen = np.random.Generator(np.random.PCG64(int(rng_state)))
    literals = len(compiled.term_vars) + 1
    num_probes = int(min(8, max(1, 4_000_000 // (literals * max(1, compiled.num_vars) // 64 + 1))))
    probes = gen.integers(0, 2, size=(num_probes, compiled.num_vars), dtype=np.uint8)
    deltas = anneal.sample_deltas(compiled.kernel_arrays(), probes, compiled.num_terms, compiled.num_rows)
    nonzero = deltas[deltas > 1e-12]
    if nonzero.size == 0:
        return 0.1, 1.0
    return math.log(2.0) / float(nonzero.max()), math.log(100.0) / float(nonzero.min())


def _check_num_threads(num_threads) -> int:
    import numba

    most = numba.config.NUMBA_NUM_THREADS
    if num_threads is None:
        return most
    if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or not 1 <= num_threads <= most:
        raise ValueError(f"num_threads must be an integer from 1 to {most} (the cores numba may use), "
                         f"got {num_threads!r}")
    return int(num_threads)


def _solve_cpu(compiled, *, seed, time_limit, target_energy, initial_state, algorithm="auto",
               num_replicas=2, num_threads=None, num_sweeps=300, beta_range=None, max_rounds=None,
               noise=None, tabu_tenure=None, lazy_cuts=None, max_steps=None, share_cuts=True):
    """Numba backend.  ``algorithm``: "sa" (simulated annealing with restarts) or
    "focused" (tabu-guided focused search, optionally with ``lazy_cuts``);
    "auto" picks "focused" when there is a target and every objective
    coefficient is non-negative (the energy is all penalty), else "sa".
    Replicas run in parallel on ``num_threads`` threads (default: every core
    numba may use); a result depends on the seed, not on the thread count.
    ``num_replicas`` defaults to 2 for both, one per core here: on the 15x15
    Nonogram QUBO two annealing replicas, restarted more often, reach energy 0
    in 0.12 s median against 0.30 s for eight (10 seeds).  ``num_sweeps``
    defaults to 300: on the same QUBO, 10 seeds side by side with
    dwave-samplers' defaults (0.064 s), 300 sweeps took 0.054 s median and
    1000 sweeps 0.18 s.  ``noise`` and
    ``tabu_tenure`` belong to the focused search, ``num_sweeps``,
    ``beta_range`` and ``max_rounds`` to annealing; giving one to the other
    algorithm raises."""
    entry = time.perf_counter()
    if algorithm == "auto":
        penalty_only = bool((compiled.term_coef[:compiled.num_objective_terms] >= 0).all())
        algorithm = "focused" if (target_energy is not None and penalty_only) or lazy_cuts is not None else "sa"
    if algorithm not in ("sa", "focused"):
        raise ValueError(f"unknown algorithm {algorithm!r}; choose 'auto', 'sa' or 'focused'")
    foreign = ([k for k, v in (("noise", noise), ("tabu_tenure", tabu_tenure), ("lazy_cuts", lazy_cuts),
                               ("max_steps", max_steps)) if v is not None] if algorithm == "sa" else
               [k for k, v in (("beta_range", beta_range), ("max_rounds", max_rounds)) if v is not None])
    if foreign:
        raise TypeError(f"option(s) {', '.join(foreign)} do not apply to algorithm={algorithm!r}")
    if isinstance(num_replicas, bool) or not isinstance(num_replicas, (int, np.integer)) or num_replicas < 1:
        raise ValueError(f"num_replicas must be a positive integer, got {num_replicas!r}")
    num_replicas = int(num_replicas)
    _check_replica_memory(compiled, num_replicas)
    threads = _check_num_threads(num_threads)
    rng = _seed_sequence(seed, num_replicas + 1)
    states = _initial_states(compiled, initial_state, num_replicas, rng[-1:])
    target = -np.inf if target_energy is None else float(target_energy) - compiled.offset
    time_limit = max(time_limit - (time.perf_counter() - entry), 1e-3)   # setup counts too
    with _PARALLEL_LOCK:   # numba's fork-safe workqueue layer takes one parallel launch at a time
        return _run_cpu(compiled, algorithm, rng, states, target, time_limit, threads, num_replicas,
                        num_sweeps=num_sweeps, beta_range=beta_range, max_rounds=max_rounds, noise=noise,
                        tabu_tenure=tabu_tenure, lazy_cuts=lazy_cuts, max_steps=max_steps, share_cuts=share_cuts,
                        target_energy=target_energy)


#: CPU solves from several Python threads of one process take turns: the fork-safe threading
#: layer qlib selects (:mod:`qlib`) aborts on concurrent parallel launches.
_PARALLEL_LOCK = threading.Lock()


def _run_cpu(compiled, algorithm, rng, states, target, time_limit, threads, num_replicas, *, num_sweeps,
             beta_range, max_rounds, noise, tabu_tenure, lazy_cuts, max_steps, share_cuts, target_energy):
    import numba

    previous_threads = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        if algorithm == "focused":
            if target_energy is None and max_steps is None and lazy_cuts is None:
                raise ValueError("algorithm='focused' needs a target_energy, lazy_cuts or max_steps to know when to stop")
            state, info = focused.run_focused(compiled, rng[:num_replicas], states, target, time_limit,
                                              noise=0.2 if noise is None else noise,
                                              tabu_tenure=(0, 2) if tabu_tenure is None else tabu_tenure,
                                              lazy=lazy_cuts, max_steps=max_steps, share=share_cuts)
        else:
            state, info = run_sa(compiled, rng, states, target, time_limit, num_sweeps=num_sweeps,
                                 beta_range=beta_range, max_rounds=max_rounds, round_function=anneal.anneal_round)
    finally:
        numba.set_num_threads(previous_threads)
    info.update(backend="cpu", num_threads=threads)
    return state, info


def _check_replica_memory(compiled, num_replicas: int) -> None:
    """Refuse replica counts whose per-replica arrays would not fit in memory."""
    per_replica = 8 * (3 * compiled.num_vars + compiled.num_terms + 2 * compiled.num_rows + 16)
    try:
        from ..limits import check_allocation
    except ImportError:  # pragma: no cover - limits arrives with the memory checks
        if num_replicas * per_replica > 8 << 30:
            raise MemoryError(f"{num_replicas} replicas need {num_replicas * per_replica / 2**30:.1f} GiB") from None
        return
    check_allocation(num_replicas * per_replica, f"{num_replicas} replicas")


def run_sa(compiled, rng, states, target, time_limit, *, num_sweeps, beta_range, max_rounds, round_function):
    """Annealing rounds (the first from ``states``, then random restarts) until the
    target, the time limit or ``max_rounds``.  Without a target one round runs
    unless ``max_rounds`` says more; with one, rounds go on until the target or
    the time limit.  A round runs in chunks of sweeps sized from the measured
    speed, so the clock is read every few milliseconds.  ``round_function`` runs
    sweeps ``lo`` to ``hi`` on every replica: the CPU ``prange`` loop or the GPU
    kernel launcher.  Ctrl-C ends it with ``stop_reason="interrupted"``."""
    start = time.perf_counter()
    num_replicas = states.shape[0]
    if isinstance(num_sweeps, bool) or not isinstance(num_sweeps, (int, np.integer)) or num_sweeps < 1:
        raise ValueError(f"num_sweeps must be a positive integer, got {num_sweeps!r}")
    if max_rounds is None:
        max_rounds = 1 if not np.isfinite(target) else None
    elif isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer or None, got {max_rounds!r}")
    if beta_range is None:
        beta_range = _beta_range(compiled, rng[-1])
    hot, cold = (float(b) for b in beta_range)
    if not 0 < hot <= cold:
        raise ValueError(f"beta_range must be (hot, cold) with 0 < hot <= cold, got {beta_range!r}")
    num_sweeps = int(num_sweeps)
    log_ratio = math.log(cold / hot) / max(num_sweeps - 1, 1)
    m = compiled.kernel_arrays()
    flips = np.zeros(num_replicas, dtype=np.int64)
    best_states = np.empty_like(states)
    best_energies = np.empty(num_replicas)
    energies = np.zeros(num_replicas)
    hit = np.zeros(num_replicas, dtype=np.int64)   # when each replica reached the target (0: not yet)
    padded_rng = np.zeros((num_replicas, 8), dtype=np.uint64)  # one cache line per replica
    padded_rng[:, 0] = rng[:num_replicas]
    scratch = (np.zeros((num_replicas, compiled.num_terms), dtype=np.int32),
               np.zeros((num_replicas, compiled.num_rows)), np.zeros((num_replicas, compiled.num_rows)))
    best_state, best_energy = states[0].copy(), np.inf
    deadline = start + time_limit
    rounds, status, chunk = 0, None, 1
    try:
        while status is None:
            if rounds > 0:  # restart from random states
                gen = np.random.Generator(np.random.PCG64(int(rng[rounds % num_replicas]) + rounds))
                states = gen.integers(0, 2, size=states.shape, dtype=np.uint8)
            lo = 0
            while lo < num_sweeps:
                hi = min(int(num_sweeps), lo + chunk)
                t0 = time.perf_counter()
                betas = hot * np.exp(log_ratio * np.arange(lo, hi))   # geometric, hot to cold
                round_function(m, states, betas, lo, hi, padded_rng, target, *scratch, energies, best_states,
                               best_energies, flips, hit)
                elapsed = time.perf_counter() - t0
                done, lo = hi - lo, hi
                if hit.any():
                    break
                now = time.perf_counter()
                if now >= deadline:
                    status = "time_limit"
                    break
                rate = done / max(elapsed, 1e-6)   # sweeps per second
                chunk = int(max(1, min(rate * min(0.02, deadline - now), 4 * chunk)))
            rounds += 1
            k = int(np.argmin(best_energies))  # first replica among equals: deterministic
            if best_energies[k] < best_energy:
                best_energy, best_state = best_energies[k], best_states[k].copy()
            if hit.any():
                # the first to get there (then the lowest index): the same whatever the chunks
                k = int(np.argmin(np.where(hit > 0, hit, np.iinfo(np.int64).max)))
                best_state = best_states[k].copy()
                status = "target_energy"
            elif status is None and max_rounds is not None and rounds >= max_rounds:
                status = "max_rounds"
    except KeyboardInterrupt:
        status = "interrupted"
        k = int(np.argmin(best_energies))
        if best_energies[k] < best_energy:
            best_state = best_states[k].copy()
    info = dict(algorithm="sa", num_replicas=num_replicas, num_sweeps=int(num_sweeps),
                beta_range=(hot, cold), rounds=rounds, flips=int(flips.sum()), stop_reason=status,
                replica_states=best_states.copy(), replica_energies=best_energies + compiled.offset)
    return best_state, info


def _solve_exhaustive(compiled, *, seed, time_limit, target_energy, initial_state, max_vars=exhaustive.MAX_VARS):
    """Every state in Gray-code order; ``time_limit`` stops it early with the best state so far
    (``stop_reason="time_limit"``; ``num_ground_states`` then counts the states visited)."""
    found = exhaustive.search(compiled, max_vars=max_vars, time_limit=time_limit)
    info = dict(backend="exhaustive", num_ground_states=found.count, ground_states=found.ground,
                flips=found.steps, stop_reason="complete" if found.complete else "time_limit")
    return found.ground[0], info


_BACKEND_FUNCS = {"exhaustive": _solve_exhaustive, "cpu": _solve_cpu}


def _check_target(target_energy):
    if target_energy is None:
        return None
    if isinstance(target_energy, bool) or not isinstance(target_energy, (int, float, np.integer, np.floating)) \
            or math.isnan(target_energy):
        raise ValueError(f"target_energy must be a number or None, got {target_energy!r}")
    return float(target_energy)


def solve(model, *, backend: str = "cpu", seed: int | None = None, time_limit: float | None = None,
          target_energy: float | None = None, initial_state=None, **backend_options) -> Solution:
    """Minimise ``model`` and return a :class:`~qlib.result.Solution`.

    Parameters shared by every backend: ``seed`` (same seed, same result on the
    CPU, unless the time limit is what stopped the search), ``time_limit``
    (seconds, default 10), ``target_energy`` (stop as soon as a state at or
    below it is found), ``initial_state`` (a state, a {variable: value} mapping,
    or a previous Solution, whose values carry over by label).  Other keyword
    arguments belong to the backend and unknown ones raise ``TypeError``.

    ``backend`` is "cpu" (numba), "gpu" (CUDA), "auto" (the GPU when one works,
    else the CPU; ``info["backend"]`` says which ran), "exhaustive" (exact, up
    to 24 variables), or a callable ``f(compiled, *, seed, time_limit,
    target_energy, initial_state, **options) -> (state, info)`` that wraps
    another sampler (the benchmarks wrap dwave-samplers and OpenJij this way).
    """
    if callable(backend):
        func, chosen = backend, getattr(backend, "name", getattr(backend, "__name__", "custom"))
    elif backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}, or pass a callable")
    else:
        chosen = backend
        if backend == "auto":
            from . import gpu

            chosen = "gpu" if gpu.is_available() else "cpu"
        if chosen == "gpu":
            from . import gpu

            func = gpu.solve_gpu
        else:
            func = _BACKEND_FUNCS[chosen]
    compiled = model if isinstance(model, CompiledModel) else compile(model)
    time_limit = _check_time_limit(time_limit)
    target_energy = _check_target(target_energy)
    if seed is None:
        seed = int(_seed_sequence(None, 1)[0] >> np.uint64(1))
    else:
        _seed_sequence(seed, 1)
    _check_options(func, backend_options)
    if compiled.num_vars == 0:   # nothing to search; no kernel gets an empty model
        info = dict(backend=chosen, stop_reason="complete", flips=0, seconds=0.0, jit_seconds=0.0, seed=seed,
                    requested_backend=backend if isinstance(backend, str) else chosen)
        return Solution(compiled, np.zeros(0, dtype=np.uint8), info)
    jit_seconds = _warm_once() if chosen == "cpu" else 0.0
    start = time.perf_counter()
    state, info = func(compiled, seed=seed, time_limit=time_limit, target_energy=target_energy,
                       initial_state=initial_state, **backend_options)
    info.setdefault("backend", chosen)
    info.update(seconds=time.perf_counter() - start, jit_seconds=jit_seconds, seed=seed,
                requested_backend=backend if isinstance(backend, str) else chosen)
    return Solution(compiled, state, info)


def _check_options(func, options):
    import inspect

    allowed = [p.name for p in inspect.signature(func).parameters.values() if p.kind == p.KEYWORD_ONLY]
    allowed = [a for a in allowed if a not in ("seed", "time_limit", "target_energy", "initial_state")]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(
            f"unknown option(s) {', '.join(unknown)} for this backend; it accepts "
            f"seed, time_limit, target_energy, initial_state{''.join(', ' + a for a in allowed)}"
        )


_WARMED = []


def _warm_once() -> float:
    """:func:`warmup` the first time a CPU solve runs in this process, so that compiling or
    loading the kernels never counts against a ``time_limit``; seconds spent (0 later)."""
    if _WARMED:
        return 0.0
    _WARMED.append(True)
    try:
        return warmup()
    except BaseException:
        _WARMED.clear()
        raise


def warmup() -> float:
    """Compile (or load from cache) every CPU kernel on a tiny model; returns seconds."""
    from ..constraints import cons, one_of
    from ..expr import var

    _WARMED.append(True)   # the solves below must not warm up again
    start = time.perf_counter()
    a = var("_warmup", 3)
    model = a[0] * ~a[1] * a[2] + cons(a[0] + a[1] + a[2] == one_of(0, 2), label="warmup")
    solve(model, backend="exhaustive")
    solve(model, backend="cpu", seed=0, num_sweeps=2, num_replicas=1, algorithm="sa")
    solve(model, backend="cpu", seed=0, target_energy=0, num_replicas=1, algorithm="focused")
    focused.warmup_cuts(compile(model))
    return time.perf_counter() - start
