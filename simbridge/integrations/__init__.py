"""simbridge tasks in other frameworks: `inspect_ai` (Inspect AI tasks, extra `inspect`) and
`gymnasium` (Gymnasium environments, extra `gym`). Both are thin adapters over `run_trial`
through `_episode.LiveEpisode`: the same sandbox, audit, recording and verifier as `simbridge run`."""
