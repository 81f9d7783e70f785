from simbridge.adapters.xplane._frames import FrameAssembler
from simbridge.adapters.xplane._mapping import CLOCK_DATAREF, PAUSED_DATAREF
from simbridge.adapters.xplane._udp import RrefPacket

V = "sim/flightmodel/position/latitude"


def pkt(clock, value=0.0, paused=0.0, **extra):
    return RrefPacket(0.0, {CLOCK_DATAREF: clock, PAUSED_DATAREF: paused, V: value, **extra})


def run(packets, depth=3):
    a = FrameAssembler(reorder_depth=depth)
    out = [f for p in packets for f in a.push(p)] + a.flush()
    return a, out


def test_in_order_times_start_at_zero():
    a, out = run([pkt(100.0 + 0.02 * i, i) for i in range(5)])
    assert [round(f.t_sim, 6) for f in out] == [0.0, 0.02, 0.04, 0.06, 0.08]
    assert [f.raw[V] for f in out] == [0, 1, 2, 3, 4]


def test_reordered_packets_come_out_in_clock_order():
    order = [0, 2, 1, 3, 5, 4, 6]
    a, out = run([pkt(10.0 + i, i) for i in order])
    assert [f.raw[V] for f in out] == [0, 1, 2, 3, 4, 5, 6]
    assert a.dropped_late == 0


def test_late_beyond_window_and_duplicates_are_dropped():
    a, out = run([pkt(10.0 + i, i) for i in (0, 1, 2, 3, 4, 5, 1, 5)], depth=2)
    assert [f.raw[V] for f in out] == [0, 1, 2, 3, 4, 5]
    assert a.dropped_late == 1 and a.merged == 1  # the late 1 is dropped; the second 5 merges (same clock)


def test_loss_leaves_a_gap_in_time():
    a, out = run([pkt(10.0 + 0.02 * i, i) for i in (0, 1, 2, 10, 11)])
    assert [round(f.t_sim, 6) for f in out] == [0.0, 0.02, 0.04, 0.2, 0.22]


def test_pause_is_excluded_even_if_the_clock_runs():
    clocks = [(0.0, 0), (1.0, 0), (2.0, 1), (3.0, 1), (4.0, 0), (5.0, 0)]
    a, out = run([pkt(10.0 + c, i, paused=p) for i, (c, p) in enumerate(clocks)], depth=0)
    assert [(f.raw[V], f.t_sim) for f in out] == [(0, 0.0), (1, 1.0), (4, 1.0 + 0.0), (5, 2.0)]
    assert a.paused_frames == 2


def test_split_datagram_merges_into_its_frame():
    a = FrameAssembler(reorder_depth=1)
    a.push(pkt(1.0))
    a.push(RrefPacket(0.0, {"extra": 7.0}))
    out = a.flush()
    assert out[0].raw["extra"] == 7.0


def test_clock_reset_rebases():
    a, out = run([pkt(500.0, 0), pkt(500.5, 1), pkt(3.0, 2), pkt(3.5, 3)], depth=0)
    assert [f.t_sim for f in out] == [0.0, 0.5, 0.5, 1.0]


from hypothesis import given, settings, strategies as st


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=1, max_size=80), st.integers(0, 4))
def test_any_local_shuffle_with_loss_gives_increasing_unique_times(moves, depth):
    """Packets displaced by up to `depth` places come out in order; drops only leave gaps."""
    n = len(moves)
    order = list(range(n))
    for i, (shift, _) in enumerate(moves):  # swap each packet up to `shift` places later (bounded by depth)
        j = min(n - 1, i + min(shift, depth))
        order[i], order[j] = order[j], order[i]
    sent = [k for k, (_, lost) in zip(order, moves) if not lost]
    a, out = run([pkt(100.0 + 0.02 * k, k) for k in sent], depth=depth)
    got = [int(f.raw[V]) for f in out]
    assert got == sorted(set(got))
    assert set(got) <= set(sent)
    assert all(b.t_sim > a_.t_sim for a_, b in zip(out, out[1:]))
