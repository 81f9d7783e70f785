"""Verifiers: pure functions from an episode bundle to a Score, registered by name.

A new maneuver check is one function decorated with `@verifier(...)` in a module of this
package plus one task YAML that names it.
"""

from simbridge.verifiers import primitives
from simbridge.verifiers._registry import Params, VerifyContext, check_spec, get, names, score_bundle, verifier

__all__ = ["Params", "VerifyContext", "check_spec", "get", "names", "primitives", "score_bundle", "verifier"]
