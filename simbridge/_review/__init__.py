"""Human review of recorded runs: rubrics, a grade store, blind campaigns and inter-rater agreement."""
