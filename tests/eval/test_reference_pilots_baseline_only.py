"""`benchmarks/reference_pilots.py --baseline-only`: the do-nothing agent's scores join a pair's
existing record, so they must be flown on that record's seeds; a pair without a record, or other
seeds, is refused before anything flies."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "reference_pilots.py"


def _main():
    spec = importlib.util.spec_from_file_location("reference_pilots_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod.main


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--pairs", "T09@PHJR/flightgear", "--seeds", "4", "5", "6"], "are not the record's [1, 2, 3]"),
        (["--pairs", "T09@PHJR/flightgear", "--no-baseline"], "exclude each other"),
    ],
)
def test_baseline_only_is_refused_off_the_records_seeds(argv, said, capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        _main()(["--baseline-only", "--out", str(tmp_path), *argv])
    assert e.value.code == 2
    assert said in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing flew
