"""T15 agent variants for the FlightGear tests (loaded with `--agent py:t15_agents:FACTORY`)."""

from simbridge.adapters.flightgear.pilots._weight_balance import WeightBalancePilot

#: both tanks full (2 x 129.4 lb): 2,490 lb, over the task's 2,450 lb
FULL_TANKS_LB_PER_TANK = 130.0


def full_tanks(task_id: str) -> WeightBalancePilot:
    """The reference pilot with a fuel plan that ignores the weight limit, and does not check it."""
    return WeightBalancePilot(fuel_lb_per_tank=FULL_TANKS_LB_PER_TANK, check_limits=False)
