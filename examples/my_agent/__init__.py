"""A worked example of your own agent: `simbridge run T16 --sim jsbsim --agent py:my_agent:make`,
run from this `examples/` directory (simbridge puts the current directory on the import path for
`py:` agents; no PYTHONPATH). See docs/own-agent.md.

The agent tunes NAV1 to 114.10 on the JSBSim cockpit's radio stack by clicking its buttons
(pixel positions read off a screenshot of the 1280×800 cockpit), then declares it done: it earns
the task's NAV1 item (0.2 of T16's score). Replace `decide` with your model.
"""

from my_agent.agent import MyAgent, make

__all__ = ["MyAgent", "make"]
