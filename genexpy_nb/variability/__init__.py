"""Training variability over random seeds: robust (trimmed) KS test, alpha-hat, churn, ECE (SPEC Part B)."""
