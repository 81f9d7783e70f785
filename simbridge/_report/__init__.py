"""`simbridge report`: self-contained HTML pages of episodes (plots, track, video) and suites
(leaderboard), offline.

Pages inline everything they need (Plotly's JS, gzip-compressed; figure data downsampled; the
video as a data URI) so a report can be mailed or archived and opened without a network.
"""

from simbridge._report._episode import EpisodeView, load_episode
from simbridge._report._html import write_episode_report
from simbridge._report._suite import load_suite, write_suite_report

__all__ = ["EpisodeView", "load_episode", "load_suite", "write_episode_report", "write_suite_report"]
