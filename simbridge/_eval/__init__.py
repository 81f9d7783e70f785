"""`simbridge eval`: a suite of episodes (tasks × sims × agents × trials) run in parallel on this
machine or on a Ray cluster, with harness faults retried, --resume, results.parquet and the
metrics table at the end."""

from simbridge._eval._driver import COLUMNS, RESULTS_FILE, EvalResult, metrics_table, run_eval
from simbridge._eval._plan import PLAN_FILE, EpisodeSpec, expand
from simbridge._eval._suite import Suite, SuiteError, load_suite

__all__ = [
    "COLUMNS",
    "PLAN_FILE",
    "RESULTS_FILE",
    "EpisodeSpec",
    "EvalResult",
    "Suite",
    "SuiteError",
    "expand",
    "load_suite",
    "metrics_table",
    "run_eval",
]
