"""A test double of a simulator that offers an assist: the toy double (`toy_sim`) declaring one
assist, `readout`, as a `module:Class` simulator does (`offered_assists`), and reporting in its
`info()` the assists the runner started it with. It draws nothing for it: the tests check what
the harness passes and records, not a readout."""

from __future__ import annotations

from typing import Any

from doubles.toy_sim import ToySimSession


class ToyAssistSession(ToySimSession):
    offered_assists = {"readout": "the toy's bank in figures (a test double's assist)"}

    def info(self) -> dict[str, Any]:
        return {**super().info(), "started_with_assists": list(self.assists)}
