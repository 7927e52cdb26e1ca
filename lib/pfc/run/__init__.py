"""Stage 2, runs: backends, prompts, history selection, the response cache and the resumable runner."""
