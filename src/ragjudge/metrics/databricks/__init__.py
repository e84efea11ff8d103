"""The LLM judges of Databricks Agent Evaluation, under its metric names."""
