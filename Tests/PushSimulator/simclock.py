"""The simulated wall clock shared by the provider modules (apns.py, oauth.py, fcm.py).

Real time plus an offset that tests move forward with the control command `clock` ({"advance": seconds}, or
{"reset": true} for real time again), so token lifetimes (APNs provider tokens: 1 hour; OAuth access tokens: `expires_in`) can be tested without waiting.
"""

from __future__ import annotations

import time

from server import Simulator

STATE = "clock_offset"


def now(simulator: Simulator) -> float:
    """Seconds since the epoch on the simulated clock."""
    return time.time() + simulator.state.get(STATE, 0.0)


def register(simulator: Simulator) -> None:
    """Adds the `clock` control command; idempotent (apns.py and oauth.py both call it)."""
    simulator.state.setdefault(STATE, 0.0)

    def clock(arguments: dict) -> dict:
        if arguments.get("reset"):
            simulator.state[STATE] = 0.0
        advance = arguments.get("advance", 0)
        if not isinstance(advance, (int, float)) or advance < 0:
            raise ValueError("advance must be a non-negative number of seconds")
        simulator.state[STATE] += float(advance)
        return {"now": now(simulator), "offset": simulator.state[STATE]}

    simulator.control_command("clock", clock)
