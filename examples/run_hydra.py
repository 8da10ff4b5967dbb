"""Play one episode configured with Hydra and print the result as one JSON line: the same app
as ``python -m puzzlegym.run`` (configs shipped in the package, ``puzzlegym.configs``).

    python examples/run_hydra.py env=maze_paint_hard agent=random max_steps=50
    python examples/run_hydra.py +experiment=generated_levels env=maze_paint_medium seed=7
    python examples/run_hydra.py +experiment=rq2 out_dir=runs/rq2   # a dead-end lab study
    python examples/run_hydra.py --cfg job      # show the composed config and exit
"""

from puzzlegym.run import main

if __name__ == "__main__":
    main()
