"""Recall: finding what a space remembers about a query, without any LLM call."""
