"""The Code Execution sandbox: model-written Python in an OS-isolated process (bubblewrap,
namespaces, seccomp, rlimits), its GUI API served over a pipe (docs/sandbox.md).

``harness`` (:class:`~puzzlegym.sandbox.harness.Sandbox`, what the Code Execution agent
holds), ``isolation`` (the launcher's and bubblewrap's command lines, ``require``), ``launch``
and ``child`` (the programs run inside: standard library only), ``seccomp`` (the filter the
child installs). Nothing here imports an env: the harness is handed the GUI calls to serve."""
