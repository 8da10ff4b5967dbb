"""A policy trained in JAX as an agent (``--agent jax:PATH``, the jax extra), beside the JAX code
that trains it: its network (``network``: the actor-critic over the board planes, masked
logits), its file (``arrays``: pytrees as npz, written atomically) and the agent that plays the
Python env through its GUI (``policy``: the agent kind ``jax`` of the ``puzzlegym.agents``
entry points)."""
