"""A policy trained in JAX as an agent (``--agent jax:PATH``, the jax extra): its network
(``network``: the actor-critic over the board planes, masked logits), its file (``arrays``:
pytrees as npz, written atomically) and the agent that plays the Python env from the board
planes through board actions (``policy``). Training itself is ``puzzlegym.jax.ppo``."""
