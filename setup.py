"""Maps the top-level folders adapters/, verifiers/ and tasks/ into the simbridge namespace.

The folders show the architecture; the import names must not collide with other
distributions (PyPI has projects called `adapters` and `verifiers`).

Static tools (mypy, pyright, editors) cannot read `package_dir`, so scripts/setup.sh also
links simbridge/adapters -> ../adapters (and verifiers, tasks) in the working tree; those
links are git-ignored and excluded here, the mapping below is what builds and installs use.
"""

from setuptools import find_packages, setup

_MAPPED = {"simbridge.adapters": "adapters", "simbridge.verifiers": "verifiers", "simbridge.tasks": "tasks"}


def _packages() -> list[str]:
    """simbridge's own packages plus the mapped folders', never the same package twice via a link."""
    linked = [p for name in _MAPPED for p in (name, f"{name}.*")]
    packages = find_packages(include=["simbridge", "simbridge.*"], exclude=linked)
    for name, folder in _MAPPED.items():
        packages.append(name)
        packages += [f"{name}.{sub}" for sub in find_packages(folder)]
    return packages


setup(packages=_packages(), package_dir=dict(_MAPPED))
