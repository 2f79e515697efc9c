"""The focused search and its lazy-cut machinery, on small models with known answers."""

import itertools

import numpy as np
import pytest

import qlib
from qlib.solvers.focused import LazyCuts


def cut_all_but_wanted(wanted):
    """Test separation: accept the state equal to ``wanted``; otherwise cut the set of
    variables that are 1 in the state, unless the wanted state contains all of them."""
    def separate(x, energy):
        if (x == wanted).all():
            return x, []
        if not (x & ~wanted.astype(bool)).any():
            return None, []
        ones = np.flatnonzero(x)
        return None, [(ones, np.zeros(len(ones), dtype=np.int64))]
    return separate


def exactly_k_model(n, k):
    a = qlib.var(f"k{n}_{k}", n)
    return qlib.compile(0 + qlib.cons(qlib.sum(a) == k, label="k"))


@pytest.mark.parametrize("seed", range(4))
def test_custom_separation_steers_to_the_wanted_state(seed):
    comp = exactly_k_model(8, 3)
    wanted = np.zeros(8, dtype=np.uint8)
    wanted[[1, 4, 6]] = 1
    lazy = LazyCuts(cut_all_but_wanted(wanted), energy=0.0, interval=1)
    sol = qlib.solve(comp, backend="cpu", algorithm="focused", seed=seed, target_energy=0, lazy_cuts=lazy,
                     time_limit=10)
    assert sol.info["stop_reason"] == "accepted"
    assert sol.state.tolist() == wanted.tolist()
    # every cut is a 3-subset other than the wanted one: at most C(8,3) - 1 of them
    assert all(len(c[0]) == 3 for c in sol.info["cuts"]) and sol.info["num_cuts"] <= 55


def test_negated_literal_cuts_steer_the_search():
    """Cuts with negated literals: forbid every 3-of-6 state except one, each by its full
    assignment (ones as plain literals, zeros negated); the search must end on the survivor."""
    comp = exactly_k_model(6, 3)
    wanted = np.array([0, 1, 1, 0, 1, 0], dtype=np.uint8)
    cuts = []
    for ones in itertools.combinations(range(6), 3):
        state = np.zeros(6, dtype=np.uint8)
        state[list(ones)] = 1
        if not (state == wanted).all():
            cuts.append((np.arange(6), 1 - state.astype(np.int64)))

    def separate(x, energy):
        return None, [c for c in cuts if ((x[c[0]] ^ c[1]) == 1).all()]
    for seed in range(3):
        sol = qlib.solve(comp, backend="cpu", algorithm="focused", seed=seed, target_energy=0,
                         lazy_cuts=LazyCuts(separate, energy=0.0, interval=1), time_limit=10)
        assert sol.info["stop_reason"] == "target_energy"
        assert sol.state.tolist() == wanted.tolist()


