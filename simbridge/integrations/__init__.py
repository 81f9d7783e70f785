"""simbridge tasks in other frameworks: `inspect_ai` (Inspect AI tasks, extra `inspect`) and
`gymnasium` (Gymnasium environments, extra `gym`). Both drive `simbridge._episode.Episode`
directly (`simbridge.episode.open_episode`): the same sandbox, audit, recording and verifier as `simbridge run`."""
