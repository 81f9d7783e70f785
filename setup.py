"""Maps the top-level folders adapters/, verifiers/ and tasks/ into the simbridge namespace.

The folders show the architecture; the import names must not collide with other
distributions (PyPI has projects called `adapters` and `verifiers`).
"""

from setuptools import find_packages, setup

_MAPPED = {"simbridge.adapters": "adapters", "simbridge.verifiers": "verifiers", "simbridge.tasks": "tasks"}


def _packages() -> list[str]:
    packages = find_packages(include=["simbridge", "simbridge.*"])
    for name, folder in _MAPPED.items():
        packages.append(name)
        packages += [f"{name}.{sub}" for sub in find_packages(folder)]
    return packages


setup(packages=_packages(), package_dir=dict(_MAPPED))
