"""KSP save reader on hand-built persistent.sfs text, the PROTOCOLS example, and bad input."""

import math

import pytest

from simbridge import read_bundle
from simbridge.adapters.ksp import ConfigNodeError, Orbit, SaveError, import_saves, parse_confignode, read_save
from ksp_saves import orbit_from, save, vessel


def test_protocols_example_orbit():
    # SMA 700 km, ECC 0.01: PeA = 700·0.99 − 600 = 93 km, ApA = 700·1.01 − 600 = 107 km,
    # T = 2π·sqrt(7e5³ / 3.5316e12) = 1958 s
    o = Orbit(700e3, 0.01)
    assert o.pe_alt_m == pytest.approx(93e3)
    assert o.ap_alt_m == pytest.approx(107e3)
    assert o.period_s == pytest.approx(1958.1, abs=0.1)


def test_escape_has_no_apoapsis():
    o = Orbit(-900e3, 1.5)
    assert not o.closed and math.isinf(o.ap_alt_m) and o.time_fraction_between(75e3, 85e3) == 0.0


def test_band_share_hand_worked():
    # 70 × 90 km: a = 680 km, e = 10/680; r in [675, 685] km ⇔ cos E in [−0.5, 0.5] ⇔ E in [60°, 120°];
    # M(120°) − M(60°) = π/3 − e(sin120° − sin60°) = π/3 → share (π/3)/π = 1/3
    sma, ecc = orbit_from(70, 90)
    assert Orbit(sma, ecc).time_fraction_between(75e3, 85e3) == pytest.approx(1 / 3)
    sma, ecc = orbit_from(76, 84)
    assert Orbit(sma, ecc).time_fraction_between(75e3, 85e3) == pytest.approx(1.0)


def test_read_save(tmp_path):
    p = tmp_path / "persistent.sfs"
    p.write_text(
        save(
            vessel(name="Debris A", type="Debris", sit="SUB_ORBITAL", sma=400e3, ecc=0.6, parts=("fuelTank",)),
            vessel(sma=700000, ecc=0.01),
            ut=2000.5,
            active=1,
        )
    )
    s = read_save(p)
    assert s.ut_s == 2000.5 and len(s.vessels) == 2
    v = s.vessel("SB Two-Stage")
    assert v is s.active and v.parts == 3 and v.situation == "ORBITING"
    assert v.pe_alt_m == pytest.approx(93e3) and v.ap_alt_m == pytest.approx(107e3)
    assert s.vessel("Debris A") is None  # debris is never the scored vessel


def test_import_orders_saves_by_ut(tmp_path):
    a, b = tmp_path / "a.sfs", tmp_path / "b.sfs"
    a.write_text(save(vessel(sit="SUB_ORBITAL", alt=72000.0, sma=500e3, ecc=0.3), ut=1500.0))
    b.write_text(save(vessel(alt=80000.0, sma=680e3, ecc=0.001), ut=1900.0))
    out = import_saves([b, a], tmp_path / "bundle", vessel="SB Two-Stage")
    bun = read_bundle(out)
    assert list(bun.signals.t) == [0.0, 400.0]
    assert list(bun.signals["alt_m"]) == [72000.0, 80000.0]
    assert bun.snapshot("end", "ksp_vessel")["sma_m"] == 680e3


def test_confignode_one_line_braces_and_comments():
    root = parse_confignode("A { x = 1 // c\n B {\n y = a = b }\n}\n")
    a = root.node("A")
    assert a.get("x") == "1" and a.node("B").get("y") == "a = b"


@pytest.mark.parametrize(
    "text,where",
    [
        ("GAME\n{\n\tFLIGHTSTATE\n\t{\n\t\tUT = 5\n", "line 3"),  # truncated: node opened at line 3 never closed
        ("GAME\n{\n}\n}\nGAME\n{\n}\n", "line 4"),  # a '}' closing nothing, with more after it
        ("GAME\nversion = 1\n", "line 1"),  # node name without '{'
        ("GAME\n{\n\tthis is not a key\n}\n", "line 3"),
    ],
)
def test_bad_confignode_names_the_line(tmp_path, text, where):
    p = tmp_path / "bad.sfs"
    p.write_text(text)
    with pytest.raises(ConfigNodeError) as ei:
        read_save(p)
    assert str(p) in str(ei.value) and where in str(ei.value)


def test_binary_and_missing_fields(tmp_path):
    p = tmp_path / "bin.sfs"
    p.write_bytes(b"GAME\n{\x00\x01}")
    with pytest.raises(ConfigNodeError, match="byte offset 6"):
        read_save(p)
    p = tmp_path / "nofs.sfs"
    p.write_text("GAME\n{\n\tversion = 1.12.5\n}\n")
    with pytest.raises(SaveError, match="no FLIGHTSTATE"):
        read_save(p)
    p = tmp_path / "badsma.sfs"
    p.write_text(save(vessel(sma="abc")))
    with pytest.raises(SaveError, match=r"vessel 'SB Two-Stage': line 44: ORBIT.SMA = 'abc' is not a number"):
        read_save(p).vessel("SB Two-Stage")


def test_non_finite_orbit_of_the_named_vessel_is_an_error(tmp_path):
    # NaN is KSP's "no orbit"; an infinite number is a damaged save
    p = tmp_path / "inf.sfs"
    p.write_text(save(vessel(ref="1e400")))
    with pytest.raises(SaveError, match=r"ORBIT.REF = '1e400' is not a finite number"):
        import_saves([p], tmp_path / "b", vessel="SB Two-Stage")
    p.write_text(save(vessel(sma="inf")))
    with pytest.raises(SaveError, match=r"ORBIT.SMA = 'inf' is not a finite number"):
        read_save(p).vessel(None)  # the active vessel


def test_mutated_saves_never_crash(tmp_path):
    import numpy as np

    from simbridge import SimbridgeError

    rng = np.random.default_rng(11)
    good = save(vessel(), vessel(name="B", sma=900e3, ecc=0.2)).encode()
    alphabet = b"{}=\n\t /xE-.0123456789"
    for k in range(300):
        data = bytearray(good)
        for _ in range(4):
            data[int(rng.integers(0, len(data)))] = alphabet[int(rng.integers(0, len(alphabet)))]
        p = tmp_path / f"m{k}.sfs"
        p.write_bytes(bytes(data[: int(rng.integers(0, len(data) + 1))]))
        try:
            read_save(p)
        except SimbridgeError:
            pass
