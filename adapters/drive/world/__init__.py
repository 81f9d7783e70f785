"""The drive world: the program that runs INSIDE the sandbox (`python -m
simbridge.adapters.drive.world.sim`): SUMO's roads, lights and traffic, the ego car's dynamics,
the driver's window and the state port the host-side session (`adapters/drive/_session.py`)
reads. Nothing here is imported by the harness's host side except constants (`FRAME_S`).
"""
