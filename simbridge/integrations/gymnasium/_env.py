"""`SimbridgeEnv`: one simbridge task on one simulator as a Gymnasium environment.

Each `reset()` is one `simbridge._episode.Episode`, driven by this environment (sandbox,
simulator in the task's initial state, isolation audit, recording) in lockstep: the simulator is paused between steps, and every `step`
advances it by exactly `step_s` simulator seconds. `close()` (or the next `reset()`) ends the
episode the way `simbridge run` does and scores the bundle.

Observation: the screen, uint8 H×W×3 RGB, downscaled by `obs_scale` (1280×800 × 0.25 → 200×320).

Each step is exactly `step_s` of simulator time (to one simulator step: the JSBSim cockpit's
1/120 s, the drive world's 50 ms), run as fast as the simulator computes it (`SimSession.advance`),
whatever the action; the same actions give the same trajectory on any machine.

Action (a Dict; the agent port's keyboard and mouse, as one command per step):
    kind   Discrete(8): 0 noop (just let step_s pass), 1 key tap, 2 key_down, 3 key_up,
           4 mouse_move, 5 left click, 6 right click, 7 scroll (wheel); with `allow_done=True`
           Discrete(9) and 8 done (ends the episode). Without it a sampled (random) policy
           cannot end its own episode.
    key    Discrete(len(KEYS)): index into `KEYS` (xdotool key names) for kinds 1-3
    point  Box(0, 1, (2,)): (x, y) as fractions of the screen for kinds 4-7
    wheel  Discrete(2): 0 up, 1 down (kind 7)

Reward: 0 on every step and the verifier's score (0..1) on the last one (terminated or truncated);
no shaping. The last step's `info` holds the score (`score`, `success`, `components`, `reason`). An episode the verifier cannot score (a harness fault: simulator crashed, telemetry
lost) ends with reward 0 and `info["scored"] = False` with its reason: it is not the agent's 0.
`info` holds the bundle path and, at the end, the status, score and components. Bundles go to
`out` if given, else to a fresh temporary folder (`env.out`), never the working directory.
`truncated` is set when the task's time limit (simulator seconds) is reached.

`assists=["readout"]` (an env kwarg: `gymnasium.make(ID, assists=["readout"])`) asks for the
assists the simulator offers, as `simbridge run --assist`: recorded in episode.json, the score
flagged `assist:NAME`, never pooled with unassisted episodes; default none.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from simbridge._run_config import DEFAULT_LOCKSTEP_SLICE_S
from simbridge._agent_port import EpisodeOver
from simbridge.episode import Episode, Observation
from simbridge._errors import SimbridgeError
from simbridge._run_config import check_assists
from simbridge.episode import open_episode
from simbridge.integrations._framework import EpisodeConfig

#: the keys an action may press (xdotool names): flight controls of the cockpits and common keys
KEYS: tuple[str, ...] = (
    "Up",
    "Down",
    "Left",
    "Right",
    "KP_5",
    "Page_Up",
    "Page_Down",
    "Home",
    "End",
    "space",
    "Return",
    "Escape",
    "Tab",
    "b",
    "B",
    "s",
    "m",
    "M",
    "bracketleft",
    "bracketright",
    "braceleft",
    "braceright",
    "comma",
    "period",
    "Insert",
    "KP_0",
    "KP_Enter",
)
KINDS: tuple[str, ...] = ("noop", "key", "key_down", "key_up", "mouse_move", "click", "right_click", "scroll", "done")


class SimbridgeEnv(gym.Env):
    """A simbridge task as a Gymnasium environment (see the module docstring for the spaces)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

    def __init__(
        self,
        task: str,
        sim: str,
        *,
        step_s: float = DEFAULT_LOCKSTEP_SLICE_S,
        obs_scale: float = 0.25,
        time_limit_s: float | None = None,
        provider: str = "local",
        frame_hz: float = 0.0,
        out: str | Path | None = None,
        render_mode: str | None = None,
        allow_done: bool = False,
        assists: Sequence[str] | str = (),
    ) -> None:
        from simbridge._providers._base import SCREEN_H, SCREEN_W
        from simbridge._task import load_task

        if render_mode not in (None, "rgb_array"):
            raise SimbridgeError(f"render_mode={render_mode!r}: only 'rgb_array' is offered")
        if not 0.0 < step_s <= 10.0:
            raise SimbridgeError(f"step_s={step_s!r}: must be in (0, 10] simulator seconds")
        if not 0.0 < obs_scale <= 1.0:
            raise SimbridgeError(f"obs_scale={obs_scale!r}: must be in (0, 1]")
        self.task_id, self.sim = task, sim
        self.spec_task = load_task(task)
        #: assists the simulator shows (`simbridge run --assist`), each one it offers: flagged, kept apart
        self.assists = check_assists(sim, assists)
        self.step_s, self.obs_scale = float(step_s), float(obs_scale)
        self.time_limit_s = float(
            min(self.spec_task.time_limit_s, time_limit_s) if time_limit_s else self.spec_task.time_limit_s
        )
        self._cut = time_limit_s
        self.provider, self.frame_hz = provider, frame_hz
        #: where the bundles go: `out`, or a temporary folder of this env's own
        self.out = Path(out) if out else Path(tempfile.mkdtemp(prefix="simbridge-gym-"))
        self.allow_done = bool(allow_done)
        self._n_kinds = len(KINDS) if self.allow_done else len(KINDS) - 1  # "done" is the last kind
        self.render_mode = render_mode
        self.screen_w, self.screen_h = SCREEN_W, SCREEN_H
        self.obs_w, self.obs_h = max(1, round(SCREEN_W * obs_scale)), max(1, round(SCREEN_H * obs_scale))
        self.observation_space = spaces.Box(0, 255, (self.obs_h, self.obs_w, 3), np.uint8)
        self.action_space = spaces.Dict(
            {
                "kind": spaces.Discrete(self._n_kinds),
                "key": spaces.Discrete(len(KEYS)),
                "point": spaces.Box(0.0, 1.0, (2,), np.float32),
                "wheel": spaces.Discrete(2),
            }
        )
        self._ep: Episode | None = None
        self._frame: np.ndarray | None = None
        self._trial = 0
        self.last_result: Any = None

    # ---------------------------------------------------------------- episode
    def _end(self) -> dict[str, Any]:
        """Finish the live episode (teardown, score); its end-of-episode info."""
        ep, self._ep = self._ep, None
        if ep is None:
            return {}
        r = ep.close()
        self.last_result = r
        s = r.score
        info: dict[str, Any] = {
            "bundle": str(r.path),
            "status": r.status,
            "detail": r.detail,
            "scored": s is not None and s.status == "scored",
        }
        if s is not None:
            info.update(
                score=s.score, success=s.success, reason=s.reason, components={c.name: c.earned for c in s.components}
            )
        return info

    def _obs(self, obs: Observation) -> np.ndarray:
        import cv2

        # raw pixels from the port's own grabber: no PNG round trip per step; once the episode's
        # display is gone (it ended under the action), the last screen seen
        bgr = obs.screen if obs.screen is not None else self._frame
        if bgr is None:
            bgr = np.zeros((self.screen_h, self.screen_w, 3), np.uint8)
        self._frame = bgr  # full size, for render(); converted only when asked
        small = (
            bgr if self.obs_scale == 1.0 else cv2.resize(bgr, (self.obs_w, self.obs_h), interpolation=cv2.INTER_AREA)
        )
        return cv2.cvtColor(small, cv2.COLOR_BGR2RGB)  # resize first: the colour swap then touches 1/16 of it

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._end()
        self._trial += 1
        cfg = EpisodeConfig(
            task=self.task_id,
            sim=self.sim,
            provider=self.provider,
            lockstep=True,
            lockstep_slice_s=self.step_s,
            time_limit_s=self._cut,
            frame_hz=self.frame_hz,
            out=self.out,
            seed=seed,
            agent="gymnasium",
            assists=self.assists,
        )
        self._ep = open_episode(cfg, trial=self._trial)
        first = self._ep.start()
        return self._obs(first), {
            "bundle": str(self._ep.path),
            "task": self.task_id,
            "sim": self.sim,
            "time_limit_s": self.time_limit_s,
            "assists": list(self.assists),
        }

    def _act(self, action: dict[str, Any]) -> Observation | None:
        """Run one command through the episode's agent port; None once the episode is over."""
        k = int(action["kind"])
        if not 0 <= k < self._n_kinds:
            raise SimbridgeError(
                f"action kind {k} is outside the action space"
                + ("" if self.allow_done else " (8 'done' needs SimbridgeEnv(..., allow_done=True))")
            )
        kind = KINDS[k]
        x, y = (
            (
                np.clip(np.asarray(action.get("point", (0.5, 0.5)), dtype=float), 0.0, 1.0)
                * (self.screen_w - 1, self.screen_h - 1)
            )
            .round()
            .astype(int)
        )
        key = KEYS[int(action.get("key", 0))]
        ep = self._ep
        assert ep is not None
        try:
            if kind == "noop":
                return ep.act("wait", seconds=self.step_s)
            if kind == "key":
                return ep.act("key", keys=key, hold_s=0.0)  # the port's lockstep slice (step_s) follows every input
            if kind in ("key_down", "key_up"):
                return ep.act(kind, keys=key)
            if kind == "mouse_move":
                return ep.act("mouse_move", x=int(x), y=int(y))
            if kind in ("click", "right_click"):
                return ep.act("click", x=int(x), y=int(y), button="left" if kind == "click" else "right")
            if kind == "scroll":
                return ep.act("scroll", x=int(x), y=int(y), dy=-1 if int(action.get("wheel", 0)) == 0 else 1)
            ep.act("done", reason="gymnasium done action")
        except EpisodeOver:
            pass
        return None

    def step(self, action: dict[str, Any]) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._ep is None:
            raise SimbridgeError("step() before reset() (or after the episode ended): call reset()")
        after = self._act(action)
        alive = after is not None
        seen = after if after is not None else self._ep.observe()
        obs, t = self._obs(seen), seen.t
        if alive and not self._ep.over and t < self.time_limit_s:
            return obs, 0.0, False, False, {"bundle": str(self._ep.path), "t": t}
        info = self._end()
        info["t"] = t
        truncated = info.get("status") == "timeout"
        reward = float(info.get("score") or 0.0) if info.get("scored") else 0.0
        return obs, reward, not truncated, truncated, info

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        import cv2

        return None if self._frame is None else cv2.cvtColor(self._frame, cv2.COLOR_BGR2RGB)

    def close(self) -> None:
        try:
            self._end()
        finally:
            super().close()
