"""The embedded driving simulator (`--sim drive`): SUMO's roads, lights and traffic on CARLA's
town maps, the ego car's dynamics from a published vehicle model, and a driver's window."""
