"""Stage 3, evaluation: parsing model output, matching, the checker, metrics, taxonomy, scoring."""
