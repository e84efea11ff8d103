"""The LLM judges of Databricks Agent Evaluation (seed 001), under its metric names."""
