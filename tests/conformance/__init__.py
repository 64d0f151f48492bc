"""The suite-wide runs: the conformance suite itself and the replays of every recording."""
