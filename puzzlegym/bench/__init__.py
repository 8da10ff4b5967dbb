"""Throughput figures (``puzzlegym bench``): env steps/s beside a plain frame copy, rules
transitions/s, browser latency, HTTP requests/s."""