def test_cut_energy_matches_a_recount():
    """The search's incremental cut bookkeeping equals a recount from scratch, on random cuts, some
    taken before the steps (a restart's), some at a chunk's start (a separation's), some at a pooling."""
    from qlib.solvers import focused as F
    from qlib.solvers.focused import kernel as K

    comp = exactly_k_model(10, 4)
    rng = np.random.default_rng(3)
    cuts = [(rng.choice(10, size=k, replace=False), rng.integers(0, 2, size=k)) for k in rng.integers(1, 6, 45)]
    P, n = 2, comp.var_count
    R = F.new_replicas(comp, rng.integers(0, 2, (P, n)).astype(np.uint8), np.array([7, 8], dtype=np.uint64), 4)
    K.init_replicas(comp.kernel_arrays(), 0, R)
    zobrist = np.arange(1, 2 * n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    book = F.CutBook(R, F.new_pool(n, 4, 8), zobrist, comp.num_rows, 1.0)   # small: the pool must grow
    book.give_all(F.pack_cuts(cuts[:15], n))
    assert book.R.num_false.shape[1] >= 15
    book.give(0, F.pack_cuts(cuts[15:30], n))
    book.give(1, F.pack_cuts(cuts[30:], n))
    p = K.Params(target=-1.0, cut_energy=-np.inf, cut_interval=1 << 30, noise=0.5, tenure_min=0, tenure_span=2,
                 cut_weight=1.0, num_objective=0, fold_generation=0, has_separation=False)
    rows = K.RowVars(comp.row_var_ptr, comp.row_vars)
    for chunk in range(20):
        if chunk == 10:
            book.pool(np.ones(P, dtype=bool))
            p = p._replace(fold_generation=book.generation)
        R = book.R
        K.focused_chunk(comp.kernel_arrays(), rows, p, R, book.C, book.news(), R.steps + 50)
        for rep, given in ((0, cuts[:30]), (1, cuts[:15] + cuts[30:])):
            mine = cuts_unique(cuts if chunk >= 10 else given)
            x = R.x[rep]
            on = sum(bool(((x[c] ^ g) == 1).all()) for c, g in mine)
            assert R.energy[rep] == pytest.approx(comp.energy(x) - comp.offset + on)
            assert len(book.taken(rep)) == len(mine)


def cuts_unique(cuts):
    seen, out = set(), []
    for c, g in cuts:
        key = frozenset(zip(c.tolist(), g.tolist()))
        if key not in seen:
            seen.add(key)
            out.append((c, g))
    return out


def test_focused_result_does_not_depend_on_the_thread_count():
    comp = exactly_k_model(40, 9)
    runs = [qlib.solve(comp, backend="cpu", algorithm="focused", seed=5, target_energy=0, num_replicas=4,
                       num_threads=t) for t in (1, 2, 1)]
    assert runs[0].state.tolist() == runs[1].state.tolist() == runs[2].state.tolist()
    assert runs[0].info["flips"] == runs[1].info["flips"]
    assert [r.info["num_threads"] for r in runs] == [1, 2, 1]


def test_num_threads_is_checked():
    comp = exactly_k_model(5, 2)
    with pytest.raises(ValueError, match="num_threads"):
        qlib.solve(comp, backend="cpu", target_energy=0, num_threads=0)


def test_options_of_the_other_algorithm_raise():
    comp = exactly_k_model(5, 2)
    with pytest.raises(TypeError, match="noise"):
        qlib.solve(comp, backend="cpu", algorithm="sa", noise=0.3)
    with pytest.raises(TypeError, match="max_rounds"):
        qlib.solve(comp, backend="cpu", algorithm="focused", target_energy=0, max_rounds=0)


def test_target_energy_must_be_a_number():
    with pytest.raises(TypeError, match="target_energy"):
        qlib.solve(exactly_k_model(5, 2), backend="cpu", target_energy="0")


@pytest.mark.parametrize("algorithm", ["focused", "sa"])
def test_time_limit_is_honoured_on_an_unsolvable_model(algorithm):
    """Energy 0 is out of reach (an odd sum of pairs), so only the clock can stop the search."""
    x = qlib.var(f"tl_{algorithm}", 3000)
    model = qlib.cons(2 * qlib.sum(x) == 1, label="odd")
    qlib.solve(model, backend="cpu", algorithm=algorithm, target_energy=0, time_limit=0.05, seed=0)
    sol = qlib.solve(model, backend="cpu", algorithm=algorithm, target_energy=0, time_limit=1.0, seed=0)
    assert sol.info["stop_reason"] == "time_limit"
    assert sol.info["seconds"] <= 1.0 * 1.1 + 0.5


def test_annealing_without_a_target_honours_the_time_limit():
    x = qlib.var("tl_sa_free", 1500)
    model = (qlib.sum(x) - 7) ** 2
    qlib.solve(model, backend="cpu", algorithm="sa", num_sweeps=2, seed=0)
    sol = qlib.solve(model, backend="cpu", algorithm="sa", num_sweeps=10**7, time_limit=0.5, seed=0)
    assert sol.info["stop_reason"] == "time_limit" and sol.info["seconds"] <= 0.5 * 1.1 + 0.5


def test_every_replica_reports_its_best_state():
    comp = exactly_k_model(12, 5)
    sol = qlib.solve(comp, backend="cpu", algorithm="sa", num_replicas=3, num_sweeps=50, seed=1)
    states, energies = sol.info["replica_states"], sol.info["replica_energies"]
    assert states.shape == (3, 12)
    assert np.allclose(energies, comp.energy(states))


def test_focused_reaches_zero_on_constraint_models():
    a = qlib.var("fz", 6, 6)
    model = qlib.Expr()
    for i in range(6):
        model = model + qlib.cons(qlib.sum(a[i]) == 1, label=f"row {i}")
        model = model + qlib.cons(qlib.sum(a[:, i]) == 1, label=f"col {i}")
    model = model + qlib.cons(a[0, 0] + a[1, 1] <= 0)
    for seed in range(3):
        sol = qlib.solve(model, backend="cpu", algorithm="focused", seed=seed, target_energy=0)
        assert sol.energy == 0 and sol.is_feasible
        assert (sol(a).sum(axis=0) == 1).all() and (sol(a).sum(axis=1) == 1).all()


def test_focused_handles_positive_high_degree_terms():
    # product terms as penalties (the HUBO way of forbidding a set)
    x = qlib.var("hd", 5)
    model = x[0] * x[1] * x[2] + x[2] * x[3] * x[4] * x[1] + qlib.cons(qlib.sum(x) == 3)
    exact = qlib.solve(model, backend="exhaustive")
    sol = qlib.solve(model, backend="cpu", algorithm="focused", seed=0, target_energy=exact.energy)
    assert sol.energy == exact.energy == 0


def test_same_seed_same_result_focused():
    comp = exactly_k_model(30, 7)
    runs = [qlib.solve(comp, backend="cpu", algorithm="focused", seed=11, target_energy=0, num_replicas=2)
            for _ in range(2)]
    assert runs[0].state.tolist() == runs[1].state.tolist()


def test_focused_needs_a_stopping_rule():
    with pytest.raises(ValueError, match="target_energy"):
        qlib.solve(qlib.cons(qlib.var("s1") + qlib.var("s2") == 1), backend="cpu", algorithm="focused")


def test_lazy_cuts_validates_its_input():
    with pytest.raises(TypeError, match="callable"):
        LazyCuts("loops")
    with pytest.raises(ValueError, match="weight"):
        LazyCuts(lambda x, e: (None, []), weight=0)
    from qlib.solvers.focused import pack_cuts
    with pytest.raises(ValueError, match="twice"):
        pack_cuts([([1, 1], [0, 0])], 4)
    with pytest.raises(ValueError, match="outside"):
        pack_cuts([([5], [0])], 4)
    with pytest.raises(ValueError, match="cut 2 names a column twice"):   # the message names the cut
        pack_cuts([([0], [0]), ([1, 2], [0, 1]), ([3, 0, 3], [0, 0, 1])], 4)
    with pytest.raises(ValueError, match="cut 1 names a column outside"):
        pack_cuts([([0], [0]), ([1, 2], [0, 2])], 4)
    packed = pack_cuts([([3, 0, 2], [1, 0, 1]), ([1], [1])], 4)   # each cut's literals in column order
    assert packed.lits.tolist() == [0, 2, 3, 1] and packed.negs.tolist() == [0, 1, 1, 1]
    assert packed.ptr.tolist() == [0, 3, 4]


@pytest.mark.parametrize("lazy", [False, True])
def test_a_target_reached_on_the_last_allowed_step_is_reported(lazy):
    n, ones = (8, [1, 4, 6]) if lazy else (30, [0, 3, 5, 8, 11])
    comp = exactly_k_model(n, len(ones))
    wanted = np.zeros(n, dtype=np.uint8)
    wanted[ones] = 1
    options = dict(lazy_cuts=LazyCuts(cut_all_but_wanted(wanted), energy=0.0, interval=1)) if lazy else {}
    free = qlib.solve(comp, backend="cpu", algorithm="focused", seed=3, target_energy=0, num_replicas=1,
                      time_limit=10, **options)
    steps = free.info["steps_of_winner"]
    assert free.energy == 0 and steps > 1
    assert free.info["stop_reason"] == ("accepted" if lazy else "target_energy")
    capped = qlib.solve(comp, backend="cpu", algorithm="focused", seed=3, target_energy=0, num_replicas=1,
                        time_limit=10, max_steps=steps, **options)
    assert capped.info["stop_reason"] == free.info["stop_reason"]
    assert capped.energy == 0 and (capped.state == free.state).all()
    short = qlib.solve(comp, backend="cpu", algorithm="focused", seed=3, target_energy=0, num_replicas=1,
                       time_limit=10, max_steps=steps - 1, **options)
    assert short.info["stop_reason"] == "max_steps"


def test_the_replicas_take_each_others_cuts_at_each_pooling_only():
    """With sharing, the winner holds cuts other replicas found; without, only its own; a pooling every
    step or every 10**6 steps gives different searches, each the same on a repeat."""
    from qlib.puzzles import slitherlink as sl

    board = sl.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt"))
    sm = sl.build_model(board, formulation="hubo")
    comp = qlib.compile(sm.model)

    def run(**options):
        lazy = sl.loop_cuts(sm, comp, energy=2.0, interval=4)
        return qlib.solve(comp, algorithm="focused", lazy_cuts=lazy, seed=2, num_replicas=4, time_limit=60,
                          max_steps=400_000, **options)
    alone, often = run(share_cuts=False), run(share_interval=1)
    assert alone.info["num_cuts"] < alone.info["pool_cuts"]   # the others' cuts stayed in the pool
    assert often.info["num_cuts"] >= often.info["pool_cuts"] - 4   # all but those found since the last step
    again = run(share_interval=1)
    assert again.info["steps_of_winner"] == often.info["steps_of_winner"] and (again.state == often.state).all()
    for sol in (alone, often):
        assert sol.info["stop_reason"] == "accepted"
        assert sl.is_solution(board, *board.grid.to_hv(sl.decode(sm, sol)))


@pytest.mark.parametrize("share", [False, True])
def test_the_pool_size_changes_no_result(share):
    # Slitherlink 5x5 on edge variables: many distinct loop cuts.  A pool that starts with room
    # for 1 cut and 1 literal must grow without losing a cut, so the search is the one with a pool
    # large enough from the start: the same answer, in the same steps, with the same cuts.
    from qlib.puzzles import slitherlink as sl

    board = sl.parse(qlib.data_path("slitherlink-5x5-blog-ex1.txt"))
    sm = sl.build_model(board, formulation="hubo")
    comp = qlib.compile(sm.model)

    def run(max_cuts, max_lits):
        lazy = sl.loop_cuts(sm, comp, energy=2.0, interval=4, max_cuts=max_cuts, max_cut_literals=max_lits)
        return qlib.solve(comp, algorithm="focused", lazy_cuts=lazy, seed=11, num_replicas=4, num_threads=1,
                          share_cuts=share, time_limit=60, max_steps=400_000)

    small, large = run(1, 1), run(1 << 14, 1 << 20)
    assert large.info["pool_cuts"] >= 2   # more than the small pool had room for: it grew
    assert large.info["stop_reason"] == "accepted"
    assert sl.is_solution(board, *board.grid.to_hv(sl.decode(sm, large)))
    for key in ("stop_reason", "steps_of_winner", "replica", "num_cuts", "pool_cuts", "separation_calls"):
        assert small.info[key] == large.info[key], key
    assert (small.state == large.state).all()
    assert all((a == c).all() and (b == d).all() for (a, b), (c, d) in zip(small.info["cuts"], large.info["cuts"]))


def _weighted_energy(comp, R, rep):
    """Replica ``rep``'s energy recounted from scratch with its own term coefficients and row weights."""
    from qlib.solvers.core import init_state

    m = comp.kernel_arrays()
    m = m._replace(terms=m.terms._replace(coef=R.term_weight[rep].copy()),
                   rows=m.rows._replace(weight=R.row_weight[rep].copy()))
    return init_state(R.x[rep].copy(), np.zeros(comp.term_count, dtype=np.int32), np.zeros(comp.num_rows), m)


@pytest.mark.parametrize("smoothing", [1, 3, 1000, (0, 3)])
def test_dynamic_weights_keep_the_energy_a_recount_of_the_weighted_model(smoothing):
    """With dynamic penalty weights the incremental energy equals a recount of the model as the replica
    weighs it, the weights rise (they did: some raise), and none falls below the model's own.  A tuple
    gives each replica its own smoothing: a replica at 0 keeps the model's weights."""
    from qlib.solvers import focused as F
    from qlib.solvers.focused import kernel as K

    a = qlib.var("dw", 12)
    model = (qlib.cons(qlib.sum(a[:6]) == 2, label="r0") + qlib.cons(qlib.sum(a[3:9]) == 5, label="r1")
             + qlib.cons(qlib.sum(a[6:]) == 1, label="r2") + 2 * a[0] * a[1] + a[4] * a[5] * a[9])
    comp = qlib.compile(model)
    m = comp.kernel_arrays()
    P, n = 2, comp.var_count
    rng = np.random.default_rng(5)
    R = F.new_replicas(comp, rng.integers(0, 2, (P, n)).astype(np.uint8), np.array([3, 4], dtype=np.uint64), 4,
                       weight_smoothing=smoothing)
    K.init_replicas(m, comp.num_objective_terms, R)
    p = K.Params(target=-1.0, cut_energy=-np.inf, cut_interval=1 << 30, noise=0.0, tenure_min=0, tenure_span=2,
                 cut_weight=1.0, num_objective=comp.num_objective_terms, fold_generation=0, has_separation=False)
    book = F.CutBook(R, F.new_pool(n, 4, 8), np.arange(1, 2 * n + 1, dtype=np.uint64), 0, 1.0)
    rows = K.RowVars(comp.row_var_ptr, comp.row_vars)
    for _ in range(30):
        K.focused_chunk(m, rows, p, R, book.C, book.news(), R.steps + 37)
        for rep in range(P):
            assert R.energy[rep] == pytest.approx(_weighted_energy(comp, R, rep))
            assert (R.term_weight[rep] >= m.terms.coef - 1e-12).all() and (R.row_weight[rep] >= m.rows.weight).all()
            raised = np.concatenate([np.flatnonzero(R.row_weight[rep] > m.rows.weight), comp.num_rows
                                     + np.flatnonzero(R.term_weight[rep][:comp.num_objective_terms]
                                                      > m.terms.coef[:comp.num_objective_terms])])
            assert sorted(R.raised_list[rep, :R.raised_count[rep, 0]].tolist()) == raised.tolist()
    if smoothing == (0, 3):
        assert R.smoothing.tolist() == [0, 3] and R.raises[0, 0] == 0 and R.raises[1, 0] > 0
        assert (R.row_weight[0] == m.rows.weight).all() and (R.term_weight[0] == m.terms.coef).all()
        return
    assert R.raises[:, 0].min() > 0
    if smoothing == 1000:   # no smoothing yet: only raises, so some weight stands above the model's
        assert (R.row_weight > m.rows.weight).any() or (R.term_weight > m.terms.coef).any()


def test_dynamic_weights_reach_the_target_and_report_their_raises():
    """The weighted search ends on a true zero-energy state of the unweighted model, the same one for a seed."""
    a = qlib.var("dwz", 30)
    model = sum(qlib.cons(a[i] + a[i + 1] + a[i + 2] == 1, label=f"c{i}") for i in range(0, 27, 3)) \
        + qlib.cons(qlib.sum(a) == 10, label="all")
    comp = qlib.compile(model)
    for smoothing in (5, (5, 20)):
        runs = [qlib.solve(comp, backend="cpu", algorithm="focused", seed=s, target_energy=0, time_limit=10,
                           weight_smoothing=smoothing, noise=0.0, num_replicas=3) for s in (1, 1, 2)]
        for sol in runs:
            assert sol.info["stop_reason"] == "target_energy"
            assert comp.energy(sol.state) == pytest.approx(0.0) and sol.energy == pytest.approx(0.0)
            assert sol.info["weight_smoothing"] == smoothing
        assert runs[0].state.tolist() == runs[1].state.tolist() and runs[0].info["flips"] == runs[1].info["flips"]


def test_weight_smoothing_is_checked():
    comp = exactly_k_model(6, 2)
    for bad in (-1, 1.5, "3", (), (2, -1), [5, "x"]):
        with pytest.raises((ValueError, TypeError)):
            qlib.solve(comp, backend="cpu", algorithm="focused", target_energy=0, weight_smoothing=bad)
