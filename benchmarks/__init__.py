"""Measurements of the gateway against a baseline in the same run: retrieval quality, tokens, latency, memory."""
