"""The example simulator's program, run inside the sandbox: `python _world.py '{"alt_ft": 0}'`.

A point mass climbs on a ten-notch throttle: acceleration 10·(notch − 5) − 2·vs ft/s², so notch 5
holds the altitude and each notch above it settles at 5 ft/s more climb (25 ft/s at full). It
starts on the ground; touching the ground faster than 15 ft/s sets `crashed`. Up/Down move the
throttle a notch; Escape quits (exit code 3, a simulator exit).

The window fills the screen (on a bare X server keyboard focus follows the pointer) and shows
the state as an instrument an agent can read: a white bar from the bottom of the screen, 2 px per
foot of altitude, in x 0-99; a green bar, 80 px per throttle notch, in x 100-199; the figures as
text. The state goes to the host on stdout as a JSON line per frame (60 Hz); `pause`/`resume`
arrive on stdin.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from typing import Any

HZ = 60.0
W, H = 1280, 800
PX_PER_FT = 2.0
PX_PER_NOTCH = 80
CRASH_FPS = 15.0


def main(args: dict[str, Any]) -> int:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode((W, H), pygame.NOFRAME)
    font = pygame.font.Font(None, 72)
    alt, vs, notch = float(args.get("alt_ft", 0.0)), 0.0, 0
    elev = float(args.get("elev_ft", 0.0))
    crashed, paused, t_sim = 0, False, 0.0
    stdin_fd, pending = sys.stdin.fileno(), b""
    last = time.monotonic()
    drawn: tuple[int, int] | None = None
    while True:
        while select.select([stdin_fd], [], [], 0)[0]:  # raw reads: select() sees what is pending
            chunk = os.read(stdin_fd, 4096)
            if not chunk:
                return 0
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                paused = line.strip() == b"pause"
        for ev in pygame.event.get():
            if ev.type == pygame.QUIT:
                return 0
            if ev.type == pygame.KEYDOWN:
                if ev.key == pygame.K_ESCAPE:
                    return 3
                if ev.key == pygame.K_UP:
                    notch = min(10, notch + 1)
                if ev.key == pygame.K_DOWN:
                    notch = max(0, notch - 1)
        now = time.monotonic()
        dt, last = min(now - last, 0.1), now  # a stalled frame slows the clock, as real sims do
        if not paused:
            vs += (10.0 * (notch - 5) - 2.0 * vs) * dt
            alt += vs * dt
            if alt <= 0.0:
                if vs < -CRASH_FPS:
                    crashed = 1
                alt, vs = 0.0, max(vs, 0.0)
            t_sim += dt
            state = {
                "t": round(t_sim, 4),
                "alt_agl_ft": round(alt, 3),
                "alt_msl_ft": round(alt + elev, 3),
                "vs_fpm": round(vs * 60.0, 2),
                "throttle": notch / 10.0,
                "on_ground": int(alt <= 0.0),
                "crashed": crashed,
            }
            sys.stdout.write(json.dumps(state) + "\n")
            sys.stdout.flush()
        look = (int(alt * PX_PER_FT), notch)
        if look != drawn:
            drawn = look
            screen.fill((20, 20, 40))
            bar = min(H, look[0])
            screen.fill((255, 255, 255), pygame.Rect(0, H - bar, 100, bar))
            screen.fill((0, 255, 0), pygame.Rect(100, H - notch * PX_PER_NOTCH, 100, notch * PX_PER_NOTCH))
            text = f"ALT {alt:6.1f} ft   THR {notch}/10"
            screen.blit(font.render(text, True, (255, 255, 0)), (300, 360))
            pygame.display.flip()
        time.sleep(max(0.0, 1.0 / HZ - (time.monotonic() - now)))


if __name__ == "__main__":
    sys.exit(main(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}))
