"""The record model the env stands on: the typed events of an episode (``events``), the
outcome folded from them (``outcome``), the evaluator that publishes them (``evaluator``),
records on disk (``files``) and the metrics computed from records (``metrics``)."""
